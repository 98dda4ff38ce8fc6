// `fabricbench topo predict` end to end: the real binary on a cluster spec, its CSV rows (the
// model's choice in every row), --explain, forcing as NCCL_ALGO/NCCL_PROTO do, and its warnings.

#include "common/errors.hpp"
#include "process_runner.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::ProcessResult;
using testing::TempDir;

class TopoPredictCommand : public ::testing::Test {
 protected:
  ProcessResult predict(const std::vector<std::string>& args) {
    std::vector<std::string> argv{FABRICBENCH_BINARY, "topo", "predict", "--spec",
                                  std::string(TOPOLOGY_SAMPLES_DIR) + "/dgx_h100_pod.yaml"};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::run_process(argv);
  }

  TempDir dir_;
};

TEST_F(TopoPredictCommand, RowsNameNcclsChoicePerSize) {
  const std::string csv = (dir_ / "p.csv").string();
  const ProcessResult result = predict({"--nodes", "1", "-b", "8", "-e", "8G", "-f", "1024", "--csv", csv});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_csv(csv);
  ASSERT_EQ(results.rows.size(), 4u);  // 8 B, 8 KiB, 8 MiB, 8 GiB
  EXPECT_EQ(results.rows.front().model_algorithm, "ring");
  EXPECT_EQ(results.rows.front().model_protocol, "LL");
  EXPECT_EQ(results.rows.front().model_channels, 32);
  EXPECT_EQ(results.rows.back().model_algorithm, "nvls");
  EXPECT_EQ(results.rows.back().model_protocol, "Simple");
  EXPECT_THAT(results.rows.back().model_limit, HasSubstr("NVLS"));
  // 8 H100: NVLS all_reduce over 18 NVLink4 lanes at 20.6 GB/s, 2 x 7/9 x 0.827 of it (fitted).
  EXPECT_NEAR(*results.rows.back().busbw_gbps, 2 * 7 / 9.0 * 18 * 20.6 * 0.827, 10);
  // Every row carries its 80% interval: one node's small messages are uncertain by x/ 1.5, its
  // large ones by x/ 1.094 (docs/model.md, "Prediction intervals").
  for (const ResultRow& row : results.rows) {
    ASSERT_TRUE(row.busbw_low_gbps && row.busbw_high_gbps && row.time_low_us && row.time_high_us);
    EXPECT_LE(*row.busbw_low_gbps, *row.busbw_gbps);
    EXPECT_GE(*row.busbw_high_gbps, *row.busbw_gbps);
    EXPECT_LE(*row.time_low_us, row.time_median_us);
    EXPECT_GE(*row.time_high_us, row.time_median_us);
  }
  EXPECT_NEAR(*results.rows.front().time_high_us / results.rows.front().time_median_us, 1.507, 0.01);
  EXPECT_NEAR(*results.rows.back().busbw_gbps / *results.rows.back().busbw_low_gbps, 1.094, 0.01);
}

TEST_F(TopoPredictCommand, ExplainPrintsRatesAndEveryRowsLimitingLink) {
  const ProcessResult result =
      predict({"--nodes", "2", "--op", "all_gather", "-b", "1G", "-e", "1G", "--algo", "ring", "--explain"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("# model: 16 ranks on 2 nodes (8 per node), sm_90, NVSwitch"));
  EXPECT_THAT(result.err, HasSubstr("8 rail(s); network 380.0 GB/s per node"));
  EXPECT_THAT(result.err, HasSubstr("ring  Simple       16  node"));
  EXPECT_THAT(result.err, HasSubstr("(IB NDR x4, 47.5 GB/s effective of 50.0)"));
}

TEST_F(TopoPredictCommand, TheNcclReleaseChoosesWithItsOwnFigures) {
  // 2 nodes of 8 H100, NVLS-tree forced at 8 B (nccl#1244 measured 47.5 us with 2.21.5).
  const std::vector<std::string> nvls_tree{"--nodes", "2", "--algo", "nvls_tree", "-b", "8", "-e", "8"};
  const auto time_with = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = nvls_tree;
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string json = (dir_ / "v.json").string();
    args.insert(args.end(), {"--json", json});
    const ProcessResult result = predict(args);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    return std::make_pair(read_results_json(json), result.err);
  };
  // 1.422 us launch + a 25 us NVLink hop + two crossings of (14 + 2 x 2.6) us; 2.28.9 on: 20.9 a crossing.
  const auto [with_2_21, err_2_21] = time_with({"--nccl-version", "2.21.5"});
  EXPECT_NEAR(with_2_21.rows.at(0).time_median_us, 64.82, 0.01);
  EXPECT_EQ(err_2_21.find("NCCL version not given"), std::string::npos) << err_2_21;
  EXPECT_THAT(with_2_21.provenance.command_line, HasSubstr("--nccl-version 2.21.5"));
  const auto [newest, err_newest] = time_with({});
  EXPECT_NEAR(newest.rows.at(0).time_median_us, 78.62, 0.01);
  EXPECT_THAT(err_newest, HasSubstr("fabricbench: warning: assumed: NCCL version not given: NCCL 2.29-2.30's tuning "
                                    "figures (the newest the model has)"));
  EXPECT_THAT(newest.provenance.assumptions,
              ::testing::Contains(
                  "NCCL version not given: NCCL 2.29-2.30's tuning figures (the newest the model has)"));

  const ProcessResult explained =
      predict({"--nodes", "1", "-b", "8", "-e", "8", "--nccl-version", "22105", "--explain"});
  EXPECT_THAT(explained.err,
              HasSubstr("#   NCCL 2.21-2.22 tuner figures (read from NCCL's v2.21.5-1 src/graph/tuning.cc)"));
  const ProcessResult too_old = predict({"--nodes", "2", "--algo", "nvls_tree", "--nccl-version", "2.17"});
  EXPECT_EQ(too_old.exit_code, static_cast<int>(ExitCode::input)) << describe(too_old);
  EXPECT_THAT(too_old.err, HasSubstr("with NCCL 2.17 (NVLS needs NVSwitch, sm_90+ and NCCL 2.17+, NVLS-tree"));
  const ProcessResult bad = predict({"--nccl-version", "two"});
  EXPECT_EQ(bad.exit_code, static_cast<int>(ExitCode::usage)) << describe(bad);
  EXPECT_THAT(bad.err, HasSubstr("--nccl-version must be a release such as 2.21 or 2.21.5"));
}

TEST_F(TopoPredictCommand, OneProcessDrivingEightGpusLaunchesTheirKernelsInTurn) {
  const auto time_with = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"--nodes", "1", "-b", "8", "-e", "8"};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string json = (dir_ / "g.json").string();
    args.insert(args.end(), {"--json", json});
    const ProcessResult result = predict(args);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    return std::make_pair(read_results_json(json), result.err);
  };
  const auto [one, err_one] = time_with({});
  const auto [eight, err_eight] = time_with({"-g", "8", "--explain"});
  // 7 more launches of 1.422 us each; the choice (ring LL) does not change.
  EXPECT_NEAR(eight.rows.at(0).time_median_us - one.rows.at(0).time_median_us, 7 * 1.422, 0.001);
  EXPECT_EQ(eight.rows.at(0).model_protocol, "LL");
  EXPECT_THAT(err_eight, HasSubstr("#   one process launches 8 GPUs' kernels in turn: +10.0 us per call"));
  EXPECT_THAT(eight.provenance.command_line, HasSubstr("--gpus-per-process 8"));
  const auto [four, err_four] = time_with({"--gpus-per-process", "4"});
  EXPECT_NEAR(four.rows.at(0).time_median_us - one.rows.at(0).time_median_us, 3 * 1.422, 0.001);

  const ProcessResult zero = predict({"--nodes", "1", "-g", "0"});
  EXPECT_EQ(zero.exit_code, static_cast<int>(ExitCode::usage)) << describe(zero);
  EXPECT_THAT(zero.err, HasSubstr("--gpus-per-process must be at least 1, got 0"));
  const ProcessResult uneven = predict({"--nodes", "1", "-g", "3"});
  EXPECT_EQ(uneven.exit_code, static_cast<int>(ExitCode::usage)) << describe(uneven);
  EXPECT_THAT(uneven.err, HasSubstr("--gpus-per-process 3 must divide the GPUs per node: node00001 has 8 ranks"));
}

TEST_F(TopoPredictCommand, ImpossibleForcingIsABadInputLine) {
  const ProcessResult result = predict({"--nodes", "1", "--algo", "nvls_tree", "-b", "1M", "-e", "1M"});
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::input)) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("nvls_tree cannot run all_reduce on 8 ranks over 1 nodes"));
  const ProcessResult bad_name = predict({"--proto", "LL64"});
  EXPECT_EQ(bad_name.exit_code, static_cast<int>(ExitCode::usage)) << describe(bad_name);
  EXPECT_THAT(bad_name.err, HasSubstr("--proto must be auto, LL, LL128 or Simple"));
}

TEST_F(TopoPredictCommand, APlacementTheTopologyCannotHoldIsABadInputLine) {
  const ProcessResult more_nodes = predict({"--nodes", "33"});
  EXPECT_EQ(more_nodes.exit_code, static_cast<int>(ExitCode::input)) << describe(more_nodes);
  EXPECT_EQ(more_nodes.err,
            "fabricbench: error: the topology has 32 hosts with GPUs, fewer than the 33 nodes asked for\n");
  const ProcessResult more_gpus = predict({"--nodes", "1", "--gpus-per-node", "9"});
  EXPECT_EQ(more_gpus.exit_code, static_cast<int>(ExitCode::input)) << describe(more_gpus);
  EXPECT_EQ(more_gpus.err, "fabricbench: error: host node00001 has 8 GPUs, fewer than the 9 per node asked for\n");
  const ProcessResult taken = predict({"--nodes", "20", "--job", "op=alltoall,nodes=13"});
  EXPECT_EQ(taken.exit_code, static_cast<int>(ExitCode::input)) << describe(taken);
  EXPECT_EQ(taken.err, "fabricbench: error: the topology has 32 hosts with GPUs, 20 taken by other jobs: too few for "
                       "the 13 nodes job 2 asks for\n");
  const ProcessResult none_left = predict({"--job", "op=alltoall,nodes=32"});
  EXPECT_EQ(none_left.err, "fabricbench: error: the other jobs take all 32 hosts with GPUs: none left for job 1\n");
}

TEST_F(TopoPredictCommand, ARingAcrossHundredsOfNodesWarns) {
  const std::string spec = (dir_ / "wide.yaml").string();
  std::ofstream(spec) << "node:\n  count: 300\n  gpus: 1\n  nvlink: {links_per_gpu: 0, nvswitches: 0}\n"
                         "  pcie: {generation: 5, width: 16, switches: 1}\n  nics: {count: 1, link: 4xNDR}\n"
                         "fabric:\n  tiers:\n    - {name: leaf, radix: 64}\n    - {name: spine, radix: 64}\n";
  const ProcessResult result = testing::run_process(
      {FABRICBENCH_BINARY, "topo", "predict", "--spec", spec, "--algo", "ring", "-b", "1G", "-e", "1G"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("warning: a ring across 300 nodes has 598 latency steps; no one runs that"));
  // The GPUs have no NVLink to name their generation: the guess is a warning too.
  EXPECT_THAT(result.err, HasSubstr("warning: assumed: the GPUs have no NVLink"));
}

// docs/examples/h100-128-taper2.yaml: 128 DGX H100, leaves of 5 nodes with 997.5 GB/s of
// uplinks (21 NDR ports at 47.5 GB/s effective) for 1,900 of NIC ports.
constexpr const char* taper2_h100_128 =
    "node:\n  count: 128\n  cpus: 2\n  gpus: 8\n  nvlink: {generation: 4, links_per_gpu: 18, nvswitches: 4}\n"
    "  pcie: {generation: 5, width: 16, switches: 4}\n  nics: {count: 8, link: 4xNDR}\n"
    "fabric:\n  topology: fat_tree\n  tiers:\n    - {name: leaf, radix: 64, oversubscription: \"2:1\"}\n"
    "    - {name: spine, radix: 64}\n";

TEST_F(TopoPredictCommand, AnotherJobOnTheSameLeavesSlowsTheRingAndIsNamed) {
  const std::string spec = (dir_ / "taper2.yaml").string();
  std::ofstream(spec) << taper2_h100_128;
  const auto run = [&](const std::string& json, std::vector<std::string> extra) {
    std::vector<std::string> argv{
        FABRICBENCH_BINARY, "topo", "predict", "--spec", spec, "--nodes", "64", "--placement", "spread",
        "--algo",           "ring", "--proto", "Simple", "-b", "1G",      "-e", "1G",          "--explain",
        "--json",           json};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run_process(argv);
  };
  const std::string alone_json = (dir_ / "alone.json").string();
  const std::string shared_json = (dir_ / "shared.json").string();
  const ProcessResult alone = run(alone_json, {});
  ASSERT_EQ(alone.exit_code, 0) << describe(alone);
  const ProcessResult shared = run(shared_json, {"--job", "op=alltoall,nodes=64"});
  ASSERT_EQ(shared.exit_code, 0) << describe(shared);
  EXPECT_THAT(shared.err, HasSubstr("# sharing the fabric: job 2 (alltoall on 64 nodes, node00002 ... node00128): its "
                                    "all-pairs exchange over 64 nodes (4032 fabric flows) runs throughout\n"));
  // Leaf 2 holds 2 of this job's nodes and 3 of job 2's: per unit of weight 997.5 / (8 + 3 x 8 x
  // 61/63) GB/s of downlinks, 8 rails of it for the ring.
  EXPECT_THAT(shared.err, HasSubstr("#   a limiting link another job crosses too says 'shared with' that job"));
  EXPECT_THAT(alone.err, ::testing::Not(HasSubstr("shared")));
  EXPECT_THAT(shared.err,
              HasSubstr("#   ring 255.5 GB/s, limited by leaf0002 uplinks, coming down (997.5 GB/s), shared with job 2 "
                        "(alltoall on 64 nodes, node00002 ... node00128)\n"));
  const ResultSet before = read_results_json(alone_json);
  const ResultSet after = read_results_json(shared_json);
  ASSERT_EQ(before.rows.size(), 1u);
  ASSERT_EQ(after.rows.size(), 1u);
  const double ring_gbps = 8 * 997.5 / (8 + 3 * 8 * 61 / 63.0);
  const double gib = 1 << 30;
  EXPECT_NEAR(after.rows[0].time_median_us - before.rows[0].time_median_us,
              gib * (2 * 511 / 512.0) * (1 / ring_gbps - 1 / 380.0) / 1e3, 0.01);
  EXPECT_THAT(after.rows[0].model_limit, HasSubstr("shared with job 2"));
  EXPECT_THAT(before.rows[0].model_limit, ::testing::Not(HasSubstr("shared")));
  EXPECT_THAT(after.provenance.command_line, HasSubstr(" --job 'op=alltoall,nodes=64'"));
  // Besides the NCCL release neither names: the newest figures, assumed.
  ASSERT_EQ(after.provenance.assumptions.size(), 2u);
  EXPECT_THAT(after.provenance.assumptions[0], HasSubstr("sharing the fabric: job 2 (alltoall on 64 nodes"));
  ASSERT_EQ(before.provenance.assumptions.size(), 1u);
  EXPECT_THAT(before.provenance.assumptions[0], HasSubstr("NCCL version not given"));
  EXPECT_EQ(after.provenance.assumptions[1], before.provenance.assumptions[0]);
}

TEST_F(TopoPredictCommand, BadJobSpecsAreUsageErrorsNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"nodes=4", "--job 'nodes=4': op is missing"},
      {"op=alltoall", "--job 'op=alltoall': nodes is missing"},
      {"op=alltoall,nodes=four", "--job 'op=alltoall,nodes=four': nodes must be a positive integer, got 'four'"},
      {"op=allreduce,nodes=4", "--job 'op=allreduce,nodes=4': op must be one of"},
      {"op=alltoall,nodes=4,rack=2", "--job 'op=alltoall,nodes=4,rack=2': unknown field 'rack'"},
      {"op=alltoall,nodes=4,nodes=5", "--job 'op=alltoall,nodes=4,nodes=5': nodes is given twice"},
      {"op=alltoall,placement=node[3-", "--job 'op=alltoall,placement=node[3-': placement must be packed, spread or"},
      {"op=gather,nodes=4", "--job 'op=gather,nodes=4': op gather converges on one root"},
  };
  for (const auto& [spec, message] : cases) {
    const ProcessResult result = predict({"--nodes", "4", "--job", spec});
    EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::usage)) << describe(result);
    EXPECT_THAT(result.err, HasSubstr(message)) << spec;
  }
}

TEST_F(TopoPredictCommand, JobsOnOverlappingHostListsAreRefused) {
  const ProcessResult overlap =
      predict({"--placement", "node[00001-00004]", "--job", "op=alltoall,placement=node[00004-00006]"});
  EXPECT_EQ(overlap.exit_code, static_cast<int>(ExitCode::input)) << describe(overlap);
  EXPECT_EQ(overlap.err,
            "fabricbench: error: placement: host node00004 is named by job 1 and job 2: jobs never share a host\n");
  // Commas inside a host list's brackets belong to it; a packed job takes the hosts left free.
  const ProcessResult named = predict({"--nodes", "2", "-b", "1M", "-e", "1M", "--job",
                                       "op=sendrecv,placement=node[00001-00002,00009],gpus-per-node=2"});
  ASSERT_EQ(named.exit_code, 0) << describe(named);
  EXPECT_THAT(named.err, HasSubstr("# sharing the fabric: job 2 (sendrecv on 3 nodes, node00001 ... node00009): its "
                                   "neighbour exchange over 3 nodes (3 fabric flows) runs throughout"));
  EXPECT_THAT(named.out, HasSubstr("node00003"));
}

TEST_F(TopoPredictCommand, ATerminalGetsATableAndAPipeOrCsvDashGetsCsv) {
  const std::string spec = std::string(TOPOLOGY_SAMPLES_DIR) + "/dgx_h100_pod.yaml";
  const std::string command =
      std::string(FABRICBENCH_BINARY) + " topo predict --spec " + spec + " --nodes 1 -b 1M -e 4M -f 4";
  // script(1) gives the command a pseudo-terminal as its standard output.
  const ProcessResult terminal = testing::run_process({"/usr/bin/script", "-qec", command, "/dev/null"});
  ASSERT_EQ(terminal.exit_code, 0) << describe(terminal);
  EXPECT_THAT(terminal.out, HasSubstr("# predicted all_reduce on 8 ranks (1 nodes x 8)"));
  EXPECT_THAT(terminal.out, HasSubstr("size    time (us)   busbw GB/s"));
  EXPECT_THAT(terminal.out, HasSubstr("\n        4M "));
  EXPECT_EQ(terminal.out.find("fabricbench.results.v1"), std::string::npos);
  const ProcessResult asked = testing::run_process({"/usr/bin/script", "-qec", command + " --csv -", "/dev/null"});
  EXPECT_THAT(asked.out, HasSubstr("fabricbench.results.v1,model-dgx_h100_pod-all_reduce-auto,model,all_reduce"));
  const ProcessResult piped = predict({"--nodes", "1", "-b", "1M", "-e", "4M", "-f", "4"});
  EXPECT_THAT(piped.out, HasSubstr("fabricbench.results.v1,model-dgx_h100_pod-all_reduce-auto,model,all_reduce"));
  EXPECT_EQ(piped.out.find("time (us)"), std::string::npos);
}

}  // namespace
}  // namespace fb
