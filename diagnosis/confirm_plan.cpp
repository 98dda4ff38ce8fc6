#include "diagnosis/confirm_plan.hpp"

#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fb::diagnosis {

using topo::Graph;
using topo::Link;
using topo::LinkId;
using topo::VertexId;
using topo::VertexKind;
using topo::no_vertex;
using topo::Route;
using topo::pair_route;
using topo::TableRouter;
using topo::LinkUse;
namespace {

// One cable of an ambiguous bundle, and the direction a pair must cross it in (none: either).
struct Candidate {
  LinkId link = 0;
  std::optional<bool> from_a;
  std::size_t bundle = 0;
  int pairs = 0;
};

struct PlannedPair {
  std::string src;
  std::string dst;
  std::vector<std::size_t> resources;  // directed links its route crosses
};

// The host whose cable this is, or empty for a cable between switches.
std::string host_at_cable(const Graph& graph, LinkId link) {
  for (const VertexId end : {graph.link(link).a, graph.link(link).b})
    if (graph.vertex(end).host != no_vertex) return graph.vertex(graph.vertex(end).host).name;
  return "";
}

// Hosts a finding points at: its own host, or a host at an end of its link or of a parallel one.
std::set<std::string> blamed_hosts(const Graph& graph, const Diagnosis& diagnosis) {
  std::set<std::string> blamed;
  for (const Finding& finding : diagnosis.findings) {
    if (!finding.host.empty()) blamed.insert(finding.host);
    std::vector<LinkId> links = finding.parallel_links;
    if (finding.link) links.push_back(*finding.link);
    for (const LinkId l : links)
      for (const VertexId end : {graph.link(l).a, graph.link(l).b})
        if (graph.vertex(end).host != no_vertex) blamed.insert(graph.vertex(graph.vertex(end).host).name);
  }
  return blamed;
}

class Planner {
 public:
  Planner(const Graph& graph, const TableRouter* tables, const std::vector<std::string>& hosts,
          const std::set<std::string>& blamed)
      : graph_(graph), tables_(tables) {
    for (const std::string& host : hosts)
      if (const std::optional<VertexId> nic = first_nic_of_host(graph, host)) {
        nic_of_[host] = *nic;
        if (!blamed.contains(host)) {
          peers_.push_back(host);
          peer_set_.insert(host);
        }
      }
  }

  void add_bundle(const Finding& finding, std::size_t bundle) {
    const Link& named = graph_.link(*finding.link);
    const VertexId from = finding.direction == LinkDirection::b_to_a ? named.b : named.a;
    std::vector<LinkId> links{*finding.link};
    links.insert(links.end(), finding.parallel_links.begin(), finding.parallel_links.end());
    for (const LinkId l : links) {
      Candidate candidate{l, std::nullopt, bundle, 0};
      if (finding.direction != LinkDirection::both && (graph_.link(l).a == from || graph_.link(l).b == from))
        candidate.from_a = graph_.link(l).a == from;
      candidate_of_link_[l].push_back(candidates_.size());
      candidates_.push_back(candidate);
    }
  }

  // For each cable of a bundle, pairs whose route crosses it and no other cable of the bundle.
  // Sources are searched outward from the cable's sending end (the hosts on that switch first,
  // then on its neighbours'), destinations over all known-good hosts, with a bound on the routes
  // walked per cable: a fabric of thousands of hosts is not searched pair by pair.
  void separate_bundles(int pairs_per_cable) {
    for (std::size_t c = 0; c < candidates_.size(); ++c) {
      const Link& link = graph_.link(candidates_[c].link);
      std::vector<VertexId> senders;
      if (!candidates_[c].from_a || *candidates_[c].from_a) senders.push_back(link.a);
      if (!candidates_[c].from_a || !*candidates_[c].from_a) senders.push_back(link.b);
      // The host at an end of the cable receives there, though a finding blames it.
      std::vector<std::string> receivers;
      for (const VertexId end : {link.a, link.b})
        if (graph_.vertex(end).kind == VertexKind::nic && nic_of_.contains(graph_.vertex(graph_.vertex(end).host).name))
          receivers.push_back(graph_.vertex(graph_.vertex(end).host).name);
      for (std::size_t k = 0; k < peers_.size(); ++k) receivers.push_back(peers_[(k + c * 7) % peers_.size()]);
      std::size_t walked = 0;
      for (const VertexId sender : senders)
        for (const std::string& src : hosts_near(sender))
          if (candidates_[c].pairs < pairs_per_cable && walked < max_routes_per_cable)
            pairs_from(src, c, receivers, pairs_per_cable, walked);
    }
  }

  // Pairs from `src` that cross candidate `c` alone, until it has enough or the walk bound is hit.
  void pairs_from(const std::string& src, std::size_t c, const std::vector<std::string>& receivers, int pairs_per_cable,
                  std::size_t& walked) {
    for (const std::string& dst : receivers) {
      if (candidates_[c].pairs >= pairs_per_cable || walked >= max_routes_per_cable) return;
      if (src == dst || uses_[src] >= max_uses_per_host || uses_[dst] >= max_uses_per_host) continue;
      ++walked;
      const std::optional<Route> route = tables_->route(nic_of_.at(src), nic_of_.at(dst));
      if (!route || crossed_candidates(*route, candidates_[c].bundle) != std::vector<std::size_t>{c}) continue;
      ++candidates_[c].pairs;
      ++uses_[src];
      ++uses_[dst];
      add_pair(src, dst, *route);
    }
  }

  // Both ways between the host and known-good peers off its switch.
  void against_peers(const std::string& host, int peer_count) {
    const auto switch_of = [&](const std::string& name) {
      for (const LinkId l : graph_.links_of(nic_of_.at(name))) {
        const VertexId other = graph_.link(l).other_end(nic_of_.at(name));
        if (graph_.vertex(other).kind == VertexKind::fabric_switch) return other;
      }
      return no_vertex;
    };
    if (!nic_of_.contains(host)) return;
    int taken = 0;
    for (const std::string& peer : peers_) {
      if (taken == peer_count) break;
      if (switch_of(peer) == switch_of(host) && switch_of(host) != no_vertex) continue;
      for (const auto& [src, dst] : {std::pair{host, peer}, std::pair{peer, host}})
        if (const std::optional<Route> route = pair_route(graph_, tables_, nic_of_.at(src), nic_of_.at(dst)))
          add_pair(src, dst, *route);
      ++taken;
    }
  }

  const std::vector<Candidate>& candidates() const { return candidates_; }

  static constexpr int max_uses_per_host = 4;  // spread the pairs over hosts, so rounds stay few
  static constexpr std::size_t max_routes_per_cable = 20000;

  // First fit: a pair goes into the first round where neither its hosts nor its links are taken.
  std::vector<std::vector<std::pair<std::string, std::string>>> rounds() const {
    std::vector<std::vector<std::pair<std::string, std::string>>> rounds;
    std::vector<std::set<std::string>> hosts_in;
    std::vector<std::set<std::size_t>> links_in;
    for (const PlannedPair& pair : pairs_) {
      std::size_t r = 0;
      const auto fits = [&](std::size_t round) {
        return !hosts_in[round].contains(pair.src) && !hosts_in[round].contains(pair.dst) &&
               std::none_of(pair.resources.begin(), pair.resources.end(),
                            [&](std::size_t resource) { return links_in[round].contains(resource); });
      };
      while (r < rounds.size() && !fits(r)) ++r;
      if (r == rounds.size()) {
        rounds.emplace_back();
        hosts_in.emplace_back();
        links_in.emplace_back();
      }
      rounds[r].emplace_back(pair.src, pair.dst);
      hosts_in[r].insert({pair.src, pair.dst});
      links_in[r].insert(pair.resources.begin(), pair.resources.end());
    }
    return rounds;
  }

 private:
  // The candidates of `bundle` a route crosses, in the direction each must be crossed in.
  std::vector<std::size_t> crossed_candidates(const Route& route, std::size_t bundle) const {
    std::vector<std::size_t> crossed;
    for (const LinkUse& use : route.uses) {
      const auto found = candidate_of_link_.find(use.link);
      if (found == candidate_of_link_.end()) continue;
      for (const std::size_t c : found->second)
        if (candidates_[c].bundle == bundle && (!candidates_[c].from_a || *candidates_[c].from_a == use.from_a))
          crossed.push_back(c);
    }
    return crossed;
  }

  // Measured hosts by distance from `v` over the fabric: the host of an adapter, the hosts cabled
  // to a switch, then to the switches next to it, and so on. A blamed host is a source only for
  // its own cable.
  std::vector<std::string> hosts_near(VertexId v) const {
    std::vector<std::string> near;
    if (graph_.vertex(v).kind == VertexKind::nic) {
      const std::string& host = graph_.vertex(graph_.vertex(v).host).name;
      if (nic_of_.contains(host)) near.push_back(host);
      return near;
    }
    std::set<VertexId> seen{v};
    std::vector<VertexId> frontier{v};
    constexpr std::size_t enough = 256;
    while (!frontier.empty() && near.size() < enough) {
      std::vector<VertexId> next;
      for (const VertexId s : frontier)
        for (const LinkId l : graph_.links_of(s)) {
          const VertexId w = graph_.link(l).other_end(s);
          if (!seen.insert(w).second) continue;
          if (graph_.vertex(w).kind == VertexKind::fabric_switch)
            next.push_back(w);
          else if (graph_.vertex(w).kind == VertexKind::nic) {
            const std::string& host = graph_.vertex(graph_.vertex(w).host).name;
            if (peer_set_.contains(host)) near.push_back(host);
          }
        }
      frontier = std::move(next);
    }
    return near;
  }

  void add_pair(const std::string& src, const std::string& dst, const Route& route) {
    PlannedPair pair{src, dst, {}};
    for (const LinkUse& use : route.uses) pair.resources.push_back(directed_link_index(use));
    pairs_.push_back(std::move(pair));
  }

  const Graph& graph_;
  const TableRouter* tables_;
  std::unordered_map<std::string, VertexId> nic_of_;
  std::vector<std::string> peers_;
  std::unordered_set<std::string> peer_set_;
  std::vector<Candidate> candidates_;
  std::unordered_map<LinkId, std::vector<std::size_t>> candidate_of_link_;
  std::vector<PlannedPair> pairs_;
  std::unordered_map<std::string, int> uses_;  // pairs each host is in
};

// A fault that comes and goes shows only in the repetitions it is slow in.
std::string intermittent_note(const Finding& finding) {
  return finding.kind.starts_with("intermittent")
             ? "; it was slow in some repetitions only: measure the plan as a soak (run pairwise --pairs FILE "
               "--repeat N) so that a repetition catches it"
             : "";
}

// What the plan does for one finding's cables, and which of them no measured pair crosses alone.
std::string bundle_note(const Finding& finding, std::size_t bundle, const std::vector<Candidate>& candidates,
                        const ConfirmSettings& settings) {
  std::size_t cables = 0;
  std::size_t unseparated = 0;
  for (const Candidate& candidate : candidates)
    if (candidate.bundle == bundle) {
      ++cables;
      unseparated += candidate.pairs == 0 ? 1 : 0;
    }
  const std::string missing =
      unseparated == 0 ? std::string() : fmt::format("; {} cables no measured host pair crosses alone", unseparated);
  if (cables == 1)
    return fmt::format("{}: {} pairs on the forwarding tables' routes that cross it, to confirm it (and, after the "
                       "repair, to check it){}{}",
                       finding.subject, settings.pairs_per_suspect, missing, intermittent_note(finding));
  return fmt::format("{}: {} pairs per cable on the forwarding tables' routes, each crossing one of its {} cables "
                     "alone{}{}",
                     finding.subject, settings.pairs_per_suspect, cables, missing, intermittent_note(finding));
}

bool is_link_finding(const Finding& finding) {
  return finding.link && (finding.kind == "degraded_link" || finding.kind == "lossy_link" ||
                          finding.kind == "intermittent_link" || finding.kind == "intermittent_host");
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one branch per kind of finding, each with the note that says what the plan does for it
ConfirmPlan plan_confirm(const Graph& graph, const Diagnosis& diagnosis, const std::vector<std::string>& hosts,
                         const TableRouter* tables, const ConfirmSettings& settings) {
  ConfirmPlan plan;
  Planner planner(graph, tables, hosts, blamed_hosts(graph, diagnosis));
  std::vector<const Finding*> bundles;
  for (const Finding& finding : diagnosis.findings) {
    const std::string host = finding.host.empty() && finding.link ? host_at_cable(graph, *finding.link) : finding.host;
    if (is_link_finding(finding) && tables != nullptr) {
      // Every named cable is crossed again: a bundle's cables one at a time, a cable named on few
      // slow pairs (one could be noise) or in some repetitions only, and an exact finding too, so
      // the same pairs check the repair.
      planner.add_bundle(finding, bundles.size());
      bundles.push_back(&finding);
    } else if (is_link_finding(finding) && !finding.parallel_links.empty()) {
      plan.notes.push_back(fmt::format("{}: only ECMP routes are known, so no pair crosses one of its {} cables "
                                       "alone; give the fabric's forwarding tables (--routes) to plan pairs that do",
                                       finding.subject, finding.parallel_links.size() + 1));
    } else if (!host.empty() &&
               (is_link_finding(finding) || finding.kind == "slow_node" || finding.kind == "intermittent_host")) {
      // A host or its own cable: every pair of the host crosses the cable, so peers off its switch
      // test both, routes or not.
      planner.against_peers(host, settings.pairs_per_suspect);
      plan.notes.push_back(fmt::format("{}: both ways against {} known-good peers off its switch{}", finding.subject,
                                       settings.pairs_per_suspect, intermittent_note(finding)));
    } else if (is_link_finding(finding)) {
      plan.notes.push_back(fmt::format("{}: only ECMP routes are known, so no pair can be chosen to cross it; give "
                                       "the fabric's forwarding tables (--routes)",
                                       finding.subject));
    } else {
      plan.notes.push_back(fmt::format("{}: {}: no confirm pairs (pairs confirm degraded cables and slow hosts)",
                                       finding.subject, finding.kind));
    }
  }
  planner.separate_bundles(settings.pairs_per_suspect);
  for (std::size_t b = 0; b < bundles.size(); ++b)
    plan.notes.push_back(bundle_note(*bundles[b], b, planner.candidates(), settings));
  plan.rounds = planner.rounds();
  if (diagnosis.findings.empty()) plan.notes.emplace_back("nothing to confirm: no finding");
  return plan;
}

std::string format_pairs_file(const ConfirmPlan& plan) {
  std::string text = "# fabricbench confirm round: measure with `fabricbench run pairwise --pairs THIS_FILE`\n";
  for (const std::string& note : plan.notes) text += fmt::format("# {}\n", note);
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    text += fmt::format("\n# round {}\n", r + 1);
    for (const auto& [src, dst] : plan.rounds[r]) text += fmt::format("{} {}\n", src, dst);
  }
  return text;
}

}  // namespace fb::diagnosis
