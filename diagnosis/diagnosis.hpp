#pragma once
// Diagnosis: measured pair bandwidths joined to the model's routes, to name the link, the node or
// the blocking point that explains what is slow.
//
// The model supplies relative expectations (which links a flow crosses, what each link can carry,
// how flows measured together share them under max-min fairness); the scale is calibrated from
// the measurements themselves (the median of measured / modelled over all flows), so a healthy
// majority sets "normal" and nominal capacities in the inputs do not matter, only their ratios.

#include "diagnosis/finding.hpp"
#include "results/result_row.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct DiagnosisSettings {
  double slow_ratio = 0.7;      // a flow under this fraction of its expectation is slow
  double healthy_ratio = 0.85;  // a flow at or over this fraction clears the links it crosses
  // A candidate link's share of slow flows among the flows that cross it and are slow or healthy.
  double min_link_confidence = 0.8;
  // A pair that kept less than this of its alone bandwidth when all cut pairs ran lost it to load.
  double blocked_ratio = 0.8;
  double outlier_z_score = -3.5;  // Iglewicz-Hoaglin modified z-score for a slow node
  // A pair whose p99 time is this many times its median's (and the typical pair's ratio) crossed
  // a cable that loses packets (lossy_link).
  double lossy_tail_ratio = 3;
};

// A slow pair measurement (under DiagnosisSettings::slow_ratio of its expectation) that no finding
// explains: something is slow and the diagnosis cannot say what (no route to localize it on, or no
// part its routes share that healthy pairs did not clear).
struct SlowPair {
  std::string run_id;
  std::string src_host;
  std::string dst_host;
  int round = 0;
  std::optional<int> repetition;  // the row's field (from 0); empty outside a soak run
  double ratio = 0;               // measured / expected
};

struct Diagnosis {
  double calibration = 0;  // measured GB/s per modelled GB/s over all flows (median)
  std::size_t flows_examined = 0;
  std::size_t slow_flows = 0;
  std::size_t slow_flows_explained = 0;
  // Flows routed over the one path the forwarding tables give; the others are spread over the
  // equal-cost links (ECMP), which cannot tell parallel cables apart.
  std::size_t flows_on_table_routes = 0;
  bool tables_given = false;
  std::vector<Finding> findings;  // in the measurements' scale (GB/s)
  // The directed links (topo::directed_link_index) that pairs of the measured hosts can cross
  // (topo::crossable_links) and no examined flow crossed: nothing was measured on them, so no
  // finding can name them and nothing clears them. They are unmeasured, never healthy.
  std::size_t crossable_links = 0;
  std::vector<std::size_t> uncovered_links;
  // The directed links measured flows crossed, none of them at a healthy rate, that no finding
  // names: every pair across them was slow for a part named elsewhere on its path (a host's cable
  // masks a spine cable only that host's pairs cross) or between slow and healthy. Nothing cleared
  // them: unverified, never healthy.
  std::vector<std::size_t> unverified_links;
  // Slow and unexplained: what `--fail-on findings` must fail on even where no finding names a part.
  std::vector<SlowPair> unexplained_slow_pairs;
  // What these measurements could not see, in words: the result says so rather than look clean.
  std::vector<std::string> blind_spots;
};

// Rows of the pair patterns (pairwise, concurrent) that are bandwidths between two hosts.
bool is_pair_bandwidth_row(const ResultRow& row);

// Examines the bandwidth rows of pair patterns (pairwise, concurrent) at each run's largest size.
// With forwarding tables, each pair is routed over the path they give (ECMP where they give none).
// Throws fb::InputError when a row names a host the topology does not have, or a host has no NIC.
Diagnosis diagnose(const topo::Graph& graph, std::span<const ResultRow> rows, const DiagnosisSettings& settings = {},
                   const topo::TableRouter* tables = nullptr);

// "h00003/eth0 <-> leaf0001": how findings name a link.
std::string link_name(const topo::Graph& graph, topo::LinkId link);

}  // namespace fb::diagnosis
