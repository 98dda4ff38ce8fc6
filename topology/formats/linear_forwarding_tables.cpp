// Linear forwarding tables as infiniband-diags and OpenSM print them: one block per switch, one
// line per destination LID with the port the switch sends it out of.
//
// `ibroute` / `dump_fts` (infiniband-diags 44):
//   Unicast lids [0x0-0xe] of switch Lid 6 guid 0x0000000000200003 (leaf04):
//     Lid  Out   Destination
//          Port     Info
//   0x0001 003 : (Channel Adapter portguid 0x0000000000100001: 'h001 mlx5_0')
//   14 valid lids dumped
// (dump_fts names the switch by its directed route, "of switch DR path slid 0; dlid 0; 0,1,3,7
// guid ...", and prints one such block per switch.)
//
// OpenSM's opensm-lfts.dump (-D 0x43, OpenSM 3.3):
//   Unicast lids [0-14] of switch Lid 2 guid 0x0000000000200000 ('leaf01'):
//   0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'h001 mlx5_0'
//   14 lids dumped
//
// Port 0 is the switch itself. A destination is named by its port GUID, which the topology's
// ibnetdiscover output states too: that is how a LID becomes an adapter of the graph.

#include "common/input_error.hpp"
#include "common/text_scan.hpp"
#include "topology/forwarding_tables.hpp"

#include <fmt/format.h>

namespace fb::topo {
namespace {

constexpr std::string_view block_start = "Unicast lids [";

// "... guid 0x0000000000200003 (leaf04):" or "... ('leaf01'):".
ForwardingTable table_header(const SourceText& source, const NumberedLine& line, std::string_view text) {
  ForwardingTable table;
  const std::size_t guid_at = text.rfind(" guid ");
  const std::size_t open = text.find('(', guid_at == std::string_view::npos ? 0 : guid_at);
  const std::string_view guid_token =
      guid_at == std::string_view::npos
          ? std::string_view()
          : trim(text.substr(guid_at + 6, open == std::string_view::npos ? open : open - guid_at - 6));
  const std::optional<std::uint64_t> guid = to_unsigned_hex(guid_token);
  if (!guid)
    throw_input_error(source.path, line.number, "\"of switch ... guid 0x<hex>\" in the table header",
                      quote_input(text));
  table.switch_guid = *guid;
  const std::size_t close = text.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    std::string_view description = text.substr(open + 1, close - open - 1);
    if (description.size() >= 2 && description.front() == '\'' && description.back() == '\'')
      description = description.substr(1, description.size() - 2);
    table.switch_description = std::string(description);
  }
  return table;
}

// "0x0001 003 : (Channel Adapter portguid 0x...: 'h001 mlx5_0')" with `separator` ':' or '#'.
void table_row(const SourceText& source, const NumberedLine& line, std::string_view text, char separator,
               ForwardingTables& tables) {
  const std::vector<std::string_view> tokens = split_whitespace(text);
  const std::optional<std::uint64_t> lid = tokens.empty() ? std::nullopt : to_unsigned_hex(tokens[0]);
  const std::optional<std::int64_t> port = tokens.size() < 2 ? std::nullopt : to_integer(tokens[1]);
  if (!lid || *lid > 0xffff || !port || *port < 0 || *port > 255)
    throw_input_error(source.path, line.number, "a row \"0x<LID> <port>\"", quote_input(text));
  if (tokens.size() < 3 || tokens[2].front() != separator)
    throw_input_error(source.path, line.number, fmt::format("'{}' after the LID and port", separator),
                      quote_input(text));
  tables.switches.back().out_port_by_lid[static_cast<std::uint32_t>(*lid)] = static_cast<int>(*port);
  const std::size_t guid_at = text.find("portguid ");
  if (guid_at == std::string_view::npos) return;
  std::string_view guid_token = text.substr(guid_at + 9);
  guid_token = guid_token.substr(0, guid_token.find_first_of(": )"));
  if (const std::optional<std::uint64_t> guid = to_unsigned_hex(guid_token))
    tables.lid_by_port_guid[*guid] = static_cast<std::uint32_t>(*lid);
}

ForwardingTables parse_tables(const SourceText& source, char separator) {
  ForwardingTables tables;
  for (const NumberedLine& line : split_lines(source.text)) {
    const std::string_view text = trim(line.text);
    if (text.empty() || text.starts_with("ibwarn:") || text.starts_with("Lid ") || text.starts_with("Port ") ||
        text.ends_with("lids dumped"))
      continue;
    if (text.starts_with(block_start)) {
      tables.switches.push_back(table_header(source, line, text));
      continue;
    }
    if (tables.switches.empty())
      throw_input_error(source.path, line.number, "\"Unicast lids [...] of switch ...\" before the rows",
                        quote_input(text));
    table_row(source, line, text, separator, tables);
  }
  if (tables.switches.empty()) throw_input_error(source.path, 1, "at least one \"Unicast lids\" block", "none");
  return tables;
}

// How sure: a table header, then a row with this separator.
int sniff_with(std::string_view text, std::string_view row_marker) {
  const std::string_view head = text.substr(0, 8192);
  if (!head.starts_with(block_start) && head.find(fmt::format("\n{}", block_start)) == std::string_view::npos) return 0;
  return head.find(row_marker) != std::string_view::npos ? 90 : 20;
}

const Registrar<ForwardingTableFormat> ibroute_registrar{
    {"ibroute", "ibroute or dump_fts output (infiniband-diags): each switch's LIDs and out ports",
     [](std::string_view text) { return sniff_with(text, " : ("); },
     [](const SourceText& source) { return parse_tables(source, ':'); }}};

const Registrar<ForwardingTableFormat> opensm_registrar{
    {"opensm-lfts", "OpenSM's opensm-lfts.dump (-D 0x43): the tables the subnet manager programmed",
     [](std::string_view text) { return sniff_with(text, " # "); },
     [](const SourceText& source) { return parse_tables(source, '#'); }}};

}  // namespace
}  // namespace fb::topo
