// The exact cable, end to end: an emulated fabric built from the genuine ibnetdiscover output and
// forwarding tables of an OpenSM-routed fat tree (tests/topology/fixtures/forwarding/ftree: 4
// leaves of 2 hosts, 2 spines, two parallel cables from every leaf to every spine), every switch
// routing each host the way its table says (scripts/emulated-fabric.sh up --ibnetdiscover --lfts).
// One cable of a parallel pair is throttled. The real fabricbench measures the pairwise sweep under
// the real mpirun, `diagnose --routes --plan-confirm` plans the confirm round, `run pairwise
// --pairs` measures it, and the second diagnosis must name that cable by both switch ports.
//
// The emulation is checked first against the tables themselves (the slow pairs are exactly those
// whose table route crosses the cable), so a wrong diagnosis cannot be a wrong emulation.

#include "common/pair_schedule.hpp"
#include "fabric_support.hpp"
#include "fabricbench_runs.hpp"
#include "process_runner.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"
#include "topology/format_registry.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/pair_coverage.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fb {
namespace {

using namespace fabric_support;  // NOLINT(google-build-using-namespace): the shared fabric helpers, one per test file

using ::testing::HasSubstr;
using testing::describe;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;
using testing::ChildProcess;
using testing::wait_for_rows;
using json = nlohmann::json;

const std::string fixtures = std::string(FORWARDING_FIXTURES_DIR) + "/ftree/";
const std::string ibnetdiscover = fixtures + "ibnetdiscover.txt";
const std::string lfts = fixtures + "dump_fts.txt";
constexpr int host_count = 8;
constexpr int host_mbit = 40;
// leaf01 port 4 <-> spine01 port 2: the second of leaf01's two parallel cables to spine01.
const std::string slow_switch = "leaf01";
constexpr int slow_port = 4;

// The pairs whose route by the tables crosses the cable at `switch_name` port `port`.
std::set<std::pair<std::string, std::string>> pairs_crossing(const std::string& switch_name, int port) {
  const topo::Graph graph = topo::load_topology({ibnetdiscover});
  const topo::ForwardingTables tables = topo::load_forwarding_tables(lfts);
  const topo::TableRouter router(graph, tables);
  std::optional<topo::LinkId> cable;
  for (topo::LinkId l = 0; l < graph.link_count(); ++l) {
    const topo::Link& link = graph.link(l);
    const std::optional<topo::CablePorts> ports = graph.cable_ports(l);
    if (!ports) continue;
    if ((graph.vertex(link.a).name == switch_name && ports->a == port) ||
        (graph.vertex(link.b).name == switch_name && ports->b == port))
      cable = l;
  }
  EXPECT_TRUE(cable) << "no cable at " << switch_name << " port " << port;
  std::set<std::pair<std::string, std::string>> crossing;
  for (int s = 1; s <= host_count && cable; ++s) {
    for (int d = 1; d <= host_count; ++d) {
      const std::string src = fmt::format("h{:03d}", s);
      const std::string dst = fmt::format("h{:03d}", d);
      if (s == d) continue;
      const std::optional<topo::Route> route = router.route(graph.find(src + "/mlx5_0"), graph.find(dst + "/mlx5_0"));
      EXPECT_TRUE(route) << src << " -> " << dst;
      if (route && std::any_of(route->uses.begin(), route->uses.end(),
                               [&](const topo::LinkUse& use) { return use.link == *cable; }))
        crossing.insert({src, dst});
    }
  }
  return crossing;
}

using HostPair = std::pair<std::string, std::string>;

// The cables plugged into the `named` switch ports.
std::set<topo::LinkId> cables_at(const topo::Graph& graph, const std::vector<std::pair<std::string, int>>& named) {
  std::set<topo::LinkId> cables;
  for (topo::LinkId l = 0; l < graph.link_count(); ++l) {
    const std::optional<topo::CablePorts> ports = graph.cable_ports(l);
    if (!ports) continue;
    for (const auto& [switch_name, port] : named)
      if ((graph.vertex(graph.link(l).a).name == switch_name && ports->a == port) ||
          (graph.vertex(graph.link(l).b).name == switch_name && ports->b == port))
        cables.insert(l);
  }
  return cables;
}

// The directed links, by name, that on the tables' routes no pair outside `slow` crosses, the
// `named` cables (switch and port) aside: no pair can clear them.
std::set<std::string> links_no_healthy_pair_crosses(const std::set<HostPair>& slow,
                                                    const std::vector<std::pair<std::string, int>>& named) {
  const topo::Graph graph = topo::load_topology({ibnetdiscover});
  const topo::ForwardingTables tables = topo::load_forwarding_tables(lfts);
  const topo::TableRouter router(graph, tables);
  const std::set<topo::LinkId> named_links = cables_at(graph, named);
  EXPECT_EQ(named_links.size(), named.size());
  std::map<std::size_t, bool> crossed_by_healthy;
  for (int s = 1; s <= host_count; ++s)
    for (int d = 1; d <= host_count; ++d) {
      const HostPair pair{fmt::format("h{:03d}", s), fmt::format("h{:03d}", d)};
      if (s == d) continue;
      const std::optional<topo::Route> route =
          router.route(graph.find(pair.first + "/mlx5_0"), graph.find(pair.second + "/mlx5_0"));
      for (const topo::LinkUse& use : route ? route->uses : std::vector<topo::LinkUse>{})
        if (!named_links.contains(use.link)) crossed_by_healthy[topo::directed_link_index(use)] |= !slow.contains(pair);
    }
  std::set<std::string> names;
  for (const auto& [directed, healthy] : crossed_by_healthy)
    if (!healthy) names.insert(topo::directed_link_name(graph, directed));
  return names;
}

using HostRound = std::vector<HostPair>;

// The whole pairwise tournament over the hosts (every ordered pair once, in rounds of disjoint
// pairs), by host name.
std::vector<HostRound> tournament() {
  std::vector<int> endpoints(host_count);
  std::iota(endpoints.begin(), endpoints.end(), 0);
  std::vector<HostRound> rounds;
  for (const PairRound& round : pairwise_rounds(endpoints)) {
    HostRound& named = rounds.emplace_back();
    for (const RankPair& pair : round.pairs)
      named.emplace_back(fmt::format("h{:03d}", pair.src + 1), fmt::format("h{:03d}", pair.dst + 1));
  }
  return rounds;
}

std::vector<json> degraded_links(const json& diagnosis) {
  std::vector<json> found;
  for (const json& finding : diagnosis.at("findings"))
    if (finding.at("kind") == "degraded_link") found.push_back(finding);
  return found;
}

class RoutedFabric : public FabricCase {
 protected:
  void up(const std::vector<std::string>& options) {
    std::vector<std::string> args{"--ibnetdiscover",        ibnetdiscover, "--lfts", lfts, "--host-mbit",
                                  std::to_string(host_mbit)};
    args.insert(args.end(), options.begin(), options.end());
    bring_up(args, host_count + 6 + 1u, "8 hosts, 4 leaves, 2 spines, 1 management switch");
  }

  // `fabricbench run ARGS...` across every host; the results as read back from the CSV.
  ResultSet run(const std::string& name, const std::vector<std::string>& run_args,
                const std::vector<std::string>& mpirun_args = {}) {
    const fs::path csv = dir_ / (name + ".csv");
    std::vector<std::string> args{"run"};
    args.insert(args.end(), run_args.begin(), run_args.end());
    args.insert(args.end(), {"--csv", csv.string(), "--json", (dir_ / (name + ".json")).string()});
    const std::vector<std::string> argv = across_hosts(host_count, args, mpirun_args);
    const ProcessResult result = run_process(argv, {}, std::chrono::seconds(300));
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    if (!fs::exists(csv)) {
      ADD_FAILURE() << name << " wrote no results";
      return {};
    }
    return read_results_csv(csv);
  }

  // `fabricbench diagnose` on the named runs with the fabric's own dumps; the JSON it wrote.
  std::optional<json> diagnose(const std::vector<std::string>& names, const std::vector<std::string>& extra,
                               std::string* console = nullptr) {
    const fs::path out = dir_ / fmt::format("diagnosis-{}.json", diagnoses_++);
    std::vector<std::string> args{"diagnose", "--topology", ibnetdiscover, "--routes", lfts, "--json", out.string()};
    for (const std::string& name : names) args.insert(args.end(), {"--results", (dir_ / (name + ".csv")).string()});
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult result = run_process(testing::directly(args));
    std::cout << result.out;
    if (console != nullptr) *console = result.out;
    if (result.exit_code != 0 || !fs::exists(out)) {
      ADD_FAILURE() << "diagnose failed\n" << describe(result);
      return std::nullopt;
    }
    std::ifstream in(out);
    return json::parse(in);
  }

  // The first two pairings of the pairwise tournament, both directions: four rounds, as a pairs file.
  fs::path first_two_pairings() {
    std::vector<HostRound> rounds = tournament();
    rounds.resize(4);
    return pairs_file("first-pairs.txt", rounds);
  }

  // `rounds` as a pairs file (`run pairwise --pairs`): a blank line ends each round.
  fs::path pairs_file(const std::string& name, const std::vector<HostRound>& rounds) {
    const fs::path path = dir_ / name;
    std::ofstream out(path);
    for (const HostRound& round : rounds) {
      for (const auto& [src, dst] : round) out << src << ' ' << dst << '\n';
      out << '\n';
    }
    return path;
  }

  TempDir dir_;
  int diagnoses_ = 0;
};

// A dump the emulation cannot build (hosts with two adapters) is refused before anything is made,
// with the reason, as are cables that do not exist.
TEST_F(RoutedFabric, RefusesWhatItCannotBuildAndCreatesNothing) {
  const ProcessResult two_ports = fabric_script({"up", "--prefix", prefix_, "--ibnetdiscover",
                                                 std::string(TOPOLOGY_SAMPLES_DIR) + "/fabric.ibnet", "--lfts", lfts});
  EXPECT_EQ(two_ports.exit_code, 1) << describe(two_ports);
  EXPECT_THAT(two_ports.err, HasSubstr("host dgx01 has 2 cables; the emulation builds hosts of one port"));
  const ProcessResult no_cable = fabric_script(
      {"up", "--prefix", prefix_, "--ibnetdiscover", ibnetdiscover, "--lfts", lfts, "--throttle-cable", "leaf01:9:10"});
  EXPECT_EQ(no_cable.exit_code, 1) << describe(no_cable);
  EXPECT_THAT(no_cable.err, HasSubstr("--throttle-cable: no cable at leaf01 port 9"));
  EXPECT_THAT(namespaces_with_prefix(prefix_), ::testing::IsEmpty());
  EXPECT_FALSE(fs::exists(fabric_state_dir / prefix_));
}

TEST_F(RoutedFabric, ThrottledLeafSpineCableIsNamedByBothPortsAfterTheConfirmRound) {
  up({"--throttle-cable", fmt::format("{}:{}:{}", slow_switch, slow_port, host_mbit / 4)});
  if (IsSkipped() || HasFatalFailure()) return;

  // The first pass: the first two pairings of the pairwise tournament (both directions, four
  // rounds), the budget the confirm round is for; the throttled cable is on one of their pairs.
  const fs::path first_pairs = first_two_pairings();
  const ResultSet first = run("pairwise", {"pairwise", "--pairs", first_pairs.string(), "-b", "256K", "-e", "256K",
                                           "-n", "3", "-w", "1", "-W", "4"});
  ASSERT_EQ(first.rows.size(), 4 * host_count / 2u);
  // The emulation routes as the tables say: the pairs whose table route crosses the cable run at
  // about a quarter; no other pair is that slow (two flows sharing a healthy cable get a half).
  const std::set<std::pair<std::string, std::string>> crossing = pairs_crossing(slow_switch, slow_port);
  ASSERT_FALSE(crossing.empty());
  std::vector<double> rates;
  for (const ResultRow& row : first.rows) rates.push_back(mbit_of(row));
  const double typical = median(rates);
  int slow_rows = 0;
  for (const ResultRow& row : first.rows) {
    const double ratio = mbit_of(row) / typical;
    if (crossing.contains({row.src_host, row.dst_host})) {
      ++slow_rows;
      EXPECT_LT(ratio, 0.35) << row.src_host << " -> " << row.dst_host << " crosses the throttled cable";
    } else {
      EXPECT_GT(ratio, 0.4) << row.src_host << " -> " << row.dst_host << " does not cross it";
    }
  }
  ASSERT_GE(slow_rows, 1) << "the first pass must cross the throttled cable";

  const fs::path plan = dir_ / "confirm.txt";
  std::string console;
  const std::optional<json> first_pass = diagnose({"pairwise"}, {"--plan-confirm", plan.string()}, &console);
  ASSERT_TRUE(first_pass);
  EXPECT_THAT(console, HasSubstr(fmt::format("# routes: {} of {} pair measurements on the forwarding tables' paths",
                                             first.rows.size(), first.rows.size())));
  ASSERT_TRUE(fs::exists(plan));
  std::vector<std::pair<std::string, std::string>> planned;
  {
    std::ifstream in(plan);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line.starts_with("#")) continue;
      const auto space = line.find(' ');
      planned.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
  }
  ASSERT_FALSE(planned.empty()) << "the cable is named on few slow pairs: the plan confirms it\n" << console;
  // The confirm round measures the cable again: at least one planned pair crosses it.
  EXPECT_TRUE(std::any_of(planned.begin(), planned.end(), [&](const auto& pair) { return crossing.contains(pair); }));

  const ResultSet confirm = run("confirm", {"pairwise", "--pairs", plan.string(), "-b", "256K", "-e", "256K", "-n", "3",
                                            "-w", "1", "-W", "4"});
  EXPECT_EQ(confirm.rows.size(), planned.size());
  const std::optional<json> second = diagnose({"pairwise", "confirm"}, {});
  ASSERT_TRUE(second);
  const std::vector<json> degraded = degraded_links(*second);
  ASSERT_EQ(degraded.size(), 1u) << second->dump(1);
  const json& finding = degraded.front();
  EXPECT_FALSE(finding.contains("parallel_links")) << "named as the one cable, not one of a bundle";
  // leaf01 port 4 is cabled to spine01 port 2 (ibnetdiscover.txt): both ends, by port.
  EXPECT_THAT(finding.at("location").get<std::string>(), HasSubstr("leaf01 port 4"));
  EXPECT_THAT(finding.at("location").get<std::string>(), HasSubstr("spine01 port 2"));
  EXPECT_THAT(finding.at("action").get<std::string>(), HasSubstr("reseat or replace the cable between"));
  EXPECT_NEAR(finding.at("ratio").get<double>(), 0.25, 0.06);
  EXPECT_EQ(finding.at("rank"), 1);
  // Its evidence: the first pass's slow pairs and the confirm round's, each a pair that crosses it.
  EXPECT_GT(finding.at("evidence").size(), static_cast<std::size_t>(slow_rows));
}

// What the fault costs, predicted against measured: diagnose prices its finding as the slowdown of
// an all_reduce across every node; the same all_reduce is measured on the healthy fabric and with
// the fault. Open MPI is held to its ring (coll_tuned algorithm 4), the algorithm the model
// prices for ranks in host memory at this size, and 8 MiB makes each of the ring's 14 steps 1 MiB,
// long against the per-step overhead of TCP on two shared cores (docs/emulated-fabric.md).
// The fault is h001's cable at a quarter: every ring crosses it, whichever routes the tables give.
TEST_F(RoutedFabric, PredictedAllReduceSlowdownOfAThrottledCableMatchesTheMeasuredOne) {
  up({});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::vector<std::string> all_reduce{"all_reduce", "-b", "8M", "-e",          "8M",          "-n",
                                            "2",          "-w", "1",  "--placement", "out-of-place"};
  const std::vector<std::string> ring{"--mca", "coll_tuned_use_dynamic_rules",   "1",
                                      "--mca", "coll_tuned_allreduce_algorithm", "4"};
  const ResultSet healthy = run("all_reduce-healthy", all_reduce, ring);
  const ProcessResult throttled =
      fabric_script({"throttle-cable", "--prefix", prefix_, "leaf01", "1", std::to_string(host_mbit / 4)});
  ASSERT_EQ(throttled.exit_code, 0) << describe(throttled);
  const ResultSet faulty = run("all_reduce-throttled", all_reduce, ring);
  run("pairwise", {"pairwise", "--pairs", first_two_pairings().string(), "-b", "256K", "-e", "256K", "-n", "3", "-w",
                   "1", "-W", "4"});
  ASSERT_EQ(healthy.rows.size(), 1u) << "one size, out of place";
  ASSERT_EQ(faulty.rows.size(), 1u);

  std::string console;
  const std::optional<json> diagnosis = diagnose({"pairwise"}, {"--job-mix", "all_reduce:8M"}, &console);
  ASSERT_TRUE(diagnosis);
  EXPECT_THAT(console, HasSubstr("routes: the forwarding tables' paths"));
  // h001's cable, named and priced, as the one finding: the pairs into h001 (two pairings leave
  // them on one path over leaf04, spine01 and leaf01, three cables no healthy pair clears) are
  // explained by the cable the pairs out of it named alone.
  const std::vector<json> degraded = degraded_links(*diagnosis);
  ASSERT_EQ(degraded.size(), 1u) << diagnosis->dump(1);
  const json& host_cable = degraded.front();
  EXPECT_EQ(host_cable.at("location"), "leaf01 port 1 <-> h001 mlx5_0 port 1") << host_cable.dump(1);
  EXPECT_EQ(host_cable.at("link").at("direction"), "both") << host_cable.dump(1);
  EXPECT_FALSE(host_cable.contains("parallel_links")) << host_cable.dump(1);
  ASSERT_TRUE(host_cable.contains("predicted_slowdown")) << host_cable.dump(1);
  const double predicted = host_cable.at("predicted_slowdown").get<double>();

  const ResultRow& h = healthy.rows[0];
  const ResultRow& f = faulty.rows[0];
  const double measured = f.time_median_us / h.time_median_us - 1;
  // The slowdown the iterations' spread allows: the fastest faulty against the slowest healthy, and
  // the other way round.
  const double lowest = f.time_min_us / h.time_max_us - 1;
  const double highest = f.time_max_us / h.time_min_us - 1;
  std::cout << fmt::format("all_reduce 8M over 8 hosts: healthy {:.0f} us, h001's cable at a quarter {:.0f} us: "
                           "measured slowdown {:+.1f}% (iterations allow {:+.1f}% to {:+.1f}%), predicted {:+.1f}%\n",
                           h.time_median_us, f.time_median_us, 100 * measured, 100 * lowest, 100 * highest,
                           100 * predicted);
  // What any working emulation and model give, whatever the noise: the ring runs through the
  // quarter-rate cable, so it takes well over twice as long, and the model says so too.
  EXPECT_GT(measured, 1.0);
  EXPECT_GT(predicted, 1.0);
  EXPECT_LE(predicted, 3.0 + 1e-9) << "a quarter of the rate costs at most 4x the time";
  const double tolerance = 0.15 * predicted;
  if (std::abs(lowest - predicted) <= tolerance && std::abs(highest - predicted) <= tolerance) return;  // agrees
  if (std::abs(measured - predicted) > tolerance && (lowest - predicted) * (highest - predicted) > 0)
    FAIL() << "the predicted slowdown is off the measured one by more than 15%, beyond the iterations' spread";
  GTEST_SKIP() << "INCONCLUSIVE: the iterations' spread straddles the 15% band around the prediction";
}

// A soak of three repetitions with leaf01 port 4's cable to spine01 at a quarter in the second
// only. The throttle is set when the first repetition's last row is written and lifted when the
// second's is, so it lands a moment after the next repetition began (over a second under load:
// HostLinkThrottledDuringOneRepetitionIsIntermittentAndDrained). Each repetition therefore measures
// the rounds that do not cross the cable first: they are the time the throttle has to land, and
// the check of the emulation below fails the case if a round across the cable ran before it did.
TEST_F(RoutedFabric, SpineCableThrottledInOneRepetitionOfThreeIsNamedWithThatRepetition) {
  up({});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::set<HostPair> crossing = pairs_crossing(slow_switch, slow_port);
  const auto crosses = [&](const HostRound& round) {
    return std::any_of(round.begin(), round.end(), [&](const HostPair& pair) { return crossing.contains(pair); });
  };
  std::vector<HostRound> rounds = tournament();
  std::stable_partition(rounds.begin(), rounds.end(), [&](const HostRound& round) { return !crosses(round); });
  const auto quiet_rounds =
      std::count_if(rounds.begin(), rounds.end(), [&](const HostRound& r) { return !crosses(r); });
  std::cout << fmt::format("{} of {} rounds do not cross the cable; {} ordered pairs do\n", quiet_rounds, rounds.size(),
                           crossing.size());
  ASSERT_GE(quiet_rounds, 4) << "too few rounds before the cable's for the throttle to land in";
  ASSERT_LT(quiet_rounds, std::ssize(rounds));

  const fs::path plan = pairs_file("soak-pairs.txt", rounds);
  const std::size_t rows_per_repetition = host_count * (host_count - 1u);
  const fs::path csv = dir_ / "soak.csv";
  ChildProcess soak(
      across_hosts(host_count, {"run", "pairwise", "--pairs",    plan.string(), "--repeat",
                                "3",   "-b",       "256K",       "-e",          "256K",
                                "-n",  "3",        "-w",         "1",           "-W",
                                "4",   "--csv",    csv.string(), "--json",      (dir_ / "soak.json").string()}));
  const auto set_cable = [&](int mbit) {
    const ProcessResult set = fabric_script(
        {"throttle-cable", "--prefix", prefix_, slow_switch, std::to_string(slow_port), std::to_string(mbit)});
    EXPECT_EQ(set.exit_code, 0) << describe(set);
  };
  ASSERT_TRUE(wait_for_rows(csv, rows_per_repetition, std::chrono::seconds(300)))
      << describe(soak.wait(std::chrono::seconds(0)));
  set_cable(host_mbit / 4);
  ASSERT_TRUE(wait_for_rows(csv, 2 * rows_per_repetition, std::chrono::seconds(300)))
      << describe(soak.wait(std::chrono::seconds(0)));
  set_cable(host_mbit);
  const ProcessResult finished = soak.wait(std::chrono::seconds(600));
  ASSERT_EQ(finished.exit_code, 0) << describe(finished);
  const ResultSet results = read_results_csv(csv);
  ASSERT_EQ(results.rows.size(), 3 * rows_per_repetition);

  // The emulation did what the case means: the pairs across the cable at about a quarter in the
  // second repetition (index 1), and in no other; no other pair that slow in any.
  std::map<int, std::vector<double>> rates;
  for (const ResultRow& row : results.rows) rates[row.repetition.value_or(-1)].push_back(mbit_of(row));
  ASSERT_EQ(rates.size(), 3u);
  for (const ResultRow& row : results.rows) {
    const double ratio = mbit_of(row) / median(rates.at(*row.repetition));
    const std::string pair = fmt::format("repetition {} round {}: {} -> {}", *row.repetition, row.round.value_or(-1),
                                         row.src_host, row.dst_host);
    if (*row.repetition == 1 && crossing.contains({row.src_host, row.dst_host}))
      EXPECT_LT(ratio, 0.35) << pair << " crosses the throttled cable";
    else
      EXPECT_GT(ratio, 0.4) << pair << " ran on healthy cables";
  }
  ASSERT_FALSE(HasFailure()) << "the emulation did not throttle the cable for exactly its rounds of repetition 1";

  const std::optional<json> diagnosis = diagnose({"soak"}, {});
  ASSERT_TRUE(diagnosis);
  const json& findings = diagnosis->at("findings");
  ASSERT_EQ(findings.size(), 1u) << "the cable, and no pair or part that only shared its rounds\n"
                                 << diagnosis->dump(1);
  const json& finding = findings.front();
  EXPECT_EQ(finding.at("kind"), "intermittent_link") << finding.dump(1);
  EXPECT_FALSE(finding.contains("parallel_links")) << "the one cable, not one of its bundle\n" << finding.dump(1);
  EXPECT_THAT(finding.at("location").get<std::string>(), HasSubstr("leaf01 port 4"));
  EXPECT_THAT(finding.at("location").get<std::string>(), HasSubstr("spine01 port 2"));
  EXPECT_THAT(finding.at("subject").get<std::string>(),
              HasSubstr(fmt::format(": {} pairs slow in repetition 2 only", crossing.size())));
  // Every pair across it was slow in that repetition and no healthy flow sits on it.
  EXPECT_GE(finding.at("confidence").get<double>(), 0.99) << finding.dump(1);
  EXPECT_NEAR(finding.at("ratio").get<double>(), 0.25, 0.06) << finding.dump(1);
}

// Two faults at once, each at a quarter: h003's cable (leaf02 port 1) and leaf01 port 4's cable to
// spine01. The whole tournament, diagnosed; the confirm round it plans, measured; both diagnosed
// together. Each diagnosis names both cables, each alone and by its ports, and nothing else.
TEST_F(RoutedFabric, HostCableAndSpineCableAtOnceAreBothNamedAndNothingElse) {
  const std::string host_switch = "leaf02";
  constexpr int host_port = 1;
  up({"--throttle-cable", fmt::format("{}:{}:{}", slow_switch, slow_port, host_mbit / 4), "--throttle-cable",
      fmt::format("{}:{}:{}", host_switch, host_port, host_mbit / 4)});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::set<HostPair> across_spine_cable = pairs_crossing(slow_switch, slow_port);
  const std::set<HostPair> across_host_cable = pairs_crossing(host_switch, host_port);
  ASSERT_EQ(across_host_cable.size(), 2u * (host_count - 1)) << "every pair from or to h003";

  const ResultSet sweep = run("pairwise", {"pairwise", "-b", "256K", "-e", "256K", "-n", "3", "-w", "1", "-W", "4"});
  ASSERT_EQ(sweep.rows.size(), host_count * (host_count - 1u));
  std::vector<double> rates;
  for (const ResultRow& row : sweep.rows) rates.push_back(mbit_of(row));
  const double typical = median(rates);
  for (const ResultRow& row : sweep.rows) {
    const HostPair pair{row.src_host, row.dst_host};
    const double ratio = mbit_of(row) / typical;
    if (across_spine_cable.contains(pair) || across_host_cable.contains(pair))
      EXPECT_LT(ratio, 0.35) << pair.first << " -> " << pair.second << " crosses a throttled cable";
    else
      EXPECT_GT(ratio, 0.4) << pair.first << " -> " << pair.second << " does not";
  }

  std::set<HostPair> slow = across_host_cable;
  slow.insert(across_spine_cable.begin(), across_spine_cable.end());
  const std::set<std::string> not_cleared =
      links_no_healthy_pair_crosses(slow, {{host_switch, host_port}, {slow_switch, slow_port}});
  const auto both_named = [&](const json& diagnosis) {
    const json& findings = diagnosis.at("findings");
    ASSERT_EQ(findings.size(), 2u) << diagnosis.dump(1);
    std::set<std::string> locations;
    for (const json& finding : findings) {
      EXPECT_EQ(finding.at("kind"), "degraded_link") << finding.dump(1);
      EXPECT_FALSE(finding.contains("parallel_links")) << finding.dump(1);
      EXPECT_NEAR(finding.at("ratio").get<double>(), 0.25, 0.08) << finding.dump(1);
      locations.insert(finding.at("location").get<std::string>());
    }
    EXPECT_THAT(locations, ::testing::Contains("leaf02 port 1 <-> h003 mlx5_0 port 1")) << diagnosis.dump(1);
    EXPECT_THAT(locations,
                ::testing::Contains(::testing::AllOf(HasSubstr("leaf01 port 4"), HasSubstr("spine01 port 2"))))
        << diagnosis.dump(1);
    // What is left unjudged is what no healthy pair crosses: links only h003's pairs take.
    std::set<std::string> unverified;
    for (const json& link : diagnosis.at("unverified_links"))
      unverified.insert(link.at("direction").get<std::string>());
    EXPECT_EQ(unverified, not_cleared) << diagnosis.dump(1);
  };
  const fs::path plan = dir_ / "confirm.txt";
  const std::optional<json> first = diagnose({"pairwise"}, {"--plan-confirm", plan.string()});
  ASSERT_TRUE(first);
  both_named(*first);

  // The loop closes: the plan `diagnose` wrote is what `run --pairs` measures.
  std::size_t planned = 0;
  {
    std::ifstream in(plan);
    for (std::string line; std::getline(in, line);) planned += line.empty() || line.starts_with("#") ? 0 : 1;
  }
  ASSERT_GT(planned, 0u) << "each cable gets pairs that cross it, to confirm it";
  const ResultSet confirm = run("confirm", {"pairwise", "--pairs", plan.string(), "-b", "256K", "-e", "256K", "-n", "3",
                                            "-w", "1", "-W", "4"});
  EXPECT_EQ(confirm.rows.size(), planned);
  const std::optional<json> second = diagnose({"pairwise", "confirm"}, {});
  ASSERT_TRUE(second);
  both_named(*second);
}

// The same two faults where they cannot be told apart: on these tables only h001 -> h005 and
// h002 -> h005 cross leaf01 port 4 towards spine01, and both cross h005's cable too, at the same
// quarter. h005's cable is named (its other twelve pairs single it out); the spine cable is
// neither named nor cleared: it is listed as unverified, a link to measure after the repair, as
// is every other link only h005's pairs cross.
TEST_F(RoutedFabric, HostCableHidingTheOnlyPairsOfASpineCableLeavesThatCableUnverified) {
  up({"--throttle-cable", fmt::format("{}:{}:{}", slow_switch, slow_port, host_mbit / 4), "--throttle-cable",
      fmt::format("leaf03:1:{}", host_mbit / 4)});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::set<HostPair> across_spine_cable = pairs_crossing(slow_switch, slow_port);
  const std::set<HostPair> across_host_cable = pairs_crossing("leaf03", 1);
  ASSERT_FALSE(across_spine_cable.empty());
  ASSERT_TRUE(std::includes(across_host_cable.begin(), across_host_cable.end(), across_spine_cable.begin(),
                            across_spine_cable.end()))
      << "every pair across the spine cable crosses h005's cable";
  const ResultSet sweep = run("pairwise", {"pairwise", "-b", "256K", "-e", "256K", "-n", "3", "-w", "1", "-W", "4"});
  ASSERT_EQ(sweep.rows.size(), host_count * (host_count - 1u));

  const std::optional<json> diagnosis = diagnose({"pairwise"}, {});
  ASSERT_TRUE(diagnosis);
  const json& findings = diagnosis->at("findings");
  ASSERT_EQ(findings.size(), 1u) << diagnosis->dump(1);
  EXPECT_EQ(findings[0].at("location"), "leaf03 port 1 <-> h005 mlx5_0 port 1") << findings[0].dump(1);
  std::set<HostPair> slow = across_host_cable;
  slow.insert(across_spine_cable.begin(), across_spine_cable.end());
  const std::set<std::string> only_h005 = links_no_healthy_pair_crosses(slow, {{"leaf03", 1}});
  std::set<std::string> unverified;
  bool spine_cable_listed = false;
  for (const json& link : diagnosis->at("unverified_links")) {
    unverified.insert(link.at("direction").get<std::string>());
    const std::string cable = link.at("cable").get<std::string>();
    spine_cable_listed |= link.at("direction") == "leaf01 -> spine01" &&
                          cable.find("leaf01 port 4") != std::string::npos &&
                          cable.find("spine01 port 2") != std::string::npos;
  }
  EXPECT_EQ(unverified, only_h005) << diagnosis->dump(1);
  EXPECT_TRUE(spine_cable_listed) << diagnosis->dump(1);
  EXPECT_THAT(diagnosis->at("blind_spots"),
              ::testing::Contains(
                  HasSubstr(fmt::format("{} directed link{} measured pairs crossed, none at a healthy rate",
                                        only_h005.size(), only_h005.size() == 1 ? "" : "s"))));
}

}  // namespace
}  // namespace fb
