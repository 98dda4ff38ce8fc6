// GB200 trays' nvidia-smi topo -m (NUMA Affinity as node lists; a matrix that contradicts the
// affinity columns) and an NCCL dump whose <net> state no speed, read as tests/corpus/topology/
// SOURCES.md says they must.

#include "common/text_file.hpp"
#include "topology/format_registry.hpp"

#include "common/errors.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace fb::topo {
namespace {

using ::testing::HasSubstr;

Graph parse_corpus(const std::string& name) {
  const std::string path = std::string(TOPOLOGY_CORPUS_DIR) + "/" + name;
  return parse_topology(SourceText{path, fb::read_text_file(path)});
}

std::string all_assumptions(const Graph& graph) {
  std::string text;
  for (const std::string& assumption : graph.assumptions()) text += assumption + "\n";
  return text;
}

// The vertex a device's PCIe link goes up to, and on up to its CPU.
std::string cpu_above(const Graph& graph, const std::string& device) {
  VertexId v = graph.find(device);
  EXPECT_NE(v, no_vertex) << device;
  while (v != no_vertex && graph.vertex(v).kind != VertexKind::cpu) {
    VertexId up = no_vertex;
    for (const LinkId l : graph.links_of(v)) {
      const Link& link = graph.link(l);
      const VertexKind other = graph.vertex(link.other_end(v)).kind;
      if (link.spec.type == LinkType::pcie && (other == VertexKind::pcie_switch || other == VertexKind::cpu))
        up = link.other_end(v);
    }
    v = up;
  }
  return v == no_vertex ? std::string("none") : graph.vertex(v).name;
}

// Each GPU's NUMA Affinity lists its CPU's node and its own memory nodes ("0,3-9,11-17"): before,
// refused. Each GPU sits on the lowest node of its list, the NICs on their GPUs' nodes.
TEST(CorpusGb200, NumaAffinityListsPlaceEachGpuOnItsCpusNode) {
  const std::string host = "gb200_tray_numa_affinity_lists_constructed";
  const Graph graph = parse_corpus("topo_m/gb200_tray_numa_affinity_lists_constructed.txt");
  for (const char* gpu : {"GPU0", "GPU1"}) EXPECT_EQ(cpu_above(graph, host + "/" + gpu), host + "/CPU0");
  for (const char* gpu : {"GPU2", "GPU3"}) EXPECT_EQ(cpu_above(graph, host + "/" + gpu), host + "/CPU1");
  for (const char* nic : {"mlx5_0", "mlx5_1"}) EXPECT_EQ(cpu_above(graph, host + "/" + nic), host + "/CPU0");
  for (const char* nic : {"mlx5_2", "mlx5_3"}) EXPECT_EQ(cpu_above(graph, host + "/" + nic), host + "/CPU1");
  // The BlueField's two ports are SYS to every GPU: one switch, on a CPU whose node the file does not give.
  EXPECT_EQ(cpu_above(graph, host + "/mlx5_4"), host + "/CPU-unknown-NUMA0");
  EXPECT_EQ(cpu_above(graph, host + "/mlx5_5"), host + "/CPU-unknown-NUMA0");
  // `nvidia-smi -L` above the matrix names the GB200: NV18 is NVLink5, decided.
  EXPECT_EQ(graph.undecided_link_count(), 0u);
  std::size_t nvlink5 = 0;
  for (LinkId l = 0; l < graph.link_count(); ++l)
    if (graph.link(l).spec.technology == "NVLink5" && graph.link(l).spec.lane_count == 18) ++nvlink5;
  EXPECT_EQ(nvlink5, 4u);
  EXPECT_THAT(all_assumptions(graph),
              HasSubstr("the NUMA Affinity of GPU0, GPU1, GPU2, GPU3 lists several nodes (first: '0,3-9,11-17' on "
                        "line 8): each GPU is placed on the lowest node of its list"));
}

// Every NIC is NODE or PHB to GPUs the NUMA Affinity column puts on both sockets: before, all of
// them silently on CPU0. Now each contradiction is said with its line, and a NIC nearer to one
// socket's GPUs (PHB) goes to that socket.
TEST(CorpusGb200, NicsTheMatrixPutsWithGpusOfBothSocketsAreReportedWithTheirLines) {
  const std::string host = "gb200_tray_nics_node_to_both_sockets_constructed";
  const Graph graph = parse_corpus("topo_m/gb200_tray_nics_node_to_both_sockets_constructed.txt");
  EXPECT_EQ(cpu_above(graph, host + "/GPU0"), host + "/CPU0");
  EXPECT_EQ(cpu_above(graph, host + "/GPU3"), host + "/CPU1");
  EXPECT_EQ(cpu_above(graph, host + "/mlx5_0"), host + "/CPU0");
  EXPECT_EQ(cpu_above(graph, host + "/mlx5_1"), host + "/CPU0");
  EXPECT_EQ(cpu_above(graph, host + "/mlx5_2"), host + "/CPU1");
  EXPECT_EQ(cpu_above(graph, host + "/mlx5_3"), host + "/CPU1");
  const std::string assumptions = all_assumptions(graph);
  EXPECT_THAT(assumptions,
              HasSubstr("line 12: the matrix puts NIC0 on one NUMA node with GPUs the NUMA Affinity column puts on "
                        "different nodes (NODE to GPU0 (NUMA 0), NODE to GPU1 (NUMA 0), NODE to GPU2 (NUMA 1), NODE "
                        "to GPU3 (NUMA 1)): the two contradict each other; placed on NUMA 0, the lowest: no GPU is "
                        "nearer than the others"));
  EXPECT_THAT(assumptions, HasSubstr("line 13: the matrix puts NIC1 on one NUMA node"));
  EXPECT_THAT(assumptions, HasSubstr("line 14: the matrix puts NIC2 on one NUMA node with GPUs the NUMA Affinity "
                                     "column puts on different nodes (NODE to GPU0 (NUMA 0), NODE to GPU1 (NUMA 0), "
                                     "PHB to GPU2 (NUMA 1), PHB to GPU3 (NUMA 1)): the two contradict each other; "
                                     "placed on NUMA 1, the node of its nearest GPU"));
  EXPECT_THAT(assumptions, HasSubstr("line 15: the matrix puts NIC3 on one NUMA node"));
}

// The IBM Cloud H100 dump with its <net> speed attributes removed: NCCL takes 10000 Mb/s for each,
// and so does the model, aloud. Before, refused.
TEST(CorpusNcclXml, NetWithoutSpeedIsTakenAsNcclTakesIt) {
  const std::string host = "ibmcloud_h100_vsi_net_without_speed_derived";
  const Graph graph = parse_corpus("nccl_xml/ibmcloud_h100_vsi_net_without_speed_derived.xml");
  std::size_t nics = 0;
  for (const Vertex& vertex : graph.vertices()) {
    if (vertex.kind != VertexKind::nic) continue;
    ++nics;
    ASSERT_TRUE(vertex.nic_port) << vertex.name;
    EXPECT_EQ(vertex.nic_port->speed_gbps, 10.0) << vertex.name;
    EXPECT_TRUE(vertex.nic_port->gpu_direct_rdma) << vertex.name;
  }
  EXPECT_EQ(nics, 8u);
  EXPECT_THAT(all_assumptions(graph),
              HasSubstr("8 <net> state no positive speed (first: mlx5_7 on line 6, no speed): taken as 10000 Mb/s "
                        "(10 Gb/s), as NCCL does"));
}

}  // namespace
}  // namespace fb::topo
