// `ibnetdiscover` output: one block per switch and per channel adapter, one line per cabled
// port naming the peer by node GUID and the link's width and speed.
//
//   switchguid=0x98039b0300a1b2c0(98039b0300a1b2c0)
//   Switch  64 "S-98039b0300a1b2c0"   # "MF0;leaf01:MQM9700/U1" enhanced port 0 lid 1 lmc 0
//   [1]     "H-b8cef60300a1b2c0"[1](b8cef60300a1b2c1)   # "dgx01 mlx5_0" lid 5 4xNDR
//   [33]    "S-98039b0300c0ff00"[1]    # "MF0;spine01:MQM9700/U1" lid 2 4xNDR
//
//   Ca      1 "H-b8cef60300a1b2c0"     # "dgx01 mlx5_0"
//   [1](b8cef60300a1b2c1)  "S-98039b0300a1b2c0"[1]   # lid 5 lmc 0 "MF0;leaf01:MQM9700/U1" lid 1 4xNDR
//
// A CA's description "HOST DEVICE" names the host and NIC (dgx01/mlx5_0), which is how this
// merges with per-node nvidia-smi and NCCL inputs; CAs that share a description (the driver's
// default, "MT23108 InfiniHost Mellanox Technologies") are told apart by GUID, and so are switches
// that share one. CAs that belong to a switch (SHARP aggregation nodes, an adapter in a switch's
// system image) are left out, and counted in an assumption. Switch tiers are not in the dump:
// switches with adapters attached are leaves, and the rest take their distance from the nearest
// leaf. The same reader, registered as "ibsim", takes ibsim's fabric files. Each cable is listed from both ends;
// when the ends report different widths or speeds the link is taken at the lower, and the
// mismatch (a link trained down) is recorded on the graph. Old dumps' "Non-Chassis Nodes" and
// "Chassis N" headings and the `ibwarn:` lines ibnetdiscover writes to stderr are skipped.

#include "topology/format_registry.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace fb::topo {
namespace {

// ibsim's fabric files (`ibsim NETFILE`) are ibnetdiscover's layout with the node's own name
// in quotes instead of "S-<GUID>", `Hca` for `Ca`, and no width or speed on a port line: ibsim
// simulates every link at 4xSDR, which is what the reader takes (and says).
enum class Dialect { ibnetdiscover, ibsim };

struct NodeBlock {
  std::size_t line = 0;
  bool is_switch = false;
  std::string id;  // "S-<guid>" or "H-<guid>"
  std::string description;
  std::string system_image_guid;  // the `sysimgguid=` line before the block; empty when absent
};

struct PortLine {
  std::size_t line = 0;
  std::string node_id;
  long long port = 0;
  std::string peer_id;
  long long peer_port = 0;
  LinkSpec spec;
  std::string width_speed;  // as printed: "4xSDR"
  std::string port_guid;    // "(b8cef60300a1b2c1)" after the local port: an adapter's port GUID
};

class Cursor {
 public:
  Cursor(const SourceText& source, std::size_t line_number, std::string_view text)
      : source_(source), line_number_(line_number), rest_(text) {}

  void skip_space() { rest_ = trim_start(rest_); }
  bool at(char c) const { return !rest_.empty() && rest_.front() == c; }

  void expect(char c, std::string_view what) {
    skip_space();
    if (!at(c)) fail(what);
    rest_.remove_prefix(1);
  }

  long long number(std::string_view what) {
    skip_space();
    const std::size_t end = std::min(rest_.size(), rest_.find_first_not_of("0123456789"));
    const std::optional<std::int64_t> value = to_integer(rest_.substr(0, end));
    if (!value || *value < 0 || *value > 1'000'000) fail(what);
    rest_.remove_prefix(end);
    return *value;
  }

  std::string quoted(std::string_view what) {
    expect('"', what);
    const std::size_t end = rest_.find('"');
    if (end == std::string_view::npos) fail(what);
    std::string text(rest_.substr(0, end));
    rest_.remove_prefix(end + 1);
    return text;
  }

  // "(hexguid)" after a port number is optional; returns the hex digits, or nothing.
  std::string guid() {
    if (!at('(')) return {};
    const std::size_t end = rest_.find(')');
    if (end == std::string_view::npos) fail("')' closing the port GUID");
    std::string hex(rest_.substr(1, end - 1));
    rest_.remove_prefix(end + 1);
    return hex;
  }

  std::string node_id(std::string_view what, Dialect dialect) {
    std::string id = quoted(what);
    if (dialect == Dialect::ibsim) {
      if (trim(id).empty()) throw_input_error(source_.path, line_number_, "a node name in quotes", quote_input(id));
      return id;
    }
    const bool well_formed = id.size() > 2 && (id[0] == 'S' || id[0] == 'H' || id[0] == 'R') && id[1] == '-' &&
                             id.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
    if (!well_formed) throw_input_error(source_.path, line_number_, "a node id like \"S-<hex guid>\"", quote_input(id));
    return id;
  }

  std::string_view rest() const { return rest_; }

  [[noreturn]] void fail(std::string_view what) const {
    throw_input_error(source_.path, line_number_, what,
                      rest_.empty() ? std::string("the end of the line") : quote_input(rest_));
  }

 private:
  const SourceText& source_;
  std::size_t line_number_;
  std::string_view rest_;
};

// The description is the first quoted string after '#'.
std::string comment_description(std::string_view rest) {
  const std::size_t hash = rest.find('#');
  if (hash == std::string_view::npos) return {};
  const std::size_t open = rest.find('"', hash);
  const std::size_t close = open == std::string_view::npos ? open : rest.find('"', open + 1);
  return close == std::string_view::npos ? std::string() : std::string(rest.substr(open + 1, close - open - 1));
}

std::pair<LinkSpec, std::string> link_speed(const SourceText& source, const NumberedLine& line, std::string_view rest) {
  const std::size_t hash = rest.find('#');
  const std::vector<std::string_view> tokens =
      split_whitespace(hash == std::string_view::npos ? std::string_view() : rest.substr(hash + 1));
  const std::string_view last = tokens.empty() ? std::string_view() : tokens.back();
  const std::optional<LinkSpec> spec = infiniband_by_name(last);
  if (!spec) {
    throw_input_error(source.path, line.number, "a link width and speed like 4xNDR at the end of the port line",
                      last.empty() ? std::string("none") : quote_input(last));
  }
  return {*spec, std::string(last)};
}

// Name order with digit runs compared as numbers: "mlx5_2" < "mlx5_10".
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      const std::size_t a_end = std::min(a.size(), a.find_first_not_of("0123456789", i));
      const std::size_t b_end = std::min(b.size(), b.find_first_not_of("0123456789", j));
      const std::string_view a_digits = a.substr(i, a_end - i);
      const std::string_view b_digits = b.substr(j, b_end - j);
      const std::string_view a_value = a_digits.substr(std::min(a_digits.find_first_not_of('0'), a_digits.size()));
      const std::string_view b_value = b_digits.substr(std::min(b_digits.find_first_not_of('0'), b_digits.size()));
      if (a_value.size() != b_value.size()) return a_value.size() < b_value.size();
      if (a_value != b_value) return a_value < b_value;
      i = a_end;
      j = b_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

// Lines that are not part of the topology: headings of older dumps, and stderr mixed into a
// captured file.
bool is_heading_or_diagnostic(std::string_view text) {
  return text.starts_with("Non-Chassis Nodes") || text.starts_with("Chassis ") || text.starts_with("ibwarn:") ||
         text.starts_with("iberror:");
}

// CAs that belong to a switch, not to a host: the SHARP aggregation node a Quantum switch exposes
// on a port of its own (one per switch, all described "Mellanox Technologies Aggregation Node"),
// and any CA that shares a switch's system image GUID (a managed switch's internal adapter).
// Taken as hosts they would make every spine a leaf and split a healthy fat tree into parts.
struct SwitchAttachedCas {
  std::set<std::string> ids;
  std::size_t aggregation_nodes = 0;
  std::size_t in_switch_image = 0;
};

SwitchAttachedCas find_switch_attached_cas(const std::map<std::string, NodeBlock>& nodes) {
  std::set<std::string_view> switch_images;
  for (const auto& [id, node] : nodes) {
    if (node.is_switch && !node.system_image_guid.empty()) switch_images.insert(node.system_image_guid);
  }
  SwitchAttachedCas found;
  for (const auto& [id, node] : nodes) {
    if (node.is_switch) continue;
    if (node.description.find("Aggregation Node") != std::string::npos) {
      ++found.aggregation_nodes;
      found.ids.insert(id);
    } else if (!node.system_image_guid.empty() && switch_images.contains(node.system_image_guid)) {
      ++found.in_switch_image;
      found.ids.insert(id);
    }
  }
  return found;
}

void state_switch_attached_cas(Graph& graph, const std::string& path, const SwitchAttachedCas& found) {
  if (found.ids.empty()) return;
  std::vector<std::string> kinds;
  if (found.aggregation_nodes > 0) {
    kinds.push_back(
        fmt::format("{} SHARP aggregation node(s) (described \"... Aggregation Node\")", found.aggregation_nodes));
  }
  if (found.in_switch_image > 0) {
    kinds.push_back(
        fmt::format("{} with a switch's system image GUID (switch management adapters)", found.in_switch_image));
  }
  graph.add_assumption(fmt::format("{}: {} CA(s) inside switches left out of the hosts and of the switch tiers: {}",
                                   path, found.ids.size(), fmt::join(kinds, "; ")));
}

// "[1](guid) "S-<guid>"[33](guid)   # ... 4xNDR": one cabled port of the node `node_id`. ibsim's
// lines state no rate: 4xSDR, counted in `links_without_rate`.
PortLine read_port_line(const SourceText& source, const NumberedLine& line, std::string_view text,
                        const std::string& node_id, Dialect dialect, std::size_t& links_without_rate) {
  Cursor cursor(source, line.number, text);
  PortLine port;
  port.line = line.number;
  port.node_id = node_id;
  cursor.expect('[', "'[PORT]'");
  port.port = cursor.number("a port number");
  cursor.expect(']', "']' after the port number");
  port.port_guid = cursor.guid();
  port.peer_id = cursor.node_id("the peer's quoted node id", dialect);
  cursor.expect('[', "'[PORT]' after the peer id");
  port.peer_port = cursor.number("the peer's port number");
  cursor.expect(']', "']' after the peer's port number");
  cursor.guid();
  if (dialect == Dialect::ibsim && trim(cursor.rest()).empty()) {
    port.spec = *infiniband_by_name("4xSDR");
    port.width_speed = "4xSDR";
    ++links_without_rate;
  } else {
    std::tie(port.spec, port.width_speed) = link_speed(source, line, cursor.rest());
  }
  return port;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over ibnetdiscover's line kinds (block headers, ports, comments) in both dialects, each refused at its line; a state machine reads best in one place
Graph parse_fabric_dump(const SourceText& source, Dialect dialect) {
  std::map<std::string, NodeBlock> nodes;
  std::size_t links_without_rate = 0;
  std::vector<PortLine> ports;
  const NodeBlock* current = nullptr;
  std::string system_image_guid;  // of the block that follows
  for (const NumberedLine& line : split_lines(source.text)) {
    const std::string_view text = trim(line.text);
    if (text.empty() || text.front() == '#' || is_heading_or_diagnostic(text)) continue;
    const std::size_t equals = text.find('=');
    if (equals != std::string_view::npos && text.find_first_of(" \t") > equals) {  // vendid=, caguid=, ...
      if (text.starts_with("sysimgguid=")) system_image_guid = text.substr(equals + 1);
      continue;
    }
    if (text.front() == '[') {
      if (current == nullptr) {
        throw_input_error(source.path, line.number, "a Switch or Ca line before its port lines", quote_input(text));
      }
      ports.push_back(read_port_line(source, line, text, current->id, dialect, links_without_rate));
      continue;
    }
    const std::vector<std::string_view> tokens = split_whitespace(text);
    const std::string_view kind = tokens.front();
    const bool is_ca = kind == "Ca" || (dialect == Dialect::ibsim && kind == "Hca");
    if (kind != "Switch" && kind != "Rt" && !is_ca) {
      throw_input_error(source.path, line.number,
                        dialect == Dialect::ibsim ? "a Switch, Hca or port line" : "a Switch, Ca or port line",
                        quote_input(text));
    }
    NodeBlock block;
    block.line = line.number;
    block.is_switch = !is_ca;
    Cursor header(source, line.number, text.substr(kind.size()));
    header.number("the node's port count");
    block.id = header.node_id("the node's quoted id", dialect);
    block.description = dialect == Dialect::ibsim ? block.id : comment_description(header.rest());
    block.system_image_guid = std::string(trim(std::exchange(system_image_guid, std::string())));
    if (dialect == Dialect::ibnetdiscover && block.is_switch != (block.id[0] != 'H')) {
      throw_input_error(source.path, line.number,
                        fmt::format("an id starting {} for a {}", block.is_switch ? "S-" : "H-", kind),
                        quote_input(block.id));
    }
    const auto [it, inserted] = nodes.try_emplace(block.id, block);
    if (!inserted) throw_input_error(source.path, line.number, "each node listed once", quote_input(block.id));
    current = &it->second;
  }
  if (nodes.empty()) throw_input_error(source.path, 1, "at least one Switch or Ca block", "none");
  const SwitchAttachedCas switch_attached = find_switch_attached_cas(nodes);
  for (const std::string& id : switch_attached.ids) nodes.erase(id);
  std::erase_if(ports, [&](const PortLine& port) {
    return switch_attached.ids.contains(port.node_id) || switch_attached.ids.contains(port.peer_id);
  });

  Graph graph;
  graph.reserve(2 * nodes.size(), ports.size());  // a CA is a host and a NIC; each cable is listed twice
  std::map<std::string, VertexId> vertex_of_id;
  std::set<std::string> switch_names;
  // A name the dump uses for two kinds of thing (a host called like a switch) is an input error.
  const auto add_vertex = [&](const NodeBlock& node, VertexKind kind, const std::string& name, VertexId host,
                              int index) {
    const VertexId existing = graph.find(name);
    if (existing != no_vertex && graph.vertex(existing).kind != kind) {
      throw_input_error(source.path, node.line,
                        fmt::format("a {} name not used for a {}", name_of(kind), name_of(graph.vertex(existing).kind)),
                        quote_input(name));
    }
    return graph.add_vertex(kind, name, host, index);
  };
  // Descriptions shared by several nodes name none of them: those nodes are told apart by GUID.
  std::map<std::string, std::size_t> description_uses;
  for (const auto& [id, node] : nodes) ++description_uses[std::string(node.is_switch ? "S" : "H") + node.description];
  std::map<std::string, std::size_t> shared_ca_descriptions;
  struct CaName {
    std::string host;
    std::string nic;
    int ordinal = 0;
  };
  std::vector<CaName> ca_names;  // in the order of `nodes`
  for (const auto& [id, node] : nodes) {
    if (node.is_switch) continue;
    const bool shared = description_uses["H" + node.description] > 1;
    const std::vector<std::string_view> words = split_whitespace(node.description);
    CaName name{words.empty() ? id : std::string(words[0]), words.size() > 1 ? std::string(words[1]) : id};
    if (shared && !node.description.empty()) {
      ++shared_ca_descriptions[node.description];
      name = {"ca-" + id.substr(2), words.empty() ? id : std::string(words[0])};
    }
    if (name.host.find('/') != std::string::npos || name.nic.find('/') != std::string::npos) {
      throw_input_error(source.path, node.line, "a CA description \"HOST DEVICE\" without '/'",
                        quote_input(node.description));
    }
    ca_names.push_back(std::move(name));
  }
  // A host's NICs are numbered in the order of their device names, digits as numbers (mlx5_2
  // before mlx5_10): rails pair NIC k of one host with NIC k of the next, as NCCL pairs devices.
  std::vector<std::uint32_t> by_name(ca_names.size());
  std::iota(by_name.begin(), by_name.end(), 0u);
  std::sort(by_name.begin(), by_name.end(), [&](std::uint32_t a, std::uint32_t b) {
    const CaName& x = ca_names[a];
    const CaName& y = ca_names[b];
    return x.host != y.host ? x.host < y.host : natural_less(x.nic, y.nic);
  });
  bool hosts_with_several_nics = false;
  for (std::size_t k = 1; k < by_name.size(); ++k) {
    const CaName& previous = ca_names[by_name[k - 1]];
    CaName& next = ca_names[by_name[k]];
    if (previous.host != next.host) continue;
    next.ordinal = previous.ordinal + (natural_less(previous.nic, next.nic) ? 1 : 0);
    hosts_with_several_nics = true;
  }
  if (hosts_with_several_nics) {
    graph.add_assumption(
        fmt::format("{}: a host's NICs are ordered by device name (mlx5_2 before mlx5_10); ibnetdiscover "
                    "states no PCI order, so rail k is taken to be each host's k-th NIC",
                    source.path));
  }
  // Forwarding tables name a switch by its node GUID and an adapter by its port GUIDs.
  const auto hex_guid = [](std::string_view hex) { return to_unsigned_hex(hex); };
  std::size_t ca_index = 0;
  for (const auto& [id, node] : nodes) {
    if (!node.is_switch) {
      const CaName& name = ca_names[ca_index++];
      const VertexId host = add_vertex(node, VertexKind::host, name.host, no_vertex, -1);
      vertex_of_id[id] = add_vertex(node, VertexKind::nic, name.host + "/" + name.nic, host, name.ordinal);
      continue;
    }
    // "MF0;leaf01:MQM9700/U1" -> "leaf01"; an undescribed switch keeps its id.
    std::string name = node.description;
    const std::size_t semicolon = name.find(';');
    if (semicolon != std::string::npos) name = name.substr(semicolon + 1);
    name = name.substr(0, name.find(':'));
    if (trim(name).empty() || name.find('/') != std::string::npos) name = id;
    if (description_uses["S" + node.description] > 1 || !switch_names.insert(name).second) name += "-" + id.substr(2);
    vertex_of_id[id] = add_vertex(node, VertexKind::fabric_switch, name, no_vertex, -1);
    if (const std::optional<std::uint64_t> guid = hex_guid(std::string_view(id).substr(2)))
      graph.add_guid(vertex_of_id[id], *guid);
  }
  state_switch_attached_cas(graph, source.path, switch_attached);
  if (links_without_rate > 0) {
    graph.add_assumption(fmt::format("{}: an ibsim fabric file states no link rates: ibsim simulates every link at "
                                     "4xSDR, so its {} port line(s) are taken at 4xSDR",
                                     source.path, links_without_rate));
  }
  for (const auto& [description, count] : shared_ca_descriptions) {
    graph.add_assumption(fmt::format("{}: {} CAs share the description \"{}\" (a driver default, not a host name): "
                                     "each is its own host, named ca-<GUID>",
                                     source.path, count, description));
  }
  // Every cable is listed from both ends: the first mention makes the link, the second checks it.
  std::map<std::pair<std::pair<std::string, long long>, std::pair<std::string, long long>>,
           std::pair<LinkId, const PortLine*>>
      cables;
  constexpr std::size_t max_named_mismatches = 32;
  std::size_t mismatched_links = 0;
  const auto end_name = [&](const std::string& id, long long port) {
    return fmt::format("{}[{}]", graph.vertex(vertex_of_id.at(id)).name, port);
  };
  for (const PortLine& port : ports) {
    const auto peer = vertex_of_id.find(port.peer_id);
    if (peer == vertex_of_id.end()) {
      throw_input_error(source.path, port.line, "a peer GUID that has its own Switch or Ca block",
                        quote_input(port.peer_id));
    }
    const auto near_end = std::make_pair(port.node_id, port.port);
    const auto far_end = std::make_pair(port.peer_id, port.peer_port);
    const auto cable = near_end < far_end ? std::make_pair(near_end, far_end) : std::make_pair(far_end, near_end);
    if (port.node_id[0] == 'H' && !port.port_guid.empty()) {
      if (const std::optional<std::uint64_t> guid = hex_guid(port.port_guid))
        graph.add_guid(vertex_of_id[port.node_id], *guid);
    }
    const auto [it, first_mention] = cables.try_emplace(cable, LinkId{0}, &port);
    if (first_mention) {
      it->second.first = graph.add_link(vertex_of_id[port.node_id], peer->second, port.spec);
      graph.set_cable_ports(it->second.first, {static_cast<int>(port.port), static_cast<int>(port.peer_port)});
      continue;
    }
    const PortLine& other = *it->second.second;
    if (other.width_speed == port.width_speed) continue;
    const PortLine& lower = port.spec.capacity_gbps < other.spec.capacity_gbps ? port : other;
    graph.set_link_spec(it->second.first, lower.spec);
    // A fabric-wide problem (a whole switch down-trained) is named link by link up to a limit.
    if (++mismatched_links > max_named_mismatches) continue;
    graph.add_assumption(fmt::format(
        "{}: lines {} and {}: the ends of one link disagree: {} reports {}, {} reports {}; taken at the lower, {} "
        "(a link trained below its rate)",
        source.path, other.line, port.line, end_name(other.node_id, other.port), other.width_speed,
        end_name(port.node_id, port.port), port.width_speed, lower.width_speed));
  }
  if (mismatched_links > max_named_mismatches) {
    graph.add_assumption(fmt::format("{}: {} more links whose ends disagree, each taken at the lower rate", source.path,
                                     mismatched_links - max_named_mismatches));
  }
  // Tiers by distance from the leaves.
  std::deque<VertexId> frontier;
  std::map<VertexId, int> tier;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).kind != VertexKind::fabric_switch) continue;
    for (const LinkId l : graph.links_of(v)) {
      if (graph.vertex(graph.link(l).other_end(v)).kind == VertexKind::nic && !tier.contains(v)) {
        tier[v] = 1;
        frontier.push_back(v);
      }
    }
  }
  while (!frontier.empty()) {
    const VertexId v = frontier.front();
    frontier.pop_front();
    for (const LinkId l : graph.links_of(v)) {
      const VertexId w = graph.link(l).other_end(v);
      if (graph.vertex(w).kind == VertexKind::fabric_switch && !tier.contains(w)) {
        tier[w] = std::min(tier[v] + 1, static_cast<int>(SwitchTier::core));
        frontier.push_back(w);
      }
    }
  }
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).kind == VertexKind::fabric_switch) {
      graph.set_tier(v, static_cast<SwitchTier>(tier.contains(v) ? tier[v] : 1));
    }
  }
  return graph;
}

Graph parse_ibnetdiscover(const SourceText& source) { return parse_fabric_dump(source, Dialect::ibnetdiscover); }
Graph parse_ibsim(const SourceText& source) { return parse_fabric_dump(source, Dialect::ibsim); }

// A `Switch N "name"` or `Hca N "name"` header whose names are not GUIDs.
int sniff_ibsim(std::string_view text) {
  const std::string_view head = text.substr(0, 8192);
  if (head.find("\"S-") != std::string_view::npos || head.find("\"H-") != std::string_view::npos) return 0;
  for (const NumberedLine& line : split_lines(head)) {
    const std::vector<std::string_view> tokens = split_whitespace(line.text);
    if (tokens.size() < 3 || (tokens[0] != "Switch" && tokens[0] != "Hca") || !to_integer(tokens[1])) continue;
    return tokens[2].starts_with('"') ? 85 : 0;
  }
  return 0;
}

int sniff_ibnetdiscover(std::string_view text) {
  const std::string_view head = text.substr(0, 8192);
  const bool has_guid_keys =
      head.find("switchguid=") != std::string_view::npos || head.find("caguid=") != std::string_view::npos;
  const bool has_blocks = head.find("Switch\t") != std::string_view::npos ||
                          head.find("\nCa\t") != std::string_view::npos ||
                          head.find("Switch ") != std::string_view::npos;
  return has_guid_keys ? 90 : (has_blocks && head.find("\"S-") != std::string_view::npos ? 70 : 0);
}

const Registrar<TopologyFormat> registrar{
    {"ibnetdiscover", "ibnetdiscover output (Switch and Ca blocks, ports with peer GUIDs and width/speed)",
     sniff_ibnetdiscover, parse_ibnetdiscover}};
const Registrar<TopologyFormat> ibsim_registrar{
    {"ibsim", "ibsim fabric file (ibnetdiscover's layout with node names, Hca blocks, no link rates)", sniff_ibsim,
     parse_ibsim}};

}  // namespace
}  // namespace fb::topo
