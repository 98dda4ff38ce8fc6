// How well `diagnose` localizes degraded links, and how many pair measurements it needs: on a
// 1,024-host two-tier fat-tree built by the topology model, degrade 5 random fabric links to a
// quarter, simulate the first K rounds of `pairwise` on that fabric (max-min sharing, 90%
// transport efficiency, 3% noise), diagnose against the healthy model, and score the findings.
// 20 random trials per K. Numbers: docs/performance.md.
//
// A degraded link counts as found when a degraded_link finding names it, exactly or as one of the
// parallel links the finding cannot tell apart (the cables of one leaf-spine bundle, which every
// flow spreads over alike); precision counts findings that name a degraded link either way.

#include "common/pair_schedule.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/format_registry.hpp"
#include "topology/pair_simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <set>

namespace {

constexpr int host_count = 1024;
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
  double exact_recall_sum = 0;
  std::size_t pair_measurements = 0;
  double seconds = 0;
};

}  // namespace

int main() {
  using namespace fb::topo;
  using fb::diagnosis::Diagnosis;
  using fb::diagnosis::diagnose;
  using fb::diagnosis::Finding;
  const Graph healthy = parse_topology({"accuracy.yaml", cluster_spec}, "cluster-yaml");
  std::vector<LinkId> fabric_links;
  for (LinkId link = 0; link < healthy.link_count(); ++link) {
    const Link& l = healthy.link(link);
    if (healthy.vertex(l.a).kind == VertexKind::fabric_switch || healthy.vertex(l.b).kind == VertexKind::fabric_switch)
      fabric_links.push_back(link);
  }
  std::vector<std::string> hosts;
  for (const Vertex& vertex : healthy.vertices())
    if (vertex.kind == VertexKind::host) hosts.push_back(vertex.name);
  std::vector<int> endpoints(hosts.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  const std::vector<fb::PairRound> all_rounds = fb::pairwise_rounds(endpoints);

  fmt::print("# {} hosts, {} fabric links, {} degraded to {} per trial, {} trials\n", hosts.size(), fabric_links.size(),
             degraded_links, degraded_fraction, trials);
  fmt::print("{:>8} {:>18} {:>10} {:>8} {:>14} {:>12}\n", "pairings", "pair measurements", "precision", "recall",
             "exact recall", "s per trial");
  for (const int pairings : {2, 4, 8, 16}) {
    const std::span<const fb::PairRound> rounds(all_rounds.data(), static_cast<std::size_t>(2 * pairings));
    Score score;
    for (int trial = 0; trial < trials; ++trial) {
      std::mt19937_64 random(static_cast<std::uint64_t>(trial) + 1);
      std::vector<LinkId> candidates = fabric_links;
      std::shuffle(candidates.begin(), candidates.end(), random);
      const std::set<LinkId> degraded(candidates.begin(), candidates.begin() + degraded_links);
      Graph truth = healthy;
      for (const LinkId link : degraded)
        truth.set_link_capacity(link, healthy.link(link).spec.capacity_gbps * degraded_fraction);

      const auto start = std::chrono::steady_clock::now();
      const std::vector<fb::ResultRow> rows =
          simulate_pair_rounds(truth, hosts, rounds, {.noise_fraction = 0.03, .seed = random()});
      const Diagnosis diagnosis = diagnose(healthy, rows);
      score.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      score.pair_measurements = rows.size();

      std::set<LinkId> found, found_exactly;
      std::size_t reported = 0, correct = 0;
      for (const Finding& finding : diagnosis.findings) {
        if (finding.kind != "degraded_link") continue;
        ++reported;
        bool names_a_degraded_link = false;
        if (degraded.contains(*finding.link)) {
          found.insert(*finding.link);
          found_exactly.insert(*finding.link);
          names_a_degraded_link = true;
        }
        for (const LinkId parallel : finding.parallel_links)
          if (degraded.contains(parallel)) {
            found.insert(parallel);
            names_a_degraded_link = true;
          }
        correct += names_a_degraded_link ? 1 : 0;
      }
      score.precision_sum += reported == 0 ? 1.0 : static_cast<double>(correct) / static_cast<double>(reported);
      score.recall_sum += static_cast<double>(found.size()) / degraded_links;
      score.exact_recall_sum += static_cast<double>(found_exactly.size()) / degraded_links;
    }
    fmt::print("{:>8} {:>18} {:>10.3f} {:>8.3f} {:>14.3f} {:>12.2f}\n", pairings, score.pair_measurements,
               score.precision_sum / trials, score.recall_sum / trials, score.exact_recall_sum / trials,
               score.seconds / trials);
  }
  return 0;
}
