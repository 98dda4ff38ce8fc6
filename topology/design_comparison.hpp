#pragma once
// Designs side by side (topo compare): the same collectives predicted on several cluster designs,
// each point with the link that limits it in a buyer's words, the ratio between the designs and,
// when part prices are given, the cost per GB/s of bus bandwidth. The answer comes first: per op,
// at the largest size, which design is faster, by how much, and why.

#include "topology/graph.hpp"
#include "topology/predicted_sweep.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {

// What a design is made of, counted from its graph.
struct DesignParts {
  std::size_t hosts = 0;  // hosts with GPUs
  std::size_t gpus = 0;
  std::size_t nics = 0;
  std::size_t switches = 0;  // fabric switches, every tier
  std::size_t cables = 0;    // fabric links: NIC to switch and switch to switch, a bond's cables each
};
DesignParts count_parts(const Graph& graph);

// Prices per part in one currency, from a YAML map whose keys are host, gpu, nic, switch and
// cable (a part left out costs nothing, and the total says which were priced).
struct PartPrices {
  std::map<std::string, double> per_part;
};
// Throws InputError naming an unknown part, a price that is not a non-negative number, or a file
// that is not a map.
PartPrices read_part_prices(const std::string& path);
double design_cost(const DesignParts& parts, const PartPrices& prices);

// A prediction's limiting link as a buyer reads it: "PCIe Gen5 x16 between each GPU and its NIC
// (48.0 GB/s) caps the 800G RoCE NICs (92.0 GB/s effective each)", "leaf0002's uplinks (966.0
// GB/s) limit: the leaves are 2.05:1 oversubscribed". `limit` is the model's (Prediction::limit).
std::string limit_in_words(const Graph& graph, std::string_view limit);

struct Design {
  std::string name;  // the spec's file name without its extension
  const Graph* graph = nullptr;
};

struct ComparisonRequest {
  std::vector<const OpTraits*> ops;
  SweepSpec sweep;
  JobPlacement placement;  // the same job on every design: nodes and GPUs per node
  std::optional<NcclVersion> nccl_version;
  std::vector<PartPrices> prices;  // none, one for every design, or one per design in order
  std::string start_time;          // ISO 8601 UTC, for the rows' provenance
};

// One design's prediction for one op and size.
struct DesignPoint {
  std::size_t design = 0;  // index into DesignComparison::designs
  const OpTraits* op = nullptr;
  std::uint64_t bytes = 0;
  double time_us = 0;
  double busbw_gbps = 0;
  // The prediction's 80% interval (prediction_interval.hpp).
  double busbw_low_gbps = 0;
  double busbw_high_gbps = 0;
  // Its interval overlaps another design's at this op and size: the model cannot tell the two
  // apart there (for the best design: some other design's interval reaches its own).
  bool cannot_tell_apart = false;
  std::string algorithm;
  std::string protocol;
  std::string limit;                    // the model's words (a link and its rate)
  std::string limit_words;              // limit_in_words
  std::optional<double> cost_per_gbps;  // design cost / busbw, when prices are given
  double ratio_to_best = 1;             // this design's busbw / the best design's at this op and size
};

struct DesignComparison {
  std::vector<std::string> designs;
  std::vector<DesignParts> parts;
  std::vector<std::optional<double>> costs;  // per design, when prices are given
  std::vector<std::string> priced_parts;     // the parts the prices named
  std::vector<DesignPoint> points;           // per op, per size, per design in order
  // The first lines a reader sees: per op at the largest size, the faster design, by how much and
  // why, and the cost per GB/s when priced.
  std::vector<std::string> answer;
  std::vector<std::string> warnings;  // the model's assumptions, once per design
};

// Throws InputError with fewer than 2 designs, or when a design cannot hold the placement.
DesignComparison compare_designs(std::span<const Design> designs, const ComparisonRequest& request);

}  // namespace fb::topo
