// How well `diagnose` localizes degraded links, and how many pair measurements it needs: degrade 5
// random fabric links to a quarter, simulate the first K pairings of `pairwise` on that fabric
// (max-min sharing, 90% transport efficiency, 3% noise), diagnose against the healthy model, and
// score the findings. 20 random trials per K. Numbers: docs/performance.md.
//
//   diagnosis_accuracy_benchmark             1,024-host fat-tree from the topology model; routes are
//                                            the model's ECMP spread
//   diagnosis_accuracy_benchmark FABRIC_DIR  the fabric scripts/ibsim-fabric.sh wrote: its
//                                            ibnetdiscover.txt and the forwarding tables OpenSM
//                                            programmed (opensm-lfts.dump); every pair on its one
//                                            path, then one confirm round (diagnose --plan-confirm)
//
// A degraded link counts as found when a degraded_link finding names it, exactly or as one of the
// parallel links the finding cannot tell apart (the cables of one leaf-spine bundle, which every
// flow spreads over alike); exact recall counts only findings that name it. Precision counts
// findings that name a degraded link (either way), exact precision those that name one exactly
// and nothing else.

#include "common/pair_schedule.hpp"
#include "diagnosis/confirm_plan.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/pair_simulation.hpp"
#include "topology/format_registry.hpp"
#include "topology/forwarding_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>

namespace {

constexpr int degraded_links = 5;
constexpr double degraded_fraction = 0.25;
constexpr int trials = 20;

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

struct Score {
  double precision_sum = 0;
  double recall_sum = 0;
  double exact_precision_sum = 0;
  double exact_recall_sum = 0;

  void add(const fb::diagnosis::Diagnosis& diagnosis, const std::set<fb::topo::LinkId>& degraded) {
    std::set<fb::topo::LinkId> found, found_exactly;
    std::size_t reported = 0, correct = 0, exact = 0;
    for (const fb::diagnosis::Finding& finding : diagnosis.findings) {
      if (finding.kind != "degraded_link") continue;
      ++reported;
      bool names_a_degraded_link = false;
      if (degraded.contains(*finding.link)) {
        found.insert(*finding.link);
        names_a_degraded_link = true;
        if (finding.parallel_links.empty()) {
          found_exactly.insert(*finding.link);
          ++exact;
        }
      }
      for (const fb::topo::LinkId parallel : finding.parallel_links)
        if (degraded.contains(parallel)) {
          found.insert(parallel);
          names_a_degraded_link = true;
        }
      correct += names_a_degraded_link ? 1 : 0;
    }
    const auto share = [](std::size_t part, std::size_t whole) {
      return whole == 0 ? 1.0 : static_cast<double>(part) / static_cast<double>(whole);
    };
    precision_sum += share(correct, reported);
    exact_precision_sum += share(exact, reported);
    recall_sum += share(found.size(), degraded.size());
    exact_recall_sum += share(found_exactly.size(), degraded.size());
  }
};

struct Fabric {
  fb::topo::Graph healthy;
  std::unique_ptr<fb::topo::ForwardingTables> tables;
  std::unique_ptr<fb::topo::TableRouter> router;
  std::string description;
};

Fabric load_fabric(int argc, char** argv) {
  Fabric fabric;
  if (argc < 2) {
    fabric.healthy = fb::topo::parse_topology({"accuracy.yaml", cluster_spec}, "cluster-yaml");
    fabric.description = "topology model's 1,024-host fat-tree, ECMP routes";
    return fabric;
  }
  const std::string dir = argv[1];
  fabric.healthy = fb::topo::load_topology({dir + "/ibnetdiscover.txt"});
  fabric.tables =
      std::make_unique<fb::topo::ForwardingTables>(fb::topo::load_forwarding_tables(dir + "/opensm-lfts.dump"));
  fabric.router = std::make_unique<fb::topo::TableRouter>(fabric.healthy, *fabric.tables);
  fabric.description = fmt::format("{}: ibnetdiscover and OpenSM's forwarding tables", dir);
  return fabric;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fb::topo;
  using fb::diagnosis::ConfirmPlan;
  using fb::diagnosis::Diagnosis;
  using fb::diagnosis::diagnose;
  using fb::diagnosis::Finding;
  using fb::diagnosis::plan_confirm;
  const Fabric fabric = load_fabric(argc, argv);
  const Graph& healthy = fabric.healthy;
  const TableRouter* router = fabric.router.get();
  std::vector<LinkId> fabric_links;
  for (LinkId link = 0; link < healthy.link_count(); ++link) {
    const Link& l = healthy.link(link);
    if (healthy.vertex(l.a).kind == VertexKind::fabric_switch || healthy.vertex(l.b).kind == VertexKind::fabric_switch)
      fabric_links.push_back(link);
  }
  std::vector<std::string> hosts;
  for (const Vertex& vertex : healthy.vertices())
    if (vertex.kind == VertexKind::host) hosts.push_back(vertex.name);
  std::sort(hosts.begin(), hosts.end());  // ranks in host name order, as a launcher's host list gives them
  std::vector<int> endpoints(hosts.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  const std::vector<fb::PairRound> all_rounds = fb::pairwise_rounds(endpoints);
  std::map<std::string, int> endpoint_of;
  for (std::size_t h = 0; h < hosts.size(); ++h) endpoint_of[hosts[h]] = static_cast<int>(h);

  fmt::print("# {}\n# {} hosts, {} fabric links, {} degraded to {} per trial, {} trials\n", fabric.description,
             hosts.size(), fabric_links.size(), degraded_links, degraded_fraction, trials);
  fmt::print("{:>8} {:>12} {:>10} {:>8} {:>10} {:>8} {:>9} {:>10} {:>8} {:>10}\n", "pairings", "measurements",
             "precision", "recall", "exact prec", "exact rec", "confirm", "exact prec", "exact rec", "s/trial");
  for (const int pairings : {2, 4, 8}) {
    const std::span<const fb::PairRound> rounds(all_rounds.data(), static_cast<std::size_t>(2 * pairings));
    Score first, confirmed;
    std::size_t measurements = 0, confirm_pairs = 0;
    double seconds = 0;
    for (int trial = 0; trial < trials; ++trial) {
      std::mt19937_64 random(static_cast<std::uint64_t>(trial) + 1);
      std::vector<LinkId> candidates = fabric_links;
      std::shuffle(candidates.begin(), candidates.end(), random);
      const std::set<LinkId> degraded(candidates.begin(), candidates.begin() + degraded_links);
      Graph truth = healthy;
      for (const LinkId link : degraded)
        truth.set_link_capacity(link, healthy.link(link).spec.capacity_gbps * degraded_fraction);

      const auto start = std::chrono::steady_clock::now();
      std::vector<fb::ResultRow> rows =
          simulate_pair_rounds(truth, hosts, rounds, {.noise_fraction = 0.03, .seed = random(), .tables = router});
      const Diagnosis diagnosis = diagnose(healthy, rows, {}, router);
      first.add(diagnosis, degraded);
      measurements = rows.size();
      // The confirm round: the pairs that separate what the first pass could not, measured as a
      // second run, and everything diagnosed together.
      const ConfirmPlan plan = plan_confirm(healthy, diagnosis, hosts, router);
      std::vector<fb::PairRound> confirm_rounds;
      for (const auto& round : plan.rounds) {
        fb::PairRound pair_round{{}, static_cast<int>(confirm_rounds.size()) + 1};
        for (const auto& [src, dst] : round) pair_round.pairs.push_back({endpoint_of.at(src), endpoint_of.at(dst)});
        confirm_rounds.push_back(std::move(pair_round));
        confirm_pairs += round.size();
      }
      std::vector<fb::ResultRow> confirm_rows =
          simulate_pair_rounds(truth, hosts, confirm_rounds,
                               {.noise_fraction = 0.03, .seed = random(), .tables = router});
      for (fb::ResultRow& row : confirm_rows) row.run_id = "confirm";
      rows.insert(rows.end(), confirm_rows.begin(), confirm_rows.end());
      confirmed.add(diagnose(healthy, rows, {}, router), degraded);
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    fmt::print("{:>8} {:>12} {:>10.3f} {:>8.3f} {:>10.3f} {:>8.3f} {:>9.1f} {:>10.3f} {:>8.3f} {:>10.2f}\n", pairings,
               measurements, first.precision_sum / trials, first.recall_sum / trials,
               first.exact_precision_sum / trials, first.exact_recall_sum / trials,
               static_cast<double>(confirm_pairs) / trials, confirmed.exact_precision_sum / trials,
               confirmed.exact_recall_sum / trials, seconds / trials);
  }
  return 0;
}
