#pragma once
// The confirm round: after a first diagnosis, the few pairs whose routes separate what it could
// not tell apart, to measure next (`diagnose --plan-confirm FILE`, then `run pairwise --pairs FILE`).
//
// A degraded link found only as "one of N parallel links" (flows spread alike over a bundle) gets,
// for every cable of the bundle, pairs whose forwarding-table route crosses that cable and no other
// of the bundle: the slow one is then the only one with slow pairs. That needs the tables; with
// ECMP routes only, the plan says so. A cable named on fewer slow pairs than the plan measures per
// cable gets pairs that cross it too. A slow node gets pairs against known-good peers (hosts no
// finding blames), both ways, to tell the node from the paths it was measured on.

#include "diagnosis/diagnosis.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <string>
#include <utility>
#include <vector>

namespace fb::diagnosis {

struct ConfirmPlan {
  // Pairs measured together in a round share neither a host nor a directed link, so each measures
  // its own route alone.
  std::vector<std::vector<std::pair<std::string, std::string>>> rounds;  // (sending host, receiving host)
  std::vector<std::string> notes;  // what the plan covers and what it could not separate, and why
};

struct ConfirmSettings {
  int pairs_per_suspect = 2;  // two: one slow pair could be noise
};

// `hosts`: the hosts that may be measured (those of the first run). Pairs come from them only.
ConfirmPlan plan_confirm(const topo::Graph& graph, const Diagnosis& diagnosis, const std::vector<std::string>& hosts,
                         const topo::TableRouter* tables, const ConfirmSettings& settings = {});

// The pairs file `run --pairs` reads: "SRC DST" per line, rounds separated by a blank line, '#'
// comments (the notes). parse_pair_rounds (common/pair_schedule.hpp) reads it back.
std::string format_pairs_file(const ConfirmPlan& plan);

}  // namespace fb::diagnosis
