// `topo diff` on generated fleets: each test plants one deviation in one node and expects exactly
// that node, device and property named, with the node's and the majority's values.

#include "topology/fleet_diff.hpp"
#include "common/text_file.hpp"

#include "fleet_dumps.hpp"
#include "test_support.hpp"

#include "common/errors.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace fb::topo {
namespace {

using test::fleet_with;
using test::NcclNode;
using test::SmiNode;

FleetDiff diff_dumps(const std::vector<std::pair<std::string, std::string>>& dumps) {
  std::vector<SourceText> sources;
  for (const auto& [path, text] : dumps) sources.push_back(SourceText{path, text});
  return diff_fleet(parse_fleet(sources));
}

std::vector<std::string> described(const FleetDiff& diff) {
  std::vector<std::string> lines;
  for (const Deviation& deviation : diff.deviations) lines.push_back(describe(deviation));
  return lines;
}

using Lines = std::vector<std::string>;

TEST(FleetDiffSmi, UniformFleetHasNoDeviation) {
  const FleetDiff diff = diff_dumps(fleet_with(8, -1, SmiNode{}, "txt"));
  EXPECT_EQ(diff.format, "nvidia-smi");
  ASSERT_EQ(diff.nodes.size(), 8u);
  EXPECT_EQ(diff.nodes[6].node, "dgx07");  // host named after the file
  EXPECT_EQ(diff.nodes[6].gpu_count, 8u);
  EXPECT_EQ(diff.nodes[6].nic_count, 8u);
  EXPECT_EQ(described(diff), Lines{});
}

TEST(FleetDiffNccl, UniformFleetHasNoDeviation) {
  const FleetDiff diff = diff_dumps(fleet_with(8, -1, NcclNode{}, "xml"));
  EXPECT_EQ(diff.format, "nccl-xml");
  EXPECT_EQ(diff.nodes[0].gpu_count, 8u);
  EXPECT_EQ(described(diff), Lines{});
}

// One change to one node of eight, and the one line that must name it.
template <typename Node>
struct Planted {
  std::string name;
  std::function<void(Node&)> plant;
  int node_index;
  std::string expected;
};

template <typename Node>
std::string name_of(const ::testing::TestParamInfo<Planted<Node>>& info) {
  return info.param.name;
}

template <typename Node>
void expect_only_the_planted_deviation(const Planted<Node>& planted, const std::string& extension) {
  Node node;
  planted.plant(node);
  EXPECT_EQ(described(diff_dumps(fleet_with(8, planted.node_index, node, extension))), Lines{planted.expected});
}

class PlantedInTopoM : public ::testing::TestWithParam<Planted<SmiNode>> {};
TEST_P(PlantedInTopoM, IsTheOnlyDeviation) { expect_only_the_planted_deviation(GetParam(), "txt"); }

INSTANTIATE_TEST_SUITE_P(
    FleetDiffSmi, PlantedInTopoM,
    ::testing::Values(
        Planted<SmiNode>{"GpuWithItsNvlinksDown", [](SmiNode& n) { n.gpu_nvlinks[3] = 0; }, 4,
                         "dgx05: GPU3 NVLink: none here, 18 x NVLink4 to NVSwitch on 7 of 8 nodes"},
        Planted<SmiNode>{"GpuWithOneNvlinkFewer", [](SmiNode& n) { n.gpu_nvlinks[6] = 17; }, 1,
                         "dgx02: GPU6 NVLink: 17 x NVLink4 to NVSwitch here, 18 x NVLink4 to NVSwitch on 7 of 8 nodes"},
        Planted<SmiNode>{"NicUnderAnotherGpusSwitchOnTheOtherNumaNode", [](SmiNode& n) { n.nic_switch[3] = 5; }, 1,
                         "dgx02: mlx5_3 placement: NUMA node 1, shares its PCIe switch with GPU5 here, "
                         "NUMA node 0, shares its PCIe switch with GPU3 on 7 of 8 nodes"},
        // nvidia-smi then calls mlx5_3 NIC2: the name, not the label, identifies the NIC.
        Planted<SmiNode>{"MissingNicDespiteTheShiftedNicNumbers", [](SmiNode& n) { n.nic_switch[2] = -1; }, 2,
                         "dgx03: mlx5_2: missing here, present on 7 of 8 nodes"},
        // Its NIC's placement no longer names it on any node, so the GPU is one line.
        Planted<SmiNode>{"MissingGpu", [](SmiNode& n) { n.gpu_count = 7; }, 7,
                         "dgx08: GPU7: missing here, present on 7 of 8 nodes"}),
    name_of<SmiNode>);

class PlantedInNcclXml : public ::testing::TestWithParam<Planted<NcclNode>> {};
TEST_P(PlantedInNcclXml, IsTheOnlyDeviation) { expect_only_the_planted_deviation(GetParam(), "xml"); }

INSTANTIATE_TEST_SUITE_P(
    FleetDiffNccl, PlantedInNcclXml,
    ::testing::Values(
        Planted<NcclNode>{
            "GpuLinkAtAnOlderGeneration", [](NcclNode& n) { n.gpu_link_speed[3] = "16.0 GT/s PCIe"; }, 6,
            "dgx07: GPU3 PCIe link: PCIe Gen4 (16 GT/s) x16 here, PCIe Gen5 (32 GT/s) x16 on 7 of 8 nodes"},
        Planted<NcclNode>{
            "GpuLinkNarrower", [](NcclNode& n) { n.gpu_link_width[0] = 8; }, 0,
            "dgx01: GPU0 PCIe link: PCIe Gen5 (32 GT/s) x8 here, PCIe Gen5 (32 GT/s) x16 on 7 of 8 nodes"},
        Planted<NcclNode>{"SwitchUplinkAtAnOlderGeneration",
                          [](NcclNode& n) { n.switch_uplink_speed[2] = "16.0 GT/s PCIe"; }, 3,
                          "dgx04: PCIe switch above GPU2 uplink: PCIe Gen4 (16 GT/s) x16 here, PCIe Gen5 (32 GT/s) x16 "
                          "on 7 of 8 nodes"},
        Planted<NcclNode>{"GpuMissingOneNvlinkBond",
                          [](NcclNode& n) {
                            n.gpu_nvlinks[3] = {4, 4, 5};
                          },
                          4,
                          "dgx05: GPU3 NVLink: 13 x NVLink4 to NVSwitch here, 18 x NVLink4 to NVSwitch on 7 of 8 "
                          "nodes"},
        Planted<NcclNode>{"NicUnderAnotherGpusSwitchOnTheOtherNumaNode", [](NcclNode& n) { n.nic_switch[1] = 6; }, 7,
                          "dgx08: mlx5_1 placement: NUMA node 1, shares its PCIe switch with GPU6 here, "
                          "NUMA node 0, shares its PCIe switch with GPU1 on 7 of 8 nodes"},
        Planted<NcclNode>{"NicUnderAnotherGpusSwitchOnTheSameNumaNode", [](NcclNode& n) { n.nic_switch[1] = 2; }, 0,
                          "dgx01: mlx5_1 placement: NUMA node 0, shares its PCIe switch with GPU2 here, "
                          "NUMA node 0, shares its PCIe switch with GPU1 on 7 of 8 nodes"},
        Planted<NcclNode>{"MissingNic", [](NcclNode& n) { n.nic_switch[5] = -1; }, 2,
                          "dgx03: mlx5_5: missing here, present on 7 of 8 nodes"},
        Planted<NcclNode>{"ExtraNic", [](NcclNode& n) { n.nic_switch.push_back(0); }, 2,
                          "dgx03: mlx5_8: present here, missing on 7 of 8 nodes"},
        Planted<NcclNode>{"NicPortTrainedAtHalfRate", [](NcclNode& n) { n.nic_speed_mbps[4] = 200000; }, 1,
                          "dgx02: mlx5_4 port speed: 200 Gb/s here, 400 Gb/s on 7 of 8 nodes"},
        Planted<NcclNode>{"NicWithoutGpuDirectRdma", [](NcclNode& n) { n.nic_gdr[0] = 0; }, 5,
                          "dgx06: mlx5_0 GPUDirect RDMA: unavailable here, available on 7 of 8 nodes"}),
    name_of<NcclNode>);

TEST(FleetDiff, EveryDeviatingNodeIsNamedInInputOrder) {
  std::vector<std::pair<std::string, std::string>> dumps = fleet_with(8, -1, SmiNode{}, "txt");
  SmiNode no_nic;
  no_nic.nic_switch[7] = -1;
  SmiNode no_nvlink;
  no_nvlink.gpu_nvlinks[0] = 0;
  dumps[5].second = no_nic.text();
  dumps[1].second = no_nvlink.text();
  EXPECT_EQ(described(diff_dumps(dumps)),
            (Lines{"dgx02: GPU0 NVLink: none here, 18 x NVLink4 to NVSwitch on 7 of 8 nodes",
                   "dgx06: mlx5_7: missing here, present on 7 of 8 nodes"}));
}

// The real dump of a one-GPU H100 VM, copied to eight host names: the VM reports no PCIe width,
// so its GPU link compares by generation.
TEST(FleetDiffNccl, FixtureFleetComparesTheStatedGenerationWithoutAWidth) {
  const std::string fixture = fb::read_text_file(std::string(TOPOLOGY_FIXTURES_DIR) + "/nccl_topo_h100_1gpu.xml");
  std::vector<std::pair<std::string, std::string>> dumps;
  for (int i = 1; i <= 8; ++i) dumps.emplace_back(fmt::format("/data/topo/node{:02}.xml", i), fixture);
  EXPECT_EQ(described(diff_dumps(dumps)), Lines{});
  std::string slow = fixture;
  slow.replace(slow.find("32.0 GT/s"), 9, "16.0 GT/s");
  dumps[5].second = slow;
  EXPECT_EQ(described(diff_dumps(dumps)), Lines{"node06: GPU0 PCIe link: PCIe Gen4 (16 GT/s), width not stated here, "
                                                "PCIe Gen5 (32 GT/s), width not stated on 7 of 8 nodes"});
}

TEST(FleetDiff, TieIsReportedWithoutBlamingANode) {
  NcclNode slow;
  slow.gpu_link_speed[3] = "16.0 GT/s PCIe";
  std::vector<std::pair<std::string, std::string>> dumps = fleet_with(4, 2, slow, "xml");
  dumps[3].second = slow.text();
  const FleetDiff diff = diff_dumps(dumps);
  EXPECT_EQ(described(diff), Lines{"GPU3 PCIe link: no majority among 4 nodes: PCIe Gen4 (16 GT/s) x16 on dgx03, "
                                   "dgx04 | PCIe Gen5 (32 GT/s) x16 on dgx01, dgx02"});
  ASSERT_EQ(diff.deviations.size(), 1u);
  EXPECT_TRUE(diff.deviations[0].node.empty());
  ASSERT_EQ(diff.deviations[0].groups.size(), 2u);
}

TEST(FleetDiff, JsonNamesNodeSubjectPropertyAndMajority) {
  NcclNode node;
  node.nic_switch[5] = -1;
  const nlohmann::json json = to_json(diff_dumps(fleet_with(3, 1, node, "xml")));
  EXPECT_EQ(json.at("schema"), "fabricbench.topo-diff.v1");
  EXPECT_EQ(json.at("format"), "nccl-xml");
  EXPECT_FALSE(json.at("uniform").get<bool>());
  ASSERT_EQ(json.at("nodes").size(), 3u);
  EXPECT_EQ(json.at("nodes")[1].at("nics"), 7);
  ASSERT_EQ(json.at("deviations").size(), 1u);
  const nlohmann::json& deviation = json.at("deviations")[0];
  EXPECT_EQ(deviation.at("node"), "dgx02");
  EXPECT_EQ(deviation.at("subject"), "mlx5_5");
  EXPECT_EQ(deviation.at("property"), "presence");
  EXPECT_EQ(deviation.at("value"), "missing");
  EXPECT_EQ(deviation.at("majority").at("value"), "present");
  EXPECT_EQ(deviation.at("majority").at("nodes"), 2);
  EXPECT_EQ(deviation.at("compared_nodes"), 3);
}

// The message a fleet of these (path, text) dumps is refused with.
std::string refusal(const std::vector<SourceText>& sources) {
  try {
    parse_fleet(sources);
  } catch (const UsageError& error) { return error.what(); }
  return "no error";
}

TEST(FleetDiff, RefusesFleetsItCannotCompare) {
  const std::string smi = SmiNode{}.text();
  const std::string xml = NcclNode{}.text();
  EXPECT_EQ(refusal({{"dgx01.txt", smi}, {"dgx02.xml", xml}}),
            "dgx02.xml is a nccl-xml dump but dgx01.txt is a nvidia-smi dump: topo diff compares dumps of one kind");
  EXPECT_EQ(refusal({{"a/dgx01.txt", smi}, {"b/dgx01.topo.txt", smi}}),
            "a/dgx01.txt and b/dgx01.topo.txt both describe host 'dgx01' (a single-node dump is named after its file, "
            "up to the first dot): name each dump after its node");
  const std::string cluster = fb::read_text_file(test::sample_path("dgx_h100_pod.yaml"));
  EXPECT_NE(refusal({{"pod.yaml", cluster}, {"pod2.yaml", cluster}}).find("pod.yaml: describes "), std::string::npos);
}

}  // namespace
}  // namespace fb::topo
