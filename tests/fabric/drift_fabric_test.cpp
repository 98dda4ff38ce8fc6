// The fleet's memory end to end: an emulated fabric (scripts/emulated-fabric.sh, one leaf of four
// hosts), the real fabricbench measuring pairwise across it under the real mpirun and recording
// every run in a run store (`run --store`), while one host's cable is throttled step by step over
// the runs: full rate for the baseline, then a moderate cut, then a deeper one. `fabricbench
// history drift --topology` must flag that host and its cable, name the first throttled run as the
// one the drift began at, and flag no healthy host.
//
// The emulation is checked first from the store itself (the throttled host's series falls by the
// throttle's ratios, the others' stay level), so a wrong judgement cannot be a wrong emulation.

#include "fabric_support.hpp"
#include "fabricbench_runs.hpp"
#include "process_runner.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fb {
namespace {

// The shared fabric helpers, with the process runner's names (run_process, ProcessResult) and fs.
using namespace fabric_support;  // NOLINT(google-build-using-namespace): the shared fabric helpers, one per test file

using ::testing::HasSubstr;
using testing::describe;
using testing::TempDir;
using json = nlohmann::json;

constexpr int host_count = 4;  // one leaf: the first leaf of tests/fabric/specs/healthy.yaml
constexpr int host_mbit = 40;  // the script's default host link rate
const std::vector<std::string> hosts{"h00001", "h00002", "h00003", "h00004"};
const std::string slow_host = "h00003";
// The slow host's cable per run, in Mbit/s: the baseline at full rate, then a moderate and a deeper cut.
const std::vector<int> slow_cable_mbit{host_mbit, host_mbit, host_mbit, 30, 20};
constexpr std::size_t baseline_runs = 3;
constexpr std::size_t first_throttled_run = 3;
// The judgement's settings for a history of five runs: a change of two runs (--min-change-runs 2:
// each run counts at most h = 1.5 beyond the slack, so no single run raises an alarm, and two do).
// The spread is floored at 10%: the baseline's three runs can agree to 0.1% by chance, while this
// shared machine's load moves a healthy host's runs by a few percent; 10% lets no such dip
// accumulate (under the slack of 1.5 spreads), and the 25% cut (2.9 spreads) counts.
const std::vector<std::string> drift_settings{"--baseline-runs",   std::to_string(baseline_runs),
                                              "--cusum-threshold", "1.5",
                                              "--min-change-runs", "2",
                                              "--min-spread-pct",  "10"};

json read_json(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

class DriftOnFabric : public FabricCase {
 protected:
  // One pairwise run across every host, recorded in the store; its run id. 256 KiB messages with a
  // window of 4 keep the tbf burst negligible (docs/emulated-fabric.md); few iterations, one size.
  std::string measure(std::size_t index) {
    const fs::path csv = dir_ / fmt::format("run{}.csv", index);
    const fs::path json_path = dir_ / fmt::format("run{}.json", index);
    const ProcessResult result =
        run_process(across_hosts(host_count,
                                 {"run", "pairwise", "-b", "256K", "-e", "256K", "-n", "2", "-w", "1", "-W", "4",
                                  "--csv", csv.string(), "--json", json_path.string(), "--store", store_.string()}),
                    {}, std::chrono::seconds(300));
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_THAT(result.out, HasSubstr("recorded in the run store")) << describe(result);
    if (!fs::exists(json_path)) {
      ADD_FAILURE() << "run " << index << " wrote no results";
      return {};
    }
    return read_results_json(json_path).provenance.run_id;
  }

  // `fabricbench history ARGS... --store STORE` with the drift settings above.
  ProcessResult history(std::vector<std::string> args) const {
    args.insert(args.begin(), "history");
    args.insert(args.end(), {"--store", store_.string()});
    args.insert(args.end(), drift_settings.begin(), drift_settings.end());
    return run_process(testing::directly(args));
  }

  // The host's series as `history --host H --json` gives it: every run's value and the changes found.
  json host_series(const std::string& host) const {
    const fs::path out = dir_ / ("series-" + host + ".json");
    const ProcessResult result = history({"--host", host, "--json", out.string()});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    return fs::exists(out) ? read_json(out) : json{{"points", json::array()}, {"changes", json::array()}};
  }

  TempDir dir_;
  const fs::path store_ = dir_ / "history.sqlite";
};

// The value of each point of a series over the median of its baseline runs.
std::vector<double> over_baseline(const json& series) {
  std::vector<double> values;
  for (const json& point : series.at("points")) values.push_back(point.at("value").get<double>());
  if (values.size() < baseline_runs) return {};
  const double baseline = median(std::vector<double>(values.begin(), values.begin() + baseline_runs));
  for (double& value : values) value /= baseline;
  return values;
}

// The gauges of one family in a Prometheus text file, by their host label.
std::map<std::string, double> gauges_by_host(const fs::path& textfile, const std::string& family) {
  std::map<std::string, double> found;
  std::ifstream in(textfile);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(family + "{")) continue;
    const auto host_at = line.find("host=\"") + 6;
    const std::string host = line.substr(host_at, line.find('"', host_at) - host_at);
    EXPECT_THAT(line, HasSubstr("switch=\"leaf0001\"")) << "every host's one cable ends at leaf0001";
    found[host] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  return found;
}

TEST_F(DriftOnFabric, HostCableThrottledStepByStepIsFlaggedFromTheRunItBegan) {
  bring_up({"--leaves", "1", "--hosts-per-leaf", std::to_string(host_count)}, host_count + 3u,
           "4 hosts, 1 leaf, 1 spine, 1 management switch");
  if (IsSkipped() || HasFatalFailure()) return;

  std::vector<std::string> run_ids;
  for (std::size_t i = 0; i < slow_cable_mbit.size(); ++i) {
    if (i > 0 && slow_cable_mbit[i] != slow_cable_mbit[i - 1]) {
      const ProcessResult throttled =
          fabric_script({"throttle", "--prefix", prefix_, slow_host, std::to_string(slow_cable_mbit[i])});
      ASSERT_EQ(throttled.exit_code, 0) << describe(throttled);
    }
    run_ids.push_back(measure(i));
    if (HasFailure()) return;
  }

  // The store holds the five runs in the order they ran, with every pair of every run.
  const fs::path listed = dir_ / "runs.json";
  const ProcessResult listing = history({"--json", listed.string()});
  ASSERT_EQ(listing.exit_code, 0) << describe(listing);
  const json runs = read_json(listed);
  std::vector<std::string> stored;
  for (const json& run : runs.at("runs")) {
    stored.push_back(run.at("run_id").get<std::string>());
    EXPECT_EQ(run.at("rows").get<int>(), host_count * (host_count - 1)) << run;
  }
  ASSERT_EQ(stored, run_ids);

  // The emulation, from the store: the slow host's runs fall by the throttle's ratios, the healthy
  // hosts' stay level (their median row is a pair without the slow host).
  for (const std::string& host : hosts) {
    const json series = host_series(host);
    const std::vector<double> ratios = over_baseline(series);
    ASSERT_EQ(ratios.size(), run_ids.size()) << host;
    for (std::size_t i = 0; i < ratios.size(); ++i) {
      if (host == slow_host)
        EXPECT_NEAR(ratios[i], slow_cable_mbit[i] / static_cast<double>(host_mbit), 0.07) << host << " run " << i;
      else
        EXPECT_NEAR(ratios[i], 1.0, 0.1) << host << " run " << i;
    }
    if (host != slow_host) {
      EXPECT_THAT(series.at("changes"), ::testing::IsEmpty()) << host;
      continue;
    }
    // Its series names the change: lower, worse, from the first throttled run, flagged one run later.
    ASSERT_EQ(series.at("changes").size(), 1u) << series.dump(1);
    const json& change = series.at("changes").at(0);
    EXPECT_EQ(change.at("began_run_id"), run_ids[first_throttled_run]);
    EXPECT_EQ(change.at("flagged_run_id"), run_ids[first_throttled_run + 1]);
    EXPECT_EQ(change.at("direction"), "lower");
    EXPECT_EQ(change.at("worse"), true);
    EXPECT_NEAR(change.at("ratio").get<double>(), (30.0 + 20.0) / 2 / host_mbit, 0.07) << change;
  }

  // Every series of the store judged, the cables from the topology model of the fabric.
  const fs::path findings_path = dir_ / "drift.json";
  const fs::path drain = dir_ / "drain.txt";
  const fs::path metrics = dir_ / "metrics";
  const ProcessResult drift =
      history({"drift", "--topology", std::string(FABRIC_SPECS_DIR) + "/healthy.yaml", "--json", findings_path.string(),
               "--drain-list", drain.string(), "--prometheus-textfile", metrics.string()});
  std::cout << drift.out;
  EXPECT_EQ(drift.exit_code, 7) << describe(drift);
  EXPECT_THAT(drift.out, HasSubstr("# links: 4 hosts on their one fabric cable\n"));

  // Findings: the slow host's own series, and the series of each pair with it; nothing else.
  std::set<std::string> subjects;
  const json judged = read_json(findings_path);
  for (const json& finding : judged.at("findings")) {
    const std::string subject = finding.at("subject");
    subjects.insert(subject.substr(0, subject.find(':')));
    EXPECT_EQ(finding.at("kind"), "drift");
    const std::string evidence = finding.at("evidence").at(0);
    EXPECT_THAT(evidence, HasSubstr("since run " + run_ids[first_throttled_run] + " ")) << subject;
    EXPECT_THAT(evidence, HasSubstr("flagged at run " + run_ids[first_throttled_run + 1] + " ")) << subject;
  }
  EXPECT_EQ(subjects, (std::set<std::string>{"host h00003", "pair h00001 <-> h00003", "pair h00002 <-> h00003",
                                             "pair h00003 <-> h00004"}));

  // The drain list: the slow host alone.
  std::vector<std::string> drained;
  std::ifstream drain_in(drain);
  for (std::string line; std::getline(drain_in, line);)
    if (!line.starts_with("#")) drained.push_back(line.substr(0, line.find('\t')));
  EXPECT_EQ(drained, std::vector<std::string>{slow_host});

  // The per-link gauges: the slow host's cable degraded, at the deeper cut's ratio; the others level.
  const fs::path textfile = metrics / "fabricbench.prom";
  const std::map<std::string, double> degraded = gauges_by_host(textfile, "fabricbench_link_degraded");
  const std::map<std::string, double> ratio = gauges_by_host(textfile, "fabricbench_link_baseline_ratio");
  ASSERT_EQ(degraded.size(), hosts.size());
  ASSERT_EQ(ratio.size(), hosts.size());
  for (const std::string& host : hosts) {
    EXPECT_EQ(degraded.at(host), host == slow_host ? 1.0 : 0.0) << host;
    EXPECT_NEAR(ratio.at(host), host == slow_host ? 20.0 / host_mbit : 1.0, 0.07) << host;
  }
}

}  // namespace
}  // namespace fb
