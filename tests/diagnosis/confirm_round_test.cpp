// Diagnosis on forwarding-table routes and the confirm round, on the genuine 8-host fabric routed
// by OpenSM's ftree (tests/topology/fixtures/forwarding/SOURCES.md): leaf01 has two parallel cables
// to spine01, which the model's ECMP spread cannot tell apart and the tables can.

#include "common/errors.hpp"
#include "common/pair_schedule.hpp"
#include "diagnosis/confirm_plan.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/pair_simulation.hpp"
#include "diagnosis/repair_ticket.hpp"
#include "test_support.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/pair_coverage.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace fb::topo {

using diagnosis::Diagnosis;
using diagnosis::Finding;
using diagnosis::ConfirmPlan;
using diagnosis::plan_confirm;
using diagnosis::format_pairs_file;
using diagnosis::diagnose;
using diagnosis::RepairTicket;
using diagnosis::repair_ticket;
namespace {

std::string fixture(const std::string& file) {
  return std::string(TOPOLOGY_FIXTURES_DIR) + "/forwarding/ftree/" + file;
}

struct RoutedFabric {
  Graph graph = load_topology({fixture("ibnetdiscover.txt")});
  ForwardingTables tables = load_forwarding_tables(fixture("opensm-lfts.dump"));
  TableRouter router{graph, tables};
  std::vector<std::string> hosts{"h001", "h002", "h003", "h004", "h005", "h006", "h007", "h008"};

  // The parallel cables between two switches, in the order ibnetdiscover listed them.
  std::vector<LinkId> cables(const std::string& a, const std::string& b) const {
    std::vector<LinkId> found;
    for (const LinkId l : graph.links_of(graph.find(a)))
      if (graph.link(l).other_end(graph.find(a)) == graph.find(b)) found.push_back(l);
    return found;
  }

  std::vector<ResultRow> measure(const Graph& truth, std::span<const PairRound> rounds, const std::string& run_id,
                                 std::uint64_t seed) const {
    std::vector<ResultRow> rows =
        simulate_pair_rounds(truth, hosts, rounds, {.noise_fraction = 0.03, .seed = seed, .tables = &router});
    for (ResultRow& row : rows) row.run_id = run_id;
    return rows;
  }

  std::vector<PairRound> rounds_of(std::span<const HostPairRound> host_rounds) const {
    std::vector<PairRound> rounds;
    for (const auto& round : host_rounds) {
      PairRound pair_round{{}, static_cast<int>(rounds.size()) + 1};
      for (const auto& [src, dst] : round) {
        const auto index = [&](const std::string& host) {
          return static_cast<int>(std::find(hosts.begin(), hosts.end(), host) - hosts.begin());
        };
        pair_round.pairs.push_back({index(src), index(dst)});
      }
      rounds.push_back(std::move(pair_round));
    }
    return rounds;
  }

  std::vector<const Finding*> degraded_links(const Diagnosis& diagnosis) const {
    std::vector<const Finding*> found;
    for (const Finding& finding : diagnosis.findings)
      if (finding.kind == "degraded_link") found.push_back(&finding);
    return found;
  }
};

std::vector<PairRound> all_pairings(std::size_t hosts) {
  std::vector<int> endpoints(hosts);
  std::iota(endpoints.begin(), endpoints.end(), 0);
  return pairwise_rounds(endpoints);
}

TEST(ConfirmRound, TablesNameTheOneCableOfABundleThatIsSlow) {
  const RoutedFabric fabric;
  const std::vector<LinkId> bundle = fabric.cables("leaf01", "spine01");
  ASSERT_EQ(bundle.size(), 2u);
  Graph truth = fabric.graph;
  truth.set_link_capacity(bundle[1], fabric.graph.link(bundle[1]).spec.capacity_gbps / 4);
  const std::vector<ResultRow> rows = fabric.measure(truth, all_pairings(8), "first", 7);

  const Diagnosis routed = diagnose(fabric.graph, rows, {}, &fabric.router);
  EXPECT_TRUE(routed.tables_given);
  EXPECT_EQ(routed.flows_on_table_routes, rows.size());
  const auto found = fabric.degraded_links(routed);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(*found.front()->link, bundle[1]);
  EXPECT_TRUE(found.front()->parallel_links.empty());
  // The ticket names the ports ibnetdiscover states: leaf01 port 4 to spine01 port 2 (fabric.net).
  const RepairTicket ticket = repair_ticket(fabric.graph, *found.front());
  EXPECT_THAT(ticket.action, ::testing::HasSubstr("leaf01 port 4"));
  EXPECT_THAT(ticket.action, ::testing::HasSubstr("spine01 port 2"));
}

// h005's cable and leaf01 port 4's cable to spine01 at a quarter. On these tables only pairs into
// h005 cross that cable towards spine01, so h005's cable explains every one of its slow pairs: the
// host cable is named, and the spine cable is neither named nor cleared but unverified, as is
// every other link only h005's pairs cross (the spines' cables down to h005). Alone, the same
// spine cable is named and nothing is left unverified.
TEST(ConfirmRound, ACableOnlyAFaultyHostsPairsCrossIsUnverifiedNotHealthy) {
  const RoutedFabric fabric;
  const LinkId spine_cable = fabric.cables("leaf01", "spine01").at(1);
  const LinkId host_cable = fabric.cables("leaf03", "h005/mlx5_0").at(0);
  Graph spine_only = fabric.graph;
  spine_only.set_link_capacity(spine_cable, fabric.graph.link(spine_cable).spec.capacity_gbps / 4);
  Graph both = spine_only;
  both.set_link_capacity(host_cable, fabric.graph.link(host_cable).spec.capacity_gbps / 4);

  const Diagnosis masked = diagnose(fabric.graph, fabric.measure(both, all_pairings(8), "both", 5), {}, &fabric.router);
  ASSERT_EQ(masked.findings.size(), 1u);
  EXPECT_EQ(masked.findings[0].link, host_cable);
  std::map<std::size_t, bool> crossed_without_h005;  // by directed link, h005's own cable aside
  for (const std::string& src : fabric.hosts)
    for (const std::string& dst : fabric.hosts) {
      if (src == dst) continue;
      const Route route = *fabric.router.route(fabric.graph.find(src + "/mlx5_0"), fabric.graph.find(dst + "/mlx5_0"));
      for (const LinkUse& use : route.uses)
        if (use.link != host_cable) crossed_without_h005[directed_link_index(use)] |= src != "h005" && dst != "h005";
    }
  std::vector<std::size_t> only_h005;
  for (const auto& [directed, without_h005] : crossed_without_h005)
    if (!without_h005) only_h005.push_back(directed);
  EXPECT_EQ(masked.unverified_links, only_h005);
  std::vector<std::string> names;
  for (const std::size_t directed : masked.unverified_links)
    names.push_back(directed_link_name(fabric.graph, directed));
  EXPECT_THAT(names, ::testing::Contains("leaf01 -> spine01")) << fmt::format("{}", fmt::join(names, ", "));
  const bool leaf01_is_a = fabric.graph.link(spine_cable).a == fabric.graph.find("leaf01");
  EXPECT_THAT(masked.unverified_links, ::testing::Contains(2 * std::size_t{spine_cable} + (leaf01_is_a ? 0 : 1)));
  EXPECT_THAT(masked.blind_spots,
              ::testing::Contains(::testing::HasSubstr(
                  fmt::format("{} directed links measured pairs crossed, none at a healthy rate", only_h005.size()))));

  const Diagnosis alone =
      diagnose(fabric.graph, fabric.measure(spine_only, all_pairings(8), "alone", 5), {}, &fabric.router);
  ASSERT_EQ(alone.findings.size(), 1u);
  EXPECT_EQ(alone.findings[0].link, spine_cable);
  EXPECT_THAT(alone.unverified_links, ::testing::IsEmpty());
}

// A bundle the first pass could not split: the plan crosses each cable alone, twice, and the
// second diagnosis over both runs names the slow one.
TEST(ConfirmRound, PlanSeparatesTheCablesOfABundleAndTheSecondDiagnosisNamesOne) {
  const RoutedFabric fabric;
  const std::vector<LinkId> bundle = fabric.cables("leaf01", "spine01");
  Graph truth = fabric.graph;
  truth.set_link_capacity(bundle[1], fabric.graph.link(bundle[1]).spec.capacity_gbps / 4);
  Diagnosis first;
  Finding suspect;
  suspect.kind = "degraded_link";
  suspect.link = bundle[0];
  suspect.parallel_links = {bundle[1]};
  suspect.subject = "leaf01 <-> spine01, or one of 1 parallel links";
  first.findings.push_back(suspect);

  const ConfirmPlan plan = plan_confirm(fabric.graph, first, fabric.hosts, &fabric.router);
  std::map<LinkId, int> pairs_crossing;
  std::size_t pairs = 0;
  for (const auto& round : plan.rounds) {
    std::set<std::string> hosts_in_round;
    for (const auto& [src, dst] : round) {
      ++pairs;
      EXPECT_TRUE(hosts_in_round.insert(src).second && hosts_in_round.insert(dst).second) << src << " " << dst;
      const Route route = *fabric.router.route(fabric.graph.find(src + "/mlx5_0"), fabric.graph.find(dst + "/mlx5_0"));
      int crossed = 0;
      for (const LinkUse& use : route.uses)
        if (use.link == bundle[0] || use.link == bundle[1]) {
          ++pairs_crossing[use.link];
          ++crossed;
        }
      EXPECT_EQ(crossed, 1) << src << " -> " << dst;
    }
  }
  EXPECT_EQ(pairs, 4u);
  EXPECT_EQ(pairs_crossing[bundle[0]], 2);
  EXPECT_EQ(pairs_crossing[bundle[1]], 2);

  // Round trip through the file `run --pairs` reads.
  const std::vector<HostPairRound> reread = parse_host_pair_rounds("confirm.txt", format_pairs_file(plan));
  EXPECT_EQ(reread, plan.rounds);

  // First pass: one pairing only, so the slow cable is seen on few pairs; then the confirm round.
  const std::vector<PairRound> pairings = all_pairings(8);
  std::vector<ResultRow> rows = fabric.measure(truth, std::span(pairings).first(2), "first", 3);
  const std::vector<ResultRow> confirm = fabric.measure(truth, fabric.rounds_of(plan.rounds), "confirm", 4);
  rows.insert(rows.end(), confirm.begin(), confirm.end());
  const auto found = fabric.degraded_links(diagnose(fabric.graph, rows, {}, &fabric.router));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(*found.front()->link, bundle[1]);
  EXPECT_TRUE(found.front()->parallel_links.empty());
}

// h001's cable at a quarter both ways, seen on the first four pairings (what the emulated fabric's
// test runs): the pairs out of h001 name its cable alone, while the two pairs into it come from
// leaf04 over one path and cross three cables with no healthy pair to clear any. The one cable
// explains both directions: one finding, not a second one that sends the technician to a healthy
// leaf04 <-> spine01 cable first.
TEST(ConfirmRound, ACableSlowBothWaysIsOneFindingWhenOneDirectionNamesItAlone) {
  const RoutedFabric fabric;
  const LinkId host_cable = fabric.graph.links_of(*first_nic_of_host(fabric.graph, "h001")).front();
  Graph truth = fabric.graph;
  truth.set_link_capacity(host_cable, fabric.graph.link(host_cable).spec.capacity_gbps / 4);
  const std::vector<PairRound> pairings = all_pairings(8);
  const std::vector<ResultRow> rows = fabric.measure(truth, std::span(pairings).first(4), "first", 5);

  const Diagnosis diagnosis = diagnose(fabric.graph, rows, {}, &fabric.router);
  const auto found = fabric.degraded_links(diagnosis);
  ASSERT_EQ(found.size(), 1u) << found.back()->subject;
  EXPECT_EQ(*found.front()->link, host_cable);
  EXPECT_EQ(found.front()->direction, diagnosis::LinkDirection::both);
  EXPECT_TRUE(found.front()->parallel_links.empty());
  EXPECT_EQ(diagnosis.slow_flows_explained, diagnosis.slow_flows);
  // Its evidence has both directions' pairs.
  const auto has_pair = [&](std::string_view pair) {
    return std::any_of(found.front()->evidence.begin(), found.front()->evidence.end(),
                       [&](const std::string& line) { return line.find(pair) != std::string::npos; });
  };
  EXPECT_TRUE(has_pair("h001 -> h00")) << fmt::format("{}", fmt::join(found.front()->evidence, "\n"));
  EXPECT_TRUE(has_pair(" -> h001 ")) << fmt::format("{}", fmt::join(found.front()->evidence, "\n"));
}

TEST(ConfirmRound, WithoutTablesThePlanSaysWhyItCannotSplitABundle) {
  const RoutedFabric fabric;
  const std::vector<LinkId> bundle = fabric.cables("leaf01", "spine01");
  Diagnosis first;
  Finding suspect;
  suspect.kind = "degraded_link";
  suspect.link = bundle[0];
  suspect.parallel_links = {bundle[1]};
  suspect.subject = "leaf01 <-> spine01, or one of 1 parallel links";
  first.findings.push_back(suspect);
  const ConfirmPlan plan = plan_confirm(fabric.graph, first, fabric.hosts, nullptr);
  EXPECT_TRUE(plan.rounds.empty());
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes.front(), ::testing::HasSubstr("only ECMP routes are known"));
}

// Host names as a person reads them: h2 before h10, h1000 after h999 (a string sort puts it
// between h100 and h101), leading zeros ignored, the string order between equals.
TEST(FirstPass, NaturalOrderReadsNumbersAsNumbers) {
  std::vector<std::string> names{"h101", "h1000", "h10", "h2", "h100", "h999", "h02", "node3a", "node3", "leaf01"};
  std::sort(names.begin(), names.end(), natural_less);
  EXPECT_EQ(names, (std::vector<std::string>{"h02", "h2", "h10", "h100", "h101", "h999", "h1000", "leaf01", "node3",
                                             "node3a"}));
}

// One pairing of the tournament over the hosts in reverse order crosses only some of the fabric's
// directed links (the tables send each destination over one uplink); the first pass adds a pair
// for every link it left, so a healthy simulation of it leaves no link unmeasured.
TEST(FirstPass, CrossesEveryDirectedLinkAPairOfTheHostsCanCross) {
  const RoutedFabric fabric;
  std::vector<std::string> reversed(fabric.hosts.rbegin(), fabric.hosts.rend());
  std::vector<int> endpoints(reversed.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  std::vector<HostPairRound> plain;
  for (const PairRound& round : pairwise_rounds(endpoints, 1)) {
    plain.emplace_back();
    for (const RankPair& pair : round.pairs)
      plain.back().emplace_back(reversed[static_cast<std::size_t>(pair.src)],
                                reversed[static_cast<std::size_t>(pair.dst)]);
  }
  const Diagnosis plain_diagnosis =
      diagnose(fabric.graph, fabric.measure(fabric.graph, fabric.rounds_of(plain), "plain", 3), {}, &fabric.router);
  // 8 host cables and 16 leaf-spine cables (two between every leaf and spine), both ways; but
  // each leaf receives its 2 hosts' traffic over 2 of the 4 cables down to it (the tables route
  // by destination), so 8 directed links are on no route.
  EXPECT_EQ(plain_diagnosis.crossable_links, 2u * (8 + 16) - 8);
  EXPECT_FALSE(plain_diagnosis.uncovered_links.empty());

  const FirstPass pass = plan_first_pass(fabric.graph, reversed, &fabric.router, 1);
  EXPECT_EQ(pass.hosts, fabric.hosts);  // leaf by leaf, in natural order
  EXPECT_EQ(pass.pairing_pairs, 8u);
  EXPECT_GT(pass.added_pairs, 0u);
  EXPECT_EQ(pass.unrouted.size(), 8u);
  EXPECT_EQ(pass.crossable_links, plain_diagnosis.crossable_links);
  const Diagnosis covered =
      diagnose(fabric.graph, fabric.measure(fabric.graph, fabric.rounds_of(pass.rounds), "first", 3), {},
               &fabric.router);
  EXPECT_TRUE(covered.uncovered_links.empty()) << directed_link_name(fabric.graph, covered.uncovered_links.front());
  EXPECT_TRUE(covered.findings.empty());
}

// An exact finding still gets pairs that cross its cable (they confirm it and check the repair);
// a diagnosis without findings gets an empty plan that says so.
TEST(ConfirmRound, AnExactFindingGetsPairsAndNoFindingSaysThereIsNothingToConfirm) {
  const RoutedFabric fabric;
  const LinkId host_cable = fabric.graph.links_of(*first_nic_of_host(fabric.graph, "h003")).front();
  Diagnosis first;
  Finding exact;
  exact.kind = "degraded_link";
  exact.link = host_cable;
  exact.subject = "h003/mlx5_0 <-> leaf02 (both directions)";
  exact.evidence = {"one", "two", "three"};
  first.findings.push_back(exact);
  const ConfirmPlan plan = plan_confirm(fabric.graph, first, fabric.hosts, &fabric.router);
  std::size_t pairs = 0;
  for (const auto& round : plan.rounds)
    for (const auto& [src, dst] : round) {
      ++pairs;
      EXPECT_TRUE(src == "h003" || dst == "h003") << src << " -> " << dst;
    }
  EXPECT_EQ(pairs, 2u);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes.front(), ::testing::HasSubstr("to confirm it (and, after the repair, to check it)"));

  const ConfirmPlan nothing = plan_confirm(fabric.graph, Diagnosis{}, fabric.hosts, &fabric.router);
  EXPECT_TRUE(nothing.rounds.empty());
  EXPECT_EQ(nothing.notes, std::vector<std::string>{"nothing to confirm: no finding"});
}

// An intermittent host cable, without tables: pairs against peers off its switch, and a note to
// measure them as a soak.
TEST(ConfirmRound, AnIntermittentFindingGetsPairsAndASoakNote) {
  const RoutedFabric fabric;
  Diagnosis first;
  Finding intermittent;
  intermittent.kind = "intermittent_host";
  intermittent.host = "h003";
  intermittent.link = fabric.graph.links_of(*first_nic_of_host(fabric.graph, "h003")).front();
  intermittent.subject = "h003: 14 pairs slow in repetition 2 only";
  first.findings.push_back(intermittent);
  const ConfirmPlan plan = plan_confirm(fabric.graph, first, fabric.hosts, nullptr);
  EXPECT_FALSE(plan.rounds.empty());
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes.front(), ::testing::HasSubstr("--repeat N"));
  EXPECT_THAT(plan.notes.front(), ::testing::Not(::testing::HasSubstr("every finding names one part")));
}

TEST(ConfirmRound, PairsFileErrorsNameTheLine) {
  const auto message = [](std::string_view text) {
    try {
      parse_host_pair_rounds("pairs.txt", text);
    } catch (const InputError& error) { return std::string(error.what()); }
    return std::string("no error");
  };
  EXPECT_THAT(message("h1 h2\nh3 h4 h5\n"), ::testing::HasSubstr("pairs.txt:2:"));
  EXPECT_THAT(message("h1 h2\n# comment\nh2 h3\n"), ::testing::HasSubstr("pairs.txt:3:"));  // h2 twice in a round
  EXPECT_THAT(message("h1 h1\n"), ::testing::HasSubstr("two different hosts"));
  EXPECT_THAT(message("# nothing\n\n"), ::testing::HasSubstr("at least one pair"));
  const std::vector<HostPairRound> rounds = parse_host_pair_rounds("p", "h1 h2\nh3 h4\n\n\nh2 h1 # back\n");
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0].size(), 2u);
  EXPECT_EQ(rounds[1], (HostPairRound{{"h2", "h1"}}));
  RankPlacement placement = placement_of({"h1", "h1", "h2", "h3", "h4"}, 0);
  const std::vector<PairRound> planned = host_pair_rounds(placement, rounds);
  EXPECT_EQ(planned[0].pairs, (std::vector<RankPair>{{0, 2}, {3, 4}}));
  EXPECT_THROW(host_pair_rounds(placement, std::vector<HostPairRound>{{{"h1", "h9"}}}), UsageError);
}

}  // namespace
}  // namespace fb::topo

namespace fb::topo {
namespace {

// A plan with nothing to confirm is a pairs file without a pair: `run --pairs` reads its notes
// and measures nothing (exit 0) instead of refusing the file.
TEST(ConfirmRound, APlanWithoutPairsIsReadAsNotesNotRefused) {
  const std::string empty = diagnosis::format_pairs_file({.rounds = {}, .notes = {"nothing to confirm: no finding"}});
  const std::optional<std::vector<std::string>> notes = notes_of_pairless_file(empty);
  ASSERT_TRUE(notes.has_value()) << empty;
  EXPECT_THAT(*notes, ::testing::Contains("nothing to confirm: no finding"));
  ConfirmPlan one_pair;
  one_pair.rounds = {{{"h001", "h002"}}};
  EXPECT_FALSE(notes_of_pairless_file(diagnosis::format_pairs_file(one_pair)).has_value());
}

}  // namespace
}  // namespace fb::topo
