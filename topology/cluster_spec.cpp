#include "topology/cluster_spec.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fb::topo {
namespace {

void require(bool condition, const std::string& message) {
  if (!condition) throw InputError(message);
}

void validate(const ClusterSpec& spec) {
  const NodeSpec& node = spec.node;
  require(node.count >= 1, fmt::format("node.count must be at least 1, got {}", node.count));
  require(node.host_names.empty() || node.host_names.size() == static_cast<std::size_t>(node.count),
          fmt::format("node.hosts names {} hosts, node.count is {}", node.host_names.size(), node.count));
  require(node.cpu_sockets >= 1, fmt::format("node.cpus must be at least 1, got {}", node.cpu_sockets));
  require(node.gpus >= 0, fmt::format("node.gpus must not be negative, got {}", node.gpus));
  require(node.nics >= 0, fmt::format("node.nics.count must not be negative, got {}", node.nics));
  require(node.pcie_switches >= 0, fmt::format("node.pcie.switches must not be negative, got {}", node.pcie_switches));
  require(node.nvswitches >= 0, fmt::format("node.nvlink.nvswitches must not be negative, got {}", node.nvswitches));
  require(node.nvlinks_per_gpu >= 0,
          fmt::format("node.nvlink.links_per_gpu must not be negative, got {}", node.nvlinks_per_gpu));
  require(node.nvlinks_per_gpu == 0 || node.nvswitches > 0,
          "node.nvlink.links_per_gpu needs node.nvlink.nvswitches >= 1 (direct NVLink meshes are "
          "described with nvidia-smi topo -m)");
  require(node.nvswitches == 0 || node.nvlinks_per_gpu >= node.nvswitches,
          fmt::format("node.nvlink.links_per_gpu ({}) must be at least nvswitches ({})", node.nvlinks_per_gpu,
                      node.nvswitches));
  require(spec.fabric.scalable_unit_nodes >= 0 && spec.fabric.rails_per_leaf >= 0,
          fmt::format("fabric.scalable_unit ({}) and fabric.rails_per_leaf ({}) must not be negative",
                      spec.fabric.scalable_unit_nodes, spec.fabric.rails_per_leaf));
  require(spec.fabric.tiers.size() <= 3,
          fmt::format("fabric.tiers: at most 3 tiers (leaf, spine, core), got {}", spec.fabric.tiers.size()));
  for (const FabricTierSpec& tier : spec.fabric.tiers) {
    require(tier.radix >= 2, fmt::format("fabric {} radix must be at least 2, got {}", name_of(tier.tier), tier.radix));
    require(tier.oversubscription > 0 && std::isfinite(tier.oversubscription),
            fmt::format("fabric {} oversubscription must be positive, got {}", name_of(tier.tier),
                        tier.oversubscription));
  }
  // Bounds far above real machines, so that a typo (count: 10000000) fails fast instead of
  // building a graph that exhausts memory.
  constexpr int max_devices_per_node = 1024;
  // Twice the 1,000,000-GPU fat-tree of the scale benchmark (3.4 million vertices): room for any
  // cluster on paper, while a typo in node.count fails at once instead of exhausting memory.
  constexpr long long max_vertices = 8'000'000;
  for (const auto& [field, value] :
       {std::pair{"node.cpus", node.cpu_sockets}, std::pair{"node.gpus", node.gpus},
        std::pair{"node.nics.count", node.nics}, std::pair{"node.pcie.switches", node.pcie_switches},
        std::pair{"node.nvlink.nvswitches", node.nvswitches}}) {
    require(value <= max_devices_per_node,
            fmt::format("{} must be at most {}, got {}", field, max_devices_per_node, value));
  }
  const long long vertices_per_node =
      1LL + node.cpu_sockets + node.gpus + node.nics + node.pcie_switches + node.nvswitches;
  require(vertices_per_node * node.count <= max_vertices,
          fmt::format("node.count {} gives more than {} vertices", node.count, max_vertices));
  require(spec.fabric.tiers.empty() || node.nics >= 1, "a fabric needs node.nics.count >= 1 to attach the nodes");
}

// The names of a node's vertices, in the order build_node adds them: the host, its sockets, PCIe
// switches, NVSwitches, GPUs and NICs.
std::vector<std::string> node_vertex_names(const NodeSpec& node, const std::string& host_name) {
  std::vector<std::string> names;
  names.push_back(host_name);
  for (int socket = 0; socket < node.cpu_sockets; ++socket) names.push_back(fmt::format("{}/CPU{}", host_name, socket));
  for (int s = 0; s < node.pcie_switches; ++s) names.push_back(fmt::format("{}/PCIe{}", host_name, s));
  for (int s = 0; s < node.nvswitches && node.nvlinks_per_gpu > 0; ++s) {
    names.push_back(fmt::format("{}/NVSwitch{}", host_name, s));
  }
  for (int g = 0; g < node.gpus; ++g) names.push_back(fmt::format("{}/GPU{}", host_name, g));
  for (int n = 0; n < node.nics; ++n) names.push_back(fmt::format("{}/{}{}", host_name, node.nic_name_prefix, n));
  return names;
}

// Builds the node whose vertices node_vertex_names named, in that order; returns its NICs, in
// ordinal order.
std::vector<VertexId> build_node(Graph& graph, const NodeSpec& node, const std::vector<std::string>& names) {
  auto name = names.begin();
  const VertexId host = graph.add_vertex(VertexKind::host, *name++);
  const LinkSpec pcie = *pcie_by_generation(node.pcie_generation, node.pcie_width);
  const LinkSpec smp = smp_link(node.cpu_vendor, node.cpu_model);

  std::vector<VertexId> cpus;
  for (int socket = 0; socket < node.cpu_sockets; ++socket) {
    cpus.push_back(graph.add_vertex(VertexKind::cpu, *name++, host, socket));
    for (int earlier = 0; earlier < socket; ++earlier) graph.add_link(cpus[earlier], cpus.back(), smp);
  }
  std::vector<VertexId> pcie_switches;
  for (int s = 0; s < node.pcie_switches; ++s) {
    pcie_switches.push_back(graph.add_vertex(VertexKind::pcie_switch, *name++, host, s));
    graph.add_link(pcie_switches.back(), cpus[s * node.cpu_sockets / node.pcie_switches], pcie);
  }
  // Devices are dealt to PCIe switches (or sockets) in order, the way HGX boards pair each GPU
  // with the NIC behind the same switch.
  const auto attach = [&](VertexId device, int ordinal, int device_count) {
    if (!pcie_switches.empty()) {
      graph.add_link(device, pcie_switches[ordinal * node.pcie_switches / device_count], pcie);
    } else {
      graph.add_link(device, cpus[ordinal * node.cpu_sockets / device_count], pcie);
    }
  };
  std::vector<VertexId> nvswitches;
  for (int s = 0; s < node.nvswitches && node.nvlinks_per_gpu > 0; ++s) {
    nvswitches.push_back(graph.add_vertex(VertexKind::nvswitch, *name++, host, s));
  }
  for (int g = 0; g < node.gpus; ++g) {
    const VertexId gpu = graph.add_vertex(VertexKind::gpu, *name++, host, g);
    attach(gpu, g, node.gpus);
    for (int s = 0; s < static_cast<int>(nvswitches.size()); ++s) {
      const int lanes = node.nvlinks_per_gpu / node.nvswitches + (s < node.nvlinks_per_gpu % node.nvswitches ? 1 : 0);
      graph.add_link(gpu, nvswitches[s], *nvlink_by_generation(node.nvlink_generation, lanes));
    }
  }
  std::vector<VertexId> nics;
  for (int n = 0; n < node.nics; ++n) {
    nics.push_back(graph.add_vertex(VertexKind::nic, *name++, host, n));
    attach(nics.back(), n, node.nics);
  }
  return nics;
}

std::vector<VertexId> add_switches(Graph& graph, SwitchTier tier, std::size_t count) {
  std::vector<VertexId> switches;
  switches.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const VertexId s = graph.add_vertex(VertexKind::fabric_switch, fmt::format("{}{:04}", name_of(tier), i + 1));
    graph.set_tier(s, tier);
    switches.push_back(s);
  }
  return switches;
}

// The leaves of a fabric, which leaf each NIC cables to, and which pod (the leaves sharing a set
// of spines under a core tier) each leaf belongs to.
struct Leaves {
  std::vector<std::string> names;
  std::vector<std::size_t> pod_of_leaf;
  std::size_t pod_count = 0;
  int nodes_per_unit = 1;  // nodes per leaf (fat tree) or per scalable unit (rails)
  int rails_per_leaf = 1;  // NICs of one node per leaf (fat tree: all of them)
  int leaves_per_unit = 1;
  std::size_t units = 0;  // leaves (fat tree) or scalable units

  std::size_t leaf_of_nic(int node, int nic) const {
    return static_cast<std::size_t>(node / nodes_per_unit) * leaves_per_unit + nic / rails_per_leaf;
  }
};

std::string down_ports_text(const FabricTierSpec& leaf, const TierPorts& ports) {
  return fmt::format("leaf radix {} at {:g}:1 leaves {} down ports", leaf.radix, leaf.oversubscription, ports.down);
}

// Whole nodes per leaf, so that a node's NICs share one leaf and no node straddles two; pods are
// consecutive leaves.
Leaves fat_tree_leaves(const ClusterSpec& spec, const TierPorts& leaf_ports, const TierPorts& spine_ports) {
  const NodeSpec& node = spec.node;
  Leaves leaves;
  leaves.nodes_per_unit = leaf_ports.down / node.nics;
  leaves.rails_per_leaf = node.nics;
  require(leaves.nodes_per_unit >= 1, fmt::format("fabric {}, fewer than one node's {} NICs",
                                                  down_ports_text(spec.fabric.tiers[0], leaf_ports), node.nics));
  leaves.units = (node.count + leaves.nodes_per_unit - 1) / leaves.nodes_per_unit;
  for (std::size_t i = 0; i < leaves.units; ++i) {
    leaves.names.push_back(fmt::format("{}{:04}", name_of(SwitchTier::leaf), i + 1));
    leaves.pod_of_leaf.push_back(spine_ports.down > 0 ? i / spine_ports.down : 0);
  }
  leaves.pod_count = leaves.pod_of_leaf.back() + 1;
  return leaves;
}

// Scalable units of nodes_per_unit nodes; in each, leaf g takes rails [g * rails_per_leaf, ...)
// of every node. Under a core tier, pods are rail-aligned: one rail group's leaves of up to
// spine_ports.down consecutive units, so that a rail's traffic between units stays off the cores.
Leaves rail_leaves(const ClusterSpec& spec, const TierPorts& leaf_ports, const TierPorts& spine_ports) {
  const NodeSpec& node = spec.node;
  const FabricSpec& fabric = spec.fabric;
  Leaves leaves;
  leaves.nodes_per_unit =
      fabric.scalable_unit_nodes > 0 ? fabric.scalable_unit_nodes : std::min(node.count, leaf_ports.down);
  require(leaves.nodes_per_unit <= leaf_ports.down,
          fmt::format("fabric.scalable_unit of {} nodes needs {} down ports per rail leaf; the {}",
                      leaves.nodes_per_unit, leaves.nodes_per_unit, down_ports_text(fabric.tiers[0], leaf_ports)));
  leaves.rails_per_leaf =
      fabric.rails_per_leaf > 0 ? fabric.rails_per_leaf : std::min(node.nics, leaf_ports.down / leaves.nodes_per_unit);
  require(leaves.rails_per_leaf <= node.nics,
          fmt::format("fabric.rails_per_leaf {} is more than node.nics.count {}", leaves.rails_per_leaf, node.nics));
  require(leaves.rails_per_leaf * leaves.nodes_per_unit <= leaf_ports.down,
          fmt::format("fabric.rails_per_leaf {} x scalable_unit {} nodes needs {} down ports; the {}",
                      leaves.rails_per_leaf, leaves.nodes_per_unit, leaves.rails_per_leaf * leaves.nodes_per_unit,
                      down_ports_text(fabric.tiers[0], leaf_ports)));
  leaves.leaves_per_unit = (node.nics + leaves.rails_per_leaf - 1) / leaves.rails_per_leaf;
  const int units = (node.count + leaves.nodes_per_unit - 1) / leaves.nodes_per_unit;
  leaves.units = static_cast<std::size_t>(units);
  const int units_per_pod = spine_ports.down > 0 ? spine_ports.down : units;
  const int pods_per_rail_group = (units + units_per_pod - 1) / units_per_pod;
  const int unit_width = std::max(2, static_cast<int>(std::to_string(units).size()));
  for (int unit = 0; unit < units; ++unit) {
    for (int group = 0; group < leaves.leaves_per_unit; ++group) {
      const int first_rail = group * leaves.rails_per_leaf;
      const int last_rail = std::min(node.nics, first_rail + leaves.rails_per_leaf) - 1;
      leaves.names.push_back(first_rail == last_rail
                                 ? fmt::format("su{:0{}}-rail{}", unit + 1, unit_width, first_rail)
                                 : fmt::format("su{:0{}}-rails{}-{}", unit + 1, unit_width, first_rail, last_rail));
      leaves.pod_of_leaf.push_back(static_cast<std::size_t>(group) * pods_per_rail_group + unit / units_per_pod);
    }
  }
  leaves.pod_count = static_cast<std::size_t>(leaves.leaves_per_unit) * pods_per_rail_group;
  return leaves;
}

// A leaf takes whole nodes (or a scalable unit's rails), so the ports it cables can fall short of
// its down ports and the ratio a buyer reads is not the spec's: said where that happens.
std::optional<std::string> cabled_leaf_ratio(const ClusterSpec& spec, const TierPorts& leaf_ports,
                                             const Leaves& layout) {
  const FabricTierSpec& leaf = spec.fabric.tiers.front();
  const int cabled_down = layout.nodes_per_unit * layout.rails_per_leaf;
  const double cabled_ratio = static_cast<double>(cabled_down) / leaf_ports.up;
  if (std::abs(cabled_ratio - leaf.oversubscription) <= 0.005 * leaf.oversubscription) return std::nullopt;
  std::string why = fmt::format("{} ports at {:g}:1 split into {} down and {} up", leaf.radix, leaf.oversubscription,
                                leaf_ports.down, leaf_ports.up);
  if (cabled_down < leaf_ports.down) {
    why += spec.fabric.layout == FabricLayout::fat_tree
               ? fmt::format(", and a leaf takes whole nodes: {} x {} NIC ports", layout.nodes_per_unit,
                             layout.rails_per_leaf)
               : fmt::format(", and a rail leaf takes {} NIC(s) of each of a scalable unit's {} nodes",
                             layout.rails_per_leaf, layout.nodes_per_unit);
  }
  const int last_nodes = spec.node.count % layout.nodes_per_unit;
  if (last_nodes > 0 && spec.fabric.layout == FabricLayout::fat_tree) {
    why += fmt::format("; the last leaf holds {} node{}", last_nodes, last_nodes == 1 ? "" : "s");
  }
  return fmt::format("the spec's {:g}:1 leaves are cabled {}:{} = {:.2f}:1: {}", leaf.oversubscription, cabled_down,
                     leaf_ports.up, cabled_ratio, why);
}

}  // namespace

TierPorts split_ports(const FabricTierSpec& tier, bool is_top_tier) {
  if (is_top_tier) return {tier.radix, 0};
  const double ratio = tier.oversubscription;
  int down = static_cast<int>(std::lround(tier.radix * ratio / (1.0 + ratio)));
  down = std::clamp(down, 1, tier.radix - 1);
  return {down, tier.radix - down};
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): builds nodes and then each fabric tier in order, reserving the graph at its final size first
Graph build_cluster(const ClusterSpec& spec) {
  validate(spec);
  const NodeSpec& node = spec.node;
  const auto& tiers = spec.fabric.tiers;
  // The fabric's layout is known before the nodes are built, so that the graph is reserved at its
  // final size: growing the link array of a million GPUs (9 million links) would copy it whole.
  const TierPorts leaf_ports = tiers.empty() ? TierPorts{} : split_ports(tiers[0], tiers.size() == 1);
  const TierPorts spine_ports = tiers.size() > 1 ? split_ports(tiers[1], tiers.size() == 2) : TierPorts{};
  const Leaves layout = tiers.empty() ? Leaves{}
                        : spec.fabric.layout == FabricLayout::rail_optimized
                            ? rail_leaves(spec, leaf_ports, spine_ports)
                            : fat_tree_leaves(spec, leaf_ports, spine_ports);
  const std::size_t leaf_count = layout.names.size();
  const std::size_t spine_count = tiers.size() == 2   ? static_cast<std::size_t>(leaf_ports.up)
                                  : tiers.size() == 3 ? layout.pod_count * leaf_ports.up
                                                      : 0;
  const std::size_t core_count = tiers.size() == 3 ? static_cast<std::size_t>(leaf_ports.up) * spine_ports.up : 0;
  const std::size_t switch_links = tiers.size() < 2 ? 0 : leaf_count * leaf_ports.up + spine_count * spine_ports.up;

  Graph graph;
  const std::size_t nvswitches = node.nvlinks_per_gpu > 0 ? node.nvswitches : 0;
  const std::size_t per_node_vertices = 1 + node.cpu_sockets + node.pcie_switches + node.gpus + nvswitches + node.nics;
  const std::size_t per_node_links = node.cpu_sockets * (node.cpu_sockets - 1) / 2 + node.pcie_switches +
                                     node.gpus * (1 + nvswitches) + node.nics * (tiers.empty() ? 1 : 2);
  graph.reserve(per_node_vertices * node.count + leaf_count + spine_count + core_count,
                per_node_links * node.count + switch_links);

  const int name_width = std::max(5, static_cast<int>(std::to_string(node.count).size()));
  std::vector<std::vector<VertexId>> nics_by_node;
  nics_by_node.reserve(node.count);
  const auto names_of_node = [&](int n) {
    return node_vertex_names(node, node.host_names.empty()
                                       ? fmt::format("{}{:0{}}", node.name_prefix, n + 1, name_width)
                                       : node.host_names[static_cast<std::size_t>(n)]);
  };
  // Each node's names are looked up in the graph's name index while the node before is built.
  std::vector<std::string> names = node.count > 0 ? names_of_node(0) : std::vector<std::string>{};
  for (int n = 0; n < node.count; ++n) {
    std::vector<std::string> next = n + 1 < node.count ? names_of_node(n + 1) : std::vector<std::string>{};
    for (const std::string& name : next) graph.prefetch_name(name);
    nics_by_node.push_back(build_node(graph, node, names));
    names = std::move(next);
  }
  if (tiers.empty()) return graph;
  if (tiers.size() > 1) {
    if (std::optional<std::string> ratio = cabled_leaf_ratio(spec, leaf_ports, layout)) graph.add_assumption(*ratio);
  }

  // One tier: one leaf, or one scalable unit's rail leaves, which only rail-aligned traffic crosses.
  require(tiers.size() > 1 || layout.units == 1,
          fmt::format("{} nodes need {} {}; a one-tier fabric has one: add a spine tier", node.count, layout.units,
                      spec.fabric.layout == FabricLayout::rail_optimized ? "scalable units" : "leaves"));
  std::vector<VertexId> leaves;
  leaves.reserve(leaf_count);
  for (const std::string& name : layout.names) {
    leaves.push_back(graph.add_vertex(VertexKind::fabric_switch, name));
    graph.set_tier(leaves.back(), SwitchTier::leaf);
  }
  for (int n = 0; n < node.count; ++n) {
    for (int i = 0; i < node.nics; ++i) {
      graph.add_link(nics_by_node[n][i], leaves[layout.leaf_of_nic(n, i)], node.nic_link);
    }
  }
  if (tiers.size() == 1) return graph;

  const LinkSpec& cable = spec.fabric.switch_link;
  if (tiers.size() == 2) {
    // Every leaf has one cable to each spine.
    require(static_cast<int>(leaf_count) <= spine_ports.down,
            fmt::format("{} leaves need a spine radix of at least {}, got {}: add a core tier", leaf_count, leaf_count,
                        tiers[1].radix));
    const std::vector<VertexId> spines = add_switches(graph, SwitchTier::spine, spine_count);
    for (const VertexId leaf : leaves) {
      for (const VertexId spine : spines) graph.add_link(leaf, spine, cable);
    }
    return graph;
  }

  // Three tiers: pods of at most spine_ports.down leaves, each leaf cabled once to each of its pod's
  // leaf_ports.up spines; spine j of every pod is cabled to core group j (spine_ports.up cores).
  const TierPorts core_ports = split_ports(tiers[2], true);
  require(static_cast<int>(layout.pod_count) <= core_ports.down,
          fmt::format("{} pods need a core radix of at least {}, got {}", layout.pod_count, layout.pod_count,
                      tiers[2].radix));
  const std::vector<VertexId> spines = add_switches(graph, SwitchTier::spine, spine_count);
  const std::vector<VertexId> cores = add_switches(graph, SwitchTier::core, core_count);
  for (std::size_t leaf = 0; leaf < leaf_count; ++leaf) {
    for (int j = 0; j < leaf_ports.up; ++j) {
      graph.add_link(leaves[leaf], spines[layout.pod_of_leaf[leaf] * leaf_ports.up + j], cable);
    }
  }
  for (std::size_t pod = 0; pod < layout.pod_count; ++pod) {
    for (int j = 0; j < leaf_ports.up; ++j) {
      for (int k = 0; k < spine_ports.up; ++k) {
        graph.add_link(spines[pod * leaf_ports.up + j], cores[j * spine_ports.up + k], cable);
      }
    }
  }
  return graph;
}

}  // namespace fb::topo
