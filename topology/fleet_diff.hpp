#pragma once
// `topo diff`: one topology dump per node (nvidia-smi topo -m, NCCL topology XML) compared
// against the majority of the fleet. Each node's graph is reduced to properties of its devices
// that do not depend on the host: devices are named by role and ordinal (GPU3, mlx5_2), never by
// PCI bus id, and relations name only the GPUs every node has, so one missing GPU is one finding
// rather than a change in every neighbour's description.

#include "topology/format_registry.hpp"
#include "topology/graph.hpp"

#include <nlohmann/json_fwd.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {

struct NodeTopology {
  std::string node;  // the host the parser named (single-node dumps: the file name up to its first dot)
  std::string path;
  Graph graph;
};

struct Fleet {
  std::string format;  // the one format every dump is in
  std::vector<NodeTopology> nodes;
};

// Parses each dump through the format registry. UsageError when a dump describes other than one
// host, when two dumps name the same host, or when the dumps are not all of one format (the
// formats model different detail, so a mixed fleet would differ everywhere).
Fleet parse_fleet(std::span<const SourceText> sources, std::string_view format_name = "auto");
Fleet load_fleet(const std::vector<std::string>& paths, std::string_view format_name = "auto",
                 const ReaderHints& hints = {});

enum class DeviceProperty {
  presence,         // the device exists on the node
  nvlink,           // NVLink lanes to the NVSwitch and bonds to each GPU peer
  pcie_link,        // the device's own PCIe link: generation and width
  placement,        // NUMA node, and the GPUs that share its PCIe switch
  uplink,           // a PCIe switch's link towards the CPU
  port_speed,       // the rate a NIC's network port trained at
  gpu_direct_rdma,  // whether NCCL reaches the GPUs through a NIC without a host-memory copy
};
std::string_view name_of(DeviceProperty property);

struct ValueGroup {
  std::string value;
  std::vector<std::string> nodes;
};

struct Deviation {
  std::string subject;  // "GPU3", "mlx5_2", "PCIe switch above GPU0, GPU1"
  DeviceProperty property = DeviceProperty::presence;
  std::string node;   // the node that differs; empty when no value has a strict majority
  std::string value;  // that node's value
  std::string majority_value;
  std::size_t majority_nodes = 0;
  std::size_t compared_nodes = 0;  // the nodes that have the subject (every node, for presence)
  std::vector<ValueGroup> groups;  // without a majority: every value and its nodes, most common first
  // A missing GPU the matching cannot single out (its neighbours look alike): every fleet GPU
  // that may be the one gone, the subject among them; empty when the match is certain.
  std::vector<std::string> candidates;
};

struct NodeSummary {
  std::string node;
  std::string path;
  std::size_t gpu_count = 0;
  std::size_t nic_count = 0;
};

// A node whose GPUs the driver numbered differently from the fleet (one fell off the bus and the
// rest moved up): its GPUs are compared as the fleet GPUs they were matched to.
struct GpuRenumbering {
  std::string node;
  std::string matched_by;                          // "PCI bus id", or "NUMA node, nearby NICs and NVLinks"
  std::vector<std::pair<int, int>> node_to_fleet;  // node's ordinal -> fleet ordinal, those that differ
  bool ambiguous = false;                          // another matching fits as well (GPUs that look alike)
  std::vector<int> missing_candidates;             // fleet ordinals some best matching leaves out, when ambiguous
};

struct FleetDiff {
  std::string format;
  std::vector<NodeSummary> nodes;
  std::vector<GpuRenumbering> renumberings;
  // Node by node in input order, then subject (GPUs, NICs, PCIe switches) and property; the
  // properties without a majority come last.
  std::vector<Deviation> deviations;
};

// GPUs are compared by identity, not by the driver's numbering: a node with fewer GPUs than the
// reference node (the first with the most common GPU count) has its GPUs matched to the
// reference's by PCI bus id where the dumps state it, else by the order-preserving alignment that
// best agrees on each GPU's NUMA node, nearby NICs and NVLinks; the unmatched GPU is the missing one.
// A value deviates when a strict majority of the nodes that have the subject share another value
// (the rule `doctor` applies across hosts); without one, every value and its nodes are listed.
FleetDiff diff_fleet(const Fleet& fleet);

// One line: "dgx07: GPU3 PCIe link: PCIe Gen4 (16 GT/s) x16 here, PCIe Gen5 (32 GT/s) x16 on 15
// of 16 nodes".
std::string describe(const Deviation& deviation);
// "dgx03: GPU3..GPU6 here are the fleet's GPU4..GPU7 (matched by ...)".
std::string describe(const GpuRenumbering& renumbering);

nlohmann::json to_json(const FleetDiff& diff);

}  // namespace fb::topo
