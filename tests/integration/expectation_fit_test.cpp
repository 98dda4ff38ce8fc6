// `run --topology` and `fit` end to end: a real point-to-point sweep under the real mpirun on this
// machine, judged against a topology spec of this machine, then fitted.

#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::allow_root;
using testing::describe;
using testing::directly;
using testing::fields_of;
using testing::lines_of;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;
using testing::under_mpirun;

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) throw std::runtime_error("gethostname failed");
  return name;
}

// This host by the name MPI reports for it. The model's only path between two host-memory ranks
// of one host is the link between its CPU sockets, and the ranks are dealt to the sockets in
// turn; the spec gives the host two, so that ranks 0 and 1 have a path whatever this machine has.
void write_spec(const std::filesystem::path& path) {
  std::ofstream(path) << "name: this-host\nnode:\n  hosts: \"" << this_host()
                      << "\"\n  cpus: 2\n  gpus: 0\n  pcie: {generation: 4, width: 16, switches: 0}\n"
                         "  nics: {count: 1, type: ethernet, rate_gbps: 10}\n";
}

// The fit's table line of `op`: op points sizes alpha_us +- 1/b_GB/s R^2 model... link class.
std::vector<std::string> fit_line(const std::string& out, const std::string& op) {
  for (const std::string& line : lines_of(out))
    if (const auto fields = fields_of(line); !fields.empty() && fields[0] == op) return fields;
  return {};
}

TEST(ExpectationAndFit, PointToPointSweepCarriesTheModelAndFitsAlphaAndBeta) {
  const TempDir dir;
  write_spec(dir / "host.yaml");
  const ProcessResult run =
      run_process(under_mpirun(2, FABRICBENCH_BINARY,
                               {"run", "latency", "bw", "-e", "256K", "-n", "10", "-w", "2", "-W", "8", "--topology",
                                dir / "host.yaml", "--csv", dir / "r.csv", "--json", dir / "r.json"}),
                  allow_root);
  ASSERT_EQ(run.exit_code, 0) << describe(run);
  EXPECT_THAT(run.out, HasSubstr("%exp"));
  EXPECT_THAT(run.err, ::testing::Not(HasSubstr("warning"))) << describe(run);

  const ResultSet from_csv = read_results_csv(dir / "r.csv");
  const ResultSet results = read_results_json(dir / "r.json");
  EXPECT_EQ(from_csv.rows, results.rows);
  ASSERT_EQ(results.rows.size(), 2u * 16);  // 8 B to 256K, two ops
  for (const ResultRow& row : results.rows) {
    SCOPED_TRACE(row.op + " " + std::to_string(row.bytes));
    ASSERT_TRUE(row.efficiency_pct);
    if (row.op == "latency") {
      ASSERT_TRUE(row.expected_time_us);
      EXPECT_FALSE(row.expected_busbw_gbps);
      EXPECT_NEAR(*row.efficiency_pct, 100 * *row.expected_time_us / row.time_median_us, 1e-9 * *row.efficiency_pct);
    } else {
      ASSERT_TRUE(row.expected_busbw_gbps);
      EXPECT_NEAR(*row.efficiency_pct, 100 * *row.busbw_gbps / *row.expected_busbw_gbps, 1e-9 * *row.efficiency_pct);
    }
  }

  const ProcessResult fit = run_process(directly({"fit", dir / "r.json", "--topology", dir / "host.yaml"}));
  ASSERT_EQ(fit.exit_code, 0) << describe(fit);
  const std::vector<std::string> latency = fit_line(fit.out, "latency");
  ASSERT_GE(latency.size(), 12u) << fit.out;
  EXPECT_EQ(latency[1], "16");  // points
  EXPECT_GT(std::stod(latency[3]), 0) << "alpha_us\n" << fit.out;
  EXPECT_GT(std::stod(latency[5]), 0) << "1/beta GB/s\n" << fit.out;
  EXPECT_LE(std::stod(latency[6]), 1.0) << "R^2\n" << fit.out;
  EXPECT_THAT(fit.out, HasSubstr("R^2"));
  EXPECT_THAT(latency.back(), HasSubstr("GB/s)"));  // the class is the route's bottleneck link
  EXPECT_NE(latency[7], "-") << "the model's alpha for the class\n" << fit.out;
  EXPECT_GE(fit_line(fit.out, "bw").size(), 12u) << fit.out;

  // Without a topology the classes are intra- and inter-node.
  const ProcessResult plain = run_process(directly({"fit", dir / "r.csv"}));
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_EQ(fit_line(plain.out, "latency").back(), "intra-node") << plain.out;
}

// diagnose fills the rows that have no expectation, keeps those that have one, and names a host
// the topology lacks once, however many rows name it.
TEST(ExpectationAndFit, DiagnoseFillsMissingExpectationsAndWarnsOncePerUnknownHost) {
  const TempDir dir;
  std::ofstream(dir / "pair.yaml") << "node:\n  hosts: \"node[1-2]\"\n  cpus: 1\n  gpus: 0\n"
                                      "  pcie: {generation: 4, width: 16, switches: 0}\n"
                                      "  nics: {count: 1, type: ethernet, rate_gbps: 100}\n"
                                      "fabric:\n  tiers:\n    - {name: leaf, radix: 4}\n";
  ResultSet results;
  results.provenance.rank_hosts = {"node1", "node2", "ghost"};
  const auto bw_row = [](int dst, const std::string& dst_host, std::uint64_t bytes) {
    ResultRow row;
    row.run_id = "r";
    row.backend = "mpi";
    row.op = "bw";
    row.nranks = 3;
    row.src_rank = 0;
    row.dst_rank = dst;
    row.src_host = "node1";
    row.dst_host = dst_host;
    row.bytes = bytes;
    row.time_median_us = static_cast<double>(bytes) / 10e3;  // 10 GB/s
    row.algbw_gbps = 10;
    row.busbw_gbps = 10;
    return row;
  };
  results.rows.push_back(bw_row(1, "node2", 1 << 20));
  ResultRow judged_before = bw_row(1, "node2", 2 << 20);
  judged_before.expected_busbw_gbps = 40.0;
  judged_before.efficiency_pct = 25.0;
  results.rows.push_back(judged_before);
  for (const std::uint64_t bytes : {1u << 20, 2u << 20}) results.rows.push_back(bw_row(2, "ghost", bytes));
  write_file_atomically(dir / "r.json", results_to_json(results));

  const ProcessResult diagnose =
      run_process(directly({"diagnose", "--results", dir / "r.json", "--topology", dir / "pair.yaml"}));
  ASSERT_EQ(diagnose.exit_code, 0) << describe(diagnose);
  ASSERT_EQ(lines_of(diagnose.err).size(), 1u) << describe(diagnose);
  EXPECT_EQ(lines_of(diagnose.err)[0],
            "fabricbench: warning: host ghost is not in the topology: no expectation for its rows");
  // op size rows expected unit measured unit median% lowest% ...: 100G Ethernet is 12.5 GB/s.
  std::map<std::string, std::vector<std::string>> by_size;
  for (const std::string& line : lines_of(diagnose.out))
    if (const auto fields = fields_of(line); fields.size() > 8 && fields[0] == "bw") by_size[fields[1]] = fields;
  ASSERT_EQ(by_size.size(), 2u) << diagnose.out;
  EXPECT_EQ(by_size["1048576"][2], "1");  // the ghost's row has none
  EXPECT_EQ(by_size["1048576"][3], "12.5");
  EXPECT_EQ(by_size["1048576"][7], "80.0");
  EXPECT_EQ(by_size["2097152"][3], "40");  // kept as the run recorded it
  EXPECT_EQ(by_size["2097152"][7], "25.0");
}

// The expected busbw diagnose gives the results' one collective row (written to DIR/RUN_ID.json), and
// its warnings.
// A run of the nccl backend on `rank_hosts` with one all_reduce row of `bytes` in `time_us`.
ResultSet nccl_all_reduce_run(const std::string& name, std::vector<std::string> rank_hosts, std::uint64_t bytes,
                              double time_us) {
  ResultSet results;
  results.provenance.run_id = name;
  ResultRow row;
  row.run_id = name;
  row.backend = "nccl";
  row.op = "all_reduce";
  row.nranks = static_cast<int>(rank_hosts.size());
  row.bytes = bytes;
  row.time_median_us = time_us;
  row.algbw_gbps = static_cast<double>(bytes) / (time_us * 1e3);
  row.busbw_gbps = row.algbw_gbps * 2 * (row.nranks - 1) / row.nranks;
  results.rows.push_back(row);
  results.provenance.rank_hosts = std::move(rank_hosts);
  return results;
}

std::pair<double, std::string> diagnosed_busbw(const std::filesystem::path& dir, const ResultSet& results,
                                               const std::filesystem::path& topology) {
  const std::filesystem::path path = dir / (results.provenance.run_id + ".json");
  write_file_atomically(path, results_to_json(results));
  const ProcessResult diagnose = run_process(directly({"diagnose", "--results", path, "--topology", topology}));
  EXPECT_EQ(diagnose.exit_code, 0) << describe(diagnose);
  for (const std::string& line : lines_of(diagnose.out))
    if (const auto fields = fields_of(line); fields.size() > 8 && fields[0] == results.rows.at(0).op)
      return {std::stod(fields[3]), diagnose.err};
  ADD_FAILURE() << describe(diagnose);
  return {0.0, diagnose.err};
}

// A 1 MiB all_reduce with NCCL_ALGO=NVLSTree on 2 nodes of 8 H100: NVLS-tree's latency is the
// figure NCCL's releases changed (a network crossing 14 us in 2.21, 20.9 us from 2.28.9).
TEST(ExpectationAndFit, CollectiveExpectationsFollowTheNcclTheRunRecorded) {
  const TempDir dir;
  std::ofstream(dir / "h100.yaml") << "node:\n  hosts: \"node[1-2]\"\n  gpus: 8\n"
                                      "  nvlink: {generation: 4, links_per_gpu: 18, nvswitches: 4}\n"
                                      "  nics: {count: 8, link: 4xNDR}\n"
                                      "fabric:\n  tiers:\n    - {name: leaf, radix: 64}\n";
  const auto expected_busbw = [&](const std::string& name, const std::map<std::string, std::string>& libraries) {
    std::vector<std::string> rank_hosts(8, "node1");
    rank_hosts.resize(16, "node2");
    ResultSet results = nccl_all_reduce_run(name, std::move(rank_hosts), 1 << 20, 100);
    results.provenance.libraries = libraries;
    results.provenance.environment = {{"NCCL_ALGO", "NVLSTree"}};
    return diagnosed_busbw(dir.path(), results, dir / "h100.yaml");
  };
  const auto predicted_busbw = [&](const std::vector<std::string>& version) {
    std::vector<std::string> args{"topo", "predict", "--spec", dir / "h100.yaml", "--algo",     "nvls_tree", "-b",
                                  "1M",   "-e",      "1M",     "--csv",           dir / "p.csv"};
    args.insert(args.end(), version.begin(), version.end());
    const ProcessResult predict = run_process(directly(args));
    EXPECT_EQ(predict.exit_code, 0) << describe(predict);
    return *read_results_csv(dir / "p.csv").rows.at(0).busbw_gbps;
  };
  const double with_2_21 = predicted_busbw({"--nccl-version", "2.21.5"});
  const double newest = predicted_busbw({});
  EXPECT_GT(with_2_21, newest * 1.05);  // 13.8 us less latency on a ~70 us call

  // fabricbench's NCCL backend records "2.21.5"; nccl-tests' header line nccl-library=22105.
  for (const auto& libraries :
       std::vector<std::map<std::string, std::string>>{{{"nccl", "2.21.5"}}, {{"nccl-library", "22105"}}}) {
    const auto [expected, err] = expected_busbw("recorded", libraries);
    EXPECT_NEAR(expected, with_2_21, 0.05 * with_2_21 / 10) << libraries.begin()->first;
    EXPECT_THAT(err, ::testing::Not(HasSubstr("NCCL version not given")));
  }
  const auto [expected, err] = expected_busbw("unrecorded", {});
  EXPECT_NEAR(expected, newest, 0.05 * newest / 10);
  EXPECT_THAT(err, HasSubstr("fabricbench: warning: run unrecorded: assumed: NCCL version not given: NCCL 2.29-2.30's "
                             "tuning figures (the newest the model has)\n"));
}

// A 64 KiB all_reduce on one node of 8 H100 from a run whose one process drove all 8 GPUs (-g 8):
// expected 7 launches (9.95 us) slower than with a process per GPU, as topo predict -g 8 says.
TEST(ExpectationAndFit, CollectiveExpectationsFollowTheGpusPerProcessTheRunRecorded) {
  const TempDir dir;
  std::ofstream(dir / "h100.yaml") << "node:\n  hosts: \"node[1-1]\"\n  gpus: 8\n"
                                      "  nvlink: {generation: 4, links_per_gpu: 18, nvswitches: 4}\n";
  const auto expected_busbw = [&](const std::string& name, std::optional<int> gpus_per_process) {
    ResultSet results = nccl_all_reduce_run(name, std::vector<std::string>(8, "node1"), 64 << 10, 40);
    results.provenance.libraries = {{"nccl", "2.21.5"}};
    results.provenance.gpus_per_process = gpus_per_process;
    return diagnosed_busbw(dir.path(), results, dir / "h100.yaml");
  };
  const auto predicted_busbw = [&](const std::string& gpus_per_process) {
    const ProcessResult predict =
        run_process(directly({"topo", "predict", "--spec", dir / "h100.yaml", "-b", "64K", "-e", "64K", "-g",
                              gpus_per_process, "--nccl-version", "2.21.5", "--csv", dir / "p.csv"}));
    EXPECT_EQ(predict.exit_code, 0) << describe(predict);
    return *read_results_csv(dir / "p.csv").rows.at(0).busbw_gbps;
  };
  const double one_launch = predicted_busbw("1");
  const double eight_launches = predicted_busbw("8");
  // busbw = 64 KiB x 7/4 / time: 7 x 1.422 = 9.954 us more time.
  EXPECT_NEAR(65536 * 1.75 / (eight_launches * 1e3) - 65536 * 1.75 / (one_launch * 1e3), 7 * 1.422, 0.01);

  const auto [with_g8, err_g8] = expected_busbw("g8", 8);
  EXPECT_NEAR(with_g8, eight_launches, 0.01 * eight_launches);
  EXPECT_THAT(err_g8, ::testing::Not(HasSubstr("GPUs per process not recorded")));
  const auto [unrecorded, err] = expected_busbw("unrecorded", std::nullopt);
  EXPECT_NEAR(unrecorded, one_launch, 0.01 * one_launch);
  EXPECT_THAT(err, HasSubstr("fabricbench: warning: run unrecorded: assumed: GPUs per process not recorded: one "
                             "process (one launching thread) per GPU, as nccl-tests -g 1\n"));
}

TEST(ExpectationAndFit, FitWithoutPointToPointRowsIsAOneLineUsageError) {
  const TempDir dir;
  ResultSet results;
  ResultRow row;
  row.backend = "mpi";
  row.op = "all_reduce";
  row.nranks = 2;  // a row of no rank is refused at load
  row.bytes = 1024;
  row.time_median_us = 10;
  results.rows.push_back(row);
  write_file_atomically(dir / "c.json", results_to_json(results));
  const ProcessResult fit = run_process(directly({"fit", dir / "c.json"}));
  EXPECT_EQ(fit.exit_code, 2) << describe(fit);
  ASSERT_EQ(lines_of(fit.err).size(), 1u) << describe(fit);
  EXPECT_THAT(fit.err, HasSubstr("no point-to-point rows"));

  row.op = "latency";
  row.src_host = row.dst_host = "h";
  results.rows = {row, row};
  write_file_atomically(dir / "one-size.json", results_to_json(results));
  const ProcessResult one_size = run_process(directly({"fit", dir / "one-size.json"}));
  EXPECT_EQ(one_size.exit_code, 2) << describe(one_size);
  ASSERT_EQ(lines_of(one_size.err).size(), 1u) << describe(one_size);
  EXPECT_THAT(one_size.err, HasSubstr("1 distinct size"));
}

}  // namespace
}  // namespace fb
