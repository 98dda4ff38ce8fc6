#include "topology/graph.hpp"

#include "topology/huge_pages.hpp"

#include <algorithm>
#include <functional>

namespace fb::topo {

std::string_view name_of(VertexKind kind) {
  switch (kind) {
    case VertexKind::host: return "host";
    case VertexKind::cpu: return "cpu";
    case VertexKind::pcie_switch: return "pcie_switch";
    case VertexKind::gpu: return "gpu";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::nic: return "nic";
    case VertexKind::fabric_switch: return "switch";
  }
  return "unknown";
}

std::string_view name_of(SwitchTier tier) {
  switch (tier) {
    case SwitchTier::none: return "none";
    case SwitchTier::leaf: return "leaf";
    case SwitchTier::spine: return "spine";
    case SwitchTier::core: return "core";
  }
  return "unknown";
}

std::uint32_t Graph::name_hash(std::string_view name) {
  const std::size_t hash = std::hash<std::string_view>{}(name);
  return static_cast<std::uint32_t>(hash ^ (hash >> 32));
}

std::size_t Graph::name_slot(std::string_view name, std::uint32_t hash) const {
  const std::size_t mask = name_slots_.size() - 1;
  for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const NameSlot& candidate = name_slots_[slot];
    if (candidate.vertex == no_vertex || (candidate.hash == hash && vertices_[candidate.vertex].name == name)) {
      return slot;
    }
  }
}

void Graph::grow_name_index(std::size_t vertex_count) {
  std::size_t capacity = std::max<std::size_t>(name_slots_.size(), 16);
  while (capacity < 2 * vertex_count) capacity *= 2;
  if (capacity == name_slots_.size()) return;
  std::vector<NameSlot> slots;
  assign_huge(slots, capacity, {});
  const std::size_t mask = capacity - 1;
  for (const NameSlot& entry : name_slots_) {
    if (entry.vertex == no_vertex) continue;
    std::size_t slot = entry.hash & mask;
    while (slots[slot].vertex != no_vertex) slot = (slot + 1) & mask;
    slots[slot] = entry;
  }
  name_slots_ = std::move(slots);
}

VertexId Graph::add_vertex(VertexKind kind, std::string_view name, VertexId host, int index) {
  grow_name_index(vertices_.size() + 1);
  const std::uint32_t hash = name_hash(name);
  NameSlot& slot = name_slots_[name_slot(name, hash)];
  if (slot.vertex != no_vertex) {
    Vertex& existing = vertices_[slot.vertex];
    if (existing.kind != kind) {
      throw GraphContradiction("vertex '" + std::string(name) + "' is a " + std::string(name_of(existing.kind)) +
                               " in one input and a " + std::string(name_of(kind)) + " in another");
    }
    if (existing.index < 0) existing.index = index;
    return slot.vertex;
  }
  const auto id = static_cast<VertexId>(vertices_.size());
  slot = NameSlot{id, hash};
  vertices_.push_back(
      Vertex{kind, SwitchTier::none, std::string(name), kind == VertexKind::host ? id : host, index, std::nullopt, {}});
  return id;
}

VertexId Graph::find(std::string_view name) const {
  if (name_slots_.empty()) return no_vertex;
  return name_slots_[name_slot(name, name_hash(name))].vertex;
}

LinkId Graph::add_link(VertexId a, VertexId b, const LinkSpec& spec, bool nominal_capacity) {
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{a, b, spec, nominal_capacity});
  return id;
}

namespace {

// Groups the pairs (vertex, id) that for_each_pair(add) passes to add by vertex, each vertex's ids
// in the order given; for_each_pair is called twice, to count and to place.
template <typename ForEachPair>
void group_by_vertex(std::vector<std::size_t>& offsets, std::vector<std::uint32_t>& ids, std::size_t vertex_count,
                     const ForEachPair& for_each_pair) {
  assign_huge(offsets, vertex_count + 1, 0);
  for_each_pair([&](VertexId v, std::uint32_t) { ++offsets[v + 1]; });
  for (std::size_t v = 1; v < offsets.size(); ++v) offsets[v] += offsets[v - 1];
  reserve_huge(ids, offsets.back());
  ids.resize(offsets.back());
  std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
  for_each_pair([&](VertexId v, std::uint32_t id) { ids[next[v]++] = id; });
}

}  // namespace

void Graph::index_adjacency() const {
  group_by_vertex(adjacency_.offsets, adjacency_.ids, vertices_.size(), [&](const auto& add) {
    for (LinkId l = 0; l < links_.size(); ++l) {
      add(links_[l].a, l);
      add(links_[l].b, l);
    }
  });
  indexed_link_count_ = links_.size();
}

void Graph::index_devices() const {
  group_by_vertex(devices_by_host_.offsets, devices_by_host_.ids, vertices_.size(), [&](const auto& add) {
    for (VertexId v = 0; v < vertices_.size(); ++v) {
      if (vertices_[v].kind != VertexKind::host && vertices_[v].host != no_vertex) add(vertices_[v].host, v);
    }
  });
}

std::optional<LinkId> Graph::find_link(VertexId a, VertexId b) const {
  for (const LinkId l : links_of(a)) {
    if (links_[l].other_end(a) == b) return l;
  }
  return std::nullopt;
}

void Graph::reserve(std::size_t vertex_count, std::size_t link_count) {
  reserve_huge(vertices_, vertex_count);
  grow_name_index(vertex_count);
  reserve_huge(links_, link_count);
}

void Graph::add_assumption(std::string text) {
  if (assumption_set_.insert(text).second) assumptions_.push_back(std::move(text));
}

void Graph::mark_undecided(LinkId l, std::string why) {
  const auto known = std::find(undecided_reasons_.begin(), undecided_reasons_.end(), why);
  const auto index = static_cast<std::uint32_t>(known - undecided_reasons_.begin());
  if (known == undecided_reasons_.end()) undecided_reasons_.push_back(std::move(why));
  undecided_[l] = index;
}

const std::string* Graph::undecided(LinkId l) const {
  const auto found = undecided_.find(l);
  return found == undecided_.end() ? nullptr : &undecided_reasons_[found->second];
}

std::optional<CablePorts> Graph::cable_ports(LinkId l) const {
  const auto found = cable_ports_.find(l);
  return found == cable_ports_.end() ? std::nullopt : std::optional<CablePorts>(found->second);
}

VertexId Graph::find_guid(std::uint64_t guid) const {
  const auto found = vertex_by_guid_.find(guid);
  return found == vertex_by_guid_.end() ? no_vertex : found->second;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): merges hosts first, then the devices under them, then switches and links, keeping the id mapping in one place
void Graph::merge(const Graph& other) {
  for (const std::string& assumption : other.assumptions_) add_assumption(assumption);
  std::vector<VertexId> mapped(other.vertices_.size(), no_vertex);
  // Hosts first, so that devices can point at their merged host.
  for (VertexId v = 0; v < other.vertices_.size(); ++v) {
    const Vertex& source = other.vertices_[v];
    if (source.kind == VertexKind::host) mapped[v] = add_vertex(source.kind, source.name);
  }
  for (VertexId v = 0; v < other.vertices_.size(); ++v) {
    const Vertex& source = other.vertices_[v];
    if (source.kind == VertexKind::host) continue;
    const VertexId host = source.host == no_vertex ? no_vertex : mapped[source.host];
    mapped[v] = add_vertex(source.kind, source.name, host, source.index);
    if (source.tier != SwitchTier::none) vertices_[mapped[v]].tier = source.tier;
    if (source.nic_port) vertices_[mapped[v]].nic_port = source.nic_port;
    if (!source.pci_bus_id.empty()) vertices_[mapped[v]].pci_bus_id = source.pci_bus_id;
  }
  // Only links that were here before this merge count as duplicates: parallel links within
  // `other` (two cables between the same pair of switches) are all kept. So the adjacency is
  // indexed once here, before the first link is added, and looked up as it stands.
  index_adjacency();
  const auto find_earlier_link = [&](VertexId a, VertexId b) -> std::optional<LinkId> {
    for (const LinkId l : adjacency_.of(a)) {
      if (links_[l].other_end(a) == b) return l;
    }
    return std::nullopt;
  };
  for (const auto& [guid, v] : other.vertex_by_guid_) vertex_by_guid_[guid] = mapped[v];
  for (LinkId l = 0; l < other.links_.size(); ++l) {
    const Link& link = other.links_[l];
    const VertexId a = mapped[link.a];
    const VertexId b = mapped[link.b];
    const std::optional<LinkId> existing = find_earlier_link(a, b);
    const std::string* open_question = other.undecided(l);
    const std::optional<CablePorts> ports = other.cable_ports(l);
    if (!existing) {
      const LinkId added = add_link(a, b, link.spec, link.nominal_capacity);
      if (open_question != nullptr) mark_undecided(added, *open_question);
      if (ports) cable_ports_[added] = *ports;
      continue;
    }
    if (ports && !cable_ports_.contains(*existing)) {
      // The earlier link may run the other way round.
      cable_ports_[*existing] = links_[*existing].a == a ? *ports : CablePorts{ports->b, ports->a};
    }
    if (links_[*existing].nominal_capacity && !link.nominal_capacity) {
      links_[*existing].spec = link.spec;
      links_[*existing].nominal_capacity = false;
      if (open_question != nullptr) mark_undecided(*existing, *open_question);
    } else if (undecided(*existing) != nullptr && open_question == nullptr && !link.nominal_capacity) {
      // Another input decides what this one left open (NCCL's XML states the GPU's sm).
      links_[*existing].spec = link.spec;
      undecided_.erase(*existing);
    }
  }
}

}  // namespace fb::topo
