#include "topology/pair_coverage.hpp"

#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

namespace fb::topo {
namespace {

bool on_fabric(const Vertex& vertex) {
  return vertex.kind == VertexKind::fabric_switch || vertex.kind == VertexKind::nic;
}

// The switch a NIC is cabled to, if any.
std::optional<VertexId> switch_of_nic(const Graph& graph, VertexId nic) {
  for (const LinkId link : graph.links_of(nic)) {
    const VertexId other = graph.link(link).other_end(nic);
    if (graph.vertex(other).kind == VertexKind::fabric_switch) return other;
  }
  return std::nullopt;
}

bool crosses(const Route& route, std::size_t directed_link) {
  return std::any_of(route.uses.begin(), route.uses.end(),
                     [&](const LinkUse& use) { return use.fraction > 0 && directed_link_index(use) == directed_link; });
}

// The planned hosts nearest to `start` over the fabric without passing `avoid`: all those at the
// smallest number of hops. From a leaf that is its own hosts, from a spine the hosts of its other
// leaves: the hosts whose pairs can cross a link at `start` in the direction away from `avoid`.
std::vector<std::size_t> nearest_hosts(const Graph& graph, VertexId start, VertexId avoid,
                                       const std::unordered_map<VertexId, std::size_t>& host_of_nic) {
  if (const auto own = host_of_nic.find(start); own != host_of_nic.end()) return {own->second};
  std::vector<std::size_t> nearest;
  std::set<VertexId> seen{start, avoid};
  std::vector<VertexId> frontier{start};
  while (!frontier.empty() && nearest.empty()) {
    std::vector<VertexId> next;
    for (const VertexId v : frontier)
      for (const LinkId link : graph.links_of(v)) {
        const VertexId w = graph.link(link).other_end(v);
        if (!on_fabric(graph.vertex(w)) || !seen.insert(w).second) continue;
        if (const auto host = host_of_nic.find(w); host != host_of_nic.end())
          nearest.push_back(host->second);
        else if (graph.vertex(w).kind == VertexKind::fabric_switch)
          next.push_back(w);
      }
    frontier = std::move(next);
  }
  return nearest;
}

struct AddedPair {
  std::size_t src = 0;
  std::size_t dst = 0;
  std::vector<std::size_t> resources;  // the directed links its route crosses
};

// Finds a pair of the hosts whose route crosses a directed link: from the hosts nearest its
// sending end to those nearest its receiving end. Tables route by destination, so every host of
// one switch goes the same way to a destination: one source per switch and destination decides,
// and the search walks them all (within a bound far above a two-tier fabric's 4,096 hosts).
class CrossingSearch {
 public:
  CrossingSearch(const Graph& graph, const TableRouter* tables, std::span<const std::string> hosts)
      : graph_(graph), tables_(tables) {
    for (const std::string& host : hosts)
      if (const std::optional<VertexId> nic = first_nic_of_host(graph, host);
          nic && host_of_nic_.try_emplace(*nic, nics_.size()).second)
        nics_.push_back(*nic);
  }

  const std::vector<VertexId>& nics() const { return nics_; }

  std::optional<AddedPair> find(std::size_t directed) const {
    const Link& link = graph_.link(static_cast<LinkId>(directed / 2));
    const VertexId from = directed % 2 == 0 ? link.a : link.b;
    const VertexId to = link.other_end(from);
    const std::vector<std::size_t> destinations = nearest_hosts(graph_, to, from, host_of_nic_);
    // The sources by their switch.
    std::map<VertexId, std::vector<std::size_t>> by_switch;
    for (const std::size_t src : nearest_hosts(graph_, from, to, host_of_nic_))
      by_switch[switch_of_nic(graph_, nics_[src]).value_or(nics_[src])].push_back(src);
    constexpr std::size_t max_routes = 1 << 17;
    std::size_t walked = 0;
    for (std::size_t k = 0; k < destinations.size() && walked < max_routes; ++k)
      for (const auto& [leaf, sources] : by_switch) {
        // The k-th destination from the k-th source of each switch: the pairs spread over hosts.
        std::size_t src = sources[k % sources.size()];
        if (src == destinations[k]) src = sources[(k + 1) % sources.size()];
        if (src == destinations[k] || ++walked > max_routes) continue;
        const std::optional<Route> route = pair_route(graph_, tables_, nics_[src], nics_[destinations[k]]);
        if (!route || !crosses(*route, directed)) continue;
        AddedPair pair{src, destinations[k], {}};
        for (const LinkUse& use : route->uses)
          if (use.fraction > 0) pair.resources.push_back(directed_link_index(use));
        return pair;
      }
    return std::nullopt;
  }

 private:
  const Graph& graph_;
  const TableRouter* tables_;
  std::vector<VertexId> nics_;
  std::unordered_map<VertexId, std::size_t> host_of_nic_;
};

// First fit: a pair goes into the first round where neither its hosts nor its links are taken, so
// each added pair measures its own route alone.
std::vector<HostPairRound> pack_rounds(const std::vector<AddedPair>& pairs, const std::vector<std::string>& hosts) {
  std::vector<HostPairRound> rounds;
  std::vector<std::set<std::size_t>> hosts_in, links_in;
  for (const AddedPair& pair : pairs) {
    const auto fits = [&](std::size_t r) {
      return !hosts_in[r].contains(pair.src) && !hosts_in[r].contains(pair.dst) &&
             std::none_of(pair.resources.begin(), pair.resources.end(),
                          [&](std::size_t resource) { return links_in[r].contains(resource); });
    };
    std::size_t r = 0;
    while (r < rounds.size() && !fits(r)) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      hosts_in.emplace_back();
      links_in.emplace_back();
    }
    rounds[r].emplace_back(hosts[pair.src], hosts[pair.dst]);
    hosts_in[r].insert({pair.src, pair.dst});
    links_in[r].insert(pair.resources.begin(), pair.resources.end());
  }
  return rounds;
}

// below[s]: how many of the NICs climb to switch s on up-down routes (through switches of rising
// tier from their leaf); 1 for each of the NICs themselves.
std::vector<std::size_t> count_below(const Graph& graph, const std::vector<VertexId>& nics) {
  std::vector<std::size_t> below(graph.vertex_count(), 0);
  std::vector<std::size_t> stamp(graph.vertex_count(), 0);
  for (std::size_t n = 0; n < nics.size(); ++n) {
    below[nics[n]] = 1;
    std::vector<VertexId> frontier;
    if (const std::optional<VertexId> leaf = switch_of_nic(graph, nics[n])) frontier.push_back(*leaf);
    while (!frontier.empty()) {
      const VertexId s = frontier.back();
      frontier.pop_back();
      if (stamp[s] == n + 1) continue;
      stamp[s] = n + 1;
      ++below[s];
      for (const LinkId link : graph.links_of(s)) {
        const VertexId up = graph.link(link).other_end(s);
        if (graph.vertex(up).kind == VertexKind::fabric_switch &&
            routing_rank(graph.vertex(up)) > routing_rank(graph.vertex(s)))
          frontier.push_back(up);
      }
    }
  }
  return below;
}

}  // namespace

std::vector<std::string> hosts_in_fabric_order(const Graph& graph, std::span<const std::string> hosts) {
  struct Placed {
    std::string switch_name;  // empty: no NIC on the fabric, placed last
    std::string host;
  };
  std::vector<Placed> placed;
  for (const std::string& host : hosts) {
    Placed entry{"", host};
    if (const std::optional<VertexId> nic = first_nic_of_host(graph, host))
      if (const std::optional<VertexId> leaf = switch_of_nic(graph, *nic)) entry.switch_name = graph.vertex(*leaf).name;
    placed.push_back(std::move(entry));
  }
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& x, const Placed& y) {
    if (x.switch_name.empty() != y.switch_name.empty()) return y.switch_name.empty();
    if (x.switch_name != y.switch_name) return natural_less(x.switch_name, y.switch_name);
    return natural_less(x.host, y.host);
  });
  std::vector<std::string> ordered;
  for (Placed& entry : placed) ordered.push_back(std::move(entry.host));
  return ordered;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): walks every host pair route once and marks its directed links, with the unrouted and same-leaf cases apart
std::vector<std::size_t> crossable_links(const Graph& graph, std::span<const std::string> hosts) {
  std::vector<VertexId> nics;
  for (const std::string& host : hosts)
    if (const std::optional<VertexId> nic = first_nic_of_host(graph, host)) nics.push_back(*nic);
  std::sort(nics.begin(), nics.end());
  nics.erase(std::unique(nics.begin(), nics.end()), nics.end());
  const std::vector<std::size_t> below = count_below(graph, nics);
  const std::size_t total = nics.size();
  const auto crossable = [&](VertexId from, VertexId to) {
    const Vertex& f = graph.vertex(from);
    const Vertex& t = graph.vertex(to);
    if (f.kind == VertexKind::nic || t.kind == VertexKind::nic) return total >= 2;  // a host's own cable
    if (routing_rank(f) < routing_rank(t)) return below[from] >= 1 && below[to] > below[from];
    if (routing_rank(f) > routing_rank(t)) return below[to] >= 1 && below[from] > below[to];
    return total >= 2;  // switches of one tier (or none stated): nothing rules the link out
  };
  std::vector<std::size_t> links;
  for (LinkId l = 0; l < graph.link_count(); ++l) {
    const Link& link = graph.link(l);
    const Vertex& a = graph.vertex(link.a);
    const Vertex& b = graph.vertex(link.b);
    if (!on_fabric(a) || !on_fabric(b) || (a.kind == VertexKind::nic && b.kind == VertexKind::nic)) continue;
    // Only the hosts' first NICs carry their pairs.
    if ((a.kind == VertexKind::nic && !std::binary_search(nics.begin(), nics.end(), link.a)) ||
        (b.kind == VertexKind::nic && !std::binary_search(nics.begin(), nics.end(), link.b)))
      continue;
    if (crossable(link.a, link.b)) links.push_back(2 * static_cast<std::size_t>(l));
    if (crossable(link.b, link.a)) links.push_back(2 * static_cast<std::size_t>(l) + 1);
  }
  return links;
}

std::vector<std::size_t> links_some_pair_crosses(const Graph& graph, std::span<const std::string> hosts,
                                                 const TableRouter* tables, std::span<const std::size_t> links) {
  const CrossingSearch search(graph, tables, hosts);
  std::vector<std::size_t> crossed;
  for (const std::size_t directed : links)
    if (search.find(directed)) crossed.push_back(directed);
  return crossed;
}

FirstPass plan_first_pass(const Graph& graph, std::span<const std::string> hosts, const TableRouter* tables,
                          int pairings) {
  FirstPass pass;
  for (const std::string& host : hosts_in_fabric_order(graph, hosts))
    if (first_nic_of_host(graph, host)) pass.hosts.push_back(host);
  const CrossingSearch search(graph, tables, pass.hosts);
  pass.hosts.clear();  // a host twice, or two hosts on one NIC, is seated once
  for (const VertexId nic : search.nics()) pass.hosts.push_back(graph.vertex(graph.vertex(nic).host).name);
  const std::vector<VertexId>& nics = search.nics();
  std::vector<char> covered(2 * graph.link_count(), 0);
  const auto cover = [&](const Route& route) {
    for (const LinkUse& use : route.uses)
      if (use.fraction > 0) covered[directed_link_index(use)] = 1;
  };

  std::vector<int> endpoints(pass.hosts.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  for (const PairRound& round : pairwise_rounds(endpoints, static_cast<std::size_t>(std::max(pairings, 0)))) {
    HostPairRound host_round;
    for (const RankPair& pair : round.pairs) {
      const auto src = static_cast<std::size_t>(pair.src), dst = static_cast<std::size_t>(pair.dst);
      host_round.emplace_back(pass.hosts[src], pass.hosts[dst]);
      if (const std::optional<Route> route = pair_route(graph, tables, nics[src], nics[dst])) cover(*route);
    }
    pass.pairing_pairs += host_round.size();
    pass.rounds.push_back(std::move(host_round));
  }

  // Each link still not crossed: a pair that crosses it, or none where the routes never take it.
  std::vector<AddedPair> added;
  const std::vector<std::size_t> crossable = crossable_links(graph, pass.hosts);
  for (const std::size_t directed : crossable) {
    if (covered[directed]) continue;
    if (std::optional<AddedPair> found = search.find(directed)) {
      for (const std::size_t resource : found->resources) covered[resource] = 1;
      added.push_back(std::move(*found));
    } else {
      pass.unrouted.push_back(directed);
    }
  }
  pass.crossable_links = crossable.size() - pass.unrouted.size();
  pass.added_pairs = added.size();
  for (HostPairRound& round : pack_rounds(added, pass.hosts)) pass.rounds.push_back(std::move(round));
  return pass;
}

std::string directed_link_name(const Graph& graph, std::size_t directed_link) {
  const Link& link = graph.link(static_cast<LinkId>(directed_link / 2));
  const VertexId from = directed_link % 2 == 0 ? link.a : link.b;
  return fmt::format("{} -> {}", graph.vertex(from).name, graph.vertex(link.other_end(from)).name);
}

}  // namespace fb::topo
