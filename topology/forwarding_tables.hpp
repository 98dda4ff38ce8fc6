#pragma once
// Forwarding tables: where each InfiniBand switch sends a packet for each destination LID, as the
// subnet manager programmed them (dump_fts, ibroute, OpenSM's opensm-lfts.dump). With them a
// pair's route is the one path its packets take, not a spread over equal-cost uplinks: the
// diagnosis can name the one cable of a leaf-spine bundle that a slow pair crossed.
//
// Formats register themselves like topology formats (topology/formats/), one file each.

#include "common/registry.hpp"
#include "topology/format_registry.hpp"
#include "topology/graph.hpp"
#include "topology/routing.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fb::topo {

struct ForwardingTable {
  std::uint64_t switch_guid = 0;
  std::string switch_description;                          // as the dump prints it, for messages
  std::unordered_map<std::uint32_t, int> out_port_by_lid;  // port 0: the switch itself
};

struct ForwardingTables {
  std::vector<ForwardingTable> switches;
  // The destinations the tables name: a port GUID (an adapter's port, a switch's port 0) and its LID.
  std::unordered_map<std::uint64_t, std::uint32_t> lid_by_port_guid;
};

struct ForwardingTableFormat {
  static constexpr std::string_view registry_kind = "forwarding table format";
  std::string name;  // what --routes-format takes
  std::string summary;
  std::function<int(std::string_view text)> sniff;  // 0 (not mine) to 100 (certainly mine)
  // Throws fb::InputError "FILE:LINE: expected ..., got ..." on malformed input.
  std::function<ForwardingTables(const SourceText& source)> parse;
};
using ForwardingTableFormatRegistry = Registry<ForwardingTableFormat>;

// Parses with the named format, or ("auto") with the format whose sniff is most certain.
ForwardingTables parse_forwarding_tables(const SourceText& source, std::string_view format_name = "auto");
// Reads and parses one file; InputError when it cannot be read or parsed.
ForwardingTables load_forwarding_tables(const std::string& path, std::string_view format_name = "auto");

// Routes by the tables over a graph read from the same fabric's ibnetdiscover output (which
// states the GUIDs and the port of every cable end).
class TableRouter {
 public:
  // Throws fb::InputError when the tables name a switch the graph does not have, or the graph
  // carries no cable ports (it was not read from ibnetdiscover).
  TableRouter(const Graph& graph, const ForwardingTables& tables);

  // The one path from an adapter to another, each link used whole. Empty when the tables do not
  // route the destination (no LID, no entry, a port without a cable) or the path loops.
  std::optional<Route> route(VertexId src_nic, VertexId dst_nic) const;
  // Why route() would be empty for this pair, in words; empty when it is not.
  std::string why_unrouted(VertexId src_nic, VertexId dst_nic) const;

 private:
  const Graph& graph_;
  std::unordered_map<VertexId, const ForwardingTable*> table_of_switch_;
  std::unordered_map<VertexId, std::uint32_t> lid_of_vertex_;
  // (vertex, port) -> the link plugged into it.
  std::unordered_map<std::uint64_t, LinkId> link_at_port_;
  static std::uint64_t port_key(VertexId v, int port) {
    return (static_cast<std::uint64_t>(v) << 16) | static_cast<std::uint16_t>(port);
  }
  std::optional<Route> walk(VertexId src_nic, VertexId dst_nic, std::string* why) const;
};

// The route a pair's flow takes: the tables' path where they give one, else the model's ECMP
// spread. Empty when there is none.
std::optional<Route> pair_route(const Graph& graph, const TableRouter* tables, VertexId src_nic, VertexId dst_nic);

}  // namespace fb::topo
