#include "diagnosis/host_cables.hpp"

namespace fb::diagnosis {

std::vector<HostCable> host_cables(const topo::Graph& graph, const std::string& host) {
  using topo::VertexKind;
  std::vector<HostCable> cables;
  const topo::VertexId host_vertex = graph.find(host);
  if (host_vertex == topo::no_vertex || graph.vertex(host_vertex).kind != VertexKind::host) return cables;
  for (const topo::VertexId nic : graph.devices_of(host_vertex)) {
    if (graph.vertex(nic).kind != VertexKind::nic) continue;
    for (const topo::LinkId link : graph.links_of(nic)) {
      const topo::VertexId other = graph.link(link).other_end(nic);
      if (graph.vertex(other).kind != VertexKind::fabric_switch) continue;
      const std::string& nic_name = graph.vertex(nic).name;
      HostCable cable{.link = link,
                      .host = host,
                      .nic = nic_name.starts_with(host + "/") ? nic_name.substr(host.size() + 1) : nic_name,
                      .fabric_switch = graph.vertex(other).name,
                      .switch_port = std::nullopt};
      // Port 0 is no port: the dump did not state that end.
      if (const std::optional<topo::CablePorts> ports = graph.cable_ports(link)) {
        const int port = graph.link(link).a == other ? ports->a : ports->b;
        if (port > 0) cable.switch_port = port;
      }
      cables.push_back(std::move(cable));
    }
  }
  return cables;
}

}  // namespace fb::diagnosis
