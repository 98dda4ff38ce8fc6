// Forwarding tables read from genuine dumps (tests/topology/fixtures/forwarding/SOURCES.md): for
// each routing engine, the route the tables give every host pair is, port for port, the path the
// real ibtracert reported on the same fabric.

#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "common/text_scan.hpp"
#include "test_support.hpp"
#include "topology/forwarding_tables.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fb::topo {
namespace {

std::string fixture(const std::string& engine, const std::string& file) {
  return std::string(TOPOLOGY_FIXTURES_DIR) + "/forwarding/" + engine + "/" + file;
}

// The hops of one path: (node as the graph names it, the port the packet leaves it by).
using Hops = std::vector<std::pair<std::string, int>>;

// "h008 mlx5_0" -> "h008/mlx5_0"; a switch keeps its description.
std::string graph_name(std::string description) {
  const std::size_t space = description.find(' ');
  if (space != std::string::npos) description[space] = '/';
  return description;
}

std::string quoted_at_end(std::string_view line) {
  const std::size_t close = line.rfind('"');
  const std::size_t open = line.rfind('"', close - 1);
  return std::string(line.substr(open + 1, close - open - 1));
}

// ibtracert's blocks: "From ca {...} ... "SRC"", "[OUT] -> switch port {...}[IN] ... "NEXT"", ..., "To ca ...".
std::map<std::pair<std::string, std::string>, Hops> ibtracert_paths(const std::string& path) {
  std::map<std::pair<std::string, std::string>, Hops> paths;
  std::string source;
  Hops hops;
  std::string at;
  const std::string text_of_file = read_text_file(path);
  for (const NumberedLine& line : split_lines(text_of_file)) {
    const std::string_view text = trim(line.text);
    if (text.starts_with("From ca")) {
      source = at = graph_name(quoted_at_end(text));
      hops.clear();
    } else if (text.starts_with("[")) {
      hops.emplace_back(at, static_cast<int>(*to_integer(text.substr(1, text.find(']') - 1))));
      at = graph_name(quoted_at_end(text));
    } else if (text.starts_with("To ca")) {
      paths[{source, graph_name(quoted_at_end(text))}] = hops;
    }
  }
  return paths;
}

Hops table_hops(const Graph& graph, const Route& route) {
  Hops hops;
  for (const LinkUse& use : route.uses) {
    const Link& link = graph.link(use.link);
    const CablePorts ports = *graph.cable_ports(use.link);
    hops.emplace_back(graph.vertex(use.from_a ? link.a : link.b).name, use.from_a ? ports.a : ports.b);
  }
  return hops;
}

class ForwardingTablesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ForwardingTablesTest, EveryHostPairTakesThePathIbtracertReported) {
  const std::string engine = GetParam();
  const Graph graph = load_topology({fixture(engine, "ibnetdiscover.txt")});
  const auto expected = ibtracert_paths(fixture(engine, "ibtracert.txt"));
  ASSERT_EQ(expected.size(), 56u);  // 8 hosts, every ordered pair
  for (const std::string file : {"dump_fts.txt", "opensm-lfts.dump"}) {
    SCOPED_TRACE(file);
    const ForwardingTables tables = load_forwarding_tables(fixture(engine, file));
    ASSERT_EQ(tables.switches.size(), 6u);
    EXPECT_EQ(tables.lid_by_port_guid.size(), 14u);  // 8 adapters and 6 switches
    const TableRouter router(graph, tables);
    for (const auto& [pair, hops] : expected) {
      SCOPED_TRACE(pair.first + " -> " + pair.second);
      const VertexId src = graph.find(pair.first);
      const VertexId dst = graph.find(pair.second);
      ASSERT_NE(src, no_vertex);
      ASSERT_NE(dst, no_vertex);
      const std::optional<Route> route = router.route(src, dst);
      ASSERT_TRUE(route) << router.why_unrouted(src, dst);
      EXPECT_EQ(table_hops(graph, *route), hops);
      for (const LinkUse& use : route->uses) EXPECT_EQ(use.fraction, 1.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OpenSmEngines, ForwardingTablesTest, ::testing::Values("minhop", "ftree"));

// The engines differ, so a reader that ignored the tables (or one engine's file read for the
// other) could not pass both: 32 of the 56 paths differ, 24 of them in the source leaf's uplink.
TEST(ForwardingTables, TheTwoEnginesRouteDifferently) {
  const auto minhop = ibtracert_paths(fixture("minhop", "ibtracert.txt"));
  const auto ftree = ibtracert_paths(fixture("ftree", "ibtracert.txt"));
  int paths_differ = 0;
  int uplinks_differ = 0;
  for (const auto& [pair, hops] : minhop) {
    paths_differ += hops != ftree.at(pair) ? 1 : 0;
    uplinks_differ += hops.size() > 2 && hops[1] != ftree.at(pair)[1] ? 1 : 0;
  }
  EXPECT_EQ(paths_differ, 32);
  EXPECT_EQ(uplinks_differ, 24);
}

TEST(ForwardingTables, IbnetdiscoverStatesEveryCablesPortsAndGuids) {
  const Graph graph = load_topology({fixture("ftree", "ibnetdiscover.txt")});
  // h007's adapter sits in leaf04 port 1 (fabric.net); its port GUID is 0x10000d.
  const VertexId nic = graph.find("h007/mlx5_0");
  ASSERT_NE(nic, no_vertex);
  EXPECT_EQ(graph.find_guid(0x10000d), nic);
  EXPECT_EQ(graph.find_guid(0x200003), graph.find("leaf04"));
  const std::optional<LinkId> cable = graph.find_link(nic, graph.find("leaf04"));
  ASSERT_TRUE(cable);
  const CablePorts ports = *graph.cable_ports(*cable);
  EXPECT_EQ(graph.link(*cable).a == nic ? ports.b : ports.a, 1);
  EXPECT_EQ(graph.link(*cable).a == nic ? ports.a : ports.b, 1);
}

TEST(ForwardingTables, BadRowsNameTheLine) {
  const std::string text = "Unicast lids [0-14] of switch Lid 2 guid 0x0000000000200000 ('leaf01'):\n0x0001 001 # "
                           "Channel Adapter\n0x00zz 1 #\n";
  try {
    parse_forwarding_tables({"lfts.dump", text}, "opensm-lfts");
    FAIL() << "no error";
  } catch (const InputError& error) { EXPECT_THAT(error.what(), ::testing::HasSubstr("lfts.dump:3:")); }
  EXPECT_THROW(parse_forwarding_tables({"x", "0x0001 001 : (Switch)\n"}), InputError);
  EXPECT_THROW(parse_forwarding_tables({"x", "Unicast lids [0-1] of switch Lid 2 guid 0x1 ('a'):\n"}, "nope"),
               UsageError);
}

TEST(ForwardingTables, TablesOfAnotherFabricAreRefused) {
  const Graph graph = load_topology({fixture("ftree", "ibnetdiscover.txt")});
  ForwardingTables tables = load_forwarding_tables(fixture("ftree", "dump_fts.txt"));
  tables.switches.front().switch_guid = 0xdead;
  try {
    const TableRouter router(graph, tables);
    FAIL() << "no error";
  } catch (const InputError& error) { EXPECT_THAT(error.what(), ::testing::HasSubstr("0x000000000000dead")); }
}

}  // namespace
}  // namespace fb::topo
