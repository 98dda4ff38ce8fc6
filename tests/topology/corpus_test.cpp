// The real files of tests/corpus/topology/ read as SOURCES.md there says they must.

#include "topology/analysis.hpp"
#include "common/text_file.hpp"
#include "topology/fleet_diff.hpp"
#include "topology/format_registry.hpp"

#include "test_support.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

namespace fb::topo {
namespace {

using test::count_kind;

std::string corpus_path(const std::string& name) { return std::string(TOPOLOGY_CORPUS_DIR) + "/" + name; }

Graph parse_corpus(const std::string& name, ReaderHints hints = {}) {
  const std::string path = corpus_path(name);
  return parse_topology(SourceText{path, fb::read_text_file(path), hints});
}

std::string corpus_error(const std::string& name) {
  try {
    parse_corpus(name);
  } catch (const InputError& error) { return error.what(); }
  return "no error";
}

// The vertex a device's PCIe link goes up to: its PCIe switch, or its CPU.
VertexId pcie_parent(const Graph& graph, VertexId device) {
  for (const LinkId l : graph.links_of(device)) {
    const Link& link = graph.link(l);
    const VertexKind other = graph.vertex(link.other_end(device)).kind;
    if (link.spec.type == LinkType::pcie && (other == VertexKind::pcie_switch || other == VertexKind::cpu)) {
      return link.other_end(device);
    }
  }
  return no_vertex;
}

// The CPU above a device (through its PCIe switches).
const Vertex& cpu_of(const Graph& graph, const std::string& name) {
  VertexId v = graph.find(name);
  EXPECT_NE(v, no_vertex) << name;
  while (v != no_vertex && graph.vertex(v).kind != VertexKind::cpu) v = pcie_parent(graph, v);
  EXPECT_NE(v, no_vertex) << name << " reaches no CPU";
  return graph.vertex(v);
}

bool share_pcie_switch(const Graph& graph, const std::string& a, const std::string& b) {
  const VertexId parent = pcie_parent(graph, graph.find(a));
  return parent != no_vertex && graph.vertex(parent).kind == VertexKind::pcie_switch &&
         parent == pcie_parent(graph, graph.find(b));
}

std::vector<LinkSpec> links_between_kinds(const Graph& graph, const std::string& device, VertexKind other_kind) {
  std::vector<LinkSpec> specs;
  const VertexId v = graph.find(device);
  for (const LinkId l : graph.links_of(v)) {
    if (graph.vertex(graph.link(l).other_end(v)).kind == other_kind) specs.push_back(graph.link(l).spec);
  }
  return specs;
}

bool assumes(const Graph& graph, std::string_view words) {
  return std::any_of(graph.assumptions().begin(), graph.assumptions().end(),
                     [&](const std::string& text) { return text.find(words) != std::string::npos; });
}

TEST(CorpusNcclXml, AzureNdv2HintByPciClassOnly) {
  const Graph graph = parse_corpus("nccl_xml/azure_ndv2-topo.xml");
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 2u);
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 1u);
  EXPECT_EQ(count_kind(graph, VertexKind::pcie_switch), 0u);
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_EQ(cpu_of(graph, fmt::format("azure_ndv2-topo/GPU{}", gpu)).index, gpu / 4);
  EXPECT_EQ(cpu_of(graph, "azure_ndv2-topo/NIC0").index, 0);
  const auto gpu_link = links_between_kinds(graph, "azure_ndv2-topo/GPU0", VertexKind::cpu);
  ASSERT_EQ(gpu_link.size(), 1u);
  EXPECT_EQ(gpu_link[0].technology, "PCIe Gen4");
  EXPECT_EQ(gpu_link[0].lane_count, 16);
  EXPECT_FALSE(graph.vertex(graph.find("azure_ndv2-topo/NIC0")).nic_port);  // the hint states no port rate
  EXPECT_TRUE(assumes(graph, "8 GPU(s) and 1 NIC(s) known by PCI class only"));
}

TEST(CorpusNcclXml, AwsP4dSwitchesWithTwoA100AndOneEfaEach) {
  const Graph graph = parse_corpus("nccl_xml/aws_p4d-24xl-topo.xml");
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 4u);
  EXPECT_EQ(count_kind(graph, VertexKind::pcie_switch), 4u);
  // Bus id order: GPU0/1 and NIC0 under switch 0 ... GPU6/7 and NIC3 under switch 3.
  for (int sw = 0; sw < 4; ++sw) {
    const std::string nic = fmt::format("aws_p4d-24xl-topo/NIC{}", sw);
    EXPECT_TRUE(share_pcie_switch(graph, fmt::format("aws_p4d-24xl-topo/GPU{}", 2 * sw), nic)) << sw;
    EXPECT_TRUE(share_pcie_switch(graph, fmt::format("aws_p4d-24xl-topo/GPU{}", 2 * sw + 1), nic)) << sw;
    EXPECT_EQ(cpu_of(graph, nic).index, sw / 2);
  }
  for (const Link& link : graph.links()) {
    if (link.spec.type != LinkType::pcie) continue;
    EXPECT_EQ(link.spec.technology, "PCIe Gen3");
    EXPECT_EQ(link.spec.lane_count, 16);
    EXPECT_FALSE(link.nominal_capacity);
  }
}

TEST(CorpusNcclXml, BusIdOnlyHintIsRefusedAsAHint) {
  const std::string error = corpus_error("nccl_xml/aws_g5.48xl-topo.xml");
  EXPECT_NE(error.find("aws_g5.48xl-topo.xml:12: expected GPUs or NICs"), std::string::npos) << error;
  EXPECT_NE(error.find("9 <pci> listed by bus id only"), std::string::npos) << error;
}

TEST(CorpusNcclXml, GraphFileIsRefusedAsAGraphFile) {
  const std::string error = corpus_error("nccl_xml/azure_ncv4-graph.xml");
  EXPECT_NE(error.find("azure_ncv4-graph.xml:1:"), std::string::npos) << error;
  EXPECT_NE(error.find("an NCCL graph file (<graphs>"), std::string::npos) << error;
}

TEST(CorpusNcclXml, AzureNcv4WithoutLinkSpeedAndSelfNvlinks) {
  const Graph graph = parse_corpus("nccl_xml/azure_ncv4-topo.xml");
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 4u);
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 4u);
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_EQ(cpu_of(graph, fmt::format("azure_ncv4-topo/GPU{}", gpu)).index, gpu);
  EXPECT_EQ(test::count_links(graph, LinkType::nvlink), 0u);
  EXPECT_EQ(cpu_of(graph, "azure_ncv4-topo/eth0").index, 0);
  EXPECT_DOUBLE_EQ(graph.vertex(graph.find("azure_ncv4-topo/eth0")).nic_port->speed_gbps, 100.0);
  const auto gpu_link = links_between_kinds(graph, "azure_ncv4-topo/GPU0", VertexKind::cpu);
  ASSERT_EQ(gpu_link.size(), 1u);
  EXPECT_EQ(gpu_link[0].technology, "PCIe Gen4");
  EXPECT_TRUE(assumes(graph, "4 PCIe link(s) state no link_speed"));
  EXPECT_TRUE(assumes(graph, "4 PCIe link(s) state no link_width or width 0"));
  EXPECT_TRUE(assumes(graph, "4 <nvlink> target their own GPU"));
}

TEST(CorpusNcclXml, IbmCloudVsiEmulatedBridgesDoNotThrottleTheGpus) {
  const Graph graph = parse_corpus("nccl_xml/ibmcloud_h100_vsi_topo_dump_2.5GTx1_bridges_width0.xml");
  const std::string host = "ibmcloud_h100_vsi_topo_dump_2/";
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 8u);
  const std::vector<std::string> nic_of_gpu{"mlx5_7", "mlx5_6", "mlx5_5", "mlx5_4",
                                            "mlx5_3", "mlx5_2", "mlx5_1", "mlx5_0"};
  for (int gpu = 0; gpu < 8; ++gpu) {
    const std::string gpu_name = fmt::format("{}GPU{}", host, gpu);
    EXPECT_EQ(cpu_of(graph, gpu_name).index, gpu / 4) << gpu;
    EXPECT_TRUE(share_pcie_switch(graph, gpu_name, host + nic_of_gpu[gpu])) << gpu;
    int lanes = 0;
    for (const LinkSpec& spec : links_between_kinds(graph, gpu_name, VertexKind::nvswitch)) lanes += spec.lane_count;
    EXPECT_EQ(lanes, 18) << gpu;
    const NicPort port = *graph.vertex(graph.find(host + nic_of_gpu[gpu])).nic_port;
    EXPECT_DOUBLE_EQ(port.speed_gbps, 200.0);
    EXPECT_TRUE(port.gpu_direct_rdma);
  }
  for (const Link& link : graph.links()) {
    if (link.spec.type != LinkType::pcie) continue;
    EXPECT_EQ(link.spec.technology, "PCIe Gen5");
    EXPECT_EQ(link.spec.lane_count, 16);
    EXPECT_TRUE(link.nominal_capacity);  // width 0 everywhere: the capacity is assumed
  }
  EXPECT_TRUE(assumes(graph, "8 PCIe bridge(s) state PCIe Gen1 x1 above faster devices"));
}

TEST(CorpusNcclXml, DisplayControllerIsAGpuOnlyFromAGpuVendor) {
  const std::string hint =
      "<system version=\"1\"><cpu numaid=\"0\" vendor=\"AuthenticAMD\">\n"
      "<pci busid=\"0000:03:00.0\" class=\"0x030000\" vendor=\"0x1a03\" device=\"0x2000\"/>\n"  // BMC VGA
      "<pci busid=\"0000:41:00.0\" class=\"0x030000\" vendor=\"0x10de\" device=\"0x2236\" link_speed=\"16 GT/s\" "
      "link_width=\"16\"/>\n"
      "</cpu></system>\n";
  const Graph graph = parse_topology(SourceText{"a10.xml", hint});
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 1u);
  EXPECT_NE(graph.find("a10/GPU0"), no_vertex);

  const std::string no_gpu =
      "<system version=\"1\"><cpu numaid=\"0\"><nic><net name=\"eth0\" speed=\"10000\"/></nic></cpu></system>";
  const Graph cpu_only = parse_topology(SourceText{"cpu.xml", no_gpu});
  EXPECT_EQ(count_kind(cpu_only, VertexKind::gpu), 0u);
  EXPECT_TRUE(assumes(cpu_only, "the file names no GPU"));
}

TEST(CorpusNcclXml, TwentyThousandCpusAreRefusedNotMeshed) {
  std::string text = "<system version=\"1\">\n";
  for (int cpu = 0; cpu < 20000; ++cpu) text += fmt::format("<cpu numaid=\"{}\" vendor=\"AuthenticAMD\"/>\n", cpu);
  text += "</system>\n";
  try {
    parse_topology(SourceText{"many.xml", text});
    FAIL() << "20,000 <cpu> accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("many.xml:258: expected at most 256 <cpu>"), std::string::npos)
        << error.what();
  }
}

TEST(CorpusTopoM, DellaBlankCpuAffinityKeepsTheNumaColumn) {
  for (const bool spaces : {false, true}) {
    std::string text = fb::read_text_file(corpus_path("topo_m/della-k17g3_h100_sparse_cpu_affinity.txt"));
    if (spaces) {
      // A terminal paste: tabs expanded to 8-column stops, blank cells leave no token.
      std::string expanded;
      for (const char c : text) {
        if (c == '\t') {
          const std::size_t column =
              expanded.size() - (expanded.rfind('\n') == std::string::npos ? 0 : expanded.rfind('\n') + 1);
          expanded.append(8 - column % 8, ' ');
        } else {
          expanded += c;
        }
      }
      text = expanded;
    }
    const Graph graph = parse_topology(SourceText{"della.txt", text});
    EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
    EXPECT_EQ(count_kind(graph, VertexKind::nic), 6u);
    for (int gpu = 0; gpu < 8; ++gpu)
      EXPECT_EQ(cpu_of(graph, fmt::format("della/GPU{}", gpu)).index, gpu / 4) << spaces;
    EXPECT_TRUE(share_pcie_switch(graph, "della/GPU0", "della/mlx5_0"));
    EXPECT_TRUE(share_pcie_switch(graph, "della/GPU0", "della/mlx5_1"));
    EXPECT_TRUE(share_pcie_switch(graph, "della/GPU3", "della/mlx5_2"));
    EXPECT_TRUE(share_pcie_switch(graph, "della/GPU4", "della/mlx5_3"));
    EXPECT_TRUE(share_pcie_switch(graph, "della/GPU4", "della/mlx5_4"));
    EXPECT_TRUE(share_pcie_switch(graph, "della/GPU6", "della/mlx5_5"));
    for (const int lonely : {1, 2, 5, 7}) {
      EXPECT_EQ(graph.vertex(pcie_parent(graph, graph.find(fmt::format("della/GPU{}", lonely)))).kind, VertexKind::cpu);
    }
  }
}

TEST(CorpusTopoM, Nv18WithoutAModelIsUndecidedAtNvlink4sRateUnlessStated) {
  const Graph assumed = parse_corpus("topo_m/tpgds-aihub0007.txt");
  const auto h100 = links_between_kinds(assumed, "tpgds-aihub0007/GPU0", VertexKind::nvswitch);
  ASSERT_EQ(h100.size(), 1u);
  EXPECT_EQ(h100[0].technology, "NVLink4");
  EXPECT_EQ(h100[0].lane_count, 18);
  EXPECT_DOUBLE_EQ(h100[0].capacity_gbps, 18 * 20.6);  // NCCL's effective NVLink4 rate, 450 on the datasheet
  // NVLink4's rate stands in, and the link is marked undecided: both generations named.
  EXPECT_TRUE(assumes(assumed, "NV18 is NVLink4 (370.8 GB/s per GPU: H100, H200, H800) or NVLink5 (721.8 GB/s: B200, "
                               "B300, GB200), and the file names no GPU model: undecided"));
  EXPECT_EQ(assumed.undecided_link_count(), 8u);

  ReaderHints blackwell;
  blackwell.nvlink_generation = 5;
  const Graph stated = parse_corpus("topo_m/tpgds-aihub0007.txt", blackwell);
  const auto b200 = links_between_kinds(stated, "tpgds-aihub0007/GPU0", VertexKind::nvswitch);
  ASSERT_EQ(b200.size(), 1u);
  EXPECT_EQ(b200[0].technology, "NVLink5");
  EXPECT_DOUBLE_EQ(b200[0].capacity_gbps, 18 * 40.1);  // NVLink5 effective, 900 on the datasheet
  EXPECT_FALSE(assumes(stated, "NV# read as"));
  EXPECT_FALSE(assumes(stated, "undecided"));
  EXPECT_EQ(stated.undecided_link_count(), 0u);

  // A GPU model named above the matrix (nvidia-smi -L) decides without the flag.
  const std::string text =
      "GPU 0: NVIDIA B200 (UUID: GPU-0)\n" + fb::read_text_file(corpus_path("topo_m/tpgds-aihub0007.txt"));
  const Graph named = parse_topology(SourceText{"b200.txt", text});
  EXPECT_EQ(links_between_kinds(named, "b200/GPU0", VertexKind::nvswitch)[0].technology, "NVLink5");
  EXPECT_TRUE(assumes(named, "NV# read as NVLink5 links, from the GPU model named in the file"));
  EXPECT_EQ(named.undecided_link_count(), 0u);
}

TEST(CorpusTopoM, AihubNumaOffTwelveNicsTenSwitches) {
  const Graph graph = parse_corpus("topo_m/tpgds-aihub0007.txt");
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 12u);
  EXPECT_EQ(count_kind(graph, VertexKind::pcie_switch), 10u);
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 1u);
  const std::vector<int> pix_nic{0, 1, 2, 5, 6, 7, 8, 11};
  for (int gpu = 0; gpu < 8; ++gpu) {
    EXPECT_TRUE(share_pcie_switch(graph, fmt::format("tpgds-aihub0007/GPU{}", gpu),
                                  fmt::format("tpgds-aihub0007/mlx5_{}", pix_nic[gpu])))
        << gpu;
    EXPECT_EQ(cpu_of(graph, fmt::format("tpgds-aihub0007/GPU{}", gpu)).index, 0);
  }
  EXPECT_TRUE(share_pcie_switch(graph, "tpgds-aihub0007/mlx5_3", "tpgds-aihub0007/mlx5_4"));
  EXPECT_TRUE(share_pcie_switch(graph, "tpgds-aihub0007/mlx5_9", "tpgds-aihub0007/mlx5_10"));
}

TEST(CorpusTopoM, DgxA100OldHeaderNumaAndNicsWithNoGpuNearby) {
  const Graph graph = parse_corpus("topo_m/dgx_a100_8gpu_12mlx5_numa3175.txt");
  const std::string host = "dgx_a100_8gpu_12mlx5_numa3175/";
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 12u);
  const std::vector<int> numa{3, 3, 1, 1, 7, 7, 5, 5};
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_EQ(cpu_of(graph, fmt::format("{}GPU{}", host, gpu)).index, numa[gpu]);
  for (const auto& [gpu, nic] :
       std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 6}, {5, 7}, {6, 8}, {7, 9}}) {
    EXPECT_TRUE(share_pcie_switch(graph, fmt::format("{}GPU{}", host, gpu), fmt::format("{}mlx5_{}", host, nic)));
  }
  // SYS to every GPU: not on any GPU's CPU, and not on a CPU that claims a NUMA id.
  for (const int nic : {4, 5, 10, 11}) EXPECT_EQ(cpu_of(graph, fmt::format("{}mlx5_{}", host, nic)).index, -1) << nic;
  EXPECT_TRUE(share_pcie_switch(graph, host + "mlx5_4", host + "mlx5_5"));
  EXPECT_TRUE(assumes(graph, "mlx5_4, mlx5_5, mlx5_10, mlx5_11 SYS to every GPU"));
  for (const Link& link : graph.links()) {
    if (link.spec.type == LinkType::smp) { EXPECT_EQ(link.spec.technology, "SMP vendor not stated"); }
  }
  const auto nvlink = links_between_kinds(graph, host + "GPU0", VertexKind::nvswitch);
  ASSERT_EQ(nvlink.size(), 1u);
  EXPECT_EQ(nvlink[0].technology, "NVLink3");
  EXPECT_EQ(nvlink[0].lane_count, 12);
}

TEST(CorpusTopoM, A100RoceNicSysToEveryGpuIsNotOnTheirSocket) {
  const Graph graph = parse_corpus("topo_m/a100_sxm4_4gpu_roce_nic_legend.txt");
  const std::string host = "a100_sxm4_4gpu_roce_nic_legend/";
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_EQ(cpu_of(graph, fmt::format("{}GPU{}", host, gpu)).index, 1);
  EXPECT_EQ(cpu_of(graph, host + "rocep49s0").index, -1);
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 1u);
}

TEST(CorpusTopoM, V100MeshWithoutNumaColumnTellsSocketsApartBySys) {
  const Graph graph = parse_corpus("topo_m/v100_4gpu_mixed_nv1_nv2_mesh.txt");
  const std::string host = "v100_4gpu_mixed_nv1_nv2_mesh/";
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 0u);
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_EQ(cpu_of(graph, fmt::format("{}GPU{}", host, gpu)).index, 0);
  EXPECT_EQ(cpu_of(graph, host + "mlx5_0").index, 1);
  const auto lanes = [&](int a, int b) {
    const auto link =
        graph.find_link(graph.find(fmt::format("{}GPU{}", host, a)), graph.find(fmt::format("{}GPU{}", host, b)));
    return link ? graph.link(*link).spec.lane_count : 0;
  };
  EXPECT_EQ(lanes(0, 1), 1);
  EXPECT_EQ(lanes(0, 2), 1);
  EXPECT_EQ(lanes(1, 3), 1);
  EXPECT_EQ(lanes(0, 3), 2);
  EXPECT_EQ(lanes(1, 2), 2);
  EXPECT_EQ(lanes(2, 3), 2);
  EXPECT_EQ(graph.link(*graph.find_link(graph.find(host + "GPU0"), graph.find(host + "GPU3"))).spec.technology,
            "NVLink2");
  EXPECT_TRUE(assumes(graph, "no NUMA node stated"));
}

TEST(CorpusTopoM, OldDriverTwoGpusOneNicOneSocket) {
  const Graph graph = parse_corpus("topo_m/old_driver_2gpu_nv1_mlx5_old_legend.txt");
  const std::string host = "old_driver_2gpu_nv1_mlx5_old_legend/";
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 1u);
  EXPECT_EQ(cpu_of(graph, host + "mlx5_0").index, 0);
  const auto link = graph.find_link(graph.find(host + "GPU0"), graph.find(host + "GPU1"));
  ASSERT_TRUE(link);
  EXPECT_EQ(graph.link(*link).spec.lane_count, 1);
}

TEST(CorpusIbnetdiscover, ManPageNonChassisDefaultDescriptionsAndDownTrainedLinks) {
  const Graph graph = parse_corpus("ibnetdiscover/ibnetdiscover_manpage_voltaire_sdr_nonchassis_1x_mismatch.txt");
  EXPECT_EQ(count_kind(graph, VertexKind::fabric_switch), 2u);
  EXPECT_EQ(count_kind(graph, VertexKind::host), 4u);  // one per GUID, not one per shared description
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 4u);
  EXPECT_EQ(graph.link_count(), 7u);  // 2 ISLs + 5 CA ports (one CA dual-ported)
  const VertexId dual = graph.find("ca-0008f10403960558/MT23108");
  ASSERT_NE(dual, no_vertex);
  EXPECT_EQ(graph.links_of(dual).size(), 2u);
  std::size_t one_x = 0;
  for (const Link& link : graph.links()) one_x += link.spec.lane_count == 1 ? 1 : 0;
  EXPECT_EQ(one_x, 2u);  // each mismatched link at its lower end's 1xSDR
  EXPECT_TRUE(assumes(graph, "4 CAs share the description \"MT23108 InfiniHost Mellanox Technologies\""));
  EXPECT_TRUE(
      assumes(graph,
              "ISR9024 Voltaire[10] reports 4xSDR, SW-6IB4 Voltaire[1] reports 1xSDR; taken at the lower, 1xSDR"));
  EXPECT_TRUE(assumes(graph, "ISR9024 Voltaire[12] reports 4xSDR, ca-0008f10403960558/MT23108[1] reports 1xSDR"));
}

TEST(CorpusIbnetdiscover, IbsimWithStderrLineAndParallelIsls) {
  const Graph graph = parse_corpus("ibnetdiscover/ibnetdiscover_ibsim_2sw_dual_isl_with_ibwarn_line.txt");
  const VertexId switch1 = graph.find("Switch1");
  const VertexId switch2 = graph.find("Switch2");
  ASSERT_NE(switch1, no_vertex);
  ASSERT_NE(switch2, no_vertex);
  EXPECT_EQ(graph.vertex(switch1).tier, SwitchTier::leaf);
  EXPECT_EQ(graph.vertex(switch2).tier, SwitchTier::spine);
  std::size_t isls = 0;
  for (const LinkId l : graph.links_of(switch2)) isls += graph.link(l).other_end(switch2) == switch1 ? 1 : 0;
  EXPECT_EQ(isls, 2u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 2u);
  for (const Link& link : graph.links()) EXPECT_EQ(link.spec.technology, "IB SDR");
}

TEST(CorpusIbnetdiscover, EdrFatTreeSwitchesNamedByGuidAndOneDdrIsl) {
  const Graph graph = parse_corpus("ibnetdiscover/ibnetdiscover_edr_6switch_96hca_fattree_one_4xDDR_isl.txt");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 96u);
  EXPECT_EQ(graph.link_count(), 144u);
  std::size_t leaves = 0;
  std::size_t spines = 0;
  for (const Vertex& v : graph.vertices()) {
    if (v.kind != VertexKind::fabric_switch) continue;
    // Six switches share "SwitchIB Mellanox Technologies": every one carries its GUID.
    EXPECT_TRUE(v.name.starts_with("SwitchIB Mellanox Technologies-ec0d9a0300")) << v.name;
    leaves += v.tier == SwitchTier::leaf ? 1 : 0;
    spines += v.tier == SwitchTier::spine ? 1 : 0;
  }
  EXPECT_EQ(leaves, 4u);
  EXPECT_EQ(spines, 2u);
  const auto ddr = graph.find_link(graph.find("SwitchIB Mellanox Technologies-ec0d9a0300ec8480"),
                                   graph.find("SwitchIB Mellanox Technologies-ec0d9a0300ec8200"));
  ASSERT_TRUE(ddr);
  std::size_t ddr_links = 0;
  for (const Link& link : graph.links()) ddr_links += link.spec.technology == "IB DDR" ? 1 : 0;
  EXPECT_EQ(ddr_links, 1u);
  EXPECT_NE(graph.find("node019"), no_vertex);
}

TEST(CorpusSlurm, TopologyYamlTreeIsModelledAndTheOthersNamed) {
  const Graph graph = parse_corpus("slurm/slurm_topology.yaml_manpage_example.yaml");
  EXPECT_EQ(count_kind(graph, VertexKind::fabric_switch), 1u);
  EXPECT_EQ(count_kind(graph, VertexKind::host), 4u);
  EXPECT_NE(graph.find("sw_root"), no_vertex);
  EXPECT_NE(graph.find("node04"), no_vertex);
  EXPECT_TRUE(assumes(graph, "modelled tree 'topo1' (the cluster default); not modelled: block 'topo2', flat 'topo3'"));

  const std::string two_tier = "- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n    - switch: "
                               "spine\n      children: leaf[1-2]\n"
                               "    - switch: leaf1\n      nodes: n[1-4]\n    - switch: leaf2\n      nodes: n[5-8]\n";
  const Graph tree = parse_topology(SourceText{"topology.yaml", two_tier});
  EXPECT_EQ(tree.vertex(tree.find("spine")).tier, SwitchTier::spine);
  EXPECT_EQ(tree.vertex(tree.find("leaf2")).tier, SwitchTier::leaf);
  EXPECT_EQ(count_kind(tree, VertexKind::host), 8u);

  try {
    parse_topology(SourceText{
        "blocks.yaml",
        "- topology: b\n  block:\n    block_sizes: [4]\n    blocks:\n    - block: b1\n      nodes: n[1-4]\n"});
    FAIL() << "a block-only topology.yaml accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("blocks.yaml:1: expected a tree topology (tree: switches:) to model, got only block 'b'"),
              std::string::npos)
        << error.what();
  }
}

TEST(CorpusSlurm, BlockAndRingAreRefusedSayingWhatTheyAre) {
  const std::string ring = corpus_error("slurm/slurm_manpage_ring_plugin_example.conf");
  EXPECT_NE(ring.find("slurm_manpage_ring_plugin_example.conf:5: expected a topology/tree topology.conf"),
            std::string::npos)
      << ring;
  EXPECT_NE(ring.find("a topology/ring file (RingName=)"), std::string::npos) << ring;
  const std::string block = [] {
    try {
      parse_topology(SourceText{"block.conf", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,16\n"});
    } catch (const InputError& error) { return std::string(error.what()); }
    return std::string("no error");
  }();
  EXPECT_NE(block.find("block.conf:1: expected a topology/tree topology.conf (SwitchName=), got a topology/block file"),
            std::string::npos)
      << block;
}

TEST(CorpusSlurm, AssumedRatesAndANodeUnderTwoLeavesAreRecorded) {
  const Graph puppet = parse_corpus("slurm/puppet_4leaf_disconnected_switches.conf");
  EXPECT_EQ(count_kind(puppet, VertexKind::host), 39u);
  EXPECT_EQ(count_kind(puppet, VertexKind::fabric_switch), 4u);
  EXPECT_TRUE(assumes(puppet, "states no link rates: every link is taken as 4xNDR"));
  const Graph twice = parse_topology(
      SourceText{"two.conf",
                 "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[2-3]\nSwitchName=top Switches=s[1-2]\n"});
  EXPECT_TRUE(assumes(twice, "node n2 is listed under 2 leaf switches (s1, s2): placed once, under s1"));
  // Placed once: the two leaves stay joined only through "top", and n2 has one cable.
  EXPECT_EQ(twice.links_of(twice.find("n2")).size(), 1u);
  EXPECT_TRUE(assumes(twice, "states neither the count nor the rate of the links between switches: each of its 2 "
                             "switch-to-switch relations (Switches=, children:) is taken as one 4xNDR link, so every "
                             "oversubscription ratio and bisection bandwidth computed from them is assumed"));
}

std::vector<std::string> described(const FleetDiff& diff) {
  std::vector<std::string> lines;
  for (const GpuRenumbering& renumbering : diff.renumberings) lines.push_back("# " + describe(renumbering));
  for (const Deviation& deviation : diff.deviations) lines.push_back(describe(deviation));
  return lines;
}

FleetDiff diff_corpus_fleet(const std::string& folder) {
  std::vector<std::string> paths;
  for (const std::string node : {"dgx01", "dgx02", "dgx03", "dgx04"})
    paths.push_back(corpus_path(folder + "/" + node + ".txt"));
  return diff_fleet(load_fleet(paths));
}

TEST(CorpusFleet, GpuOffTheBusIsNamedNotTheLastOne) {
  const FleetDiff diff = diff_corpus_fleet("fleet/della_gpu3_off_the_bus");
  EXPECT_EQ(described(diff),
            (std::vector<std::string>{
                "# dgx03: GPUs matched to the fleet's by NUMA node, nearby NICs and NVLinks: GPU3 is the "
                "fleet's GPU4, GPU4 is the fleet's GPU5, GPU5 is the fleet's GPU6, GPU6 is the "
                "fleet's GPU7",
                "dgx03: GPU3: missing here, present on 3 of 4 nodes"}));
}

TEST(CorpusFleet, NicMissingIsTheOnlyDeviation) {
  EXPECT_EQ(described(diff_corpus_fleet("fleet/della_nic_missing")),
            (std::vector<std::string>{"dgx03: mlx5_2: missing here, present on 3 of 4 nodes"}));
}

TEST(CorpusFleet, NcclDumpsMatchGpusByBusId) {
  const std::string dump =
      fb::read_text_file(corpus_path("nccl_xml/ibmcloud_h100_vsi_topo_dump_2.5GTx1_bridges_width0.xml"));
  // GPU dev 2 (bus 0000:b8:00.0) gone, as CUDA then numbers the rest: dev 3..7 become 2..6.
  const std::size_t gpu2 = dump.find("<pci busid=\"0000:b8:00.0\"");
  ASSERT_NE(gpu2, std::string::npos);
  const std::size_t gpu2_end = dump.find("</pci>", gpu2) + std::string("</pci>").size();
  std::string edited = dump.substr(0, gpu2) + dump.substr(gpu2_end);
  for (int dev = 3; dev <= 7; ++dev) {
    edited = std::regex_replace(edited, std::regex(fmt::format("<gpu dev=\"{}\" sm=\"90\" rank=\"{}\"", dev, dev)),
                                fmt::format("<gpu dev=\"{}\" sm=\"90\" rank=\"{}\"", dev - 1, dev - 1));
  }
  std::vector<SourceText> sources;
  for (const std::string node : {"vsi1", "vsi2", "vsi3"}) sources.emplace_back(node + ".xml", dump);
  sources.emplace_back("vsi4.xml", edited);
  const FleetDiff diff = diff_fleet(parse_fleet(sources));
  const std::vector<std::string> lines = described(diff);
  ASSERT_EQ(lines.size(), 2u) << fmt::format("{}", fmt::join(lines, "\n"));
  EXPECT_EQ(lines[0],
            "# vsi4: GPUs matched to the fleet's by PCI bus id: GPU2 is the fleet's GPU3, GPU3 is the fleet's GPU4, "
            "GPU4 is the fleet's GPU5, GPU5 is the fleet's GPU6, GPU6 is the fleet's GPU7");
  EXPECT_EQ(lines[1], "vsi4: GPU2: missing here, present on 3 of 4 nodes");
}

// Two leaves under one spine; one host of four trained at 1xSDR (0.25 GB/s), the rest 4xEDR.
std::string two_leaf_fabric_with_one_slow_host() {
  std::string text;
  const auto ca = [&](const std::string& guid, const std::string& host, const std::string& leaf, int port,
                      const std::string& rate) {
    text += fmt::format("Ca 1 \"H-{}\" # \"{} mlx5_0\"\n[1]({}) \"S-{}\"[{}] # lid 1 lmc 0 \"leaf\" lid 2 {}\n\n", guid,
                        host, guid, leaf, port, rate);
  };
  text += "Switch 36 \"S-0a\" # \"MF0;leaf1:X/U1\" enhanced port 0 lid 1\n"
          "[1] \"H-01\"[1](01) # \"a mlx5_0\" lid 3 4xEDR\n[2] \"H-02\"[1](02) # \"b mlx5_0\" lid 4 1xSDR\n"
          "[9] \"S-0c\"[1] # \"MF0;spine:X/U1\" lid 9 4xEDR\n\n";
  text += "Switch 36 \"S-0b\" # \"MF0;leaf2:X/U1\" enhanced port 0 lid 2\n"
          "[1] \"H-03\"[1](03) # \"c mlx5_0\" lid 5 4xEDR\n[2] \"H-04\"[1](04) # \"d mlx5_0\" lid 6 4xEDR\n"
          "[9] \"S-0c\"[2] # \"MF0;spine:X/U1\" lid 9 4xEDR\n\n";
  text += "Switch 36 \"S-0c\" # \"MF0;spine:X/U1\" enhanced port 0 lid 9\n"
          "[1] \"S-0a\"[9] # \"MF0;leaf1:X/U1\" lid 1 4xEDR\n[2] \"S-0b\"[9] # \"MF0;leaf2:X/U1\" lid 2 4xEDR\n\n";
  ca("01", "a", "0a", 1, "4xEDR");
  ca("02", "b", "0a", 2, "1xSDR");
  ca("03", "c", "0b", 1, "4xEDR");
  ca("04", "d", "0b", 2, "4xEDR");
  return text;
}

TEST(CorpusAnalysis, UnequalHostsNeverAchieveMoreThanOffered) {
  const Graph graph = parse_topology(SourceText{"fabric.ibnet", two_leaf_fabric_with_one_slow_host()});
  FabricHierarchy fabric(graph);
  ASSERT_EQ(fabric_partitions(fabric).size(), 1u);
  for (const TrafficPattern pattern : {TrafficPattern::all_to_all, TrafficPattern::ring, TrafficPattern::bisection}) {
    const PatternAnalysis analysis = analyze_pattern(fabric, pattern);
    // Each host offers its own link: 3 x 12.5 + 0.25 GB/s.
    EXPECT_DOUBLE_EQ(analysis.offered_gbps, 3 * 12.5 + 0.25) << name_of(pattern);
    EXPECT_LE(analysis.achieved_gbps, analysis.offered_gbps * (1 + 1e-9)) << name_of(pattern);
    EXPECT_GT(analysis.achieved_gbps, 0.0);
  }
}

TEST(CorpusAnalysis, LeavesWithoutACommonSpineArePartsNotABisectionOfZero) {
  const Graph disconnected = parse_corpus("slurm/puppet_4leaf_disconnected_switches.conf");
  FabricHierarchy fabric(disconnected);
  const auto parts = fabric_partitions(fabric);
  ASSERT_EQ(parts.size(), 4u);
  std::vector<std::size_t> sizes;
  for (const auto& part : parts) sizes.push_back(part.size());
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 1, 1, 36}));
  EXPECT_FALSE(parts_are_linked(disconnected, parts));

  // The man page's two switches both carry CAs and are cabled to each other: linked, yet without
  // a common upper tier.
  const Graph leaf_to_leaf =
      parse_corpus("ibnetdiscover/ibnetdiscover_manpage_voltaire_sdr_nonchassis_1x_mismatch.txt");
  FabricHierarchy leaves(leaf_to_leaf);
  const auto leaf_parts = fabric_partitions(leaves);
  EXPECT_EQ(leaf_parts.size(), 2u);
  EXPECT_TRUE(parts_are_linked(leaf_to_leaf, leaf_parts));
}

}  // namespace
}  // namespace fb::topo
