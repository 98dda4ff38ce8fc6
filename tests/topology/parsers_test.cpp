#include "topology/format_registry.hpp"
#include "common/text_file.hpp"
#include "topology/hostlist.hpp"

#include "test_support.hpp"

#include "common/errors.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace fb::topo {
namespace {

using test::count_kind;
using test::count_links;

// The message of the InputError that parsing `text` as `format` throws.
std::string parse_error(const std::string& path, const std::string& text, std::string_view format) {
  try {
    parse_topology(SourceText{path, text}, format);
  } catch (const InputError& error) { return error.what(); }
  return "no error";
}

TEST(FormatRegistry, EveryFormatRegisteredItself) {
  EXPECT_EQ(TopologyFormatRegistry::instance().names(),
            "cluster-yaml, ibnetdiscover, ibsim, nccl-xml, nvidia-smi, rocm-smi, slurm, slurm-yaml");
}

TEST(FormatRegistry, SniffingPicksTheRightParser) {
  for (const auto& [file, kind, count] :
       std::vector<std::tuple<std::string, VertexKind, std::size_t>>{{"dgx01.topo", VertexKind::gpu, 8},
                                                                     {"fabric.ibnet", VertexKind::nic, 8},
                                                                     {"topology.conf", VertexKind::fabric_switch, 4},
                                                                     {"pcie_box.yaml", VertexKind::gpu, 8}}) {
    EXPECT_EQ(count_kind(test::parse_sample(file), kind), count) << file;
  }
  EXPECT_NE(parse_error("x.txt", "hello world\n", "auto").find("x.txt:1: expected one of the topology formats"),
            std::string::npos);
  EXPECT_THROW(parse_topology(SourceText{"x", ""}, "no-such-format"), UsageError);
}

// Degenerate lines the fuzzer found or could find (a rule of '=' with no title crashed the rocm-smi
// reader with std::out_of_range): every registered format either reads them or names the line.
TEST(FormatRegistry, DegenerateLinesEndInAnInputErrorOrAGraph) {
  for (const std::string text : {"", "=\n", "=====\n", "=====\nGPU0\n", "========== Weight between two GPUs ==\n=\n",
                                 "\n\n\n", "\t\t\n", "GPU0\tGPU0\n", "#\n", "---\n", "<\n", "{\n",
                                 // A Weight banner with no rows, then a Link Type table that sizes the GPUs.
                                 "===== Weight between two GPUs =====\n===== Link Type between two GPUs =====\n"
                                 "      GPU0  GPU1\nGPU0  0     XGMI\nGPU1  XGMI  0\n"}) {
    for (const TopologyFormat& format : TopologyFormatRegistry::instance().entries()) {
      try {
        (void)parse_topology(SourceText{"degenerate.txt", text}, format.name);
      } catch (const InputError&) {
      } catch (const std::exception& error) {
        ADD_FAILURE() << format.name << " threw " << error.what() << " on " << testing::PrintToString(text);
      }
    }
  }
}

TEST(NvidiaSmiTopo, DgxH100WithNv18AndEightNics) {
  const Graph graph = test::parse_sample("dgx01.topo", "nvidia-smi");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 1u);
  EXPECT_NE(graph.find("dgx01"), no_vertex);  // host named after the file
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 8u);
  EXPECT_NE(graph.find("dgx01/mlx5_7"), no_vertex);  // NIC legend names
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 2u);
  EXPECT_EQ(count_kind(graph, VertexKind::pcie_switch), 8u);  // one per PXB GPU+NIC pair
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 1u);     // all-to-all NV18
  ASSERT_EQ(count_links(graph, LinkType::nvlink), 8u);
  for (const Link& link : graph.links()) {
    if (link.spec.type == LinkType::nvlink) {
      EXPECT_EQ(link.spec.lane_count, 18);
      // NCCL's effective 20.6 GB/s per NVLink4 lane, the same as NCCL's XML gives; 25 on the datasheet.
      EXPECT_DOUBLE_EQ(link.spec.capacity_gbps, 18 * 20.6);
      EXPECT_DOUBLE_EQ(link.spec.datasheet_gbps, 450.0);
    }
    if (link.spec.type == LinkType::pcie) { EXPECT_TRUE(link.nominal_capacity); }
  }
  // NIC4 sits with GPU4 on NUMA node 1.
  const VertexId nic4_switch =
      graph.link(graph.links_of(graph.find("dgx01/mlx5_4"))[0]).other_end(graph.find("dgx01/mlx5_4"));
  bool on_cpu1 = false;
  for (const LinkId l : graph.links_of(nic4_switch))
    on_cpu1 |= graph.link(l).other_end(nic4_switch) == graph.find("dgx01/CPU1");
  EXPECT_TRUE(on_cpu1);
}

TEST(NvidiaSmiTopo, PcieBoxWithoutLegend) {
  const Graph graph = test::parse_sample("pcie8.topo", "nvidia-smi");
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 8u);
  EXPECT_NE(graph.find("pcie8/NIC1"), no_vertex);  // no legend: the matrix label is the name
  EXPECT_EQ(count_links(graph, LinkType::nvlink), 0u);
  EXPECT_EQ(count_kind(graph, VertexKind::pcie_switch), 4u);
  EXPECT_EQ(count_links(graph, LinkType::smp), 1u);
}

TEST(NvidiaSmiTopo, DirectNvlinkPairsAreNotAnNvswitch) {
  const std::string text = "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
                           "GPU0\t X \tNV4\tSYS\tSYS\t0-7\t0\n"
                           "GPU1\tNV4\t X \tSYS\tSYS\t0-7\t0\n"
                           "GPU2\tSYS\tSYS\t X \tNV4\t8-15\t1\n"
                           "GPU3\tSYS\tSYS\tNV4\t X \t8-15\t1\n";
  const Graph graph = parse_topology(SourceText{"bridged.txt", text}, "nvidia-smi");
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 0u);
  EXPECT_EQ(count_links(graph, LinkType::nvlink), 2u);
  EXPECT_TRUE(graph.find_link(graph.find("bridged/GPU0"), graph.find("bridged/GPU1")));
}

TEST(NvidiaSmiTopo, GpuWithNvlinksDownStaysOffTheNvswitch) {
  const std::string text = "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
                           "GPU0\t X \tNV18\tNV18\tNODE\t0-7\t0\n"
                           "GPU1\tNV18\t X \tNV18\tNODE\t0-7\t0\n"
                           "GPU2\tNV18\tNV18\t X \tNODE\t0-7\t0\n"
                           "GPU3\tNODE\tNODE\tNODE\t X \t0-7\t0\n";
  const Graph graph = parse_topology(SourceText{"down.txt", text}, "nvidia-smi");
  EXPECT_EQ(count_kind(graph, VertexKind::nvswitch), 1u);
  EXPECT_EQ(count_links(graph, LinkType::nvlink), 3u);  // GPU0-2 to the switch, none between GPUs
  EXPECT_TRUE(graph.find_link(graph.find("down/GPU2"), graph.find("down/NVSwitch")));
  EXPECT_FALSE(graph.find_link(graph.find("down/GPU3"), graph.find("down/NVSwitch")));
}

TEST(NvidiaSmiTopo, GpuWithFewerNvlinksAttachesToTheNvswitchByThem) {
  const std::string text = "\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\n"
                           "GPU0\t X \tNV18\tNV17\t0-7\t0\n"
                           "GPU1\tNV18\t X \tNV17\t0-7\t0\n"
                           "GPU2\tNV17\tNV17\t X \t0-7\t0\n";
  const Graph graph = parse_topology(SourceText{"slow.txt", text}, "nvidia-smi");
  ASSERT_EQ(count_kind(graph, VertexKind::nvswitch), 1u);
  const auto gpu2 = graph.find_link(graph.find("slow/GPU2"), graph.find("slow/NVSwitch"));
  const auto gpu0 = graph.find_link(graph.find("slow/GPU0"), graph.find("slow/NVSwitch"));
  ASSERT_TRUE(gpu2 && gpu0);
  EXPECT_EQ(graph.link(*gpu2).spec.lane_count, 17);
  EXPECT_EQ(graph.link(*gpu0).spec.lane_count, 18);
}

TEST(NvidiaSmiTopo, MalformedMatricesNameLineAndToken) {
  const std::string header = "\tGPU0\tGPU1\n";
  EXPECT_EQ(parse_error("m.txt", header + "GPU0\t X \tNV4\nGPU1\tNVX\t X \n", "nvidia-smi"),
            "m.txt:3: expected a link token (X on the diagonal; SYS, NODE, PHB, PXB, PIX or NV#) for GPU0, got 'NVX'");
  EXPECT_EQ(parse_error("m.txt", header + "GPU0\t X \tNV4\n", "nvidia-smi"), "m.txt:2: expected 2 device rows, got 1");
  EXPECT_EQ(parse_error("m.txt", header + "GPU0\t X \tNV4\nGPU1\tSYS\t X \n", "nvidia-smi"),
            "m.txt:2: expected the same relation as GPU1's row for GPU0, got a different one");
  EXPECT_NE(parse_error("m.txt", "garbage\n", "nvidia-smi").find("m.txt:1: expected a header row"), std::string::npos);
}

TEST(NcclTopoXml, H100SingleGpuFixture) {
  const std::string path = std::string(TOPOLOGY_FIXTURES_DIR) + "/nccl_topo_h100_1gpu.xml";
  const Graph graph = parse_topology(SourceText{path, fb::read_text_file(path)});
  EXPECT_NE(graph.find("nccl_topo_h100_1gpu"), no_vertex);
  EXPECT_EQ(count_kind(graph, VertexKind::cpu), 1u);
  EXPECT_EQ(count_kind(graph, VertexKind::gpu), 1u);
  const VertexId gpu = graph.find("nccl_topo_h100_1gpu/GPU0");
  ASSERT_NE(gpu, no_vertex);
  // link_speed 32.0 GT/s is Gen5; link_width 0 (a VM) stands in as a nominal x16.
  const Link& pcie = graph.link(graph.links_of(gpu)[0]);
  EXPECT_DOUBLE_EQ(pcie.spec.capacity_gbps, 48.0);
  EXPECT_TRUE(pcie.nominal_capacity);
  const VertexId nic = graph.find("nccl_topo_h100_1gpu/eth0");
  ASSERT_NE(nic, no_vertex);
  // speed="10000" is in Mb/s; gdr="0": the VM's virtio NIC cannot reach GPU memory.
  EXPECT_EQ(graph.vertex(nic).nic_port, (NicPort{10.0, false}));
}

constexpr const char* nccl_two_gpu_xml = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="90" rank="0" gdr="1">
          <nvlink target="0000:12:00.0" count="4" tclass="0x030200"/>
        </gpu>
      </pci>
      <pci busid="0000:12:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="90" rank="1" gdr="1">
          <nvlink target="0000:11:00.0" count="4" tclass="0x030200"/>
        </gpu>
      </pci>
      <pci busid="0000:13:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="400000" port="1" latency="0" guid="0x1" maxconn="131072" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
</system>
)";

TEST(NcclTopoXml, BridgeGpusNvlinkAndNic) {
  const Graph graph = parse_topology(SourceText{"node7.xml", nccl_two_gpu_xml});
  EXPECT_EQ(count_kind(graph, VertexKind::pcie_switch), 1u);
  ASSERT_EQ(count_links(graph, LinkType::nvlink), 1u);  // listed by both GPUs, kept once
  const auto nvlink = graph.find_link(graph.find("node7/GPU0"), graph.find("node7/GPU1"));
  ASSERT_TRUE(nvlink);
  EXPECT_DOUBLE_EQ(graph.link(*nvlink).spec.capacity_gbps, 4 * 20.6);
  EXPECT_NE(graph.find("node7/mlx5_0"), no_vertex);
  EXPECT_EQ(count_links(graph, LinkType::pcie), 4u);
}

TEST(NcclTopoXml, TruncatedAndInconsistentDumps) {
  const std::string text = nccl_two_gpu_xml;
  const std::string truncated = text.substr(0, text.find("<pci busid=\"0000:13"));
  EXPECT_NE(parse_error("t.xml", truncated, "nccl-xml").find("t.xml:14: expected well-formed XML"), std::string::npos);
  std::string dangling = text;
  dangling.replace(dangling.find("target=\"0000:11:00.0\""), 21, "target=\"0000:99:00.0\"");
  EXPECT_EQ(
      parse_error("d.xml", dangling, "nccl-xml"),
      "d.xml:11: expected an nvlink target that is a GPU's busid, or tclass 0x068000 (NVSwitch), got '0000:99:00.0'");
  std::string bad_speed = text;
  bad_speed.replace(bad_speed.find("32.0 GT/s"), 9, "33.0 GT/s");
  EXPECT_NE(parse_error("s.xml", bad_speed, "nccl-xml").find("s.xml:3: expected a link_speed"), std::string::npos);
}

TEST(Ibnetdiscover, TwoLevelFatTree) {
  const Graph graph = test::parse_sample("fabric.ibnet", "ibnetdiscover");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 4u);
  EXPECT_EQ(count_kind(graph, VertexKind::nic), 8u);
  EXPECT_EQ(count_kind(graph, VertexKind::fabric_switch), 4u);
  EXPECT_EQ(graph.link_count(), 8u + 4u);  // each cable once, though listed from both ends
  EXPECT_EQ(graph.vertex(graph.find("leaf01")).tier, SwitchTier::leaf);
  EXPECT_EQ(graph.vertex(graph.find("spine02")).tier, SwitchTier::spine);
  const auto cable = graph.find_link(graph.find("dgx03/mlx5_1"), graph.find("leaf02"));
  ASSERT_TRUE(cable);
  EXPECT_DOUBLE_EQ(graph.link(*cable).spec.capacity_gbps, 50.0);
}

TEST(Ibnetdiscover, MalformedDumpsNameLineAndWhat) {
  const std::string ok = fb::read_text_file(test::sample_path("fabric.ibnet"));
  std::string unknown_speed = ok;
  const std::size_t first_port = unknown_speed.find("4xNDR");
  unknown_speed.replace(first_port, 5, "4xZZZ");
  EXPECT_EQ(parse_error("f.ibnet", unknown_speed, "ibnetdiscover"),
            "f.ibnet:11: expected a link width and speed like 4xNDR at the end of the port line, got '4xZZZ'");
  std::string dangling = ok;
  dangling.replace(dangling.find("\"S-98039b0300b10001\"[1]"), 20, "\"S-00000000deadbeef\"");
  EXPECT_EQ(parse_error("f.ibnet", dangling, "ibnetdiscover"),
            "f.ibnet:15: expected a peer GUID that has its own Switch or Ca block, got 'S-00000000deadbeef'");
  EXPECT_NE(parse_error("f.ibnet", "[1]\t\"S-01\"[2]\t# 4xNDR\n", "ibnetdiscover")
                .find("f.ibnet:1: expected a Switch or Ca line"),
            std::string::npos);
  EXPECT_NE(
      parse_error("f.ibnet", "Switch\t64 \"S-01\n", "ibnetdiscover").find("f.ibnet:1: expected the node's quoted id"),
      std::string::npos);
}

TEST(SlurmTopology, TreeWithHostlists) {
  const Graph graph = test::parse_sample("topology.conf", "slurm");
  EXPECT_EQ(count_kind(graph, VertexKind::host), 4u);
  EXPECT_EQ(graph.vertex(graph.find("leaf02")).tier, SwitchTier::leaf);
  EXPECT_EQ(graph.vertex(graph.find("spine01")).tier, SwitchTier::spine);
  const auto host_link = graph.find_link(graph.find("dgx04"), graph.find("leaf02"));
  ASSERT_TRUE(host_link);
  EXPECT_TRUE(graph.link(*host_link).nominal_capacity);
  EXPECT_EQ(graph.link_count(), 4u + 4u);
}

TEST(SlurmTopology, UndefinedSwitchLoopAndUnknownKey) {
  EXPECT_EQ(parse_error("t.conf", "SwitchName=s1 Switches=s[2-3]\nSwitchName=s2 Nodes=n1\n", "slurm"),
            "t.conf:1: expected a switch defined by a SwitchName= line, got 's3'");
  EXPECT_EQ(parse_error("t.conf", "SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "slurm"),
            "t.conf:1: expected a tree of switches, got a loop through 'a'");
  EXPECT_EQ(parse_error("t.conf", "SwitchName=a Nodz=n1\n", "slurm"),
            "t.conf:1: expected SwitchName, Nodes, Switches or LinkSpeed, got 'Nodz'");
  EXPECT_EQ(parse_error("t.conf", "SwitchName=a Nodes=n[3-1]\n", "slurm"),
            "t.conf:1: expected a range LOW-HIGH of non-negative numbers, got '3-1', got 'n[3-1]'");
}

TEST(Hostlist, RangesPaddingAndProducts) {
  EXPECT_EQ(expand_hostlist("node[01-03,10],login").hosts,
            (std::vector<std::string>{"node01", "node02", "node03", "node10", "login"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[8-9]").hosts, (std::vector<std::string>{"r1n8", "r1n9", "r2n8", "r2n9"}));
  EXPECT_FALSE(expand_hostlist("node[1-").error.empty());
  EXPECT_FALSE(expand_hostlist("node[0-99999999]", 1000).error.empty());
}

}  // namespace
}  // namespace fb::topo
