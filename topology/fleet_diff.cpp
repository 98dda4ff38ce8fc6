#include "topology/fleet_diff.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

namespace fb::topo {
namespace {

// What a property is about; ordered GPUs by ordinal, then NICs by the number in their name, then
// PCIe switches by the lowest GPU under them.
struct Subject {
  int kind_rank = 0;
  int ordinal = 0;
  std::string label;
  auto operator<=>(const Subject&) const = default;
};

using Properties = std::map<DeviceProperty, std::string>;
using Signature = std::map<Subject, Properties>;

std::string gpu_list(const std::vector<int>& ordinals) {
  std::vector<std::string> names;
  for (const int ordinal : ordinals) names.push_back(fmt::format("GPU{}", ordinal));
  return fmt::format("{}", fmt::join(names, ", "));
}

// Orders mlx5_10 after mlx5_9. Taken from the name, never from the dump's NIC numbering: with a
// NIC missing, nvidia-smi numbers the rest differently.
int trailing_number(std::string_view name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  int number = -1;
  std::from_chars(name.data() + digits, name.data() + name.size(), number);
  return number;
}

std::string pcie_link_text(const Link& link) {
  const std::optional<double> gts = pcie_gts_of(link.spec.technology);
  const std::string technology =
      gts ? fmt::format("{} ({:g} GT/s)", link.spec.technology, *gts) : std::string(link.spec.technology);
  // NCCL in a VM states the generation but width 0. topo -m states neither, but then every node
  // carries the same nominal value, so nothing deviates.
  return link.nominal_capacity ? technology + ", width not stated"
                               : fmt::format("{} x{}", technology, link.spec.lane_count);
}

struct GpuIdentity {
  std::string bus_id;  // empty where the dump does not state it
  int numa = -1;
  std::vector<std::string> nearby_nics;  // NICs under the GPU's own PCIe switch
  int nvlink_lanes = 0;
};

// How unlike two GPUs are: a differing bus id outweighs everything, else one per differing trait.
int identity_distance(const GpuIdentity& a, const GpuIdentity& b) {
  if (!a.bus_id.empty() && !b.bus_id.empty()) return a.bus_id == b.bus_id ? 0 : 100;
  return (a.numa != b.numa ? 1 : 0) + (a.nearby_nics != b.nearby_nics ? 1 : 0) +
         (a.nvlink_lanes != b.nvlink_lanes ? 1 : 0);
}

// The reference GPUs that some alignment of least cost leaves unmatched: every GPU that may be
// the missing one. after[i][j] is the least cost of node GPUs i.. within reference GPUs j..;
// reference GPU j may be missing when a best alignment matches the first i node GPUs before it
// and the rest after it.
std::vector<int> missing_candidates(const std::vector<std::pair<int, GpuIdentity>>& node,
                                    const std::vector<std::pair<int, GpuIdentity>>& reference,
                                    const std::vector<std::vector<int>>& cost) {
  const std::size_t k = node.size();
  const std::size_t n = reference.size();
  constexpr int unreachable = 1 << 28;
  std::vector<std::vector<int>> after(k + 1, std::vector<int>(n + 1, unreachable));
  for (std::size_t j = 0; j <= n; ++j) after[k][j] = 0;
  for (std::size_t i = k; i-- > 0;) {
    for (std::size_t j = n; j-- > 0;) {
      const int match = after[i + 1][j + 1] + identity_distance(node[i].second, reference[j].second);
      after[i][j] = std::min(after[i][j + 1], std::min(match, unreachable));
    }
  }
  std::vector<int> candidates;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i <= std::min(k, j); ++i) {
      if (cost[i][j] + after[i][j + 1] == cost[k][n]) {
        candidates.push_back(reference[j].first);
        break;
      }
    }
  }
  return candidates;
}

// The node's GPUs (fewer than the reference's) matched to the reference's in order, each
// reference GPU used at most once, at the least total distance; the driver numbers GPUs in bus
// order, so a missing one shifts the rest without reordering them.
GpuRenumbering align_gpus(const std::vector<std::pair<int, GpuIdentity>>& node,
                          const std::vector<std::pair<int, GpuIdentity>>& reference,
                          std::map<int, int>& fleet_ordinal) {
  const std::size_t k = node.size();
  const std::size_t n = reference.size();
  constexpr int unreachable = 1 << 28;
  // cost[i][j]: the first i node GPUs matched within the first j reference GPUs; ways counts the
  // alignments of that cost (capped), to tell when the match is not certain.
  std::vector<std::vector<int>> cost(k + 1, std::vector<int>(n + 1, unreachable));
  std::vector<std::vector<int>> ways(k + 1, std::vector<int>(n + 1, 0));
  for (std::size_t j = 0; j <= n; ++j) {
    cost[0][j] = 0;
    ways[0][j] = 1;
  }
  for (std::size_t i = 1; i <= k; ++i) {
    for (std::size_t j = i; j <= n; ++j) {
      const int skip = cost[i][j - 1];
      const int match = cost[i - 1][j - 1] + identity_distance(node[i - 1].second, reference[j - 1].second);
      cost[i][j] = std::min(skip, match);
      ways[i][j] =
          std::min(2, (skip == cost[i][j] ? ways[i][j - 1] : 0) + (match == cost[i][j] ? ways[i - 1][j - 1] : 0));
    }
  }
  GpuRenumbering renumbering;
  renumbering.ambiguous = ways[k][n] > 1;
  if (renumbering.ambiguous) renumbering.missing_candidates = missing_candidates(node, reference, cost);
  std::size_t i = k;
  for (std::size_t j = n; i > 0; --j) {
    const int match = cost[i - 1][j - 1] + identity_distance(node[i - 1].second, reference[j - 1].second);
    if (match == cost[i][j]) {
      fleet_ordinal[node[i - 1].first] = reference[j - 1].first;
      --i;
    }
  }
  for (const auto& [ordinal, identity] : node) {
    if (fleet_ordinal[ordinal] != ordinal) renumbering.node_to_fleet.emplace_back(ordinal, fleet_ordinal[ordinal]);
  }
  const bool by_bus_id =
      !node.empty() && !node.front().second.bus_id.empty() && !reference.front().second.bus_id.empty();
  renumbering.matched_by = by_bus_id ? "PCI bus id" : "NUMA node, nearby NICs and NVLinks";
  return renumbering;
}

// One node's graph seen from its host: its GPUs and NICs, and the PCIe tree that hangs them off
// the CPUs.
class NodeReduction {
 public:
  explicit NodeReduction(const Graph& graph) : graph_(graph) {
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
      if (graph.vertex(v).kind == VertexKind::host) host_ = v;
    }
    const std::string prefix = graph.vertex(host_).name + "/";
    for (const VertexId d : graph.devices_of(host_)) {
      const Vertex& device = graph.vertex(d);
      if (device.kind == VertexKind::gpu) {
        gpus_[device.index] = d;
        ordinal_of_[d] = device.index;
      }
      if (device.kind == VertexKind::nic) {
        const std::string name = device.name.starts_with(prefix) ? device.name.substr(prefix.size()) : device.name;
        nics_[name] = d;
      }
    }
    trace_pcie_tree();
  }

  // What identifies each GPU apart from its ordinal, in ordinal order.
  std::vector<std::pair<int, GpuIdentity>> gpu_identities() const {
    std::vector<std::pair<int, GpuIdentity>> identities;
    for (const auto& [ordinal, gpu] : gpus_) {
      GpuIdentity identity;
      identity.bus_id = graph_.vertex(gpu).pci_bus_id;
      identity.numa = root_cpu_[gpu] == no_vertex ? -1 : graph_.vertex(root_cpu_[gpu]).index;
      const VertexId parent = parent_of(gpu);
      if (is_pcie_switch(parent)) {
        for (const auto& [name, nic] : nics_) {
          if (parent_of(nic) == parent) identity.nearby_nics.push_back(name);
        }
      }
      for (const LinkId l : graph_.links_of(gpu)) {
        if (graph_.link(l).spec.type == LinkType::nvlink) identity.nvlink_lanes += graph_.link(l).spec.lane_count;
      }
      identities.emplace_back(ordinal, std::move(identity));
    }
    return identities;
  }

  void renumber_gpus(const std::map<int, int>& fleet_ordinal) {
    std::map<int, VertexId> renumbered;
    for (const auto& [ordinal, gpu] : gpus_) {
      const int fleet = fleet_ordinal.at(ordinal);
      renumbered[fleet] = gpu;
      ordinal_of_[gpu] = fleet;
    }
    gpus_ = std::move(renumbered);
  }

  std::set<int> gpu_ordinals() const {
    std::set<int> ordinals;
    for (const auto& [ordinal, v] : gpus_) ordinals.insert(ordinal);
    return ordinals;
  }
  std::size_t gpu_count() const { return gpus_.size(); }
  std::size_t nic_count() const { return nics_.size(); }

  // Relations name only `common_gpus`, the GPUs every node of the fleet has.
  Signature signature(const std::set<int>& common_gpus) const {
    std::map<VertexId, std::vector<int>> gpus_under_switch;
    for (const auto& [ordinal, gpu] : gpus_) {
      if (!common_gpus.contains(ordinal)) continue;
      for (VertexId v = parent_of(gpu); is_pcie_switch(v); v = parent_of(v)) gpus_under_switch[v].push_back(ordinal);
    }
    Signature signature;
    for (const auto& [ordinal, gpu] : gpus_) {
      signature[Subject{0, ordinal, fmt::format("GPU{}", ordinal)}] = {
          {DeviceProperty::nvlink, nvlink_text(gpu, common_gpus)},
          {DeviceProperty::pcie_link, own_link_text(gpu)},
          {DeviceProperty::placement, placement_text(gpu, ordinal, gpus_under_switch)}};
    }
    for (const auto& [name, nic] : nics_) {
      Properties& properties =
          signature[Subject{1, trailing_number(name), name}] = {{DeviceProperty::pcie_link, own_link_text(nic)},
                                                                {DeviceProperty::placement,
                                                                 placement_text(nic, -1, gpus_under_switch)}};
      if (const std::optional<NicPort>& port = graph_.vertex(nic).nic_port) {
        properties[DeviceProperty::port_speed] = fmt::format("{:g} Gb/s", port->speed_gbps);
        properties[DeviceProperty::gpu_direct_rdma] = port->gpu_direct_rdma ? "available" : "unavailable";
      }
    }
    for (auto& [pcie_switch, ordinals] : gpus_under_switch) {
      std::sort(ordinals.begin(), ordinals.end());
      int depth = 0;
      for (VertexId v = pcie_switch; is_pcie_switch(v); v = parent_of(v)) ++depth;
      const std::string label = fmt::format("PCIe switch above {}{}", gpu_list(ordinals),
                                            depth > 1 ? fmt::format(" (depth {})", depth) : std::string());
      signature[Subject{2, ordinals.front(), label}] = {{DeviceProperty::uplink, own_link_text(pcie_switch)}};
    }
    return signature;
  }

 private:
  // Breadth-first from the CPUs over PCIe links: every device's link towards its CPU.
  void trace_pcie_tree() {
    parent_link_.assign(graph_.vertex_count(), std::nullopt);
    root_cpu_.assign(graph_.vertex_count(), no_vertex);
    std::vector<VertexId> frontier;
    for (const VertexId d : graph_.devices_of(host_)) {
      if (graph_.vertex(d).kind == VertexKind::cpu) {
        root_cpu_[d] = d;
        frontier.push_back(d);
      }
    }
    for (std::size_t i = 0; i < frontier.size(); ++i) {
      const VertexId v = frontier[i];
      for (const LinkId l : graph_.links_of(v)) {
        const Link& link = graph_.link(l);
        const VertexId next = link.other_end(v);
        if (link.spec.type != LinkType::pcie || root_cpu_[next] != no_vertex) continue;
        root_cpu_[next] = root_cpu_[v];
        parent_link_[next] = l;
        frontier.push_back(next);
      }
    }
  }

  VertexId parent_of(VertexId v) const {
    return v != no_vertex && parent_link_[v] ? graph_.link(*parent_link_[v]).other_end(v) : no_vertex;
  }
  bool is_pcie_switch(VertexId v) const { return v != no_vertex && graph_.vertex(v).kind == VertexKind::pcie_switch; }

  std::string own_link_text(VertexId v) const {
    return parent_link_[v] ? pcie_link_text(graph_.link(*parent_link_[v])) : std::string("none");
  }

  // The NUMA node, and the nearest PCIe switch that other GPUs sit under (GPUs under a switch
  // together talk without crossing the CPU; a NIC under a GPU's switch serves it GPUDirect RDMA).
  std::string placement_text(VertexId device, int own_ordinal,
                             const std::map<VertexId, std::vector<int>>& gpus_under_switch) const {
    if (root_cpu_[device] == no_vertex) return "no PCIe path to a CPU";
    const std::string numa = fmt::format("NUMA node {}", graph_.vertex(root_cpu_[device]).index);
    int level = 0;
    for (VertexId v = parent_of(device); is_pcie_switch(v); v = parent_of(v)) {
      ++level;
      const auto under = gpus_under_switch.find(v);
      if (under == gpus_under_switch.end()) continue;
      std::vector<int> others;
      std::copy_if(under->second.begin(), under->second.end(), std::back_inserter(others),
                   [&](int ordinal) { return ordinal != own_ordinal; });
      std::sort(others.begin(), others.end());
      if (others.empty()) continue;
      return level == 1 ? fmt::format("{}, shares its PCIe switch with {}", numa, gpu_list(others))
                        : fmt::format("{}, shares a PCIe switch {} levels up with {}", numa, level, gpu_list(others));
    }
    return fmt::format("{}, no {}GPU shares its PCIe switch", numa, own_ordinal >= 0 ? "other " : "");
  }

  // "18 x NVLink4 to NVSwitch", "2 x NVLink2 to GPU1, GPU3; 1 x NVLink2 to GPU2", or "none".
  std::string nvlink_text(VertexId gpu, const std::set<int>& common_gpus) const {
    std::map<std::string_view, int> nvswitch_lanes;
    std::map<int, std::pair<std::string_view, int>> peer_bonds;
    for (const LinkId l : graph_.links_of(gpu)) {
      const Link& link = graph_.link(l);
      if (link.spec.type != LinkType::nvlink) continue;
      const Vertex& other = graph_.vertex(link.other_end(gpu));
      if (other.kind == VertexKind::nvswitch) {
        nvswitch_lanes[link.spec.technology] += link.spec.lane_count;
      } else if (other.kind == VertexKind::gpu && common_gpus.contains(ordinal_of_.at(link.other_end(gpu)))) {
        auto& [technology, lanes] = peer_bonds[ordinal_of_.at(link.other_end(gpu))];
        technology = link.spec.technology;
        lanes += link.spec.lane_count;
      }
    }
    std::vector<std::string> parts;
    for (const auto& [technology, lanes] : nvswitch_lanes)
      parts.push_back(fmt::format("{} x {} to NVSwitch", lanes, technology));
    std::map<std::pair<std::string_view, int>, std::vector<int>> peers_by_bond;
    for (const auto& [ordinal, bond] : peer_bonds) peers_by_bond[bond].push_back(ordinal);
    for (auto it = peers_by_bond.rbegin(); it != peers_by_bond.rend(); ++it) {
      parts.push_back(fmt::format("{} x {} to {}", it->first.second, it->first.first, gpu_list(it->second)));
    }
    return parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, "; "));
  }

  const Graph& graph_;
  VertexId host_ = no_vertex;
  std::map<int, VertexId> gpus_;  // by fleet ordinal
  std::map<VertexId, int> ordinal_of_;
  std::map<std::string, VertexId> nics_;
  std::vector<std::optional<LinkId>> parent_link_;
  std::vector<VertexId> root_cpu_;
};

// A deviation with the input position of its node, for ordering; no_node when there is no majority.
struct PlacedDeviation {
  std::size_t node_index;
  Deviation deviation;
};
constexpr std::size_t no_node = static_cast<std::size_t>(-1);

void compare(const Subject& subject, DeviceProperty property,
             const std::vector<std::pair<std::size_t, std::string>>& values, const std::vector<NodeSummary>& nodes,
             std::vector<PlacedDeviation>& out) {
  std::map<std::string, std::vector<std::size_t>> nodes_by_value;
  for (const auto& [node_index, value] : values) nodes_by_value[value].push_back(node_index);
  if (nodes_by_value.size() <= 1) return;
  const auto majority =
      std::max_element(nodes_by_value.begin(), nodes_by_value.end(),
                       [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  if (majority->second.size() * 2 > values.size()) {
    for (const auto& [value, node_indices] : nodes_by_value) {
      if (value == majority->first) continue;
      for (const std::size_t i : node_indices) {
        out.push_back({i, Deviation{subject.label,
                                    property,
                                    nodes[i].node,
                                    value,
                                    majority->first,
                                    majority->second.size(),
                                    values.size(),
                                    {},
                                    {}}});
      }
    }
    return;
  }
  Deviation tie{subject.label, property, "", "", "", 0, values.size(), {}, {}};
  for (const auto& [value, node_indices] : nodes_by_value) {
    ValueGroup group{value, {}};
    for (const std::size_t i : node_indices) group.nodes.push_back(nodes[i].node);
    tie.groups.push_back(std::move(group));
  }
  std::stable_sort(tie.groups.begin(), tie.groups.end(),
                   [](const ValueGroup& a, const ValueGroup& b) { return a.nodes.size() > b.nodes.size(); });
  out.push_back({no_node, std::move(tie)});
}

// A missing GPU that the matching could not single out names, on its own line, every GPU it may be.
void name_uncertain_candidates(const std::map<std::size_t, std::vector<int>>& uncertain_missing,
                               std::vector<PlacedDeviation>& placed) {
  for (PlacedDeviation& p : placed) {
    const auto uncertain = uncertain_missing.find(p.node_index);
    if (uncertain == uncertain_missing.end() || p.deviation.property != DeviceProperty::presence ||
        p.deviation.value != "missing" || !p.deviation.subject.starts_with("GPU")) {
      continue;
    }
    for (const int ordinal : uncertain->second) p.deviation.candidates.push_back(fmt::format("GPU{}", ordinal));
  }
}

}  // namespace

std::string_view name_of(DeviceProperty property) {
  switch (property) {
    case DeviceProperty::presence: return "presence";
    case DeviceProperty::nvlink: return "NVLink";
    case DeviceProperty::pcie_link: return "PCIe link";
    case DeviceProperty::placement: return "placement";
    case DeviceProperty::uplink: return "uplink";
    case DeviceProperty::port_speed: return "port speed";
    case DeviceProperty::gpu_direct_rdma: return "GPUDirect RDMA";
  }
  return "unknown";
}

Fleet parse_fleet(std::span<const SourceText> sources, std::string_view format_name) {
  Fleet fleet;
  std::map<std::string, std::string> path_of_node;
  for (const SourceText& source : sources) {
    const TopologyFormat& format = resolve_topology_format(source, format_name);
    if (fleet.format.empty()) {
      fleet.format = format.name;
    } else if (format.name != fleet.format) {
      throw UsageError(fmt::format("{} is a {} dump but {} is a {} dump: topo diff compares dumps of one kind",
                                   source.path, format.name, sources.front().path, fleet.format));
    }
    Graph graph = parse_topology(source, format.name);
    std::vector<std::string> hosts;
    for (const Vertex& v : graph.vertices()) {
      if (v.kind == VertexKind::host) hosts.push_back(v.name);
    }
    if (hosts.size() != 1) {
      throw UsageError(fmt::format("{}: describes {} hosts; topo diff takes one dump per node "
                                   "(nvidia-smi topo -m or an NCCL topology dump)",
                                   source.path, hosts.size()));
    }
    const auto [earlier, inserted] = path_of_node.try_emplace(hosts.front(), source.path);
    if (!inserted) {
      throw UsageError(fmt::format("{} and {} both describe host '{}' (a single-node dump is named after its "
                                   "file, up to the first dot): name each dump after its node",
                                   earlier->second, source.path, hosts.front()));
    }
    fleet.nodes.push_back(NodeTopology{hosts.front(), source.path, std::move(graph)});
  }
  return fleet;
}

Fleet load_fleet(const std::vector<std::string>& paths, std::string_view format_name, const ReaderHints& hints) {
  std::vector<SourceText> sources;
  for (const std::string& path : paths) sources.push_back(read_topology_source(path, hints));
  return parse_fleet(sources, format_name);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): reduces each node's topology and groups the fleet by its majority shape in one pass; each outlier kind is one short case
FleetDiff diff_fleet(const Fleet& fleet) {
  FleetDiff diff;
  diff.format = fleet.format;
  std::vector<NodeReduction> reductions;
  std::map<std::size_t, std::size_t> nodes_with_gpu_count;
  for (const NodeTopology& node : fleet.nodes) {
    const NodeReduction& reduction = reductions.emplace_back(node.graph);
    diff.nodes.push_back(NodeSummary{node.node, node.path, reduction.gpu_count(), reduction.nic_count()});
    ++nodes_with_gpu_count[reduction.gpu_count()];
  }
  std::size_t reference = 0;
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    const std::size_t count = reductions[i].gpu_count();
    const std::size_t best = reductions[reference].gpu_count();
    if (nodes_with_gpu_count[count] > nodes_with_gpu_count[best] ||
        (nodes_with_gpu_count[count] == nodes_with_gpu_count[best] && count > best)) {
      reference = i;
    }
  }
  const auto reference_identities = reductions[reference].gpu_identities();
  std::map<std::size_t, std::vector<int>> uncertain_missing;  // node index -> fleet GPUs that may be gone
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    if (reductions[i].gpu_count() >= reference_identities.size() || reductions[i].gpu_count() == 0) continue;
    std::map<int, int> fleet_ordinal;
    GpuRenumbering renumbering = align_gpus(reductions[i].gpu_identities(), reference_identities, fleet_ordinal);
    reductions[i].renumber_gpus(fleet_ordinal);
    if (renumbering.node_to_fleet.empty() && !renumbering.ambiguous) continue;
    uncertain_missing[i] = renumbering.missing_candidates;
    renumbering.node = diff.nodes[i].node;
    diff.renumberings.push_back(std::move(renumbering));
  }
  std::optional<std::set<int>> common_gpus;
  for (const NodeReduction& reduction : reductions) {
    const std::set<int> ordinals = reduction.gpu_ordinals();
    if (!common_gpus) {
      common_gpus = ordinals;
    } else {
      std::erase_if(*common_gpus, [&](int ordinal) { return !ordinals.contains(ordinal); });
    }
  }
  std::vector<Signature> signatures;
  std::set<Subject> subjects;
  for (const NodeReduction& reduction : reductions) {
    signatures.push_back(reduction.signature(common_gpus.value_or(std::set<int>{})));
    for (const auto& [subject, properties] : signatures.back()) subjects.insert(subject);
  }

  std::vector<PlacedDeviation> placed;
  for (const Subject& subject : subjects) {
    // PCIe switches are named by the GPUs under them: a switch that one node lacks shows as its
    // GPUs' placement, so only devices are missing or extra.
    if (subject.kind_rank < 2) {
      std::vector<std::pair<std::size_t, std::string>> presence;
      for (std::size_t i = 0; i < signatures.size(); ++i) {
        presence.emplace_back(i, signatures[i].contains(subject) ? "present" : "missing");
      }
      compare(subject, DeviceProperty::presence, presence, diff.nodes, placed);
    }
    std::map<DeviceProperty, std::vector<std::pair<std::size_t, std::string>>> values;
    for (std::size_t i = 0; i < signatures.size(); ++i) {
      const auto found = signatures[i].find(subject);
      if (found == signatures[i].end()) continue;
      for (const auto& [property, value] : found->second) values[property].emplace_back(i, value);
    }
    for (const auto& [property, property_values] : values)
      compare(subject, property, property_values, diff.nodes, placed);
  }
  name_uncertain_candidates(uncertain_missing, placed);
  std::stable_sort(placed.begin(), placed.end(),
                   [](const PlacedDeviation& a, const PlacedDeviation& b) { return a.node_index < b.node_index; });
  for (PlacedDeviation& p : placed) diff.deviations.push_back(std::move(p.deviation));
  return diff;
}

std::string describe(const Deviation& deviation) {
  std::string what = deviation.property == DeviceProperty::presence
                         ? deviation.subject
                         : fmt::format("{} {}", deviation.subject, name_of(deviation.property));
  if (deviation.candidates.size() > 1) {
    what = fmt::format("one of {} (uncertain which: they look alike to the matching)",
                       fmt::join(deviation.candidates, ", "));
  }
  if (deviation.node.empty()) {
    std::vector<std::string> groups;
    for (const ValueGroup& group : deviation.groups) {
      groups.push_back(fmt::format("{} on {}", group.value, fmt::join(group.nodes, ", ")));
    }
    return fmt::format("{}: no majority among {} nodes: {}", what, deviation.compared_nodes, fmt::join(groups, " | "));
  }
  return fmt::format("{}: {}: {} here, {} on {} of {} nodes", deviation.node, what, deviation.value,
                     deviation.majority_value, deviation.majority_nodes, deviation.compared_nodes);
}

std::string describe(const GpuRenumbering& renumbering) {
  std::vector<std::string> pairs;
  for (const auto& [node_ordinal, fleet_ordinal] : renumbering.node_to_fleet) {
    pairs.push_back(fmt::format("GPU{} is the fleet's GPU{}", node_ordinal, fleet_ordinal));
  }
  return fmt::format("{}: GPUs matched to the fleet's by {}{}{}", renumbering.node, renumbering.matched_by,
                     pairs.empty() ? std::string() : fmt::format(": {}", fmt::join(pairs, ", ")),
                     renumbering.ambiguous ? " (other GPUs look alike: which one is missing is not certain)" : "");
}

nlohmann::json to_json(const FleetDiff& diff) {
  nlohmann::json json;
  json["schema"] = "fabricbench.topo-diff.v1";
  json["format"] = diff.format;
  json["uniform"] = diff.deviations.empty();
  json["nodes"] = nlohmann::json::array();
  for (const NodeSummary& node : diff.nodes) {
    json["nodes"].push_back(
        {{"node", node.node}, {"file", node.path}, {"gpus", node.gpu_count}, {"nics", node.nic_count}});
  }
  json["renumbered"] = nlohmann::json::array();
  for (const GpuRenumbering& renumbering : diff.renumberings) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [node_ordinal, fleet_ordinal] : renumbering.node_to_fleet) {
      pairs.push_back({{"node_gpu", node_ordinal}, {"fleet_gpu", fleet_ordinal}});
    }
    json["renumbered"].push_back({{"node", renumbering.node},
                                  {"matched_by", renumbering.matched_by},
                                  {"gpus", pairs},
                                  {"ambiguous", renumbering.ambiguous},
                                  {"missing_candidates", renumbering.missing_candidates}});
  }
  json["deviations"] = nlohmann::json::array();
  for (const Deviation& deviation : diff.deviations) {
    nlohmann::json entry{{"subject", deviation.subject},
                         {"property", std::string(name_of(deviation.property))},
                         {"compared_nodes", deviation.compared_nodes}};
    if (deviation.node.empty()) {
      entry["node"] = nullptr;
      entry["no_majority"] = nlohmann::json::array();
      for (const ValueGroup& group : deviation.groups) {
        entry["no_majority"].push_back({{"value", group.value}, {"nodes", group.nodes}});
      }
    } else {
      entry["node"] = deviation.node;
      entry["value"] = deviation.value;
      entry["majority"] = {{"value", deviation.majority_value}, {"nodes", deviation.majority_nodes}};
    }
    if (!deviation.candidates.empty()) entry["uncertain_candidates"] = deviation.candidates;
    json["deviations"].push_back(std::move(entry));
  }
  return json;
}

}  // namespace fb::topo
