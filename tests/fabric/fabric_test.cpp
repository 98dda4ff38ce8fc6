// The diagnosis end to end: an emulated fabric with a known fault (scripts/emulated-fabric.sh),
// the real fabricbench measuring across it under the real mpirun, and `fabricbench diagnose`
// naming the fault from the measurements and the topology model (tests/fabric/specs/); and a host
// cable that goes down mid-run, which the watchdog must end the run on and diagnose must name.
//
// Each case first checks that the emulation did what it was told (throttled rows are slow by the
// throttle's ratio, blocked rows by the oversubscription), so that a failure in the diagnosis
// cannot be an emulation fault in disguise. Assertions compare bandwidths with each other, never
// with wall-clock expectations.

#include "fabric_support.hpp"
#include "fabricbench_runs.hpp"
#include "process_runner.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fb {
namespace {

using namespace fabric_support;  // NOLINT(google-build-using-namespace): the shared fabric helpers, one per test file

using ::testing::HasSubstr;
using testing::ChildProcess;
using testing::describe;
using testing::lines_of;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;
using testing::wait_for_rows;
using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int host_count = 8;  // the script's default 2 leaves x 4 hosts, as in the specs
constexpr int host_mbit = 40;  // the script's default host link rate
const std::string specs_dir = FABRIC_SPECS_DIR;
bool involves(const ResultRow& row, const std::string& host) { return row.src_host == host || row.dst_host == host; }

std::string host_name(int n) {
  char name[16];
  std::snprintf(name, sizeof name, "h%05d", n);
  return name;
}

// Whether a diagnose link joins a vertex named with `x` to one named with `y` (either way round).
bool link_joins(const json& link, const std::string& x, const std::string& y) {
  const std::string a = link.at("a").get<std::string>();
  const std::string b = link.at("b").get<std::string>();
  return (a.find(x) != std::string::npos && b.find(y) != std::string::npos) ||
         (a.find(y) != std::string::npos && b.find(x) != std::string::npos);
}

std::vector<json> findings_of_kind(const json& diagnosis, const std::string& kind) {
  std::vector<json> found;
  for (const json& finding : diagnosis.at("findings")) {
    if (finding.at("kind") == kind) found.push_back(finding);
  }
  return found;
}

// The script's default fabric, with the results of each case's runs by name.
class EmulatedFabric : public FabricCase {
 protected:
  // Brings the fabric up with the script's options; skips the case where namespaces cannot be made.
  void up(const std::vector<std::string>& options) {
    bring_up(options, host_count + 4u, "8 hosts, 2 leaves, 1 spine, 1 management switch");
  }

  // One `fabricbench run PATTERN` over every host, with small, few iterations: at 40 Mbit/s a 256 KiB
  // message takes about 55 ms, and a window of 4 makes 1 MiB per iteration, so the tbf burst is
  // negligible against it (docs/emulated-fabric.md has the measured accuracy).
  ResultSet measure(const std::string& pattern, const std::string& name) {
    const fs::path csv = results_dir_ / (name + ".csv");
    const fs::path json_path = results_dir_ / (name + ".json");
    const ProcessResult result =
        run_process(across_hosts(host_count, {"run", pattern, "-b", "256K", "-e", "256K", "-n", "3", "-w", "1", "-W",
                                              "4", "--csv", csv.string(), "--json", json_path.string()}),
                    {}, std::chrono::seconds(300));
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    if (!fs::exists(csv)) {
      ADD_FAILURE() << pattern << " wrote no results";
      return {};
    }
    ResultSet results = read_results_csv(csv);
    for (const ResultRow& row : results.rows) EXPECT_EQ(row.op, pattern);
    results_files_[name] = csv;
    return results;
  }

  // `fabricbench diagnose` on the named results files against a spec; nullopt, with the failure
  // recorded, when the command fails, is missing, or writes no JSON.
  std::optional<json> diagnose(const std::vector<std::string>& names, const std::string& spec) {
    const ProcessResult help = run_process(testing::directly({"diagnose", "--help"}));
    if (help.exit_code != 0) {
      ADD_FAILURE() << "fabricbench has no `diagnose` command: the diagnosis assertions of this case cannot run\n"
                    << describe(help);
      return std::nullopt;
    }
    const fs::path out = results_dir_ / ("diagnosis-" + spec + ".json");
    fs::remove(out);
    std::vector<std::string> args{"diagnose", "--results"};
    for (const std::string& name : names) args.push_back(results_files_.at(name).string());
    for (const std::string& extra :
         {std::string("--topology"), specs_dir + "/" + spec + ".yaml", std::string("--json"), out.string()}) {
      args.push_back(extra);
    }
    const ProcessResult result = run_process(testing::directly(args));
    if (result.signal != 0 || !fs::exists(out)) {
      ADD_FAILURE() << "diagnose wrote no JSON\n" << describe(result);
      return std::nullopt;
    }
    std::ifstream in(out);
    json diagnosis = json::parse(in);
    // Printed so that a failing assertion comes with everything diagnose concluded.
    std::cout << "diagnose " << spec << ": " << diagnosis.dump(1) << "\n";
    return diagnosis;
  }

  TempDir results_dir_;
  std::map<std::string, fs::path> results_files_;
};

// The topology model of the emulation, without the emulation: the healthy spec has no link that
// leaf-to-leaf traffic overloads, the 2:1 spec overloads exactly its leaf-spine links twice over.
// (`topo analyze` also lists links filled to exactly 1.00x; only an overload is blocking.)
std::vector<json> analyze_leaf_to_leaf(const std::string& spec) {
  const TempDir dir;
  const fs::path out = dir / "analysis.json";
  const ProcessResult result = run_process(testing::directly(
      {"topo", "analyze", specs_dir + "/" + spec + ".yaml", "--pattern", "leaf_to_leaf", "--json", out.string()}));
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  std::ifstream in(out);
  return json::parse(in).at("findings").get<std::vector<json>>();
}

TEST(EmulatedFabricSpecs, HealthySpecOverloadsNoLink) {
  const std::vector<json> findings = analyze_leaf_to_leaf("healthy");
  for (const json& finding : findings) EXPECT_LE(finding.at("load_ratio").get<double>(), 1.0 + 1e-9) << finding;
}

TEST(EmulatedFabricSpecs, BlockingSpecOverloadsEveryLeafSpineLinkTwice) {
  const std::vector<json> findings = analyze_leaf_to_leaf("blocking_2to1");
  // Both leaves, both directions, 2 spines each: 8 link directions, each loaded 2:1.
  ASSERT_EQ(findings.size(), 8u);
  std::set<std::string> leaves;
  for (const json& finding : findings) {
    const std::string from = finding.at("from");
    const std::string to = finding.at("to");
    const std::string& leaf = from.starts_with("leaf") ? from : to;
    const std::string& other = from.starts_with("leaf") ? to : from;
    EXPECT_TRUE(leaf.starts_with("leaf") && other.starts_with("spine")) << finding;
    EXPECT_NEAR(finding.at("load_ratio").get<double>(), 2.0, 1e-6) << finding;
    leaves.insert(leaf);
  }
  EXPECT_EQ(leaves, (std::set<std::string>{"leaf0001", "leaf0002"}));
}

TEST_F(EmulatedFabric, HealthyFabricHasNoFindings) {
  up({});
  if (IsSkipped() || HasFatalFailure()) return;

  const ResultSet pairwise = measure("pairwise", "pairwise");
  // Every ordered pair of the 8 hosts once, named by the hostnames the launch agent gave them.
  std::set<std::pair<std::string, std::string>> pairs;
  std::vector<double> rates;
  for (const ResultRow& row : pairwise.rows) {
    pairs.emplace(row.src_host, row.dst_host);
    rates.push_back(mbit_of(row));
  }
  ASSERT_EQ(pairs.size(), host_count * (host_count - 1u));
  for (int n = 1; n <= host_count; ++n) {
    EXPECT_TRUE(pairs.contains({host_name(n), host_name(n % host_count + 1)})) << host_name(n);
  }
  // A uniform fabric: every pair within 15% of the median. Eight ranks and the shaping share two
  // cores, and a pair whose processes lose the CPU for part of a round comes out up to about 15%
  // slow (one run in ten here); a pair sharing a link with another comes out at half.
  const double typical = median(rates);
  for (const ResultRow& row : pairwise.rows) {
    EXPECT_NEAR(mbit_of(row) / typical, 1.0, 0.15) << row.src_host << " -> " << row.dst_host;
  }

  const ResultSet concurrent = measure("concurrent", "concurrent");
  // Non-blocking uplinks: the cut pairs together as fast as alone.
  std::map<std::string, double> alone;
  for (const ResultRow& row : concurrent.rows) {
    if (row.concurrent_flows == 1) alone[row.src_host] = mbit_of(row);
  }
  ASSERT_EQ(alone.size(), host_count / 2u);
  for (const ResultRow& row : concurrent.rows) {
    if (row.concurrent_flows > 1) { EXPECT_GT(mbit_of(row) / alone.at(row.src_host), 0.9) << row.src_host; }
  }

  const std::optional<json> diagnosis = diagnose({"pairwise", "concurrent"}, "healthy");
  if (!diagnosis) return;
  EXPECT_THAT(diagnosis->at("findings"), ::testing::IsEmpty());
}

TEST_F(EmulatedFabric, ThrottledHostLinkIsTheOneDegradedLink) {
  up({"--throttle", "h00003:" + std::to_string(host_mbit / 4)});
  if (IsSkipped() || HasFatalFailure()) return;

  const ResultSet pairwise = measure("pairwise", "pairwise");
  measure("concurrent", "concurrent");
  // The emulation: both directions of h00003's cable run at a quarter of the others.
  std::vector<double> others;
  for (const ResultRow& row : pairwise.rows) {
    if (!involves(row, "h00003")) others.push_back(mbit_of(row));
  }
  ASSERT_FALSE(others.empty());
  const double typical = median(others);
  std::set<std::string> throttled_directions;
  for (const ResultRow& row : pairwise.rows) {
    if (!involves(row, "h00003")) continue;
    EXPECT_NEAR(mbit_of(row) / typical, 0.25, 0.05) << row.src_host << " -> " << row.dst_host;
    throttled_directions.insert(row.src_host == "h00003" ? "out" : "in");
  }
  EXPECT_EQ(throttled_directions, (std::set<std::string>{"in", "out"}));

  const std::optional<json> diagnosis = diagnose({"pairwise", "concurrent"}, "healthy");
  if (!diagnosis) return;
  const std::vector<json> degraded = findings_of_kind(*diagnosis, "degraded_link");
  ASSERT_EQ(degraded.size(), 1u);
  EXPECT_TRUE(link_joins(degraded[0].at("link"), "h00003", "leaf0001")) << degraded[0];
  EXPECT_NEAR(degraded[0].at("ratio").get<double>(), 0.25, 0.05) << degraded[0];
  EXPECT_THAT(findings_of_kind(*diagnosis, "blocking_link"), ::testing::IsEmpty());
  EXPECT_THAT(findings_of_kind(*diagnosis, "wrong_results"), ::testing::IsEmpty());
  // The healthy hosts are not accused: the one slow host is the throttled one.
  for (const json& slow : findings_of_kind(*diagnosis, "slow_node")) EXPECT_EQ(slow.at("host"), "h00003") << slow;
}

TEST_F(EmulatedFabric, OversubscribedUplinksBlockOnlyUnderConcurrentLoad) {
  up({"--uplink-mbit", std::to_string(host_count / 2 * host_mbit / 2)});
  if (IsSkipped() || HasFatalFailure()) return;

  // Two separate runs with their own files, so that each can be diagnosed alone.
  measure("pairwise", "pairwise");
  const ResultSet concurrent = measure("concurrent", "concurrent");
  // The emulation: the 4 cut pairs together share the uplink at half their own rate.
  std::map<std::string, double> alone;
  std::vector<double> together_over_alone;
  for (const ResultRow& row : concurrent.rows) {
    if (row.concurrent_flows == 1) alone[row.src_host] = mbit_of(row);
  }
  ASSERT_EQ(alone.size(), host_count / 2u);
  for (const ResultRow& row : concurrent.rows) {
    if (row.concurrent_flows > 1) together_over_alone.push_back(mbit_of(row) / alone.at(row.src_host));
  }
  ASSERT_EQ(together_over_alone.size(), host_count / 2u);
  // TCP need not share the uplink fairly, but the uplink drains the four flows' bytes at twice a
  // host's rate whichever gets ahead: by then every flow is done, so none falls below half its
  // alone rate, and at most two run at all of it, so the mean is at most three quarters, where a
  // non-blocking fabric keeps every flow at its alone rate.
  for (const double ratio : together_over_alone) EXPECT_GT(ratio, 0.4);
  EXPECT_LT(std::accumulate(together_over_alone.begin(), together_over_alone.end(), 0.0) /
                static_cast<double>(together_over_alone.size()),
            0.8);

  const std::optional<json> blocking = diagnose({"concurrent"}, "blocking_2to1");
  if (blocking) {
    const std::vector<json> blocked = findings_of_kind(*blocking, "blocking_link");
    EXPECT_FALSE(blocked.empty()) << "no blocking_link finding on the concurrent rows";
    bool names_first_leaf = false;
    for (const json& finding : blocked) {
      EXPECT_TRUE(link_joins(finding.at("link"), "leaf", "spine")) << finding;
      names_first_leaf = names_first_leaf || link_joins(finding.at("link"), "leaf0001", "spine");
    }
    EXPECT_TRUE(names_first_leaf) << "the sending leaf's uplinks carry the cut";
    EXPECT_THAT(findings_of_kind(*blocking, "degraded_link"), ::testing::IsEmpty());
    EXPECT_THAT(findings_of_kind(*blocking, "slow_node"), ::testing::IsEmpty());
  }

  // Pairwise rounds carry at most what the model expects of them: no link is to blame.
  const std::optional<json> pairwise_only = diagnose({"pairwise"}, "blocking_2to1");
  if (pairwise_only) {
    EXPECT_THAT(findings_of_kind(*pairwise_only, "degraded_link"), ::testing::IsEmpty());
    EXPECT_THAT(findings_of_kind(*pairwise_only, "blocking_link"), ::testing::IsEmpty());
  }
}

// A host's cable goes down in the middle of a pairwise sweep. The watchdog ends the run with the
// timeout code and names the op, the size and the host; every size measured before stays on disk
// with the incident beside it; and diagnose names that host's cable and no other link.
TEST_F(EmulatedFabric, HostLinkDownMidRunEndsTheRunAndDiagnoseNamesThatLink) {
  up({});
  if (IsSkipped() || HasFatalFailure()) return;

  const std::string failed_host = "h00003";
  constexpr int step_timeout_s = 3;
  // The deadline, the 2 s rank 0 waits for answers, the 5 s the other ranks give rank 0 before
  // they end the job themselves, and mpirun's teardown, many times over.
  const auto run_end_bound = std::chrono::seconds(10 * step_timeout_s + 60);
  constexpr std::uint64_t first_size = 64 << 10;
  const std::size_t rows_per_size = host_count * (host_count - 1u);
  const fs::path csv = results_dir_ / "link-down.csv";
  const fs::path json_path = results_dir_ / "link-down.json";
  // The sweep to 64M takes many minutes at 40 Mbit/s: the run is still measuring when the cable goes.
  ChildProcess run(
      across_hosts(host_count, {"run", "pairwise", "-b", "64K", "-e", "64M", "-n", "3", "-w", "1", "-W", "4", "-T",
                                std::to_string(step_timeout_s), "--csv", csv.string(), "--json", json_path.string()}));
  ASSERT_TRUE(wait_for_rows(csv, rows_per_size, std::chrono::seconds(180)))
      << "the first size never reached the disk\n"
      << describe(run.wait(std::chrono::seconds(0)));
  const ProcessResult down = fabric_script({"link-down", "--prefix", prefix_, failed_host});
  ASSERT_EQ(down.exit_code, 0) << describe(down);
  const auto link_down_at = std::chrono::steady_clock::now();
  const ProcessResult result = run.wait(run_end_bound);
  std::cout << "link down to exit: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - link_down_at).count() << " s\n";
  EXPECT_FALSE(result.timed_out) << describe(result);
  EXPECT_EQ(result.exit_code, 5) << describe(result);

  // Both files valid; every size before the one in flight complete; the incident beside them.
  const ResultSet from_csv = read_results_csv(csv);
  const ResultSet from_json = read_results_json(json_path);
  EXPECT_EQ(from_csv.rows, from_json.rows);
  ASSERT_EQ(from_json.incidents.size(), 1u);
  const Incident& incident = from_json.incidents.front();
  EXPECT_EQ(incident.kind, "timeout");
  EXPECT_EQ(incident.op, "pairwise");
  EXPECT_GT(incident.bytes, first_size);
  EXPECT_EQ(incident.deadline_s, step_timeout_s);
  ASSERT_TRUE(incident.round);
  EXPECT_EQ(incident.pairs_in_flight.size(), host_count / 2u);
  EXPECT_TRUE(
      std::any_of(incident.pairs_in_flight.begin(), incident.pairs_in_flight.end(), [&](const IncidentPair& pair) {
        return pair.src_host == failed_host || pair.dst_host == failed_host;
      }));
  EXPECT_EQ(incident.ranks_arrived.size() + incident.ranks_not_arrived.size(), static_cast<std::size_t>(host_count));
  // The host is named whichever network the watchdog's side channel took: its rank did not
  // answer (the channel crossed the cable), or it answered and saw its link go down.
  const bool silent = std::any_of(incident.ranks_not_arrived.begin(), incident.ranks_not_arrived.end(),
                                  [&](const IncidentRank& rank) { return rank.host == failed_host && !rank.answered; });
  const bool saw_it = incident.links_lost.size() == 1 && incident.links_lost[0].host == failed_host &&
                      incident.links_lost[0].link == "eth0";
  EXPECT_TRUE(silent || saw_it) << incident.message;
  std::map<std::uint64_t, std::set<int>> rounds_by_size;
  for (const ResultRow& row : from_json.rows) {
    EXPECT_LE(row.bytes, incident.bytes);
    rounds_by_size[row.bytes].insert(*row.round);
  }
  for (std::uint64_t bytes = first_size; bytes < incident.bytes; bytes *= 2) {
    EXPECT_EQ(std::count_if(from_json.rows.begin(), from_json.rows.end(),
                            [&](const ResultRow& row) { return row.bytes == bytes; }),
              static_cast<std::ptrdiff_t>(rows_per_size))
        << bytes << " B";
  }
  for (const int round : rounds_by_size[incident.bytes]) EXPECT_LT(round, *incident.round);

  // The message names the op, the size and the host.
  EXPECT_THAT(result.err, HasSubstr(fmt::format("timeout in pairwise {} B round {}", incident.bytes, *incident.round)));
  EXPECT_THAT(result.err, HasSubstr(failed_host));

  results_files_["link-down"] = json_path;
  const std::optional<json> diagnosis = diagnose({"link-down"}, "healthy");
  if (!diagnosis) return;
  const std::vector<json> failed = findings_of_kind(*diagnosis, "failed_link");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(link_joins(failed[0].at("link"), failed_host, "leaf0001")) << failed[0];
  EXPECT_EQ(failed[0].at("host"), failed_host);
  EXPECT_THAT(findings_of_kind(*diagnosis, "degraded_link"), ::testing::IsEmpty());
  EXPECT_THAT(findings_of_kind(*diagnosis, "blocking_link"), ::testing::IsEmpty());
  EXPECT_THAT(findings_of_kind(*diagnosis, "stalled_ranks"), ::testing::IsEmpty());
}

// Soak: h00003's cable falls to a quarter during the second of four repetitions and recovers.
// diagnose names h00003 as intermittent and puts it, alone, on the drain list.
TEST_F(EmulatedFabric, HostLinkThrottledDuringOneRepetitionIsIntermittentAndDrained) {
  up({});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::string slow_host = "h00003";
  const std::size_t rows_per_repetition = host_count * (host_count - 1u);
  const fs::path csv = results_dir_ / "soak.csv";
  const fs::path json_path = results_dir_ / "soak.json";
  ChildProcess run(
      across_hosts(host_count, {"run", "pairwise", "-b", "256K", "-e", "256K", "-n", "3", "-w", "1", "-W", "4",
                                "--repeat", "4", "--csv", csv.string(), "--json", json_path.string()}));
  ASSERT_TRUE(wait_for_rows(csv, rows_per_repetition, std::chrono::seconds(300)))
      << describe(run.wait(std::chrono::seconds(0)));
  const ProcessResult slow = fabric_script({"throttle", "--prefix", prefix_, slow_host, std::to_string(host_mbit / 4)});
  ASSERT_EQ(slow.exit_code, 0) << describe(slow);
  ASSERT_TRUE(wait_for_rows(csv, 2 * rows_per_repetition, std::chrono::seconds(300)))
      << describe(run.wait(std::chrono::seconds(0)));
  const ProcessResult recovered =
      fabric_script({"throttle", "--prefix", prefix_, slow_host, std::to_string(host_mbit)});
  ASSERT_EQ(recovered.exit_code, 0) << describe(recovered);
  const ProcessResult result = run.wait(std::chrono::seconds(600));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet soak = read_results_json(json_path);
  ASSERT_EQ(soak.rows.size(), 4 * rows_per_repetition);

  const fs::path drain = results_dir_ / "drain.txt";
  const fs::path diagnosis_path = results_dir_ / "soak-diagnosis.json";
  const ProcessResult diagnosed = run_process(
      testing::directly({"diagnose", "--results", json_path.string(), "--topology", specs_dir + "/healthy.yaml",
                         "--drain-list", drain.string(), "--json", diagnosis_path.string()}));
  std::cout << diagnosed.out;
  EXPECT_THAT(diagnosed.out, HasSubstr("intermittent_host " + slow_host + ": ")) << describe(diagnosed);
  std::ifstream in(drain);
  std::vector<std::string> drained;
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("#")) drained.push_back(line.substr(0, line.find('\t')));
  // The throttle lands after the repetition has begun: on a loaded machine the first round's pair
  // of h00003 can run before it (13 of 14 pairs slow, seen in CI), and the finding's confidence
  // says so (0.93). The drain list takes it at 0.99 only; either way no other host is drained.
  const std::vector<json> intermittent =
      findings_of_kind(json::parse(std::ifstream(diagnosis_path)), "intermittent_host");
  ASSERT_EQ(intermittent.size(), 1u) << describe(diagnosed);
  EXPECT_EQ(intermittent[0].at("host"), slow_host);
  const double confidence = intermittent[0].at("confidence").get<double>();
  EXPECT_GE(confidence, 0.9) << describe(diagnosed);
  if (confidence >= 0.99) {
    EXPECT_EQ(diagnosed.exit_code, 7) << describe(diagnosed);
    EXPECT_EQ(drained, std::vector<std::string>{slow_host}) << describe(diagnosed);
  } else {
    EXPECT_THAT(drained, ::testing::IsEmpty()) << describe(diagnosed);
  }
}

}  // namespace
}  // namespace fb
