#include "diagnosis/diagnosis.hpp"

#include "diagnosis/host_outliers.hpp"
#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/robust_statistics.hpp"
#include "diagnosis/repair_ticket.hpp"
#include "topology/flow_model.hpp"
#include "topology/pair_coverage.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace fb::diagnosis {

using topo::Graph;
using topo::Link;
using topo::LinkId;
using topo::FlowClass;
using topo::MaxMinAllocation;
using topo::ResourceShare;
using topo::LinkUse;
using topo::Route;
using topo::pair_route;
using topo::TableRouter;
using topo::VertexId;

// The pair patterns whose rows are bandwidths between hosts. Pairs of ranks on one host
// (--pair-endpoints ranks on a single node) cross no link of the fabric: they have no route to
// localize a fault on, and stay without an expectation.
bool is_pair_bandwidth_row(const ResultRow& row) {
  const OpTraits* op = find_op(row.op);
  return op && op->op_class == OpClass::pair_pattern && !reports_latency(*op) && row.round && !row.src_host.empty() &&
         !row.dst_host.empty() && row.src_host != row.dst_host;
}

namespace {

struct Flow {
  const ResultRow* row = nullptr;
  std::vector<ResourceShare> shares;  // the directed links its route crosses
  double measured_gbps = 0;
  double model_gbps = 0;
  double expected_gbps = 0;
  double ratio = 0;
  bool on_table_route = false;
};

// The rows of one round: the flows that shared the fabric while they were measured. A soak run
// measures every round once per repetition, at different times.
using GroupKey = std::tuple<std::string, std::string, std::uint64_t, int, int>;
GroupKey group_of(const ResultRow& row) {
  return {row.run_id, row.op, row.bytes, *row.round, row.repetition.value_or(0)};
}

std::string link_subject(const Graph& graph, LinkId link, LinkDirection direction) {
  const std::string& a = graph.vertex(graph.link(link).a).name;
  const std::string& b = graph.vertex(graph.link(link).b).name;
  switch (direction) {
    case LinkDirection::both: return fmt::format("{} (both directions)", link_name(graph, link));
    case LinkDirection::a_to_b: return fmt::format("{} ({} to {})", link_name(graph, link), a, b);
    case LinkDirection::b_to_a: return fmt::format("{} ({} to {})", link_name(graph, link), b, a);
  }
  return link_name(graph, link);
}

std::string describe_flow(const Flow& flow) {
  const ResultRow& row = *flow.row;
  return fmt::format("{} {} B {} -> {} (round {}, {} flow{} at once): {:.4g} GB/s, expected {:.4g}", row.op, row.bytes,
                     row.src_host, row.dst_host, *row.round, row.concurrent_flows.value_or(1),
                     row.concurrent_flows.value_or(1) == 1 ? "" : "s", flow.measured_gbps, flow.expected_gbps);
}

// What makes a flow a suspect (slow) or a witness for the links it crosses (healthy), and the
// kind of the findings it gives.
struct Judgement {
  std::function<bool(const Flow&)> slow;
  std::function<bool(const Flow&)> healthy;
  std::string kind;
};

class Diagnoser {
 public:
  Diagnoser(const Graph& graph, std::span<const ResultRow> rows, const DiagnosisSettings& settings,
            const TableRouter* tables)
      : graph_(graph), settings_(settings), tables_(tables), capacity_gbps_(2 * graph.link_count()) {
    for (LinkId link = 0; link < graph.link_count(); ++link)
      capacity_gbps_[2 * link] = capacity_gbps_[2 * link + 1] = graph.link(link).spec.capacity_gbps;
    select_flows(rows);
  }

  Diagnosis run() {
    Diagnosis diagnosis;
    diagnosis.tables_given = tables_ != nullptr;
    for (const Flow& flow : flows_) diagnosis.flows_on_table_routes += flow.on_table_route ? 1 : 0;
    find_uncovered_links(diagnosis);
    if (flows_.empty()) return diagnosis;
    model_rates();
    diagnosis.calibration = calibrate();
    for (Flow& flow : flows_) {
      flow.expected_gbps = diagnosis.calibration * flow.model_gbps;
      flow.ratio = flow.expected_gbps > 0 ? flow.measured_gbps / flow.expected_gbps : 0;
    }
    diagnosis.flows_examined = flows_.size();
    std::set<std::size_t> explained;
    localize_links(diagnosis, explained,
                   {[&](const Flow& f) { return is_slow(f); }, [&](const Flow& f) { return is_healthy(f); },
                    "degraded_link"});
    find_lossy_links(diagnosis);
    find_blocking_links(diagnosis);
    find_slow_nodes(diagnosis, explained);
    find_unverified_links(diagnosis);
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      if (!is_slow(flows_[f])) continue;
      ++diagnosis.slow_flows;
      if (explained.contains(f)) continue;
      const ResultRow& row = *flows_[f].row;
      diagnosis.unexplained_slow_pairs.push_back(
          {row.run_id, row.src_host, row.dst_host, *row.round, row.repetition, flows_[f].ratio});
    }
    diagnosis.slow_flows_explained = explained.size();
    diagnosis.blind_spots.push_back(fmt::format(
        "bandwidth shows a fault only where it costs a pair more than {:.0f}% of its expectation: a cable that "
        "loses a little (1% packet loss costs a TCP pair about 3%) is seen only by {}, or by its port error "
        "counters (run --port-counters)",
        100 * (1 - settings_.slow_ratio),
        tails_checked_ ? fmt::format("the latency tails of the pairs across it (a lossy_link at a p99 time {:.3g} "
                                     "times the median's or more)",
                                     settings_.lossy_tail_ratio)
                       : "the latency tails of the pairs across it, and these rows carry no p99 times: not checked"));
    if (!diagnosis.uncovered_links.empty())
      diagnosis.blind_spots.push_back(fmt::format("{} of {} directed links no measured pair crossed: not measured, "
                                                  "so neither faulty nor healthy (the first pass crosses them all)",
                                                  diagnosis.uncovered_links.size(), diagnosis.crossable_links));
    if (!diagnosis.unverified_links.empty())
      diagnosis.blind_spots.push_back(fmt::format(
          "{} directed link{} measured pairs crossed, none at a healthy rate, that no finding names: neither "
          "faulty nor healthy (a fault named elsewhere on the same pairs' paths can hide a fault; measure again "
          "after its repair)",
          diagnosis.unverified_links.size(), diagnosis.unverified_links.size() == 1 ? "" : "s"));
    return diagnosis;
  }

 private:
  bool is_slow(const Flow& flow) const { return flow.ratio < settings_.slow_ratio; }
  bool is_healthy(const Flow& flow) const { return flow.ratio >= settings_.healthy_ratio; }

  VertexId nic_of_host(const std::string& host_name) {
    if (const std::optional<VertexId> nic = first_nic_of_host(graph_, host_name)) return *nic;
    throw InputError(fmt::format("host {} of the results is not a host with a NIC in the topology", host_name));
  }

  struct PairRoute {
    std::vector<ResourceShare> shares;
    bool from_tables = false;
  };

  const PairRoute& route_between(const std::string& src_host, const std::string& dst_host) {
    const auto key = std::make_pair(src_host, dst_host);
    if (const auto cached = routes_.find(key); cached != routes_.end()) return cached->second;
    const VertexId src = nic_of_host(src_host);
    const VertexId dst = nic_of_host(dst_host);
    PairRoute result;
    std::optional<Route> route = tables_ != nullptr ? tables_->route(src, dst) : std::nullopt;
    result.from_tables = route.has_value();
    if (!route) route = find_route(graph_, src, dst);
    if (!route) throw InputError(fmt::format("the topology has no route from {} to {}", src_host, dst_host));
    for (const LinkUse& use : route->uses)
      result.shares.push_back({static_cast<std::uint32_t>(directed_link_index(use)), use.fraction});
    return routes_.emplace(key, std::move(result)).first->second;
  }

  // The links the measured hosts' pairs can cross that no flow crossed.
  void find_uncovered_links(Diagnosis& diagnosis) const {
    std::set<std::string> hosts;
    std::vector<char> crossed(2 * graph_.link_count(), 0);
    for (const Flow& flow : flows_) {
      hosts.insert({flow.row->src_host, flow.row->dst_host});
      for (const ResourceShare& share : flow.shares)
        if (share.share > 0) crossed[share.resource] = 1;
    }
    const std::vector<std::string> measured(hosts.begin(), hosts.end());
    const std::vector<std::size_t> crossable = topo::crossable_links(graph_, measured);
    std::vector<std::size_t> not_crossed;
    for (const std::size_t directed : crossable)
      if (!crossed[directed]) not_crossed.push_back(directed);
    // A link the routes never take is not a gap in the measurements: no pair could cross it.
    diagnosis.uncovered_links = topo::links_some_pair_crosses(graph_, measured, tables_, not_crossed);
    diagnosis.crossable_links = crossable.size() - (not_crossed.size() - diagnosis.uncovered_links.size());
  }

  // The directed links flows crossed and no healthy flow cleared, less those a finding names (its
  // link, the links it could not be told from, a named host's cables).
  void find_unverified_links(Diagnosis& diagnosis) const {
    std::vector<char> crossed(2 * graph_.link_count(), 0);
    std::vector<char> cleared(2 * graph_.link_count(), 0);
    for (const Flow& flow : flows_)
      for (const ResourceShare& share : flow.shares) {
        if (share.share <= 0) continue;
        crossed[share.resource] = 1;
        if (is_healthy(flow)) cleared[share.resource] = 1;
      }
    std::set<LinkId> named;
    for (const Finding& finding : diagnosis.findings) {
      if (finding.link) named.insert(*finding.link);
      named.insert(finding.parallel_links.begin(), finding.parallel_links.end());
      if (!finding.host.empty())
        for (const LinkId cable : cables_of_host(finding.host)) named.insert(cable);
    }
    for (std::size_t directed = 0; directed < crossed.size(); ++directed)
      if (crossed[directed] && !cleared[directed] && !named.contains(static_cast<LinkId>(directed / 2)))
        diagnosis.unverified_links.push_back(directed);
  }

  // The links of a host's NICs: its cables to the fabric (none for a host the topology lacks).
  std::vector<LinkId> cables_of_host(const std::string& host_name) const {
    std::vector<LinkId> cables;
    const std::optional<VertexId> nic = first_nic_of_host(graph_, host_name);
    if (!nic) return cables;
    for (const VertexId device : graph_.devices_of(graph_.vertex(*nic).host))
      if (graph_.vertex(device).kind == topo::VertexKind::nic)
        for (const LinkId link : graph_.links_of(device)) cables.push_back(link);
    return cables;
  }

  // Each run's largest size: the one furthest from latency, where bandwidth shows.
  void select_flows(std::span<const ResultRow> rows) {
    std::map<std::pair<std::string, std::string>, std::uint64_t> largest_bytes;
    for (const ResultRow& row : rows)
      if (is_pair_bandwidth_row(row)) {
        auto& bytes = largest_bytes[{row.run_id, row.op}];
        bytes = std::max(bytes, row.bytes);
      }
    for (const ResultRow& row : rows) {
      if (!is_pair_bandwidth_row(row) || row.bytes != largest_bytes[{row.run_id, row.op}]) continue;
      Flow flow;
      flow.row = &row;
      const PairRoute& route = route_between(row.src_host, row.dst_host);
      flow.shares = route.shares;
      flow.on_table_route = route.from_tables;
      flow.measured_gbps = row.algbw_gbps;
      groups_[group_of(row)].push_back(flows_.size());
      flows_.push_back(std::move(flow));
    }
  }

  // What max-min fair sharing gives each flow of a round, in the model's units.
  void model_rates() {
    for (const auto& [key, members] : groups_) {
      std::vector<FlowClass> classes;
      for (const std::size_t f : members) classes.push_back({{std::span<const ResourceShare>(flows_[f].shares)}, 1});
      MaxMinAllocation allocation = solve_max_min(capacity_gbps_, classes);
      for (std::size_t i = 0; i < members.size(); ++i) flows_[members[i]].model_gbps = allocation.rate_gbps[i];
      allocations_.emplace(key, std::move(allocation));
    }
  }

  double calibrate() const {
    std::vector<double> scale;
    for (const Flow& flow : flows_)
      if (flow.model_gbps > 0) scale.push_back(flow.measured_gbps / flow.model_gbps);
    return scale.empty() ? 0 : median_of(scale);
  }

  // A link is suspect when slow flows cross it and healthy ones do not; the fewest suspects that
  // explain every slow flow are chosen greedily, each covering the most slow flows still open.
  // NOLINTNEXTLINE(readability-function-cognitive-complexity): the greedy set cover over slow flows with its evidence gathered in the same pass
  void localize_links(Diagnosis& diagnosis, std::set<std::size_t>& explained, const Judgement& judgement) {
    std::map<std::uint32_t, std::vector<std::size_t>> slow_through;
    std::map<std::uint32_t, std::size_t> healthy_through;
    std::set<std::size_t> open;
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      const bool slow = judgement.slow(flows_[f]);
      if (slow) open.insert(f);
      for (const ResourceShare& share : flows_[f].shares) {
        if (slow)
          slow_through[share.resource].push_back(f);
        else if (judgement.healthy(flows_[f]))
          ++healthy_through[share.resource];
      }
    }
    const auto confidence_of = [&](std::uint32_t resource) {
      const double slow = static_cast<double>(slow_through[resource].size());
      return slow / (slow + static_cast<double>(healthy_through[resource]));
    };

    // Each chosen directed link, with the others that the same slow flows crossed, as confident.
    std::map<std::uint32_t, std::vector<std::uint32_t>> alternatives_of;
    std::vector<std::uint32_t> chosen;  // in the order the greedy chose them
    while (!open.empty()) {
      std::uint32_t best = 0;
      std::size_t best_cover = 0;
      double best_confidence = 0;
      for (const auto& [resource, slow_flows] : slow_through) {
        const double confidence = confidence_of(resource);
        if (confidence < settings_.min_link_confidence) continue;
        const auto cover = static_cast<std::size_t>(
            std::count_if(slow_flows.begin(), slow_flows.end(), [&](std::size_t f) { return open.contains(f); }));
        if (cover > best_cover || (cover == best_cover && cover > 0 && confidence > best_confidence)) {
          best = resource;
          best_cover = cover;
          best_confidence = confidence;
        }
      }
      if (best_cover == 0) break;
      chosen.push_back(best);
      std::vector<std::uint32_t>& alternatives = alternatives_of[best];
      for (const auto& [resource, slow_flows] : slow_through)
        if (resource != best && resource / 2 != best / 2 && slow_flows == slow_through[best] &&
            confidence_of(resource) == best_confidence)
          alternatives.push_back(resource);
      for (const std::size_t f : slow_through[best]) {
        if (open.erase(f) > 0) explained.insert(f);
      }
    }
    drop_redundant(chosen, slow_through, alternatives_of);
    std::map<LinkId, std::vector<std::uint32_t>> chosen_by_link;
    std::map<LinkId, std::vector<LinkId>> parallel_of_link;
    for (const auto& [resource, alternatives] : resolve_by_parsimony(alternatives_of)) {
      chosen_by_link[resource / 2].push_back(resource);
      for (const std::uint32_t alternative : alternatives) parallel_of_link[resource / 2].push_back(alternative / 2);
    }

    for (const auto& [link, resources] : chosen_by_link) {
      Finding finding;
      finding.kind = judgement.kind;
      finding.link = link;
      finding.direction = resources.size() == 2
                              ? LinkDirection::both
                              : (resources.front() % 2 == 0 ? LinkDirection::a_to_b : LinkDirection::b_to_a);
      finding.subject = link_subject(graph_, link, finding.direction);
      // Each alternative once, though both directions of the named cable listed it.
      finding.parallel_links = parallel_of_link[link];
      std::sort(finding.parallel_links.begin(), finding.parallel_links.end());
      finding.parallel_links.erase(std::unique(finding.parallel_links.begin(), finding.parallel_links.end()),
                                   finding.parallel_links.end());
      // Cables between the same two switches share every ECMP flow; other links share only the
      // few slow pairs that crossed them all (the forwarding tables' one path each), with no
      // healthy pair to clear them.
      const Link& named = graph_.link(link);
      const bool bundle = std::all_of(finding.parallel_links.begin(), finding.parallel_links.end(), [&](LinkId l) {
        const Link& other = graph_.link(l);
        return (other.a == named.a && other.b == named.b) || (other.a == named.b && other.b == named.a);
      });
      if (!finding.parallel_links.empty())
        finding.subject += fmt::format(", or one of {} other {}", finding.parallel_links.size(),
                                       bundle ? "parallel links" : "links its slow pairs also crossed");
      // What the link still carries: the most any slow flow got through it, scaled by its share.
      double carried_gbps = 0;
      double confidence_sum = 0;
      std::set<std::size_t> resting_on;  // the slow flows it rests on
      for (const std::uint32_t resource : resources) {
        confidence_sum += confidence_of(resource);
        for (const std::size_t f : slow_through[resource]) {
          resting_on.insert(f);
          const auto share = std::find_if(flows_[f].shares.begin(), flows_[f].shares.end(),
                                          [&](const ResourceShare& s) { return s.resource == resource; });
          carried_gbps = std::max(carried_gbps, flows_[f].measured_gbps * share->share);
          if (finding.evidence.size() < 6) finding.evidence.push_back(describe_flow(flows_[f]));
        }
      }
      finding.set_bandwidth_gbps(diagnosis.calibration * graph_.link(link).spec.capacity_gbps, carried_gbps);
      finding.explained_pairs = resting_on.size();
      finding.confidence = link_confidence(confidence_sum / static_cast<double>(resources.size()), resting_on.size(),
                                           finding.parallel_links.size());
      diagnosis.findings.push_back(std::move(finding));
    }
  }

  // A cable that loses packets without losing much bandwidth (1% loss costs a TCP pair a few
  // percent) shows in the latency tails of the pairs across it: retransmissions stretch their
  // slowest iterations. A pair is suspect when its p99 time is at least lossy_tail_ratio times
  // its median's and that many times the typical pair's ratio, and clears the links it crosses
  // when under half that; the same localization then names the cable as a lossy_link.
  void find_lossy_links(Diagnosis& diagnosis) {
    std::vector<double> tails;
    for (const Flow& flow : flows_)
      if (const double tail = tail_of(flow); tail > 0) tails.push_back(tail);
    tails_checked_ = !tails.empty();
    if (!tails_checked_) return;
    const double threshold = settings_.lossy_tail_ratio * std::max(1.0, median_of(tails));
    std::set<std::size_t> ignored;
    localize_links(diagnosis, ignored,
                   {[&](const Flow& f) { return !is_slow(f) && tail_of(f) >= threshold; },
                    [&](const Flow& f) { return !is_slow(f) && tail_of(f) > 0 && tail_of(f) < threshold / 2; },
                    "lossy_link"});
  }

  // p99 time over median time; 0 where the row has not both.
  static double tail_of(const Flow& flow) {
    const ResultRow& row = *flow.row;
    return row.time_median_us > 0 && row.time_p99_us > 0 ? row.time_p99_us / row.time_median_us : 0;
  }

  // A suspect whose slow flows the other suspects all explain explains nothing they do not: the
  // greedy took it on a tie (one host's two pairs, each across another faulty cable, make the
  // host's cable look like one fault covering both). Dropped, the latest chosen first.
  static void drop_redundant(const std::vector<std::uint32_t>& chosen,
                             std::map<std::uint32_t, std::vector<std::size_t>>& slow_through,
                             std::map<std::uint32_t, std::vector<std::uint32_t>>& alternatives_of) {
    for (auto suspect = chosen.rbegin(); suspect != chosen.rend(); ++suspect) {
      const std::vector<std::size_t>& flows = slow_through[*suspect];
      const bool redundant = std::all_of(flows.begin(), flows.end(), [&](std::size_t f) {
        return std::any_of(chosen.begin(), chosen.end(), [&](std::uint32_t other) {
          return other != *suspect && alternatives_of.contains(other) &&
                 std::binary_search(slow_through[other].begin(), slow_through[other].end(), f);
        });
      });
      if (redundant) alternatives_of.erase(*suspect);
    }
  }

  // The confidence of a degraded link: how likely the cable it names is the fault. `support`: the
  // share of slow flows among the slow and healthy ones crossing it. Each slow flow could be a
  // fluke (measurement noise, a neighbour's traffic; one in twenty is the bound the simulation
  // benchmark calibrates, docs/performance.md), so one slow pair alone never reaches 0.99, two
  // do. A cable the measurements cannot tell from N others is one of N + 1 alike.
  static double link_confidence(double support, std::size_t slow_flows, std::size_t alternatives) {
    constexpr double fluke = 0.05;
    const double not_all_flukes = 1 - std::pow(fluke, static_cast<double>(slow_flows));
    return support * not_all_flukes / static_cast<double>(alternatives + 1);
  }

  // One faulty cable before two: where the slow flows of one direction crossed a series of links
  // (the tables' single path each, no healthy pair to clear any of them) and one of those is a
  // cable the other direction's flows named alone, that cable explains both directions. A cable
  // that lost lanes or speed is slow both ways; two faults, one on the series' other links, are
  // the less likely reading, and the confirm round is there to test it.
  static std::map<std::uint32_t, std::vector<std::uint32_t>> resolve_by_parsimony(
      const std::map<std::uint32_t, std::vector<std::uint32_t>>& alternatives_of) {
    std::set<LinkId> named_alone;
    for (const auto& [resource, alternatives] : alternatives_of)
      if (alternatives.empty()) named_alone.insert(resource / 2);
    std::map<std::uint32_t, std::vector<std::uint32_t>> resolved;
    for (const auto& [resource, alternatives] : alternatives_of) {
      std::vector<std::uint32_t> candidates{resource};
      candidates.insert(candidates.end(), alternatives.begin(), alternatives.end());
      const auto named = std::find_if(candidates.begin(), candidates.end(),
                                      [&](std::uint32_t candidate) { return named_alone.contains(candidate / 2); });
      if (named == candidates.end())
        resolved[resource] = alternatives;
      else
        resolved.try_emplace(*named);
    }
    return resolved;
  }

  // Blocking: the pairs of a cut measured alone and then together. Where the model saturates a
  // link with all pairs running and the pairs crossing it measurably lost bandwidth, the link is
  // blocking: it cannot carry what the pairs offer.
  // NOLINTNEXTLINE(readability-function-cognitive-complexity): pairs each concurrent flow with its alone measurement, then judges each link its flows cross
  void find_blocking_links(Diagnosis& diagnosis) {
    std::map<std::tuple<std::string, std::string, std::uint64_t, std::string, std::string>, std::size_t> alone;
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      const ResultRow& row = *flows_[f].row;
      if (row.concurrent_flows.value_or(1) == 1) alone[{row.run_id, row.op, row.bytes, row.src_host, row.dst_host}] = f;
    }
    std::map<LinkId, std::vector<Finding>> by_link;
    for (const auto& [key, members] : groups_) {
      if (members.size() < 2) continue;
      const MaxMinAllocation& allocation = allocations_.at(key);
      std::map<std::uint32_t, std::vector<std::pair<std::size_t, std::size_t>>> crossing;  // (together, alone)
      for (const std::size_t f : members) {
        const ResultRow& row = *flows_[f].row;
        const auto solo = alone.find({row.run_id, row.op, row.bytes, row.src_host, row.dst_host});
        if (solo == alone.end()) continue;
        for (const ResourceShare& share : flows_[f].shares)
          if (allocation.saturated[share.resource]) crossing[share.resource].push_back({f, solo->second});
      }
      for (const auto& [resource, pairs] : crossing) {
        Finding finding;
        double offered_gbps = 0;  // what the pairs got alone, through this link
        double carried_gbps = 0;  // and together
        bool predicted_drop = false;
        std::size_t measured_drops = 0;
        for (const auto& [together, solo] : pairs) {
          predicted_drop =
              predicted_drop || flows_[together].model_gbps < settings_.blocked_ratio * flows_[solo].model_gbps;
          const bool dropped = flows_[together].measured_gbps < settings_.blocked_ratio * flows_[solo].measured_gbps;
          measured_drops += dropped ? 1 : 0;
          // An init-capture: clang 14 cannot capture a structured binding.
          const auto crosses = [&crossed = resource](const ResourceShare& s) { return s.resource == crossed; };
          const double share =
              std::find_if(flows_[together].shares.begin(), flows_[together].shares.end(), crosses)->share;
          offered_gbps += flows_[solo].measured_gbps * share;
          carried_gbps += flows_[together].measured_gbps * share;
          if (finding.evidence.size() < 6)
            finding.evidence.push_back(fmt::format("{} -> {}: {:.4g} GB/s alone, {:.4g} GB/s with {} pairs at once",
                                                   flows_[together].row->src_host, flows_[together].row->dst_host,
                                                   flows_[solo].measured_gbps, flows_[together].measured_gbps,
                                                   members.size()));
        }
        const double confidence = static_cast<double>(measured_drops) / static_cast<double>(pairs.size());
        if (!predicted_drop || confidence < 0.5) continue;
        finding.kind = "blocking_link";
        finding.link = resource / 2;
        finding.direction = resource % 2 == 0 ? LinkDirection::a_to_b : LinkDirection::b_to_a;
        finding.confidence = confidence;
        finding.set_bandwidth_gbps(offered_gbps, carried_gbps);
        finding.evidence.insert(finding.evidence.begin(),
                                fmt::format("capacity {:.4g} GB/s in the measurements' scale; the pairs offer {:.4g} "
                                            "GB/s alone and get {:.4g} GB/s together",
                                            diagnosis.calibration * capacity_gbps_[resource], offered_gbps,
                                            carried_gbps));
        by_link[resource / 2].push_back(std::move(finding));
      }
    }
    for (auto& [link, findings] : by_link) {
      Finding merged = std::move(findings.front());
      if (findings.size() > 1) {
        merged.direction = LinkDirection::both;
        merged.set_bandwidth_gbps(*merged.expected + *findings[1].expected, *merged.measured + *findings[1].measured);
        merged.confidence = std::min(*merged.confidence, *findings[1].confidence);
      }
      merged.subject = link_subject(graph_, link, merged.direction);
      diagnosis.findings.push_back(std::move(merged));
    }
  }

  // A host whose flows are slow against every other host's, and that no degraded link explains.
  void find_slow_nodes(Diagnosis& diagnosis, std::set<std::size_t>& explained) {
    std::map<std::string, std::vector<std::size_t>> flows_of_host;
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      flows_of_host[flows_[f].row->src_host].push_back(f);
      flows_of_host[flows_[f].row->dst_host].push_back(f);
    }
    if (flows_of_host.size() < 3) return;
    std::map<std::string, std::vector<double>> ratios_by_host;
    for (const auto& [host, flows] : flows_of_host)
      for (const std::size_t f : flows) ratios_by_host[host].push_back(flows_[f].ratio);
    const auto [hosts, median_ratios, z_scores] = score_hosts(ratios_by_host);
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      if (z_scores[h] >= settings_.outlier_z_score || median_ratios[h] >= settings_.slow_ratio) continue;
      const auto& flows = flows_of_host[hosts[h]];
      if (std::all_of(flows.begin(), flows.end(),
                      [&](std::size_t f) { return !is_slow(flows_[f]) || explained.contains(f); }))
        continue;
      Finding finding;
      finding.kind = "slow_node";
      finding.host = hosts[h];
      finding.subject = hosts[h];
      std::vector<double> measured, expected;
      for (const std::size_t f : flows) {
        measured.push_back(flows_[f].measured_gbps);
        expected.push_back(flows_[f].expected_gbps);
        if (finding.evidence.size() < 6 && is_slow(flows_[f])) finding.evidence.push_back(describe_flow(flows_[f]));
      }
      finding.set_bandwidth_gbps(median_of(expected), median_of(measured));
      finding.confidence = std::min(1.0, z_scores[h] / settings_.outlier_z_score / 2);
      for (const std::size_t f : flows)
        if (is_slow(flows_[f])) {
          explained.insert(f);
          ++finding.explained_pairs;
        }
      diagnosis.findings.push_back(std::move(finding));
    }
  }

  const Graph& graph_;
  DiagnosisSettings settings_;
  const TableRouter* tables_;
  std::vector<double> capacity_gbps_;  // per directed link: 2 * link + (a to b ? 0 : 1)
  std::vector<Flow> flows_;
  std::map<GroupKey, std::vector<std::size_t>> groups_;
  std::map<GroupKey, MaxMinAllocation> allocations_;
  std::map<std::pair<std::string, std::string>, PairRoute> routes_;
  bool tails_checked_ = false;  // some examined row carried its p99 and median times
};

}  // namespace

std::string link_name(const Graph& graph, LinkId link) {
  return fmt::format("{} <-> {}", graph.vertex(graph.link(link).a).name, graph.vertex(graph.link(link).b).name);
}

Diagnosis diagnose(const Graph& graph, std::span<const ResultRow> rows, const DiagnosisSettings& settings,
                   const TableRouter* tables) {
  return Diagnoser(graph, rows, settings, tables).run();
}

}  // namespace fb::diagnosis
