// The run store and the metrics against real servers from Debian's packages, started here on
// loopback ports in a temporary directory and ended with the test:
//   - PostgreSQL (initdb + postgres as an unprivileged user: it refuses to run as root): real MPI
//     runs recorded with `run --store postgresql://...`, ingested again (no change), and the rows
//     read back from SQL equal the results files;
//   - Prometheus scraping node_exporter's textfile collector: after `history drift
//     --prometheus-textfile`, Prometheus' HTTP API returns the gauges with the file's values.
// Where a package is missing the test is skipped with the package to install.

#include "integration/fabricbench_runs.hpp"
#include "store/postgres_server.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "results/atomic_file.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <thread>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::ChildProcess;
using testing::describe;
using testing::directly;
using testing::run_process;
using testing::free_port;
using testing::PostgresServer;
using testing::under_mpirun;
using namespace std::chrono_literals;

// GET http://127.0.0.1:PORT/TARGET: the body, or nothing when nobody answers (yet).
std::optional<std::string> http_get(int port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (fd >= 0) ::close(fd);
    return std::nullopt;
  }
  const std::string request = fmt::format("GET {} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", target);
  if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return std::nullopt;
  }
  std::string response;
  char block[4096];
  for (ssize_t n; (n = ::read(fd, block, sizeof block)) > 0;) response.append(block, static_cast<std::size_t>(n));
  ::close(fd);
  const std::size_t body = response.find("\r\n\r\n");
  if (!response.starts_with("HTTP/1.") || body == std::string::npos) return std::nullopt;
  return response.substr(body + 4);
}

// Three real all_reduce runs on two ranks into `dir`, each also recorded in `store_url`.
void record_mpi_runs(const std::filesystem::path& dir, const std::string& store_url) {
  for (int run = 0; run < 3; ++run) {
    const testing::ProcessResult result =
        run_process(under_mpirun(2, FABRICBENCH_BINARY,
                                 {"run", "all_reduce", "-b", "64K", "-e", "1M", "-f", "4", "-n", "5", "-w", "1", "-D",
                                  dir.string(), "--store", store_url}),
                    testing::allow_root);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  }
}

std::map<std::string, ResultSet> results_files(const std::filesystem::path& dir) {
  std::map<std::string, ResultSet> sets;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json") {
      ResultSet set = read_results_json(entry.path());
      sets.emplace(set.provenance.run_id, std::move(set));
    }
  return sets;
}

TEST(Services, PostgresqlStoreHoldsTheRowsOfRealMpiRuns) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  testing::TempDir dir;
  record_mpi_runs(dir / "results", server.url());
  const testing::ProcessResult again =
      run_process(directly({"history", "ingest", (dir / "results").string(), "--store", server.url()}));
  ASSERT_EQ(again.exit_code, 0) << describe(again);
  EXPECT_THAT(again.out, HasSubstr("0 runs added, 0 updated (grew since), 3 already recorded"));

  store::RunStore store(server.url());
  EXPECT_EQ(store.kind(), "postgresql");
  EXPECT_EQ(store.runs().size(), 3U);
  const std::map<std::string, ResultSet> sets = results_files(dir / "results");
  ASSERT_EQ(sets.size(), 3U);
  for (const auto& [run_id, set] : sets) {
    const std::optional<ResultSet> stored = store.run(run_id);
    ASSERT_TRUE(stored) << run_id;
    EXPECT_EQ(stored->provenance, set.provenance);
    ASSERT_EQ(stored->rows.size(), 6U);
    for (std::size_t i = 0; i < set.rows.size(); ++i) EXPECT_EQ(stored->rows[i], set.rows[i]) << run_id << " row " << i;
  }
  // The trend from PostgreSQL is the one SQLite gives for the same runs.
  testing::TempDir sqlite;
  store::RunStore local((sqlite / "history.sqlite").string());
  for (const auto& [run_id, set] : sets) local.record(set, run_id);
  const store::Trend from_server = store.trend({.op = "all_reduce", .bytes = 1 << 20});
  const store::Trend from_file = local.trend({.op = "all_reduce", .bytes = 1 << 20});
  ASSERT_EQ(from_server.points.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(from_server.points[i].run_id, from_file.points[i].run_id);
    EXPECT_EQ(from_server.points[i].bandwidth_gbps, from_file.points[i].bandwidth_gbps);
  }
  // Verdicts (schema version 3) on the server: accept --store records one, and --baseline accepted
  // then takes that run alone, the same on PostgreSQL as on SQLite.
  const std::filesystem::path zero_wrong = dir / "zero-wrong.yaml";
  write_file_atomically(zero_wrong, "checks:\n  - name: no wrong results\n    kind: zero_wrong\n");
  const std::string first = sets.begin()->first;
  const testing::ProcessResult accepted =
      run_process(directly({"accept", (dir / "results" / (first + ".json")).string(), "--thresholds",
                            zero_wrong.string(), "--store", server.url()}));
  ASSERT_EQ(accepted.exit_code, 0) << describe(accepted);
  EXPECT_EQ(store.verdicts(first), (std::vector<std::pair<std::string, std::string>>{{"accept", "pass"}}));
  EXPECT_EQ(store.recent_run_ids(true), std::vector<std::string>{first});
  EXPECT_EQ(store.recent_run_ids(false).size(), 3U);
}

TEST(Services, PrometheusScrapesTheGaugesThroughNodeExporter) {
  const std::filesystem::path prometheus = "/usr/bin/prometheus";
  const std::filesystem::path node_exporter = "/usr/bin/prometheus-node-exporter";
  if (!std::filesystem::exists(prometheus) || !std::filesystem::exists(node_exporter))
    GTEST_SKIP() << "Prometheus or node_exporter is not installed (Debian packages prometheus, "
                    "prometheus-node-exporter)";
  testing::TempDir dir;
  const std::string store_url = (dir / "history.sqlite").string();
  record_mpi_runs(dir / "results", store_url);
  const std::filesystem::path textfiles = dir / "textfile";
  const testing::ProcessResult drift =
      run_process(directly({"history", "drift", "--store", store_url, "--prometheus-textfile", textfiles.string()}));
  ASSERT_EQ(drift.exit_code, 0) << describe(drift);
  const std::string text = read_text_file(textfiles / "fabricbench.prom");
  // The sample the file holds for all_reduce 1M: Prometheus must return exactly this value.
  const std::string series =
      "fabricbench_collective_busbw_bytes_per_second{op=\"all_reduce\",bytes=\"1048576\",nranks=\"2\"} ";
  const std::size_t at = text.find(series);
  ASSERT_NE(at, std::string::npos) << text;
  const double expected = std::stod(text.substr(at + series.size()));

  const int exporter_port = free_port();
  ChildProcess exporter({node_exporter.string(), fmt::format("--web.listen-address=127.0.0.1:{}", exporter_port),
                         "--collector.disable-defaults", "--collector.textfile",
                         "--collector.textfile.directory=" + textfiles.string()});
  const int prometheus_port = free_port();
  std::ofstream(dir / "prometheus.yml") << fmt::format(
      "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: fabricbench\n    static_configs:\n"
      "      - targets: ['127.0.0.1:{}']\n",
      exporter_port);
  ChildProcess server({prometheus.string(), "--config.file=" + (dir / "prometheus.yml").string(),
                       "--storage.tsdb.path=" + (dir / "tsdb").string(),
                       fmt::format("--web.listen-address=127.0.0.1:{}", prometheus_port)});
  nlohmann::json answer;
  for (const auto deadline = std::chrono::steady_clock::now() + 90s; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(500ms)) {
    const std::optional<std::string> body =
        http_get(prometheus_port,
                 "/api/v1/query?query=fabricbench_collective_busbw_bytes_per_second%7Bbytes%3D%221048576%22%7D");
    if (!body) continue;
    answer = nlohmann::json::parse(*body, nullptr, false);
    if (answer.is_object() && answer["status"] == "success" && !answer["data"]["result"].empty()) break;
  }
  ASSERT_TRUE(answer.is_object() && !answer["data"]["result"].empty()) << "no sample after 90 s: " << answer.dump();
  ASSERT_EQ(answer["data"]["result"].size(), 1U);
  const nlohmann::json& sample = answer["data"]["result"][0];
  EXPECT_EQ(sample["metric"]["op"], "all_reduce");
  EXPECT_EQ(sample["metric"]["nranks"], "2");
  EXPECT_EQ(sample["metric"]["job"], "fabricbench");
  // Prometheus prints the sample value as text of the double it parsed.
  EXPECT_DOUBLE_EQ(std::stod(sample["value"][1].get<std::string>()), expected);
  const std::optional<std::string> degraded =
      http_get(prometheus_port, "/api/v1/query?query=sum(fabricbench_collective_degraded)");
  ASSERT_TRUE(degraded);
  EXPECT_THAT(*degraded, HasSubstr("\"0\"]")) << *degraded;  // three runs: nothing drifted
}

}  // namespace
}  // namespace fb
