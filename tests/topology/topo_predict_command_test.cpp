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
  // 8 H100: NVLS all_reduce over 18 NVLink4 lanes at 20.6 GB/s, 2 x 7/9 x 0.85 of it.
  EXPECT_NEAR(*results.rows.back().busbw_gbps, 2 * 7 / 9.0 * 18 * 20.6 * 0.85, 10);
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
  EXPECT_EQ(more_nodes.err, "fabricbench: error: the topology has 32 hosts with GPUs, fewer than the 33 nodes asked for\n");
  const ProcessResult more_gpus = predict({"--nodes", "1", "--gpus-per-node", "9"});
  EXPECT_EQ(more_gpus.exit_code, static_cast<int>(ExitCode::input)) << describe(more_gpus);
  EXPECT_THAT(more_gpus.err, HasSubstr("has 8 GPUs, fewer than the 9 per node asked for"));
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

}  // namespace
}  // namespace fb
