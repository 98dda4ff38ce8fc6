// The declarative cluster spec (YAML): identical nodes and a fat-tree or rail-optimized fabric,
// for clusters on paper.
//
//   name: h100-pod
//   node:
//     count: 32                              # or hosts: "dgx[01-32]" (a Slurm hostlist): real names
//     cpus: 2
//     gpus: 8
//     nvlink: {generation: 4, links_per_gpu: 18, nvswitches: 4}
//     pcie: {generation: 5, width: 16, switches: 4}
//     nics: {count: 8, link: 4xNDR}          # or {count: 8, type: roce, rate_gbps: 400}
//                                            # transport: ib, roce, efa, tcpx, tcpxo or sockets;
//                                            # default the type's own (ethernet: sockets)
//   fabric:
//     topology: fat_tree
//     tiers:
//       - {name: leaf, radix: 64, oversubscription: "2:1"}
//       - {name: spine, radix: 64}
//
//   fabric:                                  # DGX SuperPOD style: NIC i of each node to rail leaf i
//     topology: rail_optimized
//     scalable_unit: 32                      # nodes per SU (default: what a leaf's down ports hold)
//     rails_per_leaf: 1                      # default: as many rails as the leaf's down ports hold
//     tiers: [{name: leaf, radix: 64}, {name: spine, radix: 64}, {name: core, radix: 64}]

#include "topology/cluster_spec.hpp"
#include "topology/format_registry.hpp"
#include "topology/hostlist.hpp"
#include "topology/network_transport.hpp"
#include "common/input_error.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <string>

namespace fb::topo {
namespace {

class SpecReader {
 public:
  explicit SpecReader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const YAML::Node& at, std::string_view expected, std::string_view got) const {
    const YAML::Mark mark = at.Mark();
    throw_input_error(path_, mark.is_null() ? 1 : static_cast<std::size_t>(mark.line) + 1, expected, got);
  }

  static std::string describe(const YAML::Node& node) {
    if (!node.IsDefined() || node.IsNull()) return "nothing";
    if (node.IsScalar()) return quote_input(node.Scalar());
    return node.IsMap() ? "a mapping" : "a list";
  }

  void require_map(const YAML::Node& node, std::string_view what,
                   std::initializer_list<std::string_view> allowed_keys) const {
    if (!node.IsMap()) fail(node, fmt::format("{} as a mapping", what), describe(node));
    for (const auto& entry : node) {
      if (!entry.first.IsScalar())
        fail(entry.first, fmt::format("a key of {} (a plain name)", what), describe(entry.first));
      const std::string key = entry.first.Scalar();
      bool known = false;
      for (const std::string_view allowed : allowed_keys) known = known || key == allowed;
      if (!known) {
        fail(entry.first, fmt::format("a key of {} ({})", what, fmt::join(allowed_keys, ", ")), quote_input(key));
      }
    }
  }

  int integer(const YAML::Node& parent, const char* key, int fallback, int minimum) const {
    const YAML::Node value = parent[key];
    if (!value.IsDefined()) return fallback;
    long long parsed = 0;
    const std::string text = value.IsScalar() ? value.Scalar() : std::string();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (!value.IsScalar() || ec != std::errc{} || end != text.data() + text.size() || parsed < minimum ||
        parsed > 1'000'000'000) {
      fail(value.IsDefined() ? value : parent, fmt::format("{} as an integer of at least {}", key, minimum),
           describe(value));
    }
    return static_cast<int>(parsed);
  }

  std::string text(const YAML::Node& parent, const char* key, std::string fallback) const {
    const YAML::Node value = parent[key];
    if (!value.IsDefined()) return fallback;
    if (!value.IsScalar() || value.Scalar().empty()) {
      fail(value, fmt::format("{} as a non-empty string", key), describe(value));
    }
    return value.Scalar();
  }

  // "2:1", "2" or 2.0: the ratio of down to up capacity.
  double ratio(const YAML::Node& parent, const char* key) const {
    const YAML::Node value = parent[key];
    if (!value.IsDefined()) return 1.0;
    const std::string text = value.IsScalar() ? value.Scalar() : std::string();
    const std::size_t colon = text.find(':');
    double down = 0;
    double up = 1;
    const auto parse = [](std::string_view s, double& out) {
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      return ec == std::errc{} && end == s.data() + s.size() && std::isfinite(out) && out > 0;
    };
    const bool ok = colon == std::string::npos ? parse(text, down)
                                               : parse(std::string_view(text).substr(0, colon), down) &&
                                                     parse(std::string_view(text).substr(colon + 1), up);
    if (!ok) fail(value, fmt::format("{} as a positive ratio like \"2:1\" or 2", key), describe(value));
    return down / up;
  }

  // The port, run by the transport the spec names (`transport:`), else by its type's own.
  LinkSpec network_link(const YAML::Node& parent, std::string_view what) const {
    const LinkSpec port = network_port(parent, what);
    const YAML::Node transport_node = parent["transport"];
    if (!transport_node.IsDefined()) return port;
    const std::optional<Transport> transport =
        transport_node.IsScalar() ? transport_from_string(transport_node.Scalar()) : std::nullopt;
    if (!transport) {
      fail(transport_node, fmt::format("{} transport as one of {}", what, transport_keys()), describe(transport_node));
    }
    const std::optional<LinkSpec> spec = with_transport(port, *transport);
    if (!spec) {
      fail(transport_node,
           fmt::format("{} transport that runs over {} ports ({} runs over {})", what, name_of(port.type),
                       figures_of(*transport).key, name_of(figures_of(*transport).port_type)),
           describe(transport_node));
    }
    return *spec;
  }

 private:
  LinkSpec network_port(const YAML::Node& parent, std::string_view what) const {
    const YAML::Node link = parent["link"];
    if (link.IsDefined()) {
      const std::optional<LinkSpec> spec = link.IsScalar() ? infiniband_by_name(link.Scalar()) : std::nullopt;
      if (!spec) fail(link, fmt::format("{} link as WIDTHxSPEED like 4xNDR", what), describe(link));
      return *spec;
    }
    const YAML::Node type_node = parent["type"];
    const std::string type_name = text(parent, "type", "infiniband");
    const std::optional<LinkType> type = link_type_from_string(type_name);
    const YAML::Node rate = parent["rate_gbps"];
    if (!type || !rate.IsDefined()) {
      fail(type_node.IsDefined() ? type_node : parent,
           fmt::format("{} with link: WIDTHxSPEED, or type (infiniband, roce, ethernet) and "
                       "rate_gbps",
                       what),
           describe(type_node));
    }
    const int rate_gbps = integer(parent, "rate_gbps", 0, 1);
    const std::optional<LinkSpec> spec = network_by_rate(*type, rate_gbps * 1000.0);
    if (!spec) fail(type_node, "a network link type (infiniband, roce, ethernet)", describe(type_node));
    return *spec;
  }

  const std::string& path_;
};

NodeSpec read_node(const SpecReader& reader, const YAML::Node& node) {
  reader.require_map(node, "node",
                     {"type", "count", "name_prefix", "hosts", "cpus", "cpu_vendor", "gpus", "nvlink", "pcie", "nics"});
  NodeSpec spec;
  spec.name_prefix = reader.text(node, "name_prefix", spec.name_prefix);
  if (node["hosts"].IsDefined()) {
    HostlistResult hosts = expand_hostlist(reader.text(node, "hosts", ""));
    if (!hosts.error.empty()) reader.fail(node["hosts"], hosts.error, SpecReader::describe(node["hosts"]));
    spec.host_names = std::move(hosts.hosts);
  }
  const int named_hosts = static_cast<int>(spec.host_names.size());
  spec.count = reader.integer(node, "count", named_hosts > 0 ? named_hosts : 1, 1);
  spec.cpu_sockets = reader.integer(node, "cpus", spec.cpu_sockets, 1);
  spec.cpu_vendor = reader.text(node, "cpu_vendor", spec.cpu_vendor);
  spec.gpus = reader.integer(node, "gpus", spec.gpus, 0);
  if (const YAML::Node nvlink = node["nvlink"]; nvlink.IsDefined()) {
    reader.require_map(nvlink, "node.nvlink", {"generation", "links_per_gpu", "nvswitches"});
    spec.nvlink_generation = reader.integer(nvlink, "generation", spec.nvlink_generation, 1);
    if (!nvlink_by_generation(spec.nvlink_generation, 1)) {
      reader.fail(nvlink["generation"], "an NVLink generation from 1 to 5", SpecReader::describe(nvlink["generation"]));
    }
    spec.nvlinks_per_gpu = reader.integer(nvlink, "links_per_gpu", spec.nvlinks_per_gpu, 0);
    spec.nvswitches = reader.integer(nvlink, "nvswitches", spec.nvswitches, 0);
  } else {
    spec.nvlinks_per_gpu = 0;
    spec.nvswitches = 0;
  }
  if (const YAML::Node pcie = node["pcie"]; pcie.IsDefined()) {
    reader.require_map(pcie, "node.pcie", {"generation", "width", "switches"});
    spec.pcie_generation = reader.integer(pcie, "generation", spec.pcie_generation, 1);
    spec.pcie_width = reader.integer(pcie, "width", spec.pcie_width, 1);
    if (!pcie_by_generation(spec.pcie_generation, spec.pcie_width)) {
      reader.fail(pcie, "a PCIe generation from 1 to 6", SpecReader::describe(pcie["generation"]));
    }
    spec.pcie_switches = reader.integer(pcie, "switches", spec.pcie_switches, 0);
  }
  if (const YAML::Node nics = node["nics"]; nics.IsDefined()) {
    reader.require_map(nics, "node.nics", {"count", "link", "type", "rate_gbps", "transport", "name_prefix"});
    spec.nics = reader.integer(nics, "count", spec.nics, 0);
    spec.nic_name_prefix = reader.text(nics, "name_prefix", spec.nic_name_prefix);
    spec.nic_link = reader.network_link(nics, "node.nics");
  } else {
    spec.nics = 0;
  }
  return spec;
}

FabricSpec read_fabric(const SpecReader& reader, const YAML::Node& fabric, const NodeSpec& node) {
  reader.require_map(fabric, "fabric",
                     {"topology", "link", "type", "rate_gbps", "transport", "tiers", "scalable_unit",
                      "rails_per_leaf"});
  const std::string topology = reader.text(fabric, "topology", "fat_tree");
  FabricSpec spec;
  if (topology == "rail_optimized") {
    spec.layout = FabricLayout::rail_optimized;
    spec.scalable_unit_nodes = reader.integer(fabric, "scalable_unit", 0, 1);
    spec.rails_per_leaf = reader.integer(fabric, "rails_per_leaf", 0, 1);
  } else if (topology != "fat_tree") {
    reader.fail(fabric["topology"], "fabric topology fat_tree or rail_optimized", quote_input(topology));
  }
  for (const char* key : {"scalable_unit", "rails_per_leaf"}) {
    if (spec.layout != FabricLayout::rail_optimized && fabric[key].IsDefined()) {
      reader.fail(fabric[key], fmt::format("fabric.{} only with topology: rail_optimized", key), quote_input(topology));
    }
  }
  spec.switch_link =
      fabric["link"].IsDefined() || fabric["type"].IsDefined() ? reader.network_link(fabric, "fabric") : node.nic_link;
  // The NICs' transport carries the traffic end to end: switch cables of the same type that name
  // none run it too (their collective efficiency is the NICs').
  if (!fabric["transport"].IsDefined()) {
    if (const std::optional<Transport> nic_transport = transport_of(node.nic_link)) {
      if (const std::optional<LinkSpec> same = with_transport(spec.switch_link, *nic_transport))
        spec.switch_link = *same;
    }
  }
  const YAML::Node tiers = fabric["tiers"];
  if (!tiers.IsSequence() || tiers.size() == 0 || tiers.size() > 3) {
    reader.fail(tiers.IsDefined() ? tiers : fabric, "fabric.tiers as a list of 1 to 3 tiers",
                SpecReader::describe(tiers));
  }
  constexpr std::array tier_names{SwitchTier::leaf, SwitchTier::spine, SwitchTier::core};
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const YAML::Node tier = tiers[i];
    reader.require_map(tier, "a fabric tier", {"name", "radix", "oversubscription"});
    const std::string expected_name(name_of(tier_names[i]));
    const std::string name = reader.text(tier, "name", expected_name);
    if (name != expected_name) {
      reader.fail(tier["name"], fmt::format("tier {} named {}", i + 1, expected_name), quote_input(name));
    }
    spec.tiers.push_back(
        FabricTierSpec{tier_names[i], reader.integer(tier, "radix", 0, 2), reader.ratio(tier, "oversubscription")});
  }
  return spec;
}

Graph parse_cluster_spec(const SourceText& source) {
  const SpecReader reader(source.path);
  YAML::Node root;
  try {
    root = YAML::Load(source.text);
  } catch (const YAML::Exception& error) {
    throw_input_error(source.path, error.mark.is_null() ? 1 : error.mark.line + 1, "well-formed YAML", error.msg);
  }
  ClusterSpec spec;
  try {
    reader.require_map(root, "the cluster spec", {"name", "node", "fabric"});
    spec.name = reader.text(root, "name", host_name_from_path(source.path));
    const YAML::Node node = root["node"];
    if (!node.IsDefined()) reader.fail(root, "a node: section", "none");
    spec.node = read_node(reader, node);
    if (const YAML::Node fabric = root["fabric"]; fabric.IsDefined()) {
      spec.fabric = read_fabric(reader, fabric, spec.node);
    }
  } catch (const YAML::Exception& error) {
    throw_input_error(source.path, error.mark.is_null() ? 1 : error.mark.line + 1, "a cluster spec value", error.msg);
  }
  try {
    return build_cluster(spec);
  } catch (const InputError& impossible) {
    const YAML::Node fabric = root["fabric"];
    YAML::Node at = fabric.IsDefined() ? fabric : root["node"];
    // A problem the builder names by its field is reported at that field's line.
    for (const char* key : {"scalable_unit", "rails_per_leaf"}) {
      if (fabric.IsDefined() && fabric[key].IsDefined() &&
          std::string_view(impossible.what()).find(fmt::format("fabric.{}", key)) != std::string_view::npos) {
        at.reset(fabric[key]);  // operator= would write the field's value into the node `at` refers to
      }
    }
    reader.fail(at, "a cluster that can be built", impossible.what());
  }
}

int sniff_cluster_spec(std::string_view text) {
  const bool has_node = text.starts_with("node:") || text.find("\nnode:") != std::string_view::npos;
  const bool has_fabric = text.starts_with("fabric:") || text.find("\nfabric:") != std::string_view::npos;
  return has_node ? (has_fabric ? 90 : 60) : 0;
}

const Registrar<TopologyFormat> registrar{
    {"cluster-yaml", "declarative cluster spec: nodes and a fat-tree or rail-optimized fabric (YAML)",
     sniff_cluster_spec, parse_cluster_spec}};

}  // namespace
}  // namespace fb::topo
