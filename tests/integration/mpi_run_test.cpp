// `fabricbench run` end to end: the real binary under the real mpirun, reading back the files it
// writes with the project's own results readers.

#include "benchmarks/mpi/mpi_op.hpp"
#include "common/op_catalog.hpp"
#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::allow_root;
using testing::ChildProcess;
using testing::describe;
using testing::fields_of;
using testing::lines_of;
using testing::directly;
using testing::under_mpirun;
using testing::wait_for_rows;
using testing::ProcessResult;
using testing::TempDir;
using testing::run_process;

// The default sweep from 8 bytes, rounded up to the op's unit, doubling up to `max_bytes`.
std::vector<std::uint64_t> expected_sizes(const OpTraits& op, int nranks, std::uint64_t max_bytes) {
  const std::uint64_t unit = size_unit_bytes(op, sizeof(float), nranks);
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = (8 + unit - 1) / unit * unit; bytes <= max_bytes; bytes *= 2) sizes.push_back(bytes);
  return sizes;
}

// The MPI backend has broadcast in place only; gather, scatter and the vector variants out of
// place only; every other collective in both placements.
// Every collective the mpi backend registers, with the number of placements it runs: read from
// the backend's registry, so a new op file is swept here without editing this test.
std::map<std::string, std::size_t> mpi_collective_placements() {
  std::map<std::string, std::size_t> placements;
  for (const MpiOpImplementation& op : MpiOpRegistry::instance().entries())
    if (op_by_name(op.name).op_class == OpClass::collective) placements[std::string(op.name)] = op.placements.size();
  return placements;
}

// Both files of a run, read back; they must hold the same rows.
ResultSet read_both(const std::filesystem::path& csv, const std::filesystem::path& json) {
  const ResultSet from_csv = read_results_csv(csv);
  const ResultSet from_json = read_results_json(json);
  EXPECT_EQ(from_csv.rows, from_json.rows);
  return from_json;
}

// The console table of each op: the sizes of its data lines, by op.
std::map<std::string, std::vector<std::uint64_t>> console_sizes(const std::string& out) {
  std::map<std::string, std::vector<std::uint64_t>> sizes;
  std::string op;
  for (const std::string& line : lines_of(out)) {
    const auto fields = fields_of(line);
    if (fields.empty()) continue;
    if (fields[0] == "#") {
      if (fields.size() >= 2 && find_op(fields[1])) op = fields[1];
      continue;
    }
    sizes[op].push_back(std::stoull(fields[0]));
  }
  return sizes;
}

class CollectiveSweep : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveSweep, EveryOpValidatesAndReportsCatalogBusbw) {
  const int nranks = GetParam();
  const std::map<std::string, std::size_t> placements = mpi_collective_placements();
  std::vector<std::string> ops;
  for (const auto& [op, count] : placements) ops.push_back(op);
  ASSERT_GE(ops.size(), 11u);  // the eleven of the README at least
  const TempDir dir;
  std::vector<std::string> args{"run"};
  args.insert(args.end(), ops.begin(), ops.end());
  args.insert(args.end(), {"-e", "64K", "-n", "3", "-w", "1", "--csv", dir / "r.csv", "--json", dir / "r.json"});
  const ProcessResult result = run_process(under_mpirun(nranks, FABRICBENCH_BINARY, args), allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);

  const ResultSet results = read_both(dir / "r.csv", dir / "r.json");
  std::size_t expected_rows = 0;
  for (const auto& op : ops)
    expected_rows += expected_sizes(op_by_name(op), nranks, 64 << 10).size() * placements.at(op);
  EXPECT_EQ(results.rows.size(), expected_rows);
  EXPECT_EQ(results.provenance.nranks, nranks);
  EXPECT_EQ(results.provenance.gpus_per_process, 1);  // -g's default, recorded

  for (const ResultRow& row : results.rows) {
    SCOPED_TRACE(row.op + " " + std::to_string(row.bytes) + (row.in_place ? " in-place" : " out-of-place"));
    EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
    EXPECT_EQ(row.nranks, nranks);
    EXPECT_EQ(row.iterations, 3);
    ASSERT_TRUE(row.busbw_gbps.has_value());
    ASSERT_GT(row.algbw_gbps, 0);
    const double factor = *busbw_factor_for(op_by_name(row.op), nranks);
    EXPECT_NEAR(*row.busbw_gbps / row.algbw_gbps, factor, 1e-9 * factor);
    EXPECT_EQ(row.count, count_per_rank(op_by_name(row.op), row.bytes, sizeof(float), nranks));
  }

  const auto printed = console_sizes(result.out);
  for (const auto& op : ops)
    EXPECT_EQ(printed.count(op) ? printed.at(op) : std::vector<std::uint64_t>{},
              expected_sizes(op_by_name(op), nranks, 64 << 10))
        << op << "\n"
        << result.out;
  EXPECT_THAT(result.out, HasSubstr("out-of-place"));
  EXPECT_THAT(result.out, HasSubstr("#wrong"));
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollectiveSweep, ::testing::Values(2, 4),
                         [](const auto& param_info) { return "np" + std::to_string(param_info.param); });

// Rooted ops on a root other than 0, an odd rank count, an integer type and a reduction other than
// the sum: every rank's output checks out element by element.
TEST(RootedOps, ValidateWithTheLastRankAsRootAndMaxOnInt32) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(3, FABRICBENCH_BINARY,
                               {"run", "reduce", "gather", "scatter",     "-b",     "12",          "-e",
                                "48K", "-n",     "2",      "-r",          "2",      "-d",          "int32",
                                "-o",  "max",    "--csv",  dir / "r.csv", "--json", dir / "r.json"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_both(dir / "r.csv", dir / "r.json");
  std::map<std::string, std::size_t> rows_by_op;
  for (const ResultRow& row : results.rows) {
    SCOPED_TRACE(row.op + " " + std::to_string(row.bytes));
    ++rows_by_op[row.op];
    EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
    EXPECT_EQ(row.root, std::optional<int>(2));
    EXPECT_EQ(row.redop, row.op == "reduce" ? "max" : "none");
  }
  // 12 B to 48 KiB doubling: 13 sizes; reduce in both placements.
  EXPECT_EQ(rows_by_op, (std::map<std::string, std::size_t>{{"gather", 13}, {"reduce", 26}, {"scatter", 13}}));
}

TEST(PointToPoint, LatencyBwBibwBetweenRanksZeroAndOne) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(2, FABRICBENCH_BINARY,
                               {"run", "latency", "bw", "bibw", "-e", "4K", "-n", "3", "-w", "1", "-W", "4", "--csv",
                                dir / "r.csv", "--json", dir / "r.json"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_both(dir / "r.csv", dir / "r.json");
  // 8 bytes to 4K is 10 sizes, out-of-place only.
  ASSERT_EQ(results.rows.size(), 3u * 10);
  for (const ResultRow& row : results.rows) {
    SCOPED_TRACE(row.op + " " + std::to_string(row.bytes));
    EXPECT_EQ(row.src_rank, std::optional<int>(0));
    EXPECT_EQ(row.dst_rank, std::optional<int>(1));
    EXPECT_FALSE(row.in_place);
    EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
    // bibw moves a message each way in the time of one.
    const double bytes_counted = static_cast<double>(row.bytes) * (row.op == "bibw" ? 2 : 1);
    const double expected_algbw = bytes_counted / (row.time_median_us * 1e-6) / 1e9;
    EXPECT_NEAR(row.algbw_gbps, expected_algbw, 1e-9 * expected_algbw);
  }
}

TEST(SingleRank, AllReduceHasNoBusBandwidth) {
  const TempDir dir;
  const ProcessResult result = run_process(under_mpirun(1, FABRICBENCH_BINARY,
                                                        {"run", "all_reduce", "-e", "1K", "-n", "3", "-w", "1", "--csv",
                                                         dir / "r.csv", "--json", dir / "r.json"}),
                                           allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_both(dir / "r.csv", dir / "r.json");
  ASSERT_EQ(results.rows.size(), 8u * 2);  // 8 bytes to 1K, both placements
  // read_both read the CSV too: an empty busbw there means an empty cell, not a 0.
  for (const ResultRow& row : results.rows) {
    EXPECT_FALSE(row.busbw_gbps.has_value()) << row.bytes;
    EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
  }
  int table_lines = 0;
  for (const std::string& line : lines_of(result.out)) {
    const auto fields = fields_of(line);
    if (fields.empty() || fields[0] == "#") continue;
    ++table_lines;
    // size count type redop root, time algbw busbw #wrong per placement (nccl-tests' columns),
    // then p99 cv% mean iters per placement
    ASSERT_EQ(fields.size(), 21u) << line;
    EXPECT_EQ(fields[7], "n/a") << line;
    EXPECT_EQ(fields[11], "n/a") << line;
  }
  EXPECT_EQ(table_lines, 8);
}

// A flag or plan error: only rank 0 reports it, on one "fabricbench: error:" line, and the
// exit code says "usage".
struct BadInput {
  std::string name;
  int nranks;
  std::vector<std::string> args;  // after "run"; the results options are added by the test
  std::string problem;            // a part of the message that names the problem
  bool also_without_mpirun;       // the error does not need a particular rank count
};

void PrintTo(const BadInput& input, std::ostream* out) { *out << input.name; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  std::vector<std::string> run_args(const TempDir& dir) const {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
    // A results directory of the test's own, unless the case is about the results directory.
    if (std::find(args.begin(), args.end(), "-D") == args.end()) args.insert(args.end(), {"-D", dir / "results"});
    for (std::string& arg : args)
      if (arg.starts_with("TMP/")) arg = dir / arg.substr(4);
    return args;
  }
};

TEST_P(BadInputTest, UnderMpirunExitsTwoWithOneErrorLineFromRankZero) {
  const TempDir dir;
  std::ofstream(dir / "plain-file") << "a regular file\n";
  const ProcessResult result =
      run_process(under_mpirun(GetParam().nranks, FABRICBENCH_BINARY, run_args(dir)), allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  // mpirun adds its own report of the failed job; count only the program's lines.
  std::vector<std::string> own_lines;
  for (const std::string& line : lines_of(result.err))
    if (line.starts_with("fabricbench:")) own_lines.push_back(line);
  ASSERT_EQ(own_lines.size(), 1u) << describe(result);
  EXPECT_THAT(own_lines[0], StartsWith("fabricbench: error: "));
  EXPECT_THAT(own_lines[0], HasSubstr(GetParam().problem));
  EXPECT_FALSE(std::filesystem::exists(dir / "results")) << "results written for a refused run";
}

TEST_P(BadInputTest, WithoutMpirunStderrIsExactlyTheErrorLine) {
  if (!GetParam().also_without_mpirun) GTEST_SKIP() << "needs " << GetParam().nranks << " ranks";
  const TempDir dir;
  std::ofstream(dir / "plain-file") << "a regular file\n";
  const ProcessResult result = run_process(directly(run_args(dir)), allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  const auto lines = lines_of(result.err);
  ASSERT_EQ(lines.size(), 1u) << describe(result);
  EXPECT_THAT(lines[0], StartsWith("fabricbench: error: "));
  EXPECT_THAT(lines[0], HasSubstr(GetParam().problem));
  EXPECT_EQ(result.err.back(), '\n');
}

INSTANTIATE_TEST_SUITE_P(
    Run, BadInputTest,
    ::testing::Values(
        BadInput{"MinAboveMax", 2, {"all_reduce", "-b", "1M", "-e", "1K"}, "-b 1M is larger than -e 1K", true},
        BadInput{"ZeroMin", 2, {"all_reduce", "-b", "0"}, "-b (minimum size) must be greater than 0", true},
        BadInput{"UnknownBackend", 2, {"all_reduce", "--backend", "ucx"}, "unknown backend 'ucx' (available: ", true},
        BadInput{"NegativeMin", 2, {"all_reduce", "-b", "-8"}, "'-8' is negative", true},
        BadInput{"AllGatherSizeNotAMultiple",
                 2,
                 {"all_gather", "-b", "6", "-d", "int32"},
                 "-b 6 is not a multiple of 8 bytes",
                 false},
        BadInput{"UnknownOp", 2, {"allreduce"}, "unknown op 'allreduce'", true},
        BadInput{"UnknownType", 2, {"all_reduce", "-d", "float7"}, "unknown data type 'float7'", true},
        BadInput{"HalfOnMpiBackend", 2, {"all_reduce", "-d", "half"}, "half is not supported by the mpi backend", true},
        BadInput{"ResultsDirUnderARegularFile",
                 2,
                 {"all_reduce", "-e", "64", "-D", "TMP/plain-file/results"},
                 "plain-file/results: Not a directory",
                 true},
        BadInput{"LatencyOnOneRank", 1, {"latency"}, "at least 2 ranks", true},
        // 30 GiB of buffers per rank, on 4 ranks of this node: refused before any
        // allocation instead of ended by the OOM killer.
        BadInput{"BuffersBeyondTheNodesMemory",
                 4,
                 {"all_reduce", "-b", "15G", "-e", "15G", "-d", "double"},
                 "all_reduce at 16106127360 B (double, -n 20) needs 32212255680 B of memory per rank",
                 false},
        BadInput{"IterationTimesBeyondTheNodesMemory",
                 2,
                 {"all_reduce", "-e", "8", "-n", "2000000000"},
                 "(float, -n 2000000000) needs 64000000016 B of memory per rank (80000000032 B for the 2 "
                 "ranks on ",
                 false},
        // A billion messages in flight: 2 TB of requests, refused instead of the
        // OOM killer's exit 137 after 41 s.
        BadInput{
            "WindowBeyondTheNodesMemory", 2, {"bw", "-e", "8", "-W", "1000000000"}, ", -W 1000000000) needs ", false},
        BadInput{"MaxItersBeyondTheNodesMemory",
                 2,
                 {"all_reduce", "-e", "8", "-n", "auto", "--max-iters", "2000000000"},
                 "(float, --max-iters 2000000000) needs ",
                 false},
        BadInput{"NanTimeout", 2, {"all_reduce", "-T", "nan"}, "--timeout: nan is not a finite number", true},
        BadInput{"InfiniteTimeout", 2, {"all_reduce", "-T", "inf"}, "--timeout: inf is not a finite number", true},
        BadInput{"SubnetOutOfRange",
                 2,
                 {"all_reduce", "--watchdog-interface", "10.0.0.0/33"},
                 "--watchdog-interface 10.0.0.0/33 is not a subnet a.b.c.d/n with n from 0 to 32",
                 true},
        BadInput{"InterfaceRankZeroLacks",
                 2,
                 {"all_reduce", "--watchdog-interface", "fbnosuchif0"},
                 "--watchdog-interface fbnosuchif0 has no IPv4 address on rank 0's host ",
                 true}),
    [](const auto& param_info) { return param_info.param.name; });

// Under srun without an MPI plugin (--mpi=none) each task starts alone and only SLURM_PROCID tells
// them apart: errors every task finds alike, before MPI, come from task 0 only. Covers the command
// line parser (main) and the run options (run).
TEST(LauncherRank, SrunTasksOtherThanTheFirstStaySilentOnErrorsFoundBeforeMpi) {
  const TempDir dir;
  const std::vector<std::vector<std::string>> commands{{"run", "all_reduce", "-b", "0", "-D", dir / "results"},
                                                       {"run", "all_reduce", "--no-such-flag"}};
  for (const std::vector<std::string>& args : commands) {
    std::vector<std::string> environment = allow_root;
    environment.push_back("SLURM_PROCID=0");
    const ProcessResult first = run_process(directly(args), environment);
    EXPECT_EQ(first.exit_code, 2) << describe(first);
    ASSERT_EQ(lines_of(first.err).size(), 1u) << describe(first);
    EXPECT_THAT(first.err, StartsWith("fabricbench: error: "));

    environment.back() = "SLURM_PROCID=3";
    const ProcessResult other = run_process(directly(args), environment);
    EXPECT_EQ(other.exit_code, 2) << describe(other);
    EXPECT_EQ(other.err, "") << describe(other);
    EXPECT_EQ(other.out, "") << describe(other);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "results"));
}

// all_reduce started without mpirun ran one rank and wrote results without a word; it now warns
// (and still runs: one rank is a valid check of the machinery), and says nothing under mpirun.
TEST(OneRank, ACollectiveOnOneRankIsWarnedOf) {
  const TempDir dir;
  const std::vector<std::string> args{"run", "all_reduce", "-e", "1K", "-n", "2", "-D", dir / "results"};
  const ProcessResult alone = run_process(directly(args), allow_root);
  EXPECT_EQ(alone.exit_code, 0) << describe(alone);
  EXPECT_THAT(alone.err, HasSubstr("fabricbench: warning: all_reduce on 1 rank moves no data between ranks (started "
                                   "without mpirun?); start it with mpirun -np N to measure the fabric\n"));
  const ProcessResult two = run_process(under_mpirun(2, FABRICBENCH_BINARY, args), allow_root);
  EXPECT_EQ(two.exit_code, 0) << describe(two);
  EXPECT_THAT(two.err, Not(HasSubstr("moves no data between ranks")));
}

// The results files after the run is killed: a run is cut short by SIGKILL of mpirun and every
// rank while it measures; both files must hold every row measured so far, complete.
TEST(KilledRun, ResultsFilesStayCompleteAndReadable) {
  const TempDir dir;
  const auto csv = dir / "r.csv";
  const auto json = dir / "r.json";
  ChildProcess run(under_mpirun(2, FABRICBENCH_BINARY,
                                {"run", "all_reduce", "-b", "1M", "-e", "512M", "-n", "20", "--csv", csv, "--json",
                                 json}),
                   allow_root);
  ASSERT_TRUE(wait_for_rows(csv, 2, std::chrono::seconds(120))) << describe(run.wait(std::chrono::seconds(0)));
  run.kill_session();

  const ResultSet from_csv = read_results_csv(csv);
  const ResultSet from_json = read_results_json(json);
  EXPECT_GE(from_csv.rows.size(), 2u);
  EXPECT_GE(from_json.rows.size(), 2u);
  // 1M to 512M in both placements is 20 rows: fewer shows the kill landed mid-sweep.
  EXPECT_LT(from_csv.rows.size(), 20u);
  // A kill between the two replacements can leave the JSON one size (two rows: out-of-place and
  // in-place) behind the CSV, never more.
  EXPECT_LE(from_csv.rows.size() - std::min(from_csv.rows.size(), from_json.rows.size()), 2u);
  for (const ResultSet* results : {&from_csv, &from_json}) {
    for (std::size_t i = 0; i < results->rows.size(); ++i) {
      const ResultRow& row = results->rows[i];
      EXPECT_EQ(row.op, "all_reduce");
      EXPECT_EQ(row.bytes, (1ull << 20) << (i / 2)) << i;  // out-of-place and in-place per size
      EXPECT_EQ(row.iterations, 20);
      EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
      EXPECT_FALSE(row.timestamp.empty());
    }
  }
  const std::size_t common = std::min(from_csv.rows.size(), from_json.rows.size());
  EXPECT_TRUE(std::equal(from_csv.rows.begin(), from_csv.rows.begin() + common, from_json.rows.begin()));
}

TEST(WrongResults, FailTheRunAndAreCountedInTheResults) {
  const TempDir dir;
  const ProcessResult result = run_process(under_mpirun(2, FABRICBENCH_FAULT_INJECTED_BINARY,
                                                        {"run", "all_reduce", "-b", "4K", "-e", "4K", "-n", "2", "-w",
                                                         "1", "--csv", dir / "r.csv", "--json", dir / "r.json"}),
                                           {allow_root[0], allow_root[1], "FABRICBENCH_CORRUPT_RANK=1"});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  const ResultSet results = read_both(dir / "r.csv", dir / "r.json");
  ASSERT_EQ(results.rows.size(), 2u);
  // Rank 1 received one wrong element in each placement's checked iteration.
  for (const ResultRow& row : results.rows) EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(1)) << row.in_place;
  EXPECT_THAT(result.out, HasSubstr("all_reduce: peak busbw"));
  EXPECT_THAT(result.out, HasSubstr("wrong elements: 2 FAILED"));
}

// The same binary without the fault passes: the failure above comes from the injected fault.
TEST(WrongResults, FaultInjectedBinaryPassesWithoutTheFault) {
  const TempDir dir;
  const ProcessResult result = run_process(under_mpirun(2, FABRICBENCH_FAULT_INJECTED_BINARY,
                                                        {"run", "all_reduce", "-b", "4K", "-e", "4K", "-n", "2", "-w",
                                                         "1", "-D", dir / "results"}),
                                           allow_root);
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("wrong elements: 0 OK"));
}

}  // namespace
}  // namespace fb

namespace fb {
namespace {

// -n auto under the real mpirun: the iterations each row records follow the bounds.
std::map<std::string, int> iterations_by_op(const std::vector<std::string>& flags, const std::string& size = "8") {
  const TempDir dir;
  std::vector<std::string> args{"run", "-b", size, "-e", size, "--csv", dir / "r.csv", "--json", dir / "r.json"};
  args.insert(args.end(), flags.begin(), flags.end());
  const ProcessResult result = run_process(under_mpirun(2, FABRICBENCH_BINARY, args), allow_root);
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  std::map<std::string, int> iterations;
  if (result.exit_code != 0) return iterations;
  for (const ResultRow& row : read_results_json(dir / "r.json").rows)
    iterations[row.op + (row.in_place ? " in" : "")] = row.iterations;
  return iterations;
}

TEST(AutoIterations, PointToPointFillsMinTimeByDefaultCollectivesKeepTwenty) {
  const std::map<std::string, int> iterations = iterations_by_op({"latency", "all_reduce"});
  ASSERT_EQ(iterations.size(), 3u);
  // 8 B ping-pong takes about a microsecond here: 0.1 s is more than 20 of them.
  EXPECT_GT(iterations.at("latency"), 20);
  EXPECT_LE(iterations.at("latency"), 100000);
  EXPECT_EQ(iterations.at("all_reduce"), 20);
  EXPECT_EQ(iterations.at("all_reduce in"), 20);
}

TEST(AutoIterations, TheBoundsHold) {
  EXPECT_EQ(iterations_by_op({"latency", "-n", "auto", "--max-iters", "50"}).at("latency"), 50);
  EXPECT_EQ(iterations_by_op({"latency", "--min-time", "1e-9"}).at("latency"), 20);
  EXPECT_EQ(iterations_by_op({"latency", "-n", "7"}).at("latency"), 7);
  const std::map<std::string, int> all_auto = iterations_by_op({"all_reduce", "-n", "auto", "--max-iters", "64"});
  EXPECT_EQ(all_auto.at("all_reduce"), 64);
  EXPECT_EQ(all_auto.at("all_reduce in"), 64);
}

// One bw iteration is a window of 64 messages: at 4 MiB tens of milliseconds, so -n auto's first
// 20 (kept as samples) already fill a short --min-time and the count stays within the bounds.
TEST(AutoIterations, A4MiBBwWindowCountsWithinTheBounds) {
  EXPECT_EQ(iterations_by_op({"bw", "--min-time", "1e-9"}, "4M").at("bw"), 20);
  EXPECT_EQ(iterations_by_op({"bw", "-n", "auto", "--max-iters", "20", "--min-time", "100"}, "4M").at("bw"), 20);
  const int filled = iterations_by_op({"bw", "--min-time", "0.5", "--max-iters", "24"}, "4M").at("bw");
  EXPECT_GE(filled, 20);
  EXPECT_LE(filled, 24);
}

TEST(AutoIterations, ACountThatIsNotOneIsAUsageError) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(2, FABRICBENCH_BINARY, {"run", "latency", "-n", "five", "-D", dir / "out"}), allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("fabricbench: error: -n five is neither a count nor auto"));
}

// The pages behind the host buffers are the run's provenance: huge pages unless --host-pages
// base, as the kernel granted them (this machine's THP mode decides whether it can).
TEST(HostPages, TheResultsSayWhichPagesBackedTheBuffers) {
  const TempDir dir;
  const auto run_bw = [&](std::vector<std::string> flags, const std::string& name) {
    std::vector<std::string> args{"run",    "bw",
                                  "-b",     "4M",
                                  "-e",     "4M",
                                  "-n",     "2",
                                  "--json", dir / (name + ".json"),
                                  "--csv",  dir / (name + ".csv")};
    args.insert(args.end(), flags.begin(), flags.end());
    return run_process(under_mpirun(2, FABRICBENCH_BINARY, args), allow_root);
  };
  const ProcessResult huge = run_bw({}, "huge");
  ASSERT_EQ(huge.exit_code, 0) << describe(huge);
  const std::string huge_pages = read_results_json(dir / "huge.json").provenance.host_buffer_pages;
  EXPECT_THAT(huge.out, HasSubstr("# host buffers: " + huge_pages + "\n"));
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string thp_modes;
  std::getline(thp, thp_modes);
  if (thp_modes.find("[never]") != std::string::npos || thp_modes.empty()) {
    EXPECT_THAT(huge_pages, HasSubstr("asked for and not granted"));
    EXPECT_THAT(huge.err, HasSubstr("fabricbench: warning: host buffers are on"));
  } else {
    EXPECT_THAT(huge_pages, StartsWith("2 MiB transparent huge pages for buffers of 64 KiB and more"));
    EXPECT_THAT(huge.err, ::testing::Not(HasSubstr("warning")));
  }

  const ProcessResult base = run_bw({"--host-pages", "base"}, "base");
  ASSERT_EQ(base.exit_code, 0) << describe(base);
  EXPECT_EQ(read_results_json(dir / "base.json").provenance.host_buffer_pages, "4 KiB pages (--host-pages base)");

  const ProcessResult wrong = run_bw({"--host-pages", "giant"}, "wrong");
  EXPECT_EQ(wrong.exit_code, 2) << describe(wrong);
  EXPECT_THAT(wrong.err, HasSubstr("--host-pages"));
}

}  // namespace
}  // namespace fb

namespace fb {
namespace {

// Soak: the whole sweep again, every row marked with its repetition, in order.
TEST(Soak, RepeatRunsTheSweepThatManyTimesAndMarksEveryRow) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(4, FABRICBENCH_BINARY,
                               {"run", "pairwise", "--pair-endpoints", "ranks", "-b", "64K", "-e", "128K", "-n", "3",
                                "--repeat", "3", "--csv", dir / "r.csv", "--json", dir / "r.json"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_both(dir / "r.csv", dir / "r.json");
  std::map<int, std::size_t> rows_by_repetition;
  int last_repetition = 0;
  for (const ResultRow& row : results.rows) {
    ASSERT_TRUE(row.repetition.has_value());
    EXPECT_GE(*row.repetition, last_repetition);
    last_repetition = *row.repetition;
    ++rows_by_repetition[*row.repetition];
  }
  // 4 ranks: 12 ordered pairs at each of 2 sizes, per repetition.
  EXPECT_EQ(rows_by_repetition, (std::map<int, std::size_t>{{0, 24}, {1, 24}, {2, 24}}));
  // The console counts them as a person does, from 1 (the rows' field from 0).
  std::vector<std::string> announced;
  for (const std::string& line : lines_of(result.out))
    if (line.starts_with("# repetition ")) announced.push_back(line.substr(0, line.find(" at ")));
  EXPECT_EQ(announced, (std::vector<std::string>{"# repetition 1", "# repetition 2", "# repetition 3"}));
}

// --progress: every round of every size of a pair pattern on stderr, one line each when stderr
// is not a terminal; the console table on stdout stays clean of them.
TEST(Progress, EveryRoundOfAPairPatternIsALineOnStderr) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(4, FABRICBENCH_BINARY,
                               {"run", "pairwise", "--pair-endpoints", "ranks", "-b", "8", "-e", "16", "-n", "3",
                                "--progress", "--csv", dir / "r.csv", "--json", dir / "r.json"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  std::vector<std::string> rounds;
  for (const std::string& line : lines_of(result.err)) {
    if (!line.starts_with("# pairwise ")) continue;
    const std::size_t elapsed = line.find(" s elapsed");
    ASSERT_NE(elapsed, std::string::npos) << line;
    // The ETA is left out once every round is done.
    EXPECT_EQ(line.find(", ETA ") != std::string::npos, line.find("round 6 of 6") == std::string::npos) << line;
    rounds.push_back(line.substr(0, line.rfind(',', elapsed)));
  }
  // 4 endpoints: 3 pairings, each in both directions.
  std::vector<std::string> expected;
  for (int bytes : {8, 16})
    for (int round = 1; round <= 6; ++round)
      expected.push_back(fmt::format("# pairwise {} bytes: round {} of 6", bytes, round));
  EXPECT_EQ(rounds, expected) << result.err;
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("elapsed")));
}

TEST(Soak, DurationRepeatsUntilItHasPassed) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(2, FABRICBENCH_BINARY,
                               {"run", "latency", "-b", "8", "-e", "8", "-n", "3", "--duration", "0.5s", "--csv",
                                dir / "r.csv", "--json", dir / "r.json"}),
                  allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_json(dir / "r.json");
  ASSERT_GE(results.rows.size(), 2u);
  for (std::size_t i = 0; i < results.rows.size(); ++i) EXPECT_EQ(results.rows[i].repetition, static_cast<int>(i));
}

TEST(Soak, ADurationWithoutUnitOrValueIsAUsageError) {
  const TempDir dir;
  const ProcessResult result =
      run_process(under_mpirun(2, FABRICBENCH_BINARY, {"run", "latency", "--duration", "2 weeks", "-D", dir / "out"}),
                  allow_root);
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("--duration 2 weeks is not a positive time such as 90s, 30m or 2h"));
}

}  // namespace
}  // namespace fb
