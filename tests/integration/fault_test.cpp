// Faults a benchmark meets on broken hardware, provoked for real: a rank that stops answering, a
// rank that dies, a termination signal, a disk without room. Each run must end by itself, say
// what happened, and keep every result measured before the fault.

#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <span>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::allow_root;
using testing::ChildProcess;
using testing::describe;
using testing::directly;
using testing::ProcessResult;
using testing::TempDir;
using testing::under_mpirun;
using testing::validate_against_schema;
using testing::wait_for_rows;

std::string read_proc_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The fabricbench process whose command line contains `marker` and that mpirun started as `rank`
// (any rank when started alone); -1 when there is none.
pid_t find_fabricbench(const std::string& marker, int rank) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_proc_file(entry.path() / "comm") != "fabricbench\n") continue;
    if (read_proc_file(entry.path() / "cmdline").find(marker) == std::string::npos) continue;
    const std::string environment = read_proc_file(entry.path() / "environ");
    const std::string rank_variable = std::string("OMPI_COMM_WORLD_RANK=") + std::to_string(rank) + '\0';
    if (rank < 0 || environment.find(rank_variable) != std::string::npos) return std::stoi(name);
  }
  return -1;
}

void expect_complete_results(const std::filesystem::path& csv, const std::filesystem::path& json,
                             std::size_t at_least_rows) {
  const ResultSet from_csv = read_results_csv(csv);
  const ResultSet from_json = read_results_json(json);
  EXPECT_GE(from_csv.rows.size(), at_least_rows);
  EXPECT_GE(from_json.rows.size(), at_least_rows);
  for (const ResultRow& row : from_csv.rows) EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
  // Besides the two files, only the hidden previous version of each (".r.csv.<16 hex digits>"),
  // which a kill -9 leaves behind.
  const std::regex allowed(
      fmt::format(R"(\.?({}|{})(\.[0-9a-f]{{16}})?)", csv.filename().string(), json.filename().string()));
  for (const auto& entry : std::filesystem::directory_iterator(csv.parent_path()))
    EXPECT_TRUE(std::regex_match(entry.path().filename().string(), allowed))
        << entry.path().filename() << ": a temporary file was left behind";
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// Starts a sweep on `nranks` ranks with a step deadline, waits until two sizes are on disk, sends
// `signal_number` to rank `rank`, and waits for the run to end.
ProcessResult signal_rank_mid_sweep(int nranks, const char* timeout_s, int rank, int signal_number,
                                    const std::filesystem::path& csv, const std::filesystem::path& json) {
  ChildProcess run(under_mpirun(nranks, FABRICBENCH_BINARY,
                                {"run", "all_reduce", "-b", "64K", "-e", "256M", "-n", "50", "-T", timeout_s, "--csv",
                                 csv, "--json", json}),
                   allow_root);
  if (!wait_for_rows(csv, 2, std::chrono::seconds(120))) {
    ADD_FAILURE() << "no results reached the disk: " << describe(run.wait(std::chrono::seconds(0)));
    return {};
  }
  const pid_t target = find_fabricbench(csv.string(), rank);
  EXPECT_GT(target, 0);
  if (target > 0) { EXPECT_EQ(::kill(target, signal_number), 0); }
  return run.wait(std::chrono::seconds(90));
}

// A rank stopped in the middle of a sweep (as by a hung driver or a node that stops scheduling):
// the watchdog ends the job within the deadline and names that rank and its host, and only it.
TEST(Watchdog, NamesTheRankThatStoppedAnswering) {
  const TempDir dir;
  const auto csv = dir / "r.csv";
  const auto json = dir / "r.json";
  const ProcessResult result = signal_rank_mid_sweep(4, "3", 2, SIGSTOP, csv, json);
  EXPECT_FALSE(result.timed_out) << describe(result);
  EXPECT_EQ(result.exit_code, 5) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("fabricbench: timeout: all_reduce"));
  // Only rank 2: the others answered, and whichever step each stopped at (rank 0 in the gather of
  // times, rank 3 inside the last iteration), each waits for it.
  EXPECT_THAT(result.err, HasSubstr("ranks that did not arrive: 2 on " + host_name() + " (no answer)\n"));
  expect_complete_results(csv, json, 2);
  // The incident is on disk beside the rows: rank 2 silent, every other rank arrived.
  const std::vector<Incident> incidents = read_results_json(json).incidents;
  ASSERT_EQ(incidents.size(), 1u);
  EXPECT_EQ(incidents[0].kind, "timeout");
  EXPECT_EQ(incidents[0].op, "all_reduce");
  EXPECT_THAT(result.err, HasSubstr(fmt::format("timeout in all_reduce {} B", incidents[0].bytes)));
  EXPECT_THAT(incidents[0].ranks_not_arrived, ElementsAre(IncidentRank{2, host_name(), false, ""}));
  EXPECT_EQ(incidents[0].ranks_arrived.size(), 3u);
  EXPECT_FALSE(incidents[0].round);
  EXPECT_EQ(incidents[0].deadline_s, 3);
  // The incident as the results schema publishes it.
  const ProcessResult valid = validate_against_schema(json, FABRICBENCH_SCHEMAS_DIR "/results.schema.json");
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
}

// A rank killed outright: the launcher notices and ends the job; nothing hangs, nothing is lost.
TEST(Watchdog, RunEndsWhenARankIsKilled) {
  const TempDir dir;
  const auto csv = dir / "r.csv";
  const auto json = dir / "r.json";
  const ProcessResult result = signal_rank_mid_sweep(2, "5", 1, SIGKILL, csv, json);
  EXPECT_FALSE(result.timed_out) << describe(result);
  EXPECT_NE(result.exit_code, 0) << describe(result);
  expect_complete_results(csv, json, 2);
}

// What a collective started without mpirun says first (a run on one rank measures no fabric).
const std::string one_rank_warning =
    "fabricbench: warning: all_reduce on 1 rank moves no data between ranks (started without mpirun?); start it "
    "with mpirun -np N to measure the fabric\n";

// SIGTERM (a job scheduler's time limit, an operator's kill): a one-line notice naming the files,
// the shell's 128 + signal exit status, and files that hold every completed size.
TEST(TerminationSignal, EndsCleanlyWithResultsKept) {
  const TempDir dir;
  const auto csv = dir / "r.csv";
  const auto json = dir / "r.json";
  ChildProcess run(directly({"run", "all_reduce", "-b", "64K", "-e", "1G", "-n", "50", "--csv", csv, "--json", json}),
                   allow_root);
  ASSERT_TRUE(wait_for_rows(csv, 2, std::chrono::seconds(120))) << describe(run.wait(std::chrono::seconds(0)));
  const pid_t fabricbench = find_fabricbench(csv.string(), -1);
  ASSERT_GT(fabricbench, 0);
  ASSERT_EQ(::kill(fabricbench, SIGTERM), 0);

  const ProcessResult result = run.wait(std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 128 + SIGTERM) << describe(result);
  EXPECT_EQ(result.err, one_rank_warning + "fabricbench: interrupted; every completed size is in " + csv.string() +
                            " and " + json.string() + "\n");
  expect_complete_results(csv, json, 2);
}

// `run ... | head -1`: the reader of standard output goes away after one line. The run used to
// die of SIGPIPE with exit 141 (not in the table), no notice, and hidden files beside the
// results; now it ends as for SIGTERM: the notice, 128 + SIGPIPE, and only the two files.
TEST(TerminationSignal, AClosedStandardOutputEndsCleanly) {
  const TempDir dir;
  const auto csv = dir / "r.csv";
  const auto json = dir / "r.json";
  const ProcessResult result = testing::run_process(
      {"/bin/bash", "-c",
       fmt::format("set -o pipefail; '{}' run all_reduce -b 64K -e 1G -n 50 --csv '{}' --json '{}' | head -1",
                   FABRICBENCH_BINARY, csv.string(), json.string())},
      allow_root);
  EXPECT_EQ(result.exit_code, 128 + SIGPIPE) << describe(result);
  EXPECT_EQ(result.err, one_rank_warning + "fabricbench: interrupted; every completed size is in " + csv.string() +
                            " and " + json.string() + "\n");
  EXPECT_EQ(testing::lines_of(result.out).size(), 1u);
  EXPECT_EQ(read_results_json(json).rows.size(), read_results_csv(csv).rows.size());
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"r.csv", "r.json"}));
}

// Open MPI 4.1's mpirun exits 1 when it is itself signalled, although the ranks exit 130 or 143;
// the launcher passes the signal on and exits as fabricbench does. Under real mpirun.
class LauncherSignal : public ::testing::TestWithParam<int> {};

TEST_P(LauncherSignal, MpirunHostfileLauncherExitsWith128PlusTheSignal) {
  const int signal_number = GetParam();
  const TempDir dir;
  std::filesystem::create_directory(dir / "results");
  std::ofstream(dir / "hosts") << "localhost\n";
  const auto csv = dir / "results/r.csv";
  const auto json = dir / "results/r.json";
  ChildProcess run({FABRICBENCH_MPIRUN_LAUNCHER, dir / "hosts", "--binary", FABRICBENCH_BINARY, "--", "all_reduce",
                    "-b", "64K", "-e", "1G", "-n", "50", "--csv", csv, "--json", json},
                   allow_root);
  ASSERT_TRUE(wait_for_rows(csv, 2, std::chrono::seconds(120))) << describe(run.wait(std::chrono::seconds(0)));
  ASSERT_EQ(::kill(run.pid(), signal_number), 0);

  const ProcessResult result = run.wait(std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 128 + signal_number) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("fabricbench: interrupted; every completed size is in " + csv.string() + " and " +
                                    json.string() + "\n"));
  expect_complete_results(csv, json, 2);
  // No temporary file is left beside the results.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "results"))
    names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"r.csv", "r.json"}));
}

INSTANTIATE_TEST_SUITE_P(Signals, LauncherSignal, ::testing::Values(SIGTERM, SIGINT),
                         [](const auto& param_info) { return param_info.param == SIGTERM ? "Sigterm" : "Sigint"; });

// A results directory on a filesystem without room: refused before anything is measured.
TEST(ResultsDirectory, FullDiskIsRefusedBeforeMeasuring) {
  const TempDir dir;
  const auto small_filesystem = dir / "small";
  std::filesystem::create_directory(small_filesystem);
  if (::mount("fabricbench-test", small_filesystem.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root and mount permission): " << std::strerror(errno);
  const ProcessResult result =
      testing::run_process(directly({"run", "all_reduce", "-e", "1M", "-D", small_filesystem / "results"}), allow_root);
  ::umount(small_filesystem.c_str());
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("bytes free, the results need about"));
  EXPECT_THAT(result.out, Not(HasSubstr("all_reduce")));  // no table: nothing was measured
}

// A link another user planted where the results directory will be (as anyone can in /tmp) is
// refused and nothing reaches where it points; the same link owned by the running user is
// followed; a directory of another user's is used, with a warning naming its owner.
TEST(ResultsDirectory, ALinkAnotherUserPlantedIsRefusedAndAnotherUsersDirectoryIsNamed) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving files to another user needs root";
  const TempDir dir;
  constexpr uid_t other = 65534;  // nobody
  std::filesystem::create_directory(dir / "elsewhere");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "results");
  ASSERT_EQ(::lchown((dir / "results").c_str(), other, other), 0) << std::strerror(errno);
  const ProcessResult planted =
      testing::run_process(directly({"run", "all_reduce", "-e", "1K", "-D", dir / "results"}), allow_root);
  EXPECT_EQ(planted.exit_code, 2) << describe(planted);
  EXPECT_THAT(planted.err, HasSubstr(fmt::format("{} is a symbolic link owned by", (dir / "results").string())));
  EXPECT_THAT(planted.err, HasSubstr("(uid 65534), neither you nor the owner of"));
  EXPECT_TRUE(std::filesystem::is_empty(dir / "elsewhere"));

  ASSERT_EQ(::lchown((dir / "results").c_str(), 0, 0), 0) << std::strerror(errno);
  const ProcessResult own =
      testing::run_process(directly({"run", "all_reduce", "-e", "1K", "-D", dir / "results"}), allow_root);
  EXPECT_EQ(own.exit_code, 0) << describe(own);
  EXPECT_THAT(own.err, Not(HasSubstr("warning: results directory")));
  EXPECT_FALSE(std::filesystem::is_empty(dir / "elsewhere"));

  std::filesystem::create_directory(dir / "theirs");
  ASSERT_EQ(::chown((dir / "theirs").c_str(), other, other), 0) << std::strerror(errno);
  const ProcessResult theirs =
      testing::run_process(directly({"run", "all_reduce", "-e", "1K", "-D", dir / "theirs"}), allow_root);
  EXPECT_EQ(theirs.exit_code, 0) << describe(theirs);
  EXPECT_THAT(theirs.err, HasSubstr(fmt::format("fabricbench: warning: results directory {} belongs to",
                                                (dir / "theirs").string())));
  EXPECT_THAT(theirs.err, HasSubstr("(uid 65534), not to you"));
}

}  // namespace
}  // namespace fb
