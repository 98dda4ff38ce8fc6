// Readers, third pass (#29): the tests/corpus/topology/ files of SuperPOD fabrics with SHARP,
// NVLink counts that do not decide the generation, GPUs that cannot be singled out in `topo diff`,
// and AMD's rocm-smi. Each asserts the numbers SOURCES.md says the file must give.

#include "topology/analysis.hpp"
#include "common/text_file.hpp"
#include "topology/fabric_hierarchy.hpp"
#include "topology/fleet_diff.hpp"
#include "topology/format_registry.hpp"
#include "topology/row_expectation.hpp"

#include "test_support.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace fb::topo {
namespace {

using test::count_kind;

std::string corpus_path(const std::string& name) { return std::string(TOPOLOGY_CORPUS_DIR) + "/" + name; }

Graph parse_corpus(const std::string& name, ReaderHints hints = {}) {
  const std::string path = corpus_path(name);
  return parse_topology(SourceText{path, fb::read_text_file(path), hints});
}

bool assumes(const Graph& graph, std::string_view words) {
  return std::any_of(graph.assumptions().begin(), graph.assumptions().end(),
                     [&](const std::string& text) { return text.find(words) != std::string::npos; });
}

std::size_t switches_in_tier(const Graph& graph, SwitchTier tier) {
  return static_cast<std::size_t>(std::count_if(graph.vertices().begin(), graph.vertices().end(), [&](const Vertex& v) {
    return v.kind == VertexKind::fabric_switch && v.tier == tier;
  }));
}

constexpr const char* superpod = "ibnetdiscover/ibnetdiscover_ndr_superpod_32leaf_16spine_sharp_synthesised.txt";

// 4 scalable units x 32 DGX H100 x 8 rails; every Quantum-2 switch has its SHARP aggregation node
// on port 65. Taken as hosts, the 16 spines' aggregation nodes would make every spine a leaf.
TEST(CorpusSharpSuperpod, AggregationNodesAreLeftOutOfHostsAndTiers) {
  const Graph graph = parse_corpus(superpod);
  EXPECT_EQ(count_kind(graph, VertexKind::host), 128u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 1024u);
  EXPECT_EQ(switches_in_tier(graph, SwitchTier::leaf), 32u);
  EXPECT_EQ(switches_in_tier(graph, SwitchTier::spine), 16u);
  EXPECT_EQ(switches_in_tier(graph, SwitchTier::core), 0u);
  // 1024 host cables + 32 leaves x 32 uplinks; none of the 48 aggregation node ports.
  EXPECT_EQ(graph.link_count(), 2048u);
  EXPECT_EQ(graph.find("ca-fc6a1c0300800100"), no_vertex);
  EXPECT_TRUE(assumes(graph, "48 CA(s) inside switches left out of the hosts and of the switch tiers: 48 SHARP "
                             "aggregation node(s)"));
  EXPECT_NE(graph.find("dgx128/mlx5_11"), no_vertex);
}

TEST(CorpusSharpSuperpod, NonBlockingWithABisectionOfHalfTheHosts) {
  const Graph graph = parse_corpus(superpod);
  const OversubscriptionReport report = analyze_oversubscription(graph);
  ASSERT_FALSE(report.tiers.empty());
  EXPECT_EQ(report.tiers.front().tier, SwitchTier::leaf);
  EXPECT_EQ(report.tiers.front().switch_count, 32u);
  ASSERT_TRUE(report.tiers.front().oversubscription_ratio);
  EXPECT_DOUBLE_EQ(*report.tiers.front().oversubscription_ratio, 1.0);
  FabricHierarchy fabric(graph);
  EXPECT_EQ(fabric_partitions(fabric).size(), 1u);
  // Half of 128 hosts x 8 NDR ports x 50 GB/s, per direction: the fabric is non-blocking.
  EXPECT_DOUBLE_EQ(bisection_bandwidth_gbps(fabric), 64 * 8 * 50.0);
}

// A CA that shares a switch's system image GUID is part of that switch (a managed switch's own
// adapter), whatever its description says.
TEST(CorpusSharpSuperpod, CaInASwitchsSystemImageIsNotAHost) {
  const std::string dump =
      "sysimgguid=0x98039b0300a1b2c0\nswitchguid=0x98039b0300a1b2c0(98039b0300a1b2c0)\n"
      "Switch\t37 \"S-98039b0300a1b2c0\"\t\t# \"MF0;leaf01:MSB7800/U1\" enhanced port 0 lid 1 lmc 0\n"
      "[1]\t\"H-b8cef60300a1b2c0\"[1](b8cef60300a1b2c0) \t\t# \"node01 mlx5_0\" lid 5 4xEDR\n"
      "[37]\t\"H-98039b0300a1b2c8\"[1](98039b0300a1b2c8) \t\t# \"leaf01 mgmt\" lid 6 4xEDR\n\n"
      "sysimgguid=0xb8cef60300a1b2c0\ncaguid=0xb8cef60300a1b2c0\n"
      "Ca\t1 \"H-b8cef60300a1b2c0\"\t\t# \"node01 mlx5_0\"\n"
      "[1](b8cef60300a1b2c0) \t\"S-98039b0300a1b2c0\"[1]\t\t# lid 5 lmc 0 \"MF0;leaf01:MSB7800/U1\" lid 1 4xEDR\n\n"
      "sysimgguid=0x98039b0300a1b2c0\ncaguid=0x98039b0300a1b2c8\n"
      "Ca\t1 \"H-98039b0300a1b2c8\"\t\t# \"leaf01 mgmt\"\n"
      "[1](98039b0300a1b2c8) \t\"S-98039b0300a1b2c0\"[37]\t\t# lid 6 lmc 0 \"MF0;leaf01:MSB7800/U1\" lid 1 4xEDR\n";
  const Graph graph = parse_topology(SourceText{"mgmt.txt", dump});
  EXPECT_EQ(count_kind(graph, VertexKind::host), 1u);
  EXPECT_EQ(graph.find("leaf01/mgmt"), no_vertex);
  EXPECT_EQ(graph.link_count(), 1u);
  EXPECT_TRUE(assumes(graph, "1 CA(s) inside switches left out of the hosts and of the switch tiers: 1 with a switch's "
                             "system image GUID"));
}

// ibsim's own example: its layout is ibnetdiscover's, with names for GUIDs and no rates.
TEST(CorpusIbsim, NetFileIsReadWithItsLinksAt4xSdr) {
  const std::string path = corpus_path("ibnetdiscover/ibsim_net_2sw2path4hca.net");
  EXPECT_EQ(resolve_topology_format(SourceText{path, fb::read_text_file(path)}).name, "ibsim");
  const Graph graph = parse_corpus("ibnetdiscover/ibsim_net_2sw2path4hca.net");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 4u);
  EXPECT_EQ(count_kind(graph, VertexKind::fabric_switch), 2u);
  EXPECT_EQ(graph.link_count(), 6u);  // 4 host cables + 2 parallel ISLs
  std::size_t isls = 0;
  const VertexId switch1 = graph.find("Switch1");
  for (const LinkId l : graph.links_of(switch1))
    isls += graph.link(l).other_end(switch1) == graph.find("Switch2") ? 1 : 0;
  EXPECT_EQ(isls, 2u);
  for (const Link& link : graph.links()) EXPECT_EQ(link.spec.technology, "IB SDR");
  EXPECT_TRUE(graph.find_link(graph.find("Hca3/Hca3"), switch1));
  EXPECT_TRUE(assumes(graph, "ibsim simulates every link at 4xSDR, so its 12 port line(s) are taken at 4xSDR"));
}

// 8 GPUs on one NVSwitch at NV18, and no GPU model in the paste: H100 (NVLink4) and B200
// (NVLink5) both have 18 links.
TEST(CorpusNvlinkUndecided, Nv18WithoutAModelNamesBothGenerationsAndWithholdsExpectations) {
  const std::string file = "topo_m/tpgds-aihub0007.txt";
  const Graph graph = parse_corpus(file);
  EXPECT_TRUE(assumes(graph, "NV18 is NVLink4 ("));
  EXPECT_TRUE(assumes(graph, ") or NVLink5 ("));
  std::size_t nvlinks = 0;
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    if (graph.link(l).spec.type != LinkType::nvlink) continue;
    ++nvlinks;
    ASSERT_NE(graph.undecided(l), nullptr);
    EXPECT_NE(graph.undecided(l)->find("--nvlink-gen 4 or 5"), std::string::npos) << *graph.undecided(l);
  }
  EXPECT_EQ(nvlinks, 8u);

  ResultRow row;
  row.run_id = "pasted";
  row.backend = "nccl-tests";
  row.op = "all_reduce";
  row.nranks = 8;
  row.bytes = std::uint64_t{1} << 30;
  row.algbw_gbps = 200;
  row.busbw_gbps = 350;
  const std::vector<std::string> hosts(8, "tpgds-aihub0007");
  ExpectationModel undecided(graph);
  const Expectation withheld = undecided.expect(row, hosts);
  EXPECT_FALSE(withheld.busbw_gbps);
  EXPECT_NE(withheld.problem.find("expectation withheld (n/a)"), std::string::npos) << withheld.problem;
  EXPECT_NE(withheld.problem.find("NVLink5"), std::string::npos) << withheld.problem;
  // A GPU-to-GPU pair over the NVSwitch is held by NVLink: withheld too.
  ResultRow pair = row;
  pair.op = "sendrecv";
  pair.nranks = 2;
  pair.src_rank = 0;
  pair.dst_rank = 1;
  pair.src_host = pair.dst_host = "tpgds-aihub0007";
  EXPECT_FALSE(undecided.expect(pair, std::vector<std::string>(2, "tpgds-aihub0007")).busbw_gbps);

  // Stated, the expectation is back, and NVLink5's is the higher.
  const Graph four = parse_corpus(file, ReaderHints{4});
  const Graph five = parse_corpus(file, ReaderHints{5});
  EXPECT_EQ(four.undecided_link_count(), 0u);
  ExpectationModel as_four(four);
  ExpectationModel as_five(five);
  const Expectation expected_four = as_four.expect(row, hosts);
  const Expectation expected_five = as_five.expect(row, hosts);
  ASSERT_TRUE(expected_four.busbw_gbps) << expected_four.problem;
  ASSERT_TRUE(expected_five.busbw_gbps) << expected_five.problem;
  EXPECT_GT(*expected_five.busbw_gbps, *expected_four.busbw_gbps * 1.3);
}

std::vector<std::string> described(const FleetDiff& diff) {
  std::vector<std::string> lines;
  for (const Deviation& deviation : diff.deviations) lines.push_back(describe(deviation));
  return lines;
}

// dgx03 lost its GPU2; GPU1 and GPU2 of della-k17g3 look alike (NUMA 0, no NIC of their own, 18
// NVLinks), so the line says it may be either, not "GPU1" as a fact.
TEST(CorpusFleetUncertain, GpuThatCannotBeSingledOutNamesEveryCandidateOnItsLine) {
  std::vector<std::string> paths;
  for (const std::string node : {"dgx01", "dgx02", "dgx03", "dgx04"}) {
    paths.push_back(corpus_path("fleet/della_gpu2_off_the_bus/" + node + ".txt"));
  }
  const FleetDiff diff = diff_fleet(load_fleet(paths, "auto", ReaderHints{4}));
  ASSERT_EQ(diff.renumberings.size(), 1u);
  EXPECT_TRUE(diff.renumberings[0].ambiguous);
  EXPECT_EQ(diff.renumberings[0].missing_candidates, (std::vector<int>{1, 2}));
  EXPECT_EQ(described(diff), (std::vector<std::string>{"dgx03: one of GPU1, GPU2 (uncertain which: they look alike to "
                                                       "the matching): missing here, present on 3 of 4 nodes"}));
  EXPECT_EQ(to_json(diff)["deviations"][0]["uncertain_candidates"], nlohmann::json({"GPU1", "GPU2"}));
}

constexpr const char* rocm_smi = "rocm_smi/ms-swift_amd_8gpu_xgmi_numa2_lowpower_warning.txt";

// 8 AMD Instinct GPUs, every pair one xGMI hop (weight 15), GPU0-3 on NUMA 0 and GPU4-7 on NUMA 1;
// a WARNING line under the first banner. Not nvidia-smi, though its header starts "GPU0".
TEST(CorpusRocmSmi, EightGpusAllToAllXgmiOnTwoNumaNodes) {
  const std::string path = corpus_path(rocm_smi);
  EXPECT_EQ(resolve_topology_format(SourceText{path, fb::read_text_file(path)}).name, "rocm-smi");
  const Graph graph = parse_corpus(rocm_smi);
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 2u);
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 0u);
  EXPECT_EQ(test::count_links(graph, LinkType::xgmi), 28u);  // 8 x 7 / 2 direct pairs
  const std::string host = "ms-swift_amd_8gpu_xgmi_numa2_lowpower_warning";
  for (int g = 0; g < 8; ++g) {
    const VertexId gpu = graph.find(fmt::format("{}/GPU{}", host, g));
    ASSERT_NE(gpu, no_vertex);
    const VertexId cpu = graph.find(fmt::format("{}/CPU{}", host, g < 4 ? 0 : 1));
    EXPECT_TRUE(graph.find_link(gpu, cpu)) << g;
  }
  const auto xgmi = graph.find_link(graph.find(host + "/GPU0"), graph.find(host + "/GPU7"));
  ASSERT_TRUE(xgmi);
  // No model named: MI250X's 50 GB/s stands in, undecided against MI300X's 64.
  EXPECT_DOUBLE_EQ(graph.link(*xgmi).spec.capacity_gbps, 50.0);
  ASSERT_NE(graph.undecided(*xgmi), nullptr);
  EXPECT_NE(graph.undecided(*xgmi)->find("64 GB/s per direction on MI300X"), std::string::npos);
  EXPECT_TRUE(assumes(graph, "each directly joined pair taken as one link"));
}

TEST(CorpusRocmSmi, ANamedModelDecidesTheXgmiRate) {
  const std::string path = corpus_path(rocm_smi);
  const std::string named = "GPU[0]\t\t: Card Series: AMD Instinct MI300X\n" + fb::read_text_file(path);
  const Graph graph = parse_topology(SourceText{"mi300x.txt", named});
  EXPECT_EQ(graph.undecided_link_count(), 0u);
  const auto xgmi = graph.find_link(graph.find("mi300x/GPU2"), graph.find("mi300x/GPU5"));
  ASSERT_TRUE(xgmi);
  EXPECT_EQ(graph.link(*xgmi).spec.technology, "xGMI MI300X");
  EXPECT_DOUBLE_EQ(graph.link(*xgmi).spec.capacity_gbps, 64.0);
}

// `--showtopotype` alone, all pairs over PCIe (the 4-GPU table of ROCm/rocm_smi_lib issue #108):
// no xGMI link, the GPUs reach each other through their CPU.
TEST(CorpusRocmSmi, PcieOnlyTypeTableHasNoXgmi) {
  const std::string text = "========================== Link Type between two GPUs ==========================\n"
                           "       GPU0         GPU1         GPU2         GPU3         \n"
                           "GPU0   0            PCIE         PCIE         PCIE         \n"
                           "GPU1   PCIE         0            PCIE         PCIE         \n"
                           "GPU2   PCIE         PCIE         0            PCIE         \n"
                           "GPU3   PCIE         PCIE         PCIE         0            \n";
  const Graph graph = parse_topology(SourceText{"pcie4.txt", text});
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 4u);
  EXPECT_EQ(test::count_links(graph, LinkType::xgmi), 0u);
  EXPECT_TRUE(assumes(graph, "4 GPU(s) with no NUMA node stated"));
  try {
    parse_topology(SourceText{"bad.txt", "=== Weight between two GPUs ===\n   GPU0 GPU1\nGPU0 0 15\nGPU1 15\n"});
    FAIL() << "a short row accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.txt:1: expected 2 cells in row GPU1 of a 2-GPU table, got 1"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace fb::topo
