// `run --store`, `history ingest`, `history` and `history drift` of the real binary on real MPI
// runs: the rows the store reads back from SQL equal the rows of the results files, ingesting again
// adds nothing, the trend is each run's median from the files, and the Prometheus textfile holds
// the latest run's numbers.

#include "integration/fabricbench_runs.hpp"
#include "common/robust_statistics.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "store/database.hpp"
#include "store/run_store.hpp"
#include "support/nightly_runs.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::describe;
using testing::directly;
using testing::run_process;
using testing::under_mpirun;

class HistoryCommand : public ::testing::Test {
 protected:
  // Three real all_reduce runs on two ranks, each recorded in `store` as it ends.
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    for (int run = 0; run < 3; ++run) {
      const testing::ProcessResult result =
          run_process(under_mpirun(2, FABRICBENCH_BINARY,
                                   {"run", "all_reduce", "-b", "64K", "-e", "1M", "-f", "4", "-n", "5", "-w", "1", "-D",
                                    (dir_->path() / "results").string(), "--store", store_path()}),
                      testing::allow_root);
      ASSERT_EQ(result.exit_code, 0) << describe(result);
      ASSERT_THAT(result.out, HasSubstr("# recorded in the run store " + store_path()));
    }
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string store_path() { return (dir_->path() / "history.sqlite").string(); }

  static std::map<std::string, ResultSet> files() {
    std::map<std::string, ResultSet> sets;
    for (const auto& entry : std::filesystem::directory_iterator(dir_->path() / "results"))
      if (entry.path().extension() == ".json") {
        ResultSet set = read_results_json(entry.path());
        // The CSV beside it holds the same rows.
        EXPECT_EQ(read_results_csv(std::filesystem::path(entry.path()).replace_extension(".csv")).rows, set.rows);
        sets.emplace(set.provenance.run_id, std::move(set));
      }
    return sets;
  }

  static void expect_store_equals_files(const std::string& store_url) {
    store::RunStore store(store_url);
    const std::map<std::string, ResultSet> sets = files();
    ASSERT_EQ(sets.size(), 3U);
    ASSERT_EQ(store.runs().size(), 3U);
    for (const auto& [run_id, set] : sets) {
      const std::optional<ResultSet> stored = store.run(run_id);
      ASSERT_TRUE(stored) << run_id;
      EXPECT_EQ(stored->provenance, set.provenance);
      ASSERT_EQ(stored->rows.size(), set.rows.size());  // 64K, 256K, 1M x out-of-place, in-place
      EXPECT_EQ(stored->rows.size(), 6U);
      for (std::size_t i = 0; i < set.rows.size(); ++i)
        EXPECT_EQ(stored->rows[i], set.rows[i]) << run_id << " row " << i;
      EXPECT_EQ(stored->incidents, set.incidents);
      EXPECT_EQ(stored->port_counters, set.port_counters);
    }
  }

  static testing::TempDir* dir_;
};

testing::TempDir* HistoryCommand::dir_ = nullptr;

TEST_F(HistoryCommand, RunStoreRowsReadFromSqlEqualTheResultsFiles) { expect_store_equals_files(store_path()); }

TEST_F(HistoryCommand, IngestRecordsEachRunOnceAndEqualsTheFiles) {
  const std::string other = (dir_->path() / "ingested.sqlite").string();
  const std::string results = (dir_->path() / "results").string();
  const testing::ProcessResult first = run_process(directly({"history", "ingest", results, "--store", other}));
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  EXPECT_THAT(first.out, HasSubstr("3 runs added, 0 updated (grew since), 0 already recorded"));
  const testing::ProcessResult again = run_process(directly({"history", "--store", other, "ingest", results}));
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_THAT(again.out, HasSubstr("0 runs added, 0 updated (grew since), 3 already recorded"));
  expect_store_equals_files(other);
}

TEST_F(HistoryCommand, TheTrendIsEachRunsMedianBusbwFromTheFiles) {
  const std::filesystem::path json = dir_->path() / "trend.json";
  const testing::ProcessResult result = run_process(
      directly({"history", "--store", store_path(), "--op", "all_reduce", "-s", "256K", "--json", json.string()}));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# all_reduce 256K, 2 ranks: 3 runs; busbw (GB/s)"));
  const nlohmann::json trend = nlohmann::json::parse(read_text_file(json));
  const std::map<std::string, ResultSet> sets = files();
  ASSERT_EQ(trend["points"].size(), 3U);
  std::string previous_start;
  for (const nlohmann::json& point : trend["points"]) {
    const ResultSet& set = sets.at(point["run_id"].get<std::string>());
    std::vector<double> busbw;
    for (const ResultRow& row : set.rows)
      if (row.bytes == 256 * 1024) busbw.push_back(*row.busbw_gbps);
    ASSERT_EQ(busbw.size(), 2U);  // out-of-place and in-place
    EXPECT_DOUBLE_EQ(point["value"].get<double>(), median_of(busbw));
    EXPECT_EQ(point["start_time"], set.provenance.start_time);
    EXPECT_LE(previous_start, set.provenance.start_time);  // oldest first
    previous_start = set.provenance.start_time;
  }
  EXPECT_TRUE(trend["changes"].empty());  // three runs: too few to judge
}

TEST_F(HistoryCommand, DriftWritesTheLatestRunsGaugesForPrometheus) {
  const std::filesystem::path metrics = dir_->path() / "textfile";
  const testing::ProcessResult result =
      run_process(directly({"history", "drift", "--store", store_path(), "--prometheus-textfile", metrics.string()}));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("# drift: 0 hosts, 0 pairs, 3 collective series judged"));
  const std::string text = read_text_file(metrics / "fabricbench.prom");
  // The newest run's 1M rows, from its file.
  const std::map<std::string, ResultSet> sets = files();
  const auto newest = std::ranges::max_element(sets, {}, [](const auto& entry) {
    return std::tie(entry.second.provenance.start_time, entry.first);
  });
  std::vector<double> busbw;
  for (const ResultRow& row : newest->second.rows)
    if (row.bytes == 1024 * 1024) busbw.push_back(*row.busbw_gbps);
  // In bytes per second (Prometheus' base unit): the file's GB/s x 10^9.
  EXPECT_THAT(text, HasSubstr(fmt::format("fabricbench_collective_busbw_bytes_per_second{{op=\"all_reduce\","
                                          "bytes=\"1048576\",nranks=\"2\"}} {}\n",
                                          median_of(busbw) * 1e9)));
  EXPECT_THAT(text, HasSubstr("# TYPE fabricbench_collective_degraded gauge\n"));
  EXPECT_THAT(text, HasSubstr("fabricbench_collective_degraded{op=\"all_reduce\",bytes=\"65536\",nranks=\"2\"} 0\n"));
  EXPECT_TRUE(text.ends_with("# EOF\n"));
}

TEST_F(HistoryCommand, BadInputIsOneLineAndLeavesTheStoreAsItWas) {
  const std::filesystem::path bad = dir_->path() / "bad";
  std::filesystem::create_directories(bad);
  std::filesystem::copy(dir_->path() / "results", bad);
  write_file_atomically(bad / "broken.json", "{\"schema\": ");
  const std::string store_url = (dir_->path() / "untouched.sqlite").string();
  const testing::ProcessResult result =
      run_process(directly({"history", "ingest", bad.string(), "--store", store_url}));
  EXPECT_EQ(result.exit_code, 4) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("broken.json"));
  EXPECT_EQ(std::ranges::count(result.err, '\n'), 1) << result.err;
  EXPECT_TRUE(store::RunStore(store_url).runs().empty());
  const testing::ProcessResult missing =
      run_process(directly({"history", "--store", (dir_->path() / "typo.sqlite").string()}));
  EXPECT_EQ(missing.exit_code, 4) << describe(missing);
  EXPECT_THAT(missing.err, HasSubstr("no run store at"));
  EXPECT_FALSE(std::filesystem::exists(dir_->path() / "typo.sqlite"));
  const testing::ProcessResult unknown = run_process(directly({"history", "--store", store_url, "--op", "all_gather"}));
  EXPECT_EQ(unknown.exit_code, 4) << describe(unknown);
  EXPECT_THAT(unknown.err, HasSubstr("the run store has no all_gather rows"));
}

// `history ingest` records its runs in one transaction while it reads the files after them: killed
// half-way, it has committed nothing, and the store holds what it held before, intact and usable.
TEST_F(HistoryCommand, AnIngestKilledHalfWayLeavesTheStoreAsItWas) {
  const std::string store_url = (dir_->path() / "killed.sqlite").string();
  const testing::ProcessResult first =
      run_process(directly({"history", "ingest", (dir_->path() / "results").string(), "--store", store_url}));
  ASSERT_EQ(first.exit_code, 0) << describe(first);
  // Enough runs that the ingest is still in its transaction when it is seen there: copies of a real run.
  const std::filesystem::path many = dir_->path() / "many";
  std::filesystem::create_directories(many);
  ResultSet copy = files().begin()->second;
  constexpr int copies = 4000;
  for (int i = 0; i < copies; ++i) {
    copy.provenance.run_id = fmt::format("copy{:05}", i);
    for (ResultRow& row : copy.rows) row.run_id = copy.provenance.run_id;
    write_file_atomically(many / (copy.provenance.run_id + ".json"), results_to_json(copy));
  }
  testing::ChildProcess ingest({FABRICBENCH_BINARY, "history", "ingest", many.string(), "--store", store_url});
  // The ingest holds the store's write lock from its first run to its commit: killed once it is
  // seen holding it, it dies inside the transaction.
  const std::unique_ptr<store::Database> probe = store::open_database(store_url);
  probe->execute("PRAGMA busy_timeout=0");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool in_transaction = false;
  while (!in_transaction && std::chrono::steady_clock::now() < deadline) {
    try {
      probe->begin_exclusive();
      probe->execute("ROLLBACK");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } catch (const std::runtime_error&) { in_transaction = true; }
  }
  ASSERT_TRUE(in_transaction) << "the ingest was never seen recording";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ingest.kill_session();
  const testing::ProcessResult killed = ingest.wait(std::chrono::seconds(10));
  ASSERT_EQ(killed.signal, SIGKILL) << "the ingest ended before it was killed: more copies needed\n"
                                    << describe(killed);

  EXPECT_EQ(probe->query("PRAGMA integrity_check", {}), std::vector<store::Values>{{"ok"}});
  expect_store_equals_files(store_url);
  // And it takes the ingest again, whole.
  const testing::ProcessResult again =
      run_process(directly({"history", "ingest", many.string(), "--store", store_url}));
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_THAT(again.out, HasSubstr(fmt::format("{} runs added", copies)));
  EXPECT_EQ(store::RunStore(store_url).runs().size(), 3U + copies);
}

TEST(HistoryDrift, AHostWhoseCableLostTenPercentIsFlaggedFromTheRunItBeganAndDrained) {
  testing::TempDir dir;
  testing::write_nightly_runs(dir / "nights");
  const std::string store_url = (dir / "history.sqlite").string();
  ASSERT_EQ(run_process(directly({"history", "ingest", (dir / "nights").string(), "--store", store_url})).exit_code, 0);

  const std::filesystem::path drain = dir / "drain.txt";
  const std::filesystem::path metrics = dir / "textfile";
  const testing::ProcessResult drift =
      run_process(directly({"history", "drift", "--store", store_url, "--drain-list", drain.string(),
                            "--prometheus-textfile", metrics.string()}));
  EXPECT_EQ(drift.exit_code, 7) << describe(drift);  // a host is listed
  EXPECT_THAT(drift.out, HasSubstr("# drift: 4 hosts, 6 pairs, 0 collective series judged"));
  EXPECT_THAT(drift.out, HasSubstr("host node3: pairwise 4M"));
  EXPECT_THAT(drift.out, HasSubstr("busbw 0.900 x baseline since run night22 (2026-11-23T02:00:00Z), flagged at run "
                                   "night24 (2 runs later)"));
  // The pairs with node3 drifted as well; the other hosts' own series did not (a third of their
  // pairs is slower: under the slack).
  EXPECT_THAT(drift.out, HasSubstr("pair node1 <-> node3: pairwise 4M"));
  EXPECT_THAT(drift.out, ::testing::Not(HasSubstr("host node1:")));
  const std::vector<std::string> listed = testing::lines_of(read_text_file(drain));
  ASSERT_EQ(listed.size(), 2U) << read_text_file(drain);
  EXPECT_THAT(listed[1], ::testing::StartsWith("node3\tfabricbench history drift: drift host node3: pairwise 4M: busbw "
                                               "0.900 x baseline since run night22"));
  const std::string text = read_text_file(metrics / "fabricbench.prom");
  EXPECT_THAT(text, HasSubstr("fabricbench_host_degraded{host=\"node3\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("fabricbench_host_degraded{host=\"node1\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("fabricbench_host_drained{host=\"node3\"} 1\n"));

  // The host's trend page: the drift in words, the runs plotted, the run it began at in the table.
  const std::filesystem::path page = dir / "node3.html";
  const testing::ProcessResult trend =
      run_process(directly({"history", "--store", store_url, "--host", "node3", "--html", page.string()}));
  ASSERT_EQ(trend.exit_code, 0) << describe(trend);
  EXPECT_THAT(trend.out, HasSubstr("  night22 "));
  EXPECT_THAT(trend.out, HasSubstr("change began (lower 0.900 x baseline)"));
  const std::string html = read_text_file(page);
  EXPECT_THAT(html, HasSubstr("<b>Drifted:</b> busbw 0.900 x baseline since run night22"));
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_THAT(html, HasSubstr("change: runs 23 to 25 (0.900 x baseline)"));
  EXPECT_THAT(html,
              HasSubstr("<td>23</td><td>night22</td><td>2026-11-23T02:00:00Z</td><td>11.31</td><td>change began"));

  // diagnose takes the same judgement: a drift finding, and node3 on its drain list.
  const std::filesystem::path diagnose_drain = dir / "diagnose-drain.txt";
  write_file_atomically(dir / "four.yaml", "node:\n  hosts: \"node[1-4]\"\n  cpus: 1\n  gpus: 0\n"
                                           "  pcie: {generation: 4, width: 16, switches: 0}\n"
                                           "  nics: {count: 1, type: ethernet, rate_gbps: 100}\n"
                                           "fabric:\n  tiers:\n    - {name: leaf, radix: 8}\n");
  const testing::ProcessResult diagnose =
      run_process(directly({"diagnose", "--results", (dir / "nights" / "night29.json").string(), "--store", store_url,
                            "--drain-list", diagnose_drain.string(), "--topology", (dir / "four.yaml").string()}));
  EXPECT_EQ(diagnose.exit_code, 7) << describe(diagnose);
  EXPECT_THAT(diagnose.out, HasSubstr("drift          host node3: pairwise 4M"));
  EXPECT_THAT(read_text_file(diagnose_drain), HasSubstr("node3\tfabricbench diagnose: drift host node3"));
}

// The same history on a fabric where each host has one NIC cabled to a leaf: every host's series is
// its cable's, so the textfile holds one gauge per cable, named by host, NIC and switch, and
// promtool (Prometheus' own parser) accepts it.
TEST(HistoryDrift, PerLinkGaugesNameTheCableOfTheDriftedHost) {
  testing::TempDir dir;
  testing::write_nightly_runs(dir / "nights");
  const std::string store_url = (dir / "history.sqlite").string();
  ASSERT_EQ(run_process(directly({"history", "ingest", (dir / "nights").string(), "--store", store_url})).exit_code, 0);
  write_file_atomically(dir / "four.yaml", "node:\n  hosts: \"node[1-4]\"\n  cpus: 1\n  gpus: 0\n"
                                           "  pcie: {generation: 4, width: 16, switches: 0}\n"
                                           "  nics: {count: 1, type: ethernet, rate_gbps: 100}\n"
                                           "fabric:\n  tiers:\n    - {name: leaf, radix: 8}\n");
  const std::filesystem::path metrics = dir / "textfile";
  const testing::ProcessResult drift =
      run_process(directly({"history", "drift", "--store", store_url, "--topology", (dir / "four.yaml").string(),
                            "--prometheus-textfile", metrics.string()}));
  ASSERT_EQ(drift.exit_code, 0) << describe(drift);
  EXPECT_THAT(drift.out, HasSubstr("# links: 4 hosts on their one fabric cable\n"));
  const std::string text = read_text_file(metrics / "fabricbench.prom");
  // The sample lines of one family, by host.
  const auto samples = [&](const std::string& family) {
    std::map<std::string, std::pair<std::string, double>> found;
    for (const std::string& line : testing::lines_of(text)) {
      if (!line.starts_with(family + "{")) continue;
      const std::size_t host = line.find("host=\"") + 6;
      const std::string name = line.substr(host, line.find('"', host) - host);
      found[name] = {line.substr(0, line.rfind(' ')), std::stod(line.substr(line.rfind(' ') + 1))};
    }
    return found;
  };
  const auto degraded = samples("fabricbench_link_degraded");
  ASSERT_EQ(degraded.size(), 4U) << text;
  EXPECT_EQ(degraded.at("node3").second, 1);
  EXPECT_EQ(degraded.at("node1").second, 0);
  // The cable's two ends: node3's NIC and the leaf it plugs into; the spec states no port numbers.
  EXPECT_THAT(degraded.at("node3").first,
              ::testing::MatchesRegex("fabricbench_link_degraded\\{host=\"node3\",nic=\"[a-z0-9_]+\","
                                      "switch=\"[A-Za-z0-9_-]+\",port=\"\"\\}"));
  // Night 29 (odd: -0.5%), every node3 pair at 0.9: 12.5 x 0.995 x 0.9; node1's median pair is clean.
  const auto bandwidth = samples("fabricbench_link_bandwidth_bytes_per_second");
  EXPECT_NEAR(bandwidth.at("node3").second, 12.5e9 * 0.995 * 0.9, 1);
  EXPECT_NEAR(bandwidth.at("node1").second, 12.5e9 * 0.995, 1);
  EXPECT_NEAR(samples("fabricbench_link_baseline_ratio").at("node3").second, 0.9, 0.011);
  if (std::filesystem::exists("/usr/bin/promtool")) {
    const testing::ProcessResult check =
        run_process({"/bin/sh", "-c",
                     fmt::format("/usr/bin/promtool check metrics < '{}'", (metrics / "fabricbench.prom").string())});
    EXPECT_EQ(check.exit_code, 0) << describe(check);
  } else {
    std::cout << "promtool not installed (Debian package prometheus): the textfile was not checked by it\n";
  }
}

// A store holding every kind of run: pairs across hosts (the nightly history), a collective, and
// latency and bw between two GPUs inside one host. Its textfile passes Prometheus' own linter, and
// every family it holds is plotted by the Grafana dashboard.
TEST(HistoryDrift, EveryKindOfRunGivesMetricsPromtoolAcceptsAndTheDashboardPlots) {
  testing::TempDir dir;
  testing::write_nightly_runs(dir / "nights");
  std::filesystem::create_directories(dir / "mixed");
  for (int run = 0; run < 3; ++run) {
    ResultSet results;
    results.provenance.run_id = fmt::format("mixed{}", run);
    results.provenance.start_time = fmt::format("2026-12-0{}T02:00:00Z", run + 1);
    const auto add = [&](const std::string& op, const std::string& host, std::uint64_t bytes, double gbps, double us) {
      ResultRow row;
      row.run_id = results.provenance.run_id;
      row.op = op;
      row.nranks = 2;
      row.src_host = row.dst_host = host;
      row.bytes = bytes;
      row.algbw_gbps = gbps;
      if (host.empty()) row.busbw_gbps = gbps;
      row.time_median_us = us;
      results.rows.push_back(row);
    };
    add("all_reduce", "", 1 << 20, 9.5, 110.0);
    add("latency", "node7", 8, 0.004, 2.1);
    add("bw", "node7", 4 << 20, 40.0, 105.0);
    write_file_atomically(dir / "mixed" / (results.provenance.run_id + ".json"), results_to_json(results));
  }
  const std::string store_url = (dir / "history.sqlite").string();
  ASSERT_EQ(run_process(directly({"history", "ingest", (dir / "nights").string(), (dir / "mixed").string(), "--store",
                                  store_url}))
                .exit_code,
            0);
  write_file_atomically(dir / "four.yaml", "node:\n  hosts: \"node[1-4]\"\n  cpus: 1\n  gpus: 0\n"
                                           "  pcie: {generation: 4, width: 16, switches: 0}\n"
                                           "  nics: {count: 1, type: ethernet, rate_gbps: 100}\n"
                                           "fabric:\n  tiers:\n    - {name: leaf, radix: 8}\n");
  const std::filesystem::path metrics = dir / "textfile";
  const testing::ProcessResult drift =
      run_process(directly({"history", "drift", "--store", store_url, "--topology", (dir / "four.yaml").string(),
                            "--prometheus-textfile", metrics.string()}));
  ASSERT_EQ(drift.exit_code, 0) << describe(drift);
  // node1-4 across the fabric and node7's two series within it; 6 pairs; the collective.
  EXPECT_THAT(drift.out, HasSubstr("# drift: 6 hosts, 6 pairs, 1 collective series judged"));
  const std::string text = read_text_file(metrics / "fabricbench.prom");
  // Base units: the latency of 2.1 us in seconds, the bw of 40 GB/s in bytes per second.
  // The run's median time comes back from the store as a double one ulp off 2.1 us.
  const std::string latency_series =
      "fabricbench_host_latency_seconds{host=\"node7\",op=\"latency\",bytes=\"8\",scope=\"node\"} ";
  const std::size_t latency_at = text.find(latency_series);
  ASSERT_NE(latency_at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(latency_at + latency_series.size())), 2.1e-06, 1e-18);
  EXPECT_THAT(text, HasSubstr("fabricbench_host_bandwidth_bytes_per_second{host=\"node7\",op=\"bw\",bytes=\"4194304\","
                              "scope=\"node\"} 40000000000\n"));
  EXPECT_THAT(text, HasSubstr("fabricbench_host_degraded{host=\"node7\",scope=\"node\",op=\"latency\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("fabricbench_collective_time_seconds{op=\"all_reduce\",bytes=\"1048576\",nranks=\"2\"} "
                              "0.00011\n"));
  std::vector<std::string> families;
  for (const std::string& line : testing::lines_of(text))
    if (line.starts_with("# TYPE ")) families.push_back(line.substr(7, line.find(' ', 7) - 7));
  // Host (bandwidth, latency, baseline, degraded, drained), collective (busbw, time, degraded) and
  // link (bandwidth, baseline, degraded) families; no efficiency (no row carries the model's) and
  // no link latency (the latency series is node7's own, inside one host).
  EXPECT_GE(families.size(), 11U) << text;
  const std::string dashboard = read_text_file(FABRICBENCH_DASHBOARD);
  for (const std::string& family : families) {
    bool plotted = false;
    for (std::size_t at = dashboard.find("\"expr\": \""); at != std::string::npos;
         at = dashboard.find("\"expr\": \"", at + 1)) {
      const std::string expression = dashboard.substr(at, dashboard.find('\n', at) - at);
      // A whole name: fabricbench_host_degraded is not found inside fabricbench_host_degraded_x.
      const std::size_t found = expression.find(family);
      if (found != std::string::npos &&
          (found + family.size() == expression.size() ||
           !(std::isalnum(static_cast<unsigned char>(expression[found + family.size()])) ||
             expression[found + family.size()] == '_')))
        plotted = true;
    }
    EXPECT_TRUE(plotted) << family << " is on no panel of the dashboard";
  }
  if (std::filesystem::exists("/usr/bin/promtool")) {
    const testing::ProcessResult check =
        run_process({"/bin/sh", "-c",
                     fmt::format("/usr/bin/promtool check metrics < '{}'", (metrics / "fabricbench.prom").string())});
    EXPECT_EQ(check.exit_code, 0) << describe(check);
    EXPECT_EQ(check.out + check.err, "");  // not even a lint warning
  } else {
    std::cout << "promtool not installed (Debian package prometheus): the textfile was not checked by it\n";
  }
}

// A URL fabricbench does not read is a usage error (exit 2) before anything exists: no SQLite file
// named like it, no results, no "recorded".
TEST(HistoryStoreUrl, AnUnknownOrMalformedUrlIsAUsageErrorThatCreatesNothing) {
  testing::TempDir dir;
  testing::write_nightly_runs(dir / "nights");
  const std::filesystem::path cwd = dir / "cwd";
  std::filesystem::create_directories(cwd);
  const auto in_cwd = [&](const std::string& args) {
    return run_process({"/bin/sh", "-c", fmt::format("cd '{}' && '{}' {}", cwd.string(), FABRICBENCH_BINARY, args)});
  };
  for (const std::string url : {"mysql://u:Secret9@h/db", "postgresql//u:Secret9@h/db", "postgres:/u@h/db"}) {
    const testing::ProcessResult ingest =
        in_cwd(fmt::format("history ingest '{}' --store '{}'", (dir / "nights").string(), url));
    EXPECT_EQ(ingest.exit_code, 2) << describe(ingest);
    EXPECT_THAT(ingest.err, HasSubstr("a run store is postgresql://USER@HOST:PORT/DB or the path of an SQLite file"));
    EXPECT_THAT(ingest.err, ::testing::Not(HasSubstr("Secret9")));
    EXPECT_THAT(ingest.out, ::testing::Not(HasSubstr("recorded")));
    const testing::ProcessResult run =
        in_cwd(fmt::format("run all_reduce -b 1K -e 1K -n 2 -w 1 -D results --store '{}'", url));
    EXPECT_EQ(run.exit_code, 2) << describe(run);
    EXPECT_THAT(run.err, ::testing::Not(HasSubstr("Secret9")));
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(cwd), {}), 0) << "something was created";
  // A plain path is SQLite.
  const testing::ProcessResult path =
      in_cwd(fmt::format("history ingest '{}' --store runs.sqlite", (dir / "nights").string()));
  EXPECT_EQ(path.exit_code, 0) << describe(path);
  EXPECT_TRUE(std::filesystem::exists(cwd / "runs.sqlite"));
}

}  // namespace
}  // namespace fb
