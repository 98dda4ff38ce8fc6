#pragma once
// Which cable of the fabric carries a host's traffic: the links from the host's NICs to fabric
// switches, named as a technician finds them (host and NIC at one end, switch and port at the
// other). A host's pair measurements single out a cable only when the host has exactly one.

#include "topology/graph.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct HostCable {
  topo::LinkId link = 0;
  std::string host;
  std::string nic;                 // "mlx5_0", the NIC's name without its host
  std::string fabric_switch;       // "leaf0001"
  std::optional<int> switch_port;  // where the topology states it (ibnetdiscover)
};

// Every cable from one of the host's NICs to a fabric switch, by NIC; empty when the topology does
// not have the host.
std::vector<HostCable> host_cables(const topo::Graph& graph, const std::string& host);

}  // namespace fb::diagnosis
