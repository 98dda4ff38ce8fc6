#pragma once
// Pair-pattern results as a fabric would produce them: every round's flows share the links under
// max-min fairness, at a transport efficiency, with measurement noise. What `diagnose` is tested
// and benchmarked against, and what a cluster on paper would show in `fabricbench run pairwise`.

#include "common/pair_schedule.hpp"
#include "results/result_row.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fb::topo {

struct PairSimulation {
  std::string op = "pairwise";  // the op the rows carry (pairwise, concurrent)
  std::uint64_t bytes = 1ull << 20;
  double efficiency = 0.9;    // share of link capacity a flow gets through the transport
  double noise_fraction = 0;  // standard deviation of the multiplicative noise
  std::uint64_t seed = 1;
  // The fabric's forwarding tables: each pair on its one path, as a routed InfiniBand fabric sends
  // it; without them (or where they give none), the model's ECMP spread.
  const TableRouter* tables = nullptr;
};

// `rounds` name endpoints by index into `hosts`. Throws fb::InputError for a host without a NIC.
std::vector<ResultRow> simulate_pair_rounds(const Graph& graph, std::span<const std::string> hosts,
                                            std::span<const PairRound> rounds, const PairSimulation& simulation);

}  // namespace fb::topo
