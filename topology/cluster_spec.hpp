#pragma once
// A cluster on paper: N identical nodes and a fat-tree or rail-optimized fabric, built into a
// topology graph.
// The YAML format (formats/cluster_spec_yaml.cpp) fills this in; the scale benchmark and the
// tests build specs directly.

#include "topology/graph.hpp"

#include <string>
#include <vector>

namespace fb::topo {

struct NodeSpec {
  std::string name_prefix = "node";  // hosts are node00001, node00002, ...
  int count = 1;
  // The hosts' real names, `count` of them, instead of numbered ones: what the results name them.
  std::vector<std::string> host_names;
  int cpu_sockets = 2;
  std::string cpu_vendor = "GenuineIntel";
  int cpu_model = 0x8f;  // Sapphire Rapids
  int gpus = 8;
  int nvlink_generation = 4;
  int nvlinks_per_gpu = 18;  // 0: a PCIe-only machine
  int nvswitches = 4;        // each GPU's NVLinks are spread over these as evenly as they divide
  int pcie_generation = 5;
  int pcie_width = 16;
  int pcie_switches = 4;  // GPUs and NICs share them in order; 0 puts devices on the CPUs
  int nics = 8;
  std::string nic_name_prefix = "mlx5_";
  LinkSpec nic_link;  // the NIC port, e.g. infiniband(4, "NDR")
};

struct FabricTierSpec {
  SwitchTier tier = SwitchTier::leaf;
  int radix = 64;
  // Down-port capacity over up-port capacity this tier is built with (2 means 2:1). The top tier
  // has no uplinks and ignores it.
  double oversubscription = 1.0;
};

// fat_tree: whole nodes per leaf. rail_optimized: nodes in scalable units (SUs); NIC i of every
// node of an SU cables to the SU's leaf for rail i (DGX SuperPOD: 32 nodes x 8 rails per SU), so
// a rail's traffic inside an SU crosses one switch; spines join the SUs, and with a core tier the
// spines form rail-aligned groups (one rail's leaves of several SUs).
enum class FabricLayout { fat_tree, rail_optimized };

struct FabricSpec {
  FabricLayout layout = FabricLayout::fat_tree;
  std::vector<FabricTierSpec> tiers;  // bottom (leaf) first; 1 to 3 tiers; empty: no fabric
  LinkSpec switch_link;               // switch-to-switch cables
  // rail_optimized only; 0 derives them: an SU is as many nodes as a leaf's down ports hold for
  // one rail (at most node.count), a leaf takes as many rails as its down ports hold for an SU.
  int scalable_unit_nodes = 0;
  int rails_per_leaf = 0;
};

struct ClusterSpec {
  std::string name = "cluster";
  NodeSpec node;
  FabricSpec fabric;
};

// Ports of a tier: down and up, so that down/up matches the oversubscription as closely as
// whole ports allow.
struct TierPorts {
  int down = 0;
  int up = 0;
};
TierPorts split_ports(const FabricTierSpec& tier, bool is_top_tier);

// Throws InputError, naming the field, when the spec cannot be built (a radix too
// small for the node count, a negative count).
Graph build_cluster(const ClusterSpec& spec);

}  // namespace fb::topo
