#pragma once
// The topology graph: what is connected to what, with link capacities from the technology table.
// Vertices are named uniquely ("dgx01/GPU3", "dgx01/mlx5_0", "leaf07"), which is how several
// inputs describing the same machines merge into one graph.

#include "common/errors.hpp"
#include "topology/link_technology.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fb::topo {

// Inputs that disagree about a vertex (one name, two kinds): bad input, found where the graph
// grows, far from the file; the reader that knows the file puts its name before the message.
class GraphContradiction : public InputError {
 public:
  using InputError::InputError;
};

using VertexId = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr VertexId no_vertex = std::numeric_limits<VertexId>::max();

enum class VertexKind { host, cpu, pcie_switch, gpu, nvswitch, nic, fabric_switch };
// Fabric switches sit in tiers; routes go up towards the core and then down (never down-up).
enum class SwitchTier { none = 0, leaf = 1, spine = 2, core = 3 };

std::string_view name_of(VertexKind kind);
std::string_view name_of(SwitchTier tier);

// A NIC's network port as its host reported it (NCCL's topology dump states it; topo -m and the
// fabric files do not): the rate the port trained at, and whether NCCL can reach the GPUs through
// it without a copy through host memory.
struct NicPort {
  double speed_gbps = 0;
  bool gpu_direct_rdma = false;
  bool operator==(const NicPort&) const = default;
};

struct Vertex {
  VertexKind kind = VertexKind::host;
  SwitchTier tier = SwitchTier::none;
  std::string name;
  VertexId host = no_vertex;  // the host vertex a device belongs to; a host is its own host
  int index = -1;             // GPU ordinal, NUMA node id, NIC ordinal; -1 when not applicable
  std::optional<NicPort> nic_port;
  // "0000:1b:00.0" where the input states it (NCCL XML): what identifies a GPU when the driver
  // renumbers the others after one falls off the bus.
  std::string pci_bus_id;
};

struct Link {
  VertexId a = no_vertex;
  VertexId b = no_vertex;
  LinkSpec spec;
  // True when the input did not state the capacity (topo -m has no PCIe widths, topology.conf
  // has no speeds) and the table's nominal value stands in; a merge prefers stated capacities.
  bool nominal_capacity = false;

  VertexId other_end(VertexId v) const { return v == a ? b : a; }
};

// The port numbers a cable plugs into at its two ends, as the fabric dumps state them
// (ibnetdiscover's "[17]"): what forwarding tables name and what a technician looks for.
struct CablePorts {
  int a = 0;  // port on the link's `a` vertex
  int b = 0;
  bool operator==(const CablePorts&) const = default;
};

class Graph {
 public:
  // Returns the vertex with this name, creating it when absent. A name that exists with another
  // kind is a contradiction between inputs and throws GraphContradiction.
  VertexId add_vertex(VertexKind kind, std::string_view name, VertexId host = no_vertex, int index = -1);
  VertexId find(std::string_view name) const;
  // A hint that `name` is about to be added or looked up: its slot of the name index is loaded
  // into the cache now. A builder that knows its next names ahead (a cluster spec's next node)
  // overlaps their cache misses, one per new name and a third of building a million GPUs' graph.
  void prefetch_name(std::string_view name) const {
    if (!name_slots_.empty()) __builtin_prefetch(&name_slots_[name_hash(name) & (name_slots_.size() - 1)]);
  }

  LinkId add_link(VertexId a, VertexId b, const LinkSpec& spec, bool nominal_capacity = false);
  // The first link between a and b, or none.
  std::optional<LinkId> find_link(VertexId a, VertexId b) const;

  void set_tier(VertexId v, SwitchTier tier) { vertices_[v].tier = tier; }
  void set_nic_port(VertexId v, const NicPort& port) { vertices_[v].nic_port = port; }
  void set_pci_bus_id(VertexId v, std::string bus_id) { vertices_[v].pci_bus_id = std::move(bus_id); }
  // What-if analyses and simulations: the same fabric with one link degraded.
  void set_link_capacity(LinkId l, double capacity_gbps) { links_[l].spec.capacity_gbps = capacity_gbps; }
  void set_link_spec(LinkId l, const LinkSpec& spec) { links_[l].spec = spec; }
  void reserve(std::size_t vertex_count, std::size_t link_count);

  // InfiniBand addressing, where a fabric dump states it; kept apart from Vertex and Link, which
  // a million-GPU model has millions of, since only the fabric's cables and nodes have it.
  void set_cable_ports(LinkId l, CablePorts ports) { cable_ports_[l] = ports; }
  std::optional<CablePorts> cable_ports(LinkId l) const;
  // A GUID that names `v` in forwarding tables: a switch's node GUID, an adapter's port GUIDs.
  void add_guid(VertexId v, std::uint64_t guid) { vertex_by_guid_[guid] = v; }
  VertexId find_guid(std::uint64_t guid) const;

  const Vertex& vertex(VertexId v) const { return vertices_[v]; }
  const Link& link(LinkId l) const { return links_[l]; }
  std::span<const Vertex> vertices() const { return vertices_; }
  std::span<const Link> links() const { return links_; }
  // Every link of v, in the order they were added. The index is built at the first call after the
  // graph changed: readers add all their links before anyone asks. That call writes, so a graph
  // is not shared between threads (nothing in fabricbench does).
  std::span<const LinkId> links_of(VertexId v) const {
    if (adjacency_.offsets.size() != vertices_.size() + 1 || indexed_link_count_ != links_.size()) index_adjacency();
    return adjacency_.of(v);
  }
  std::size_t vertex_count() const { return vertices_.size(); }
  std::size_t link_count() const { return links_.size(); }

  // The devices of one host (not the host itself), in creation order; indexed like links_of.
  std::span<const VertexId> devices_of(VertexId host) const {
    if (devices_by_host_.offsets.size() != vertices_.size() + 1) index_devices();
    return devices_by_host_.of(host);
  }

  // What a reader assumed because its input did not state it (a link rate, an NVLink generation,
  // a NUMA node), one sentence each naming the file: the CLI prints them as warnings and `topo
  // show` lists them, so a guessed number is never mistaken for a read one. Repeats are kept once.
  void add_assumption(std::string text);
  std::span<const std::string> assumptions() const { return assumptions_; }

  // A link whose capacity the input leaves open between candidates (NV18 is NVLink4 on H100 and
  // NVLink5 on B200, and topo -m names no model): it carries the lower candidate, so analyses
  // still run, and `why` names every candidate. An expectation that depends on it is withheld
  // rather than computed from a guess. Kept apart from Link: a million-GPU graph has none.
  void mark_undecided(LinkId l, std::string why);
  // Why the link's capacity is undecided; nullptr when the input decided it.
  const std::string* undecided(LinkId l) const;
  std::size_t undecided_link_count() const { return undecided_.size(); }

  // Adds every vertex and link of `other`; vertices with the same name are the same vertex. A link
  // that both graphs have between the same two vertices is kept once, with the stated capacity
  // winning over a nominal one.
  void merge(const Graph& other);

 private:
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  // Ids grouped per vertex in one array (vertex v's from offsets[v] to offsets[v + 1]), rebuilt
  // in one pass when stale, instead of a vector per vertex grown one id at a time: a million-GPU
  // cluster has 3.4 million vertices and 9 million links.
  struct IdsPerVertex {
    std::vector<std::size_t> offsets;
    std::vector<std::uint32_t> ids;
    std::span<const std::uint32_t> of(VertexId v) const {
      return {ids.data() + offsets[v], ids.data() + offsets[v + 1]};
    }
  };
  void index_adjacency() const;
  void index_devices() const;
  mutable IdsPerVertex adjacency_;  // each vertex's links
  mutable std::size_t indexed_link_count_ = 0;
  mutable IdsPerVertex devices_by_host_;  // each host's devices; empty for other vertices
  // Which vertex has a name: open addressing over vertex ids, keyed by the vertices' own names,
  // so that 3 million names are neither copied nor given a node each. A power of two of slots,
  // at most half of them used; `hash` is the name's hash, which also says where a slot goes when
  // the table grows.
  struct NameSlot {
    VertexId vertex = no_vertex;
    std::uint32_t hash = 0;
  };
  std::vector<NameSlot> name_slots_;
  static std::uint32_t name_hash(std::string_view name);
  // The slot holding `name`, or the empty slot where it would go.
  std::size_t name_slot(std::string_view name, std::uint32_t hash) const;
  void grow_name_index(std::size_t vertex_count);
  std::vector<std::string> assumptions_;
  std::unordered_set<std::string> assumption_set_;
  std::unordered_map<LinkId, std::uint32_t> undecided_;  // link -> index into undecided_reasons_
  std::vector<std::string> undecided_reasons_;
  std::unordered_map<LinkId, CablePorts> cable_ports_;
  std::unordered_map<std::uint64_t, VertexId> vertex_by_guid_;
};

// The rank a vertex has in up-down routing: fabric switch tier, 0 for everything else.
inline int routing_rank(const Vertex& v) { return static_cast<int>(v.tier); }

}  // namespace fb::topo
