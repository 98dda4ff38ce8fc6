#include "topology/host_injection.hpp"

#include "topology/flow_model.hpp"
#include "topology/host_routes.hpp"
#include "topology/link_technology.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace fb::topo {
namespace {

constexpr double shortfall_tolerance = 1e-9;

struct PortRate {
  double line_gbps = 0;
  double collective_gbps = 0;  // what NCCL sustains over the ports' transport
};

// A NIC's ports to fabric switches.
PortRate fabric_ports(const Graph& graph, VertexId nic) {
  PortRate rate;
  for (const LinkId l : graph.links_of(nic)) {
    const Link& link = graph.link(l);
    if (graph.vertex(link.other_end(nic)).kind != VertexKind::fabric_switch) continue;
    rate.line_gbps += link.spec.capacity_gbps;
    rate.collective_gbps += link.spec.capacity_gbps * collective_efficiency(link.spec);
  }
  return rate;
}

// The resources one host's GPU-to-NIC flows cross: directed links inside the host and each NIC's
// fabric ports, numbered locally so that a host's solve is the size of the host.
class HostResources {
 public:
  explicit HostResources(const Graph& graph) : graph_(graph) {}

  std::uint32_t link(const LinkUse& use) {
    const std::uint64_t key = 2 * static_cast<std::uint64_t>(use.link) + (use.from_a ? 0 : 1);
    return resource(key, graph_.link(use.link).spec.capacity_gbps, use.link, use.from_a);
  }
  std::uint32_t port(VertexId nic, double gbps) {
    return resource(2 * static_cast<std::uint64_t>(graph_.link_count()) + nic, gbps, 0, true, true);
  }

  std::span<const double> capacity_gbps() const { return capacity_gbps_; }
  bool is_port(std::uint32_t resource) const { return kinds_[resource].port; }
  LinkId link_of(std::uint32_t resource) const { return kinds_[resource].link; }
  bool from_a(std::uint32_t resource) const { return kinds_[resource].from_a; }

 private:
  struct Kind {
    LinkId link = 0;
    bool from_a = true;
    bool port = false;
  };
  std::uint32_t resource(std::uint64_t key, double gbps, LinkId link, bool from_a, bool port = false) {
    const auto [it, added] = index_.try_emplace(key, static_cast<std::uint32_t>(capacity_gbps_.size()));
    if (added) {
      capacity_gbps_.push_back(gbps);
      kinds_.push_back({link, from_a, port});
    }
    return it->second;
  }

  const Graph& graph_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<double> capacity_gbps_;
  std::vector<Kind> kinds_;
};

// Every GPU of the host sends to its nearest NIC and on through that NIC's ports, all at once.
HostInjection solve_host(const Graph& graph, HostRoutes& routes, VertexId host) {
  HostInjection injection;
  injection.host = host;
  HostResources resources(graph);
  std::map<VertexId, std::uint32_t> nic_ports;
  for (const VertexId device : graph.devices_of(host)) {
    if (graph.vertex(device).kind != VertexKind::nic) continue;
    const PortRate rate = fabric_ports(graph, device);
    if (rate.line_gbps <= 0) continue;
    injection.port_gbps += rate.line_gbps;
    injection.port_collective_gbps += rate.collective_gbps;
    nic_ports.emplace(device, resources.port(device, rate.collective_gbps));
  }
  std::vector<std::vector<ResourceShare>> paths;
  for (const VertexId device : graph.devices_of(host)) {
    if (graph.vertex(device).kind != VertexKind::gpu) continue;
    const std::optional<VertexId> nic = nearest_nic(graph, device);
    if (!nic || !nic_ports.contains(*nic)) continue;
    const Route* route = routes.between(device, *nic);
    if (route == nullptr) continue;
    std::vector<ResourceShare>& path = paths.emplace_back();
    for (const LinkUse& use : route->uses) path.push_back({resources.link(use), use.fraction});
    path.push_back({nic_ports.at(*nic), 1.0});
  }
  if (paths.empty()) return injection;
  std::vector<FlowClass> classes;
  for (const std::vector<ResourceShare>& path : paths) classes.push_back({{std::span<const ResourceShare>(path)}, 1});
  const MaxMinAllocation allocation = solve_max_min(resources.capacity_gbps(), classes);
  for (const double rate : allocation.rate_gbps) injection.reachable_gbps += rate;
  for (std::uint32_t r = 0; r < allocation.saturated.size(); ++r) {
    if (allocation.saturated[r] && !resources.is_port(r)) {
      injection.limit = resources.link_of(r);
      injection.limit_from_a = resources.from_a(r);
      break;
    }
  }
  return injection;
}

}  // namespace

std::vector<HostInjection> injection_shortfalls(const Graph& graph, const FabricHierarchy& fabric) {
  HostRoutes routes(graph);
  std::vector<HostInjection> shortfalls;
  std::unordered_map<std::uint32_t, std::size_t> by_shape;  // shape -> index in shortfalls, or npos
  for (const VertexId host : fabric.hosts()) {
    const std::uint32_t shape = routes.shape(host);
    if (const auto seen = by_shape.find(shape); seen != by_shape.end()) {
      if (seen->second != std::string::npos) ++shortfalls[seen->second].hosts;
      continue;
    }
    HostInjection injection = solve_host(graph, routes, host);
    const bool short_of_ports = injection.reachable_gbps > 0 &&
                                injection.reachable_gbps < injection.port_collective_gbps * (1 - shortfall_tolerance);
    by_shape.emplace(shape, short_of_ports ? shortfalls.size() : std::string::npos);
    if (!short_of_ports) continue;
    injection.hosts = 1;
    shortfalls.push_back(injection);
  }
  std::stable_sort(shortfalls.begin(), shortfalls.end(), [](const HostInjection& a, const HostInjection& b) {
    return a.reachable_gbps / a.port_collective_gbps < b.reachable_gbps / b.port_collective_gbps;
  });
  return shortfalls;
}

std::string describe_direction(const Graph& graph, LinkId link_id, bool from_a) {
  const Link& link = graph.link(link_id);
  const VertexId from = from_a ? link.a : link.b;
  const std::string lanes = link.spec.lane_count > 1 ? fmt::format(" x{}", link.spec.lane_count) : "";
  return fmt::format("{} -> {} ({}{}, {:.1f} GB/s)", graph.vertex(from).name, graph.vertex(link.other_end(from)).name,
                     link.spec.technology, lanes, link.spec.capacity_gbps);
}

nlohmann::json to_json(const Graph& graph, const std::vector<HostInjection>& shortfalls) {
  nlohmann::json out = nlohmann::json::array();
  for (const HostInjection& injection : shortfalls) {
    out.push_back({{"host", graph.vertex(injection.host).name},
                   {"hosts_alike", injection.hosts},
                   {"nic_port_gbps", injection.port_gbps},
                   {"nic_port_collective_gbps", injection.port_collective_gbps},
                   {"gpu_reachable_gbps", injection.reachable_gbps},
                   {"limit", describe_direction(graph, injection.limit, injection.limit_from_a)}});
  }
  return out;
}

}  // namespace fb::topo
