#pragma once
// What a technician needs to act on a finding: where the part is (the cable's two ends with their
// ports, as ibnetdiscover states them; the host and its NIC), what to do in plain words, and the
// command that shows the repair worked.

#include "diagnosis/diagnosis.hpp"
#include "topology/graph.hpp"

#include <string>

namespace fb::diagnosis {

struct RepairTicket {
  std::string location;  // "leaf01 port 3 <-> h003 mlx5_0 port 1"; a host for node findings
  std::string action;    // "reseat or replace the cable between ..."
  std::string confirm;   // the command to run after the repair
};

// One end of a cable as a technician finds it: "leaf01 port 17", "h003 mlx5_0 port 1"; without a
// stated port (the topology input did not say), "leaf01 (port not stated)".
std::string cable_end(const topo::Graph& graph, topo::LinkId link, topo::VertexId end);
// "leaf01 port 17 <-> h003 mlx5_0 port 1".
std::string cable_location(const topo::Graph& graph, topo::LinkId link);

RepairTicket repair_ticket(const topo::Graph& graph, const Finding& finding);

}  // namespace fb::diagnosis
