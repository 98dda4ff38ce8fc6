// Designs side by side (design_comparison.hpp).

#include "topology/design_comparison.hpp"

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "topology/analysis.hpp"
#include "topology/format_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>

namespace fb::topo {
namespace {

constexpr std::array<std::string_view, 5> priced_part_names{"host", "gpu", "nic", "switch", "cable"};

bool is_network(LinkType type) {
  return type == LinkType::infiniband || type == LinkType::roce || type == LinkType::efa || type == LinkType::ethernet;
}

// The fastest network port of any NIC: what the design's NICs are sold as.
struct NicSummary {
  std::string technology;
  double datasheet_gbps = 0;  // GB/s
  double effective_gbps = 0;  // what NCCL gets through one port
  std::size_t per_host = 0;
};

NicSummary nic_summary(const Graph& graph) {
  NicSummary summary;
  std::map<VertexId, std::size_t> nics_on_host;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).kind != VertexKind::nic) continue;
    ++nics_on_host[graph.vertex(v).host];
    for (const LinkId l : graph.links_of(v)) {
      const LinkSpec& spec = graph.link(l).spec;
      if (is_network(spec.type) && spec.datasheet_gbps > summary.datasheet_gbps) {
        summary.technology = std::string(spec.technology);
        summary.datasheet_gbps = spec.datasheet_gbps;
        summary.effective_gbps = spec.capacity_gbps * collective_efficiency(spec);
      }
    }
  }
  for (const auto& [host, count] : nics_on_host) summary.per_host = std::max(summary.per_host, count);
  return summary;
}

// "800G RoCE" from 100 GB/s of "RoCE 800G"-like rows: the rate in Gb/s as NICs are sold.
std::string nic_words(const NicSummary& nics) {
  return fmt::format("{}x {:.0f}G {}", nics.per_host, nics.datasheet_gbps * 8, nics.technology);
}

// The part of `text` between `open` and the next `close`, or empty.
std::string_view between(std::string_view text, std::string_view open, std::string_view close) {
  const std::size_t begin = text.find(open);
  if (begin == std::string_view::npos) return {};
  const std::size_t from = begin + open.size();
  const std::size_t end = text.find(close, from);
  return end == std::string_view::npos ? std::string_view{} : text.substr(from, end - from);
}

std::string oversubscription_words(const Graph& graph, std::string_view switch_name) {
  const VertexId sw = graph.find(switch_name);
  if (sw == no_vertex) return {};
  for (const SwitchOversubscription& s : analyze_oversubscription(graph).switches) {
    if (s.switch_vertex == sw && s.oversubscription_ratio && *s.oversubscription_ratio > 1.001) {
      return fmt::format(": its {} are {:.2f}:1 oversubscribed (downlinks {:.0f} GB/s, uplinks {:.0f} GB/s)",
                         name_of(graph.vertex(sw).tier) == std::string_view("leaf") ? "leaves" : "switches",
                         *s.oversubscription_ratio, s.downlink_gbps, s.uplink_gbps);
    }
  }
  return {};
}

}  // namespace

DesignParts count_parts(const Graph& graph) {
  DesignParts parts;
  std::set<VertexId> hosts_with_gpus;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    switch (graph.vertex(v).kind) {
      case VertexKind::gpu:
        ++parts.gpus;
        hosts_with_gpus.insert(graph.vertex(v).host);
        break;
      case VertexKind::nic: ++parts.nics; break;
      case VertexKind::fabric_switch: ++parts.switches; break;
      case VertexKind::host:
      case VertexKind::cpu:
      case VertexKind::pcie_switch:
      case VertexKind::nvswitch: break;
    }
  }
  parts.hosts = hosts_with_gpus.size();
  for (const Link& link : graph.links()) {
    const bool fabric = graph.vertex(link.a).kind == VertexKind::fabric_switch ||
                        graph.vertex(link.b).kind == VertexKind::fabric_switch;
    if (fabric && is_network(link.spec.type)) ++parts.cables;
  }
  return parts;
}

PartPrices read_part_prices(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& error) {
    throw InputError(fmt::format("{}: not a price list: {}", path, error.what()));
  }
  if (!root.IsMap())
    throw InputError(fmt::format("{}: a price list is a map of part: price (host, gpu, nic, switch, cable)", path));
  PartPrices prices;
  for (const auto& entry : root) {
    const std::string part = entry.first.as<std::string>();
    if (std::find(priced_part_names.begin(), priced_part_names.end(), part) == priced_part_names.end()) {
      throw InputError(fmt::format("{}: unknown part '{}' (parts: host, gpu, nic, switch, cable)", path, part));
    }
    double price = -1;
    try {
      price = entry.second.as<double>();
    } catch (const YAML::Exception&) {}
    if (!(price >= 0)) throw InputError(fmt::format("{}: the price of {} must be a non-negative number", path, part));
    prices.per_part[part] = price;
  }
  if (prices.per_part.empty()) throw InputError(fmt::format("{}: the price list names no part", path));
  return prices;
}

double design_cost(const DesignParts& parts, const PartPrices& prices) {
  const auto price = [&](const char* part) {
    const auto it = prices.per_part.find(part);
    return it == prices.per_part.end() ? 0.0 : it->second;
  };
  return price("host") * static_cast<double>(parts.hosts) + price("gpu") * static_cast<double>(parts.gpus) +
         price("nic") * static_cast<double>(parts.nics) + price("switch") * static_cast<double>(parts.switches) +
         price("cable") * static_cast<double>(parts.cables);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one phrase per kind of limiting link (NIC, uplink bundle by direction, NVLink, PCIe, rail), as the comparison names it
std::string limit_in_words(const Graph& graph, std::string_view limit) {
  const std::size_t shared = limit.find(", shared with");
  const std::string sharing = shared == std::string_view::npos ? std::string() : std::string(limit.substr(shared));
  const std::string_view own = limit.substr(0, shared);
  const NicSummary nics = nic_summary(graph);
  // A link inside a host or a NIC port: "from -> to (technology xN, R GB/s effective of D)".
  if (const std::size_t arrow = own.find(" -> "); arrow != std::string_view::npos) {
    const std::string_view technology_and_lanes = between(own, "(", ",");
    const std::string_view rate = between(own, ", ", " effective");
    const VertexId from = graph.find(own.substr(0, arrow));
    const std::string_view to_name = own.substr(arrow + 4, own.find(" (") - arrow - 4);
    const VertexId to = graph.find(to_name);
    const auto kind_of = [&](VertexId v) { return v == no_vertex ? VertexKind::host : graph.vertex(v).kind; };
    const bool nic_port = kind_of(from) == VertexKind::fabric_switch || kind_of(to) == VertexKind::fabric_switch;
    if (nic_port) {
      return fmt::format("the {} NIC ports ({} effective each) limit: the fabric carries what the NICs send{}",
                         nic_words(nics), rate, sharing);
    }
    if (technology_and_lanes.starts_with("PCIe")) {
      const double pcie_gbps = std::strtod(std::string(rate).c_str(), nullptr);
      if (nics.effective_gbps > pcie_gbps) {
        return fmt::format("{} between each GPU and its NIC ({}) caps the {} NICs ({:.1f} GB/s effective each){}",
                           technology_and_lanes, rate, nic_words(nics), nics.effective_gbps, sharing);
      }
      return fmt::format("{} inside the node ({}) limits, not the network{}", technology_and_lanes, rate, sharing);
    }
    if (technology_and_lanes.starts_with("NVLink")) {
      return fmt::format("NVLink inside the node ({} {}) limits, not the network{}", technology_and_lanes, rate,
                         sharing);
    }
    return fmt::format("{} inside the node ({}) limits{}", technology_and_lanes, rate, sharing);
  }
  // A fabric bundle, the switch's links to the tier above in one direction: "leaf0002 uplinks,
  // coming down (966.0 GB/s)".
  for (const std::string_view direction :
       {std::string_view(" uplinks, going up ("), std::string_view(" uplinks, coming down (")}) {
    if (const std::size_t at = own.find(direction); at != std::string_view::npos) {
      const std::string_view sw = own.substr(0, at);
      const bool up = direction.find("going up") != std::string_view::npos;
      return fmt::format("{}'s uplinks ({}, traffic {} the tier above) limit{}{}", sw, between(own, "(", ")"),
                         up ? "going up to" : "coming down from", oversubscription_words(graph, sw), sharing);
    }
  }
  // "a GPU's PCIe path to its NIC (48.0 GB/s)", "the root GPU's PCIe path to its NIC (...)".
  if (own.find("PCIe path to its NIC") != std::string_view::npos) {
    const std::string_view rate = between(own, "(", ")");
    const double pcie_gbps = std::strtod(std::string(rate).c_str(), nullptr);
    if (nics.effective_gbps > pcie_gbps) {
      return fmt::format("each GPU's PCIe path to its NIC ({}) caps the {} NICs ({:.1f} GB/s effective each){}", rate,
                         nic_words(nics), nics.effective_gbps, sharing);
    }
    return fmt::format("each GPU's PCIe path to its NIC ({}) limits{}", rate, sharing);
  }
  if (own.find("NIC ports") != std::string_view::npos) {
    return fmt::format("a node's {} NIC ports ({} in all) limit{}", nic_words(nics), between(own, "(", ")"), sharing);
  }
  if (own.find("NVLink") != std::string_view::npos || own.find("NVLS") != std::string_view::npos) {
    return fmt::format("{}: inside the node, not the network", own);
  }
  return std::string(limit);
}

namespace {

// Each design's sweep of one op; their assumptions join the comparison's warnings once each.
std::vector<PredictedSweep> predict_designs(std::span<const Design> designs, const ComparisonRequest& request,
                                            const OpTraits* op, std::vector<std::string>& warnings) {
  std::vector<PredictedSweep> sweeps;
  for (const Design& design : designs) {
    SweepRequest sweep_request;
    sweep_request.op = op;
    sweep_request.nccl_version = request.nccl_version;
    sweep_request.sweep = request.sweep;
    sweep_request.placement = request.placement;
    sweep_request.run_id = fmt::format("model-{}-{}", design.name, op->name);
    sweep_request.start_time = request.start_time;
    sweep_request.command_line =
        fmt::format("fabricbench topo compare ({} of {} designs)", design.name, designs.size());
    try {
      sweeps.push_back(predict_sweep(*design.graph, sweep_request));
    } catch (const InputError& error) {
      throw InputError(fmt::format("design {}: {}", design.name, error.what()));  // which of the designs
    }
    for (const std::string& warning : sweeps.back().warnings) {
      const std::string line = fmt::format("{}: {}", design.name, warning);
      if (std::find(warnings.begin(), warnings.end(), line) == warnings.end()) warnings.push_back(line);
    }
  }
  return sweeps;
}

bool overlap(const DesignPoint& a, const DesignPoint& b) {
  return a.busbw_low_gbps <= b.busbw_high_gbps && b.busbw_low_gbps <= a.busbw_high_gbps;
}

// One size's designs: the best, and every design whose interval overlaps the best's, cannot be
// told apart from it.
void mark_overlaps(std::span<DesignPoint> at_size) {
  const auto best = std::max_element(at_size.begin(), at_size.end(), [](const DesignPoint& a, const DesignPoint& b) {
    return a.busbw_gbps < b.busbw_gbps;
  });
  for (DesignPoint& point : at_size) {
    if (&point != &*best && overlap(point, *best)) point.cannot_tell_apart = best->cannot_tell_apart = true;
  }
}

// "64M, 256M and 1G": the sizes of an op at which the best design cannot be told from another.
std::string sizes_without_answer(const DesignComparison& comparison, const OpTraits* op) {
  std::vector<std::string> sizes;
  for (const DesignPoint& p : comparison.points) {
    if (p.op != op || !p.cannot_tell_apart || p.ratio_to_best < 1) continue;
    const std::string size = format_size_bytes(p.bytes);
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size);
  }
  if (sizes.size() <= 1) return sizes.empty() ? std::string() : sizes.front();
  const std::string last = sizes.back();
  sizes.pop_back();
  return fmt::format("{} and {}", fmt::join(sizes, ", "), last);
}

// The points of one op, size after size, each design's with its ratio to the best at that size.
void add_points(DesignComparison& comparison, std::span<const Design> designs, const OpTraits* op,
                const std::vector<PredictedSweep>& sweeps) {
  for (std::size_t s = 0; s < sweeps.front().results.rows.size(); ++s) {
    double best_gbps = 0;
    for (const PredictedSweep& sweep : sweeps) best_gbps = std::max(best_gbps, *sweep.results.rows[s].busbw_gbps);
    for (std::size_t d = 0; d < designs.size(); ++d) {
      const ResultRow& row = sweeps[d].results.rows.at(s);
      DesignPoint point;
      point.design = d;
      point.op = op;
      point.bytes = row.bytes;
      point.time_us = row.time_median_us;
      point.busbw_gbps = *row.busbw_gbps;
      point.busbw_low_gbps = row.busbw_low_gbps.value_or(point.busbw_gbps);
      point.busbw_high_gbps = row.busbw_high_gbps.value_or(point.busbw_gbps);
      point.algorithm = row.model_algorithm;
      point.protocol = row.model_protocol;
      point.limit = row.model_limit;
      point.limit_words = limit_in_words(*designs[d].graph, row.model_limit);
      if (comparison.costs[d]) point.cost_per_gbps = *comparison.costs[d] / point.busbw_gbps;
      point.ratio_to_best = point.busbw_gbps / best_gbps;
      comparison.points.push_back(std::move(point));
    }
    mark_overlaps(std::span(comparison.points).last(designs.size()));
  }
}

// The answer at the largest size (the last `design_count` points): the designs from the fastest
// down, each with its limit in words, and the cost per GB/s when priced.
void add_answer(DesignComparison& comparison, std::size_t design_count, bool priced) {
  std::vector<const DesignPoint*> largest;
  for (std::size_t i = comparison.points.size() - design_count; i < comparison.points.size(); ++i) {
    largest.push_back(&comparison.points[i]);
  }
  std::stable_sort(largest.begin(), largest.end(),
                   [](const DesignPoint* a, const DesignPoint* b) { return a->busbw_gbps > b->busbw_gbps; });
  const DesignPoint& best = *largest.front();
  const DesignPoint& next = *largest[1];
  const double ratio = best.busbw_gbps / next.busbw_gbps;
  std::string line = fmt::format("{} at {}: {} is {:.2f}x {} ({:.1f} vs {:.1f} GB/s busbw{})", best.op->name,
                                 format_size_bytes(best.bytes), comparison.designs[best.design], ratio,
                                 comparison.designs[next.design], best.busbw_gbps, next.busbw_gbps,
                                 design_count > 2 ? fmt::format(", the next of {}", design_count) : "");
  if (overlap(best, next)) {
    line += fmt::format("; their 80% intervals overlap ({:.1f}-{:.1f} vs {:.1f}-{:.1f} GB/s): the model cannot tell "
                        "them apart at this size, buy on other grounds unless the limits below differ",
                        best.busbw_low_gbps, best.busbw_high_gbps, next.busbw_low_gbps, next.busbw_high_gbps);
  }
  if (const std::string sizes = sizes_without_answer(comparison, best.op); !sizes.empty()) {
    line += fmt::format("; the fastest design cannot be told apart from another at {} (80% intervals overlap)", sizes);
  }
  comparison.answer.push_back(line);
  for (const DesignPoint* point : largest) {
    comparison.answer.push_back(fmt::format("  {}: {} ({} {})", comparison.designs[point->design], point->limit_words,
                                            point->algorithm, point->protocol));
  }
  if (priced) {
    std::string costs;
    for (const DesignPoint* point : largest) {
      costs += fmt::format("{}{} {:.0f}", costs.empty() ? "" : ", ", comparison.designs[point->design],
                           *point->cost_per_gbps);
    }
    comparison.answer.push_back(fmt::format("  cost per GB/s of busbw: {}", costs));
  }
}

}  // namespace

DesignComparison compare_designs(std::span<const Design> designs, const ComparisonRequest& request) {
  if (designs.size() < 2) {
    throw InputError(fmt::format("a comparison needs at least 2 designs, got {}", designs.size()));
  }
  if (request.prices.size() > 1 && request.prices.size() != designs.size()) {
    throw InputError(fmt::format("{} price lists for {} designs: give one for all, or one per design in order",
                                 request.prices.size(), designs.size()));
  }
  DesignComparison comparison;
  std::set<std::string> priced;
  for (std::size_t d = 0; d < designs.size(); ++d) {
    comparison.designs.push_back(designs[d].name);
    comparison.parts.push_back(count_parts(*designs[d].graph));
    if (request.prices.empty()) {
      comparison.costs.emplace_back();
      continue;
    }
    const PartPrices& prices = request.prices[request.prices.size() == 1 ? 0 : d];
    comparison.costs.emplace_back(design_cost(comparison.parts.back(), prices));
    for (const auto& [part, price] : prices.per_part) priced.insert(part);
  }
  comparison.priced_parts.assign(priced.begin(), priced.end());
  for (const OpTraits* op : request.ops) {
    const std::vector<PredictedSweep> sweeps = predict_designs(designs, request, op, comparison.warnings);
    add_points(comparison, designs, op, sweeps);
    if (!sweeps.front().results.rows.empty()) add_answer(comparison, designs.size(), !request.prices.empty());
  }
  return comparison;
}

}  // namespace fb::topo
