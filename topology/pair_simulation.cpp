#include "topology/pair_simulation.hpp"

#include "common/errors.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/flow_model.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>

namespace fb::topo {

std::vector<ResultRow> simulate_pair_rounds(const Graph& graph, std::span<const std::string> hosts,
                                            std::span<const PairRound> rounds, const PairSimulation& simulation) {
  std::vector<double> capacity_gbps(2 * graph.link_count());
  for (LinkId link = 0; link < graph.link_count(); ++link)
    capacity_gbps[2 * link] = capacity_gbps[2 * link + 1] = graph.link(link).spec.capacity_gbps;

  std::map<std::pair<int, int>, std::vector<ResourceShare>> routes;
  const auto shares_of = [&](int src, int dst) -> const std::vector<ResourceShare>& {
    auto [entry, inserted] = routes.try_emplace({src, dst});
    if (!inserted) return entry->second;
    const auto nic = [&](int endpoint) {
      const std::string& host = hosts[static_cast<std::size_t>(endpoint)];
      if (const std::optional<VertexId> found = first_nic_of_host(graph, host)) return *found;
      throw InputError(fmt::format("host {} is not a host with a NIC in the topology", host));
    };
    if (const std::optional<Route> route = pair_route(graph, simulation.tables, nic(src), nic(dst)))
      for (const LinkUse& use : route->uses)
        entry->second.push_back({static_cast<std::uint32_t>(directed_link_index(use)), use.fraction});
    return entry->second;
  };

  std::mt19937_64 random(simulation.seed);
  std::normal_distribution<double> standard_normal(0.0, 1.0);
  std::vector<ResultRow> rows;
  for (const PairRound& round : rounds) {
    std::vector<FlowClass> classes;
    for (const RankPair& pair : round.pairs) classes.push_back({{std::span(shares_of(pair.src, pair.dst))}, 1});
    const MaxMinAllocation allocation = solve_max_min(capacity_gbps, classes);
    for (std::size_t i = 0; i < round.pairs.size(); ++i) {
      const RankPair& pair = round.pairs[i];
      ResultRow row;
      row.run_id = "simulated";
      row.backend = "model";
      row.op = simulation.op;
      row.dtype = "int8";
      row.redop = "none";
      row.nranks = static_cast<int>(hosts.size());
      row.nodes = static_cast<int>(hosts.size());
      row.ranks_per_node = 1;
      row.src_rank = pair.src;
      row.dst_rank = pair.dst;
      row.src_host = hosts[static_cast<std::size_t>(pair.src)];
      row.dst_host = hosts[static_cast<std::size_t>(pair.dst)];
      row.round = round.round;
      row.concurrent_flows = static_cast<int>(round.pairs.size());
      row.bytes = row.count = simulation.bytes;
      row.iterations = 1;
      const double noise = std::max(0.0, 1.0 + simulation.noise_fraction * standard_normal(random));
      row.algbw_gbps = allocation.rate_gbps[i] * simulation.efficiency * noise;
      row.busbw_gbps = row.algbw_gbps;
      const double seconds = row.algbw_gbps > 0 ? static_cast<double>(simulation.bytes) / (row.algbw_gbps * 1e9) : 0;
      row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = seconds * 1e6;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace fb::topo
