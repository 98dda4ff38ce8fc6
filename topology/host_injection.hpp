#pragma once
// What a host's GPUs can push into the fabric at once, each through its nearest NIC (GPUDirect
// RDMA), against what its NIC ports carry. A fabric is analysed at its ports' rates; hosts whose
// PCIe paths fill first (800G NICs behind PCIe Gen5 x16) never offer it that much, and a buyer
// reading the bisection needs to know.

#include "topology/fabric_hierarchy.hpp"
#include "topology/graph.hpp"

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace fb::topo {

struct HostInjection {
  VertexId host = no_vertex;        // the first host of those built alike
  std::size_t hosts = 0;            // hosts built alike (same devices, linked alike)
  double port_gbps = 0;             // its NIC ports to the fabric, at line rate
  double port_collective_gbps = 0;  // what NCCL sustains over them (the transport's efficiency)
  double reachable_gbps = 0;        // what its GPUs reach them at together, max-min fair
  LinkId limit = 0;                 // a link inside the host that fills first
  bool limit_from_a = true;         // its direction
};

// Hosts whose GPUs cannot fill what their NIC ports carry for collectives, the largest shortfall first; hosts built
// alike are solved once. Hosts without GPUs (a fabric dump's bare hosts) are left out: nothing is known of what drives
// their NICs.
std::vector<HostInjection> injection_shortfalls(const Graph& graph, const FabricHierarchy& fabric);

// "node00001/PCIe0 -> node00001/mlx5_0 (PCIe Gen5 x16, 64.0 GB/s)"
std::string describe_direction(const Graph& graph, LinkId link, bool from_a);

nlohmann::json to_json(const Graph& graph, const std::vector<HostInjection>& shortfalls);

}  // namespace fb::topo
