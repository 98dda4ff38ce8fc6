// How well `diagnose` localizes degraded cables, whether its first pass measures every link, and
// whether its confidence means what it says. Numbers: docs/performance.md.
//
//   diagnosis_accuracy_benchmark [FABRIC_DIR] [TRIALS] [FIRST_TRIAL]
//
// FABRIC_DIR is what scripts/ibsim-fabric.sh wrote (ibnetdiscover.txt and the forwarding tables
// OpenSM programmed, opensm-lfts.dump): every pair on its one path. Without it, the topology
// model's 1,024-host fat-tree with its ECMP spread. TRIALS: 1,000 unless given, numbered from
// FIRST_TRIAL (0): a long run split over several processes gives the same trials.
//
// Coverage: the first pass (topo::plan_first_pass: two pairings over the hosts in fabric order,
// then a pair for each link they did not cross) given the hosts in numeric and in string order
// (h1000 between h100 and h101), simulated on the healthy fabric and diagnosed: the directed links
// no pair crossed (Diagnosis::uncovered_links). Beside it, the first two pairings of the plain
// tournament over the same orders, which is what a first pass was before.
//
// Accuracy: each trial (seeded by its number) degrades 1 to 4 random fabric cables to 10-50% of
// their capacity, in a quarter of the trials two of them between the same two switches (a bundle)
// or on the same switch; half the trials with 3% measurement noise, half with 8%. It measures the
// first pass, diagnoses it, measures the confirm round the planner writes (diagnose
// --plan-confirm), and diagnoses both runs together. A fault is found exactly when a
// degraded_link finding names its cable with no alternative. A finding is true when the part it
// names (its link, or its host for a host finding) is degraded. Confidence is checked per bin:
// the share of true findings among those reported at or above each threshold.

#include "common/pair_schedule.hpp"
#include "diagnosis/confirm_plan.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/format_registry.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/pair_coverage.hpp"
#include "topology/pair_simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>

namespace {

using fb::diagnosis::Diagnosis;
using fb::diagnosis::Finding;
using fb::topo::Graph;
using fb::topo::LinkId;

const char* const cluster_spec = R"(name: accuracy
node:
  count: 1024
  name_prefix: h
  cpus: 1
  gpus: 0
  nvlink: {links_per_gpu: 0, nvswitches: 0}
  pcie: {generation: 5, width: 16, switches: 0}
  nics: {count: 1, link: 4xNDR}
fabric:
  topology: fat_tree
  tiers:
    - {name: leaf, radix: 64, oversubscription: "1:1"}
    - {name: spine, radix: 64}
)";

struct Fabric {
  Graph healthy;
  std::unique_ptr<fb::topo::ForwardingTables> tables;
  std::unique_ptr<fb::topo::TableRouter> router;
  std::string description;
};

Fabric load_fabric(const std::string& dir) {
  Fabric fabric;
  if (dir.empty()) {
    fabric.healthy = fb::topo::parse_topology({"accuracy.yaml", cluster_spec}, "cluster-yaml");
    fabric.description = "topology model's 1,024-host fat-tree, ECMP routes";
    return fabric;
  }
  fabric.healthy = fb::topo::load_topology({dir + "/ibnetdiscover.txt"});
  fabric.tables =
      std::make_unique<fb::topo::ForwardingTables>(fb::topo::load_forwarding_tables(dir + "/opensm-lfts.dump"));
  fabric.router = std::make_unique<fb::topo::TableRouter>(fabric.healthy, *fabric.tables);
  fabric.description = fmt::format("{}: ibnetdiscover and OpenSM's forwarding tables", dir);
  return fabric;
}

// Host pair rounds on the endpoint indices of `hosts`.
std::vector<fb::PairRound> on_endpoints(std::span<const fb::HostPairRound> rounds,
                                        const std::map<std::string, int>& endpoint_of) {
  std::vector<fb::PairRound> planned;
  for (const fb::HostPairRound& round : rounds) {
    fb::PairRound pair_round{{}, static_cast<int>(planned.size()) + 1};
    for (const auto& [src, dst] : round) pair_round.pairs.push_back({endpoint_of.at(src), endpoint_of.at(dst)});
    planned.push_back(std::move(pair_round));
  }
  return planned;
}

struct Bench {
  const Fabric& fabric;
  std::vector<std::string> hosts;  // endpoint order of the simulation
  std::map<std::string, int> endpoint_of;

  explicit Bench(const Fabric& f) : fabric(f) {
    for (const fb::topo::Vertex& vertex : f.healthy.vertices())
      if (vertex.kind == fb::topo::VertexKind::host) hosts.push_back(vertex.name);
    for (std::size_t h = 0; h < hosts.size(); ++h) endpoint_of[hosts[h]] = static_cast<int>(h);
  }

  std::vector<fb::ResultRow> measure(const Graph& truth, std::span<const fb::HostPairRound> rounds, double noise,
                                     std::uint64_t seed, const std::string& run_id) const {
    std::vector<fb::ResultRow> rows =
        simulate_pair_rounds(truth, hosts, on_endpoints(rounds, endpoint_of),
                             {.noise_fraction = noise, .seed = seed, .tables = fabric.router.get()});
    for (fb::ResultRow& row : rows) row.run_id = run_id;
    return rows;
  }

  Diagnosis diagnose(std::span<const fb::ResultRow> rows) const {
    return fb::diagnosis::diagnose(fabric.healthy, rows, {}, fabric.router.get());
  }
};

// The directed links a healthy simulation of these rounds leaves uncrossed.
std::size_t uncovered(const Bench& bench, std::span<const fb::HostPairRound> rounds) {
  return bench.diagnose(bench.measure(bench.fabric.healthy, rounds, 0.03, 1, "coverage")).uncovered_links.size();
}

void print_coverage(const Bench& bench) {
  std::vector<std::string> numeric = bench.hosts;
  std::sort(numeric.begin(), numeric.end(), fb::natural_less);
  std::vector<std::string> string_order = bench.hosts;
  std::sort(string_order.begin(), string_order.end());
  fmt::print("{:<14} {:>10} {:>14} {:>8} {:>8} {:>10} {:>14} {:>9}\n", "host order", "crossable", "2 pairings: un",
             "rounds", "pairs", "added", "first pass: un", "seconds");
  for (const auto& [name, order] : {std::pair{"numeric", &numeric}, std::pair{"string", &string_order}}) {
    std::vector<int> endpoints(order->size());
    std::iota(endpoints.begin(), endpoints.end(), 0);
    std::vector<fb::HostPairRound> plain;
    for (const fb::PairRound& round : fb::pairwise_rounds(endpoints, 2)) {
      fb::HostPairRound host_round;
      for (const fb::RankPair& pair : round.pairs)
        host_round.emplace_back((*order)[static_cast<std::size_t>(pair.src)],
                                (*order)[static_cast<std::size_t>(pair.dst)]);
      plain.push_back(std::move(host_round));
    }
    const auto start = std::chrono::steady_clock::now();
    const fb::topo::FirstPass pass = plan_first_pass(bench.fabric.healthy, *order, bench.fabric.router.get());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t pairs = 0;
    for (const fb::HostPairRound& round : pass.rounds) pairs += round.size();
    fmt::print("{:<14} {:>10} {:>14} {:>8} {:>8} {:>10} {:>14} {:>9.2f}\n", name, pass.crossable_links,
               uncovered(bench, plain), pass.rounds.size(), pairs, pass.added_pairs, uncovered(bench, pass.rounds),
               seconds);
  }
}

struct Scenario {
  std::map<LinkId, double> degraded;  // cable and the share of its capacity it keeps
  double noise = 0.03;
};

bool is_switch(const Graph& graph, fb::topo::VertexId v) {
  return graph.vertex(v).kind == fb::topo::VertexKind::fabric_switch;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): draws a seeded scenario: faults of each kind, shared bundles and noise, a branch per kind
Scenario draw_scenario(const Graph& graph, const std::vector<LinkId>& fabric_links, std::mt19937_64& random,
                       int trial) {
  Scenario scenario;
  scenario.noise = trial % 2 == 0 ? 0.03 : 0.08;
  std::uniform_real_distribution<double> kept(0.1, 0.5);
  const int faults = 1 + static_cast<int>(random() % 4);
  const bool neighbours = trial % 4 == 1;  // two faults on one bundle or one switch
  while (static_cast<int>(scenario.degraded.size()) < faults) {
    LinkId link = fabric_links[random() % fabric_links.size()];
    if (neighbours && !scenario.degraded.empty()) {
      // A cable between the same two switches as the first fault, else one on the same switch.
      const fb::topo::Link& first = graph.link(scenario.degraded.begin()->first);
      const fb::topo::VertexId end = is_switch(graph, first.a) ? first.a : first.b;
      std::vector<LinkId> same_bundle, same_switch;
      for (const LinkId l : graph.links_of(end)) {
        if (scenario.degraded.contains(l)) continue;
        const fb::topo::Link& other = graph.link(l);
        ((other.a == first.a && other.b == first.b) || (other.a == first.b && other.b == first.a) ? same_bundle
                                                                                                  : same_switch)
            .push_back(l);
      }
      const std::vector<LinkId>& pool = same_bundle.empty() ? same_switch : same_bundle;
      if (!pool.empty()) link = pool[random() % pool.size()];
    }
    scenario.degraded.try_emplace(link, kept(random));
  }
  return scenario;
}

// The part a finding names, and whether it is degraded: its link, or the cable of its host.
bool names_a_degraded_part(const Graph& graph, const Finding& finding, const Scenario& scenario) {
  if (finding.link) return scenario.degraded.contains(*finding.link);
  if (finding.host.empty()) return false;
  return std::any_of(scenario.degraded.begin(), scenario.degraded.end(), [&](const auto& fault) {
    for (const fb::topo::VertexId end : {graph.link(fault.first).a, graph.link(fault.first).b})
      if (graph.vertex(end).host != fb::topo::no_vertex && graph.vertex(graph.vertex(end).host).name == finding.host)
        return true;
    return false;
  });
}

constexpr std::array<double, 5> thresholds{0.0, 0.5, 0.9, 0.95, 0.99};

struct Tally {
  std::size_t faults = 0, found = 0, found_exactly = 0, uncovered_links = 0, confirm_pairs = 0;
  std::array<std::size_t, thresholds.size()> reported{}, true_reported{};
  std::vector<std::string> false_confident;  // findings at >= 0.99 that name a healthy part

  // NOLINTNEXTLINE(readability-function-cognitive-complexity): tallies one trial per outcome (exact, among alternatives, missed, false at each confidence), a branch per outcome
  void add(const Graph& graph, const Diagnosis& diagnosis, const Scenario& scenario, int trial) {
    faults += scenario.degraded.size();
    uncovered_links += diagnosis.uncovered_links.size();
    std::set<LinkId> seen, exact;
    for (const Finding& finding : diagnosis.findings) {
      const bool truth = names_a_degraded_part(graph, finding, scenario);
      for (std::size_t t = 0; t < thresholds.size(); ++t)
        if (finding.confidence.value_or(0) >= thresholds[t]) {
          ++reported[t];
          true_reported[t] += truth ? 1 : 0;
        }
      if (!truth && finding.confidence.value_or(0) >= 0.99 && false_confident.size() < 12)
        false_confident.push_back(fmt::format("trial {}: {} {} ({:.3f}; {} evidence lines)", trial, finding.kind,
                                              finding.subject, *finding.confidence, finding.evidence.size()));
      if (finding.kind != "degraded_link" || !finding.link) continue;
      if (scenario.degraded.contains(*finding.link)) {
        seen.insert(*finding.link);
        if (finding.parallel_links.empty()) exact.insert(*finding.link);
      }
      for (const LinkId parallel : finding.parallel_links)
        if (scenario.degraded.contains(parallel)) seen.insert(parallel);
    }
    found += seen.size();
    found_exactly += exact.size();
  }
};

void print_accuracy(const Bench& bench, int first_trial, int trials) {
  const Graph& healthy = bench.fabric.healthy;
  std::vector<LinkId> fabric_links;
  for (LinkId link = 0; link < healthy.link_count(); ++link)
    if (is_switch(healthy, healthy.link(link).a) || is_switch(healthy, healthy.link(link).b))
      fabric_links.push_back(link);
  const fb::topo::FirstPass pass = plan_first_pass(healthy, bench.hosts, bench.fabric.router.get());
  Tally first, confirmed;
  double seconds = 0;
  for (int trial = first_trial; trial < first_trial + trials; ++trial) {
    std::mt19937_64 random(static_cast<std::uint64_t>(trial) + 1);
    const Scenario scenario = draw_scenario(healthy, fabric_links, random, trial);
    Graph truth = healthy;
    for (const auto& [link, kept] : scenario.degraded)
      truth.set_link_capacity(link, healthy.link(link).spec.capacity_gbps * kept);
    const auto start = std::chrono::steady_clock::now();
    std::vector<fb::ResultRow> rows = bench.measure(truth, pass.rounds, scenario.noise, random(), "first");
    const Diagnosis diagnosis = bench.diagnose(rows);
    first.add(healthy, diagnosis, scenario, trial);
    const fb::diagnosis::ConfirmPlan plan = plan_confirm(healthy, diagnosis, pass.hosts, bench.fabric.router.get());
    for (const auto& round : plan.rounds) confirmed.confirm_pairs += round.size();
    const std::vector<fb::ResultRow> confirm_rows =
        bench.measure(truth, plan.rounds, scenario.noise, random(), "confirm");
    rows.insert(rows.end(), confirm_rows.begin(), confirm_rows.end());
    confirmed.add(healthy, bench.diagnose(rows), scenario, trial);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const auto share = [](std::size_t part, std::size_t whole) {
    return whole == 0 ? 1.0 : static_cast<double>(part) / static_cast<double>(whole);
  };
  fmt::print("{:<16} {:>7} {:>8} {:>12} {:>10} {:>9}\n", "pass", "faults", "recall", "exact recall", "uncovered",
             "confirm");
  for (const auto& [name, tally] : {std::pair{"first pass", &first}, std::pair{"after confirm", &confirmed}})
    fmt::print("{:<16} {:>7} {:>8.4f} {:>12.4f} {:>10} {:>9.1f}\n", name, tally->faults,
               share(tally->found, tally->faults), share(tally->found_exactly, tally->faults), tally->uncovered_links,
               static_cast<double>(tally->confirm_pairs) / trials);
  fmt::print("confidence at or above: true share of the findings (count), first pass | after confirm\n");
  for (std::size_t t = 0; t < thresholds.size(); ++t)
    fmt::print("  >= {:<5} {:.4f} ({:>5}) | {:.4f} ({:>5})\n", thresholds[t],
               share(first.true_reported[t], first.reported[t]), first.reported[t],
               share(confirmed.true_reported[t], confirmed.reported[t]), confirmed.reported[t]);
  for (const auto& [name, tally] : {std::pair{"first pass", &first}, std::pair{"after confirm", &confirmed}})
    for (const std::string& line : tally->false_confident) fmt::print("  false at >= 0.99, {}: {}\n", name, line);
  fmt::print("{:.3f} s per trial (both passes, the plan and both diagnoses)\n", seconds / trials);
}

}  // namespace

int main(int argc, char** argv) {
  const Fabric fabric = load_fabric(argc > 1 ? argv[1] : "");
  const int trials = argc > 2 ? std::stoi(argv[2]) : 1000;
  const int first_trial = argc > 3 ? std::stoi(argv[3]) : 0;
  const Bench bench(fabric);
  fmt::print("# {}: {} hosts, {} links; {} trials from trial {}\n", fabric.description, bench.hosts.size(),
             fabric.healthy.link_count(), trials, first_trial);
  print_coverage(bench);
  print_accuracy(bench, first_trial, trials);
  return 0;
}
