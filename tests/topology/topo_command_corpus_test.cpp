// `fabricbench topo show|analyze|diff` end to end on the real files of tests/corpus/topology:
// what the readers assumed reaches the user as warnings and in `topo show`, and analyses of
// fabrics that cannot be routed say so instead of printing a bisection of 0 or -nan%.

#include "common/errors.hpp"
#include "process_runner.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;

std::string corpus(const std::string& name) { return std::string(TOPOLOGY_CORPUS_DIR) + "/" + name; }

ProcessResult fabricbench(std::vector<std::string> args) {
  args.insert(args.begin(), FABRICBENCH_BINARY);
  return testing::run_process(args);
}

TEST(TopoCommandCorpus, ShowListsWhatTheReaderAssumedAndWarnsOnStderr) {
  const ProcessResult result =
      fabricbench({"topo", "show", corpus("nccl_xml/ibmcloud_h100_vsi_topo_dump_2.5GTx1_bridges_width0.xml")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("# 2 assumption(s): what the inputs did not state\n"));
  EXPECT_THAT(result.out, HasSubstr("assumed: "));
  EXPECT_THAT(result.out, HasSubstr("8 PCIe bridge(s) state PCIe Gen1 x1 above faster devices"));
  EXPECT_THAT(result.err, HasSubstr("fabricbench: warning: "));
  EXPECT_THAT(result.err, HasSubstr("16 PCIe link(s) state no link_width or width 0"));
  // The emulated bridges do not become 0.19 GB/s links: every PCIe link is Gen5.
  EXPECT_THAT(result.out, HasSubstr("\nPCIe Gen5                          24"));
  EXPECT_THAT(result.out, Not(HasSubstr("\nPCIe Gen1 ")));
}

TEST(TopoCommandCorpus, NvlinkGenerationFlagReplacesTheAssumption) {
  const std::string file = corpus("topo_m/tpgds-aihub0007.txt");
  const ProcessResult assumed = fabricbench({"topo", "show", file});
  ASSERT_EQ(assumed.exit_code, 0) << assumed.err;
  EXPECT_THAT(assumed.out, HasSubstr("NVLink4                             8           2966.4"));
  // No GPU model in the paste: both generations are named, on stderr and on `topo show`'s
  // undecided line, and the expectations resting on them are withheld.
  EXPECT_THAT(assumed.err, HasSubstr("NV18 is NVLink4 (370.8 GB/s per GPU: H100, H200, H800) or NVLink5 (721.8 GB/s: "
                                     "B200, B300, GB200)"));
  EXPECT_THAT(assumed.out, HasSubstr("# 8 link(s) whose rate the inputs leave undecided"));
  EXPECT_THAT(assumed.out, HasSubstr("\nundecided: "));
  const ProcessResult stated = fabricbench({"topo", "show", "--nvlink-gen", "5", file});
  ASSERT_EQ(stated.exit_code, 0) << stated.err;
  EXPECT_THAT(stated.out, HasSubstr("NVLink5                             8           5774.4"));
  EXPECT_THAT(stated.err, Not(HasSubstr("NV18 is NVLink4")));
  EXPECT_THAT(stated.out, Not(HasSubstr("undecided")));
}

TEST(TopoCommandCorpus, SharpSuperpodIsOneTreeWithABisection) {
  const ProcessResult result = fabricbench(
      {"topo", "analyze", corpus("ibnetdiscover/ibnetdiscover_ndr_superpod_32leaf_16spine_sharp_synthesised.txt")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("# bisection bandwidth 25600.0 GB/s per direction (128 hosts)"));
  EXPECT_THAT(result.out, Not(HasSubstr("parts")));
  EXPECT_THAT(result.err, HasSubstr("48 CA(s) inside switches left out of the hosts and of the switch tiers"));
}

TEST(TopoCommandCorpus, SlurmOversubscriptionIsLabelledAssumed) {
  const testing::TempDir dir;
  const std::string conf = (dir.path() / "topology.conf").string();
  std::ofstream(conf)
      << "SwitchName=leaf1 Nodes=n[1-8]\nSwitchName=leaf2 Nodes=n[9-16]\nSwitchName=spine Switches=leaf[1-2]\n";
  const ProcessResult result = fabricbench({"topo", "show", conf});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("8.00:1 assumed"));
  EXPECT_THAT(result.out,
              HasSubstr("# assumed: the inputs state neither the count nor the rate of these tiers' uplinks"));
}

// ibsim's two switches, hosts on both, cabled to each other: routed by a subnet manager, not "no path".
TEST(TopoCommandCorpus, LeavesJoinedLeafToLeafAreNotCalledUnroutable) {
  const ProcessResult result = fabricbench({"topo", "analyze", corpus("ibnetdiscover/ibsim_net_2sw2path4hca.net")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              HasSubstr("# the fabric has 2 parts with no common upper-tier switch, joined only by links "
                        "between switches of one tier (leaf to leaf): a subnet manager routes between them"));
  EXPECT_THAT(result.out, Not(HasSubstr("no path")));
  EXPECT_THAT(result.err, HasSubstr("ibsim simulates every link at 4xSDR"));
}

TEST(TopoCommandCorpus, AnalyzeNamesADisconnectedFabric) {
  const ProcessResult result =
      fabricbench({"topo", "analyze", corpus("slurm/puppet_4leaf_disconnected_switches.conf")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("# the fabric is disconnected: 4 parts that no link joins"));
  EXPECT_THAT(result.out, HasSubstr("#   36 host(s): "));
  EXPECT_THAT(result.out, Not(HasSubstr("nan")));
  EXPECT_THAT(result.out, Not(HasSubstr("bisection bandwidth 0")));
}

TEST(TopoCommandCorpus, DiffNamesTheGpuOffTheBus) {
  std::vector<std::string> args{"topo", "diff"};
  for (const std::string node : {"dgx01", "dgx02", "dgx03", "dgx04"}) {
    args.push_back(corpus("fleet/della_gpu3_off_the_bus/" + node + ".txt"));
  }
  const ProcessResult result = fabricbench(args);
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::doctor_flags)) << result.err;
  EXPECT_EQ(result.out,
            "# topo diff: 4 nodes (nvidia-smi), 1 deviation(s)\n"
            "# dgx03: GPUs matched to the fleet's by NUMA node, nearby NICs and NVLinks: GPU3 is the fleet's GPU4, "
            "GPU4 is the fleet's GPU5, GPU5 is the fleet's GPU6, GPU6 is the fleet's GPU7\n"
            "dgx03: GPU3: missing here, present on 3 of 4 nodes\n");
}

TEST(TopoCommandCorpus, GraphFileIsRefusedWithTheInputExitCode) {
  const ProcessResult result = fabricbench({"topo", "show", corpus("nccl_xml/azure_ncv4-graph.xml")});
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::input));
  EXPECT_THAT(result.err, HasSubstr("azure_ncv4-graph.xml:1: expected a topology dump"));
  EXPECT_THAT(result.err, HasSubstr("an NCCL graph file (<graphs>"));
}

TEST(TopoCommandCorpus, InputsThatContradictEachOtherNameTheFile) {
  // topology.conf calls a switch by the name nvidia-smi's dump gives its host.
  const testing::TempDir dir;
  const std::string conf = (dir / "topology.conf").string();
  std::ofstream(conf) << "SwitchName=dgx01 Nodes=node[1-2]\n";
  const ProcessResult result = fabricbench({"topo", "show", std::string(TOPOLOGY_SAMPLES_DIR) + "/dgx01.topo", conf});
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::input)) << result.err;
  EXPECT_EQ(result.err,
            "fabricbench: error: " + conf + ": vertex 'dgx01' is a host in one input and a switch in another\n");
}

}  // namespace
}  // namespace fb
