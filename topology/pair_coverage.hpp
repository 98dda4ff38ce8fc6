#pragma once
// Which host pairs a fabric check measures first, so that every directed link a pair of the hosts
// can cross is crossed at least once. A link no measured pair crossed was not measured at all:
// the diagnosis lists it as uncovered, never as healthy (diagnosis/diagnosis.hpp).
//
// The first pass is the first pairings of the pairwise tournament over the hosts in the order of
// their place in the fabric (leaf by leaf, each leaf's hosts in natural name order), which on a fat
// tree sends each leaf's hosts to the hosts of another leaf, one destination per host, so a
// destination-routed fabric spreads them over the leaf's uplinks; then, for every directed link
// still not crossed, a pair whose route crosses it, searched outward from the link's two ends.

#include "common/pair_schedule.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace fb::topo {

// The hosts leaf by leaf: by the switch their first NIC is cabled to (switches in natural name
// order), each switch's hosts in natural name order (h2 before h10). Hosts without a NIC in the
// graph come last, in natural order.
std::vector<std::string> hosts_in_fabric_order(const Graph& graph, std::span<const std::string> hosts);

// The directed links (directed_link_index) that up-down routes between these hosts can cross: the
// cables of their first NICs both ways (pairs leave a host through its first NIC), and each link
// between switches that climbs from a switch with some of the hosts below it to one with more of
// them below, or goes down the other way. Ascending.
std::vector<std::size_t> crossable_links(const Graph& graph, std::span<const std::string> hosts);

// Of the directed `links`, those some pair of these hosts crosses on these routes (the tables'
// where given, else the model's ECMP spread). Destination-routed tables leave some cables unused:
// a leaf with 2 hosts and 4 cables down to it from the spines receives over 2 of them at most.
std::vector<std::size_t> links_some_pair_crosses(const Graph& graph, std::span<const std::string> hosts,
                                                 const TableRouter* tables, std::span<const std::size_t> links);

struct FirstPass {
  std::vector<std::string> hosts;     // in fabric order: what the tournament seats
  std::vector<HostPairRound> rounds;  // the pairings' rounds, then the rounds of the added pairs
  std::size_t crossable_links = 0;    // directed links some pair of the hosts crosses on these routes
  std::size_t pairing_pairs = 0;      // pairs of the tournament's first pairings
  std::size_t added_pairs = 0;        // pairs added for links the pairings did not cross
  std::vector<std::size_t> unrouted;  // links of crossable_links() that no route takes
};

// `pairings` of the tournament (each in both directions: 2 * pairings rounds), then the added
// pairs, packed into rounds in which no host and no directed link is used twice. Routes are the
// tables' where given, else the model's ECMP spread. Hosts the graph has no NIC for are left out.
FirstPass plan_first_pass(const Graph& graph, std::span<const std::string> hosts, const TableRouter* tables,
                          int pairings = 2);

// "leaf01 -> spine03": a directed link (directed_link_index) by its ends, in the direction of travel.
std::string directed_link_name(const Graph& graph, std::size_t directed_link);

}  // namespace fb::topo
