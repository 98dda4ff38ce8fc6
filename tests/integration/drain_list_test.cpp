// `diagnose --drain-list` and `accept --drain-list` of the real binary on a pairwise run of eight
// hosts where node3 is slow and its port gathered symbol errors: node3 alone is listed.

#include "fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fb {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::describe;
using testing::directly;
using testing::lines_of;
using testing::run_process;

class DrainListCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "eight.yaml") << "node:\n  hosts: \"node[1-8]\"\n  cpus: 1\n  gpus: 0\n"
                                          "  pcie: {generation: 4, width: 16, switches: 0}\n"
                                          "  nics: {count: 1, type: ethernet, rate_gbps: 100}\n"
                                          "fabric:\n  tiers:\n    - {name: leaf, radix: 8}\n";
    write_file_atomically(dir_ / "soak1.json", results_to_json(pairwise_results({})));
  }

  // A pairwise run of node1..node8 in the given repetitions (none: one plain sweep); node3's pairs
  // run at a quarter in plain sweeps and in `slow_repetitions`.
  static ResultSet pairwise_results(const std::vector<int>& repetitions,
                                    const std::vector<int>& slow_repetitions = {}) {
    ResultSet results;
    results.provenance.run_id = "soak1";
    for (int host = 1; host <= 8; ++host) results.provenance.rank_hosts.push_back("node" + std::to_string(host));
    const std::vector<std::optional<int>> sweeps =
        repetitions.empty() ? std::vector<std::optional<int>>{std::nullopt}
                            : std::vector<std::optional<int>>(repetitions.begin(), repetitions.end());
    for (const std::optional<int> repetition : sweeps) {
      const bool node3_slow = !repetition || std::find(slow_repetitions.begin(), slow_repetitions.end(), *repetition) !=
                                                 slow_repetitions.end();
      int round = 0;
      for (int src = 1; src <= 8; ++src)
        for (int dst = 1; dst <= 8; ++dst) {
          if (src == dst) continue;
          ResultRow row;
          row.run_id = "soak1";
          row.backend = "mpi";
          row.op = "pairwise";
          row.nranks = 8;
          row.src_rank = src - 1;
          row.dst_rank = dst - 1;
          row.src_host = "node" + std::to_string(src);
          row.dst_host = "node" + std::to_string(dst);
          // One pair per round: the model shares no link between flows.
          row.round = round++;
          row.concurrent_flows = 1;
          row.bytes = 4 << 20;
          row.iterations = 20;
          row.repetition = repetition;
          row.algbw_gbps = node3_slow && (src == 3 || dst == 3) ? 2.5 : 10;
          row.time_median_us = static_cast<double>(row.bytes) / (row.algbw_gbps * 1e3);
          results.rows.push_back(row);
        }
    }
    results.port_counters = {{"node1",
                              "mlx5_0/1",
                              "ACTIVE",
                              "ACTIVE",
                              "100 Gb/sec (4X EDR)",
                              "100 Gb/sec (4X EDR)",
                              {{"symbol_error", 0}},
                              {},
                              std::nullopt},
                             {"node3",
                              "mlx5_0/1",
                              "ACTIVE",
                              "ACTIVE",
                              "100 Gb/sec (4X EDR)",
                              "100 Gb/sec (4X EDR)",
                              {{"symbol_error", 500}},
                              {},
                              std::nullopt}};
    return results;
  }

  std::vector<std::string> drain_lines() const {
    std::ifstream in(dir_ / "drain.txt");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  testing::TempDir dir_;
};

TEST_F(DrainListCommands, DiagnoseListsTheHostWhosePortGrewErrorsAndExitsSeven) {
  const testing::ProcessResult result =
      run_process(directly({"diagnose", "--results", dir_ / "soak1.json", "--topology", dir_ / "eight.yaml",
                            "--drain-list", dir_ / "drain.txt"}));
  EXPECT_EQ(result.exit_code, 7) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("port_errors"));
  const std::vector<std::string> lines = drain_lines();
  ASSERT_EQ(lines.size(), 2u) << result.out;
  EXPECT_THAT(lines[0], StartsWith("# fabricbench drain list (diagnose, "));
  EXPECT_THAT(lines[1], AllOf(StartsWith("node3\tfabricbench diagnose: "),
                              HasSubstr("port_errors node3 mlx5_0/1 (node3/mlx5_0 <-> leaf0001): symbol_error +500")));
}

TEST_F(DrainListCommands, DiagnoseListsTheHostSlowInSomeRepetitionsOfASoak) {
  ResultSet results = pairwise_results({0, 1, 2, 3}, {2});
  results.port_counters.clear();
  write_file_atomically(dir_ / "soak2.json", results_to_json(results));
  const testing::ProcessResult result =
      run_process(directly({"diagnose", "--results", dir_ / "soak2.json", "--topology", dir_ / "eight.yaml",
                            "--drain-list", dir_ / "drain.txt"}));
  EXPECT_EQ(result.exit_code, 7) << describe(result);
  const std::vector<std::string> lines = drain_lines();
  ASSERT_EQ(lines.size(), 2u) << result.out;
  EXPECT_THAT(lines[1], AllOf(StartsWith("node3\tfabricbench diagnose: "),
                              HasSubstr("intermittent_host node3: 14 pairs slow in repetition 3 only")));
}

// `report --topology` draws what `diagnose --topology` names: the port whose errors grew (soak1)
// and the host slow in one repetition of four (soak2) appear in the HTML like the slow pairs.
TEST_F(DrainListCommands, ReportNamesEveryFindingThatDiagnoseNames) {
  ResultSet soak = pairwise_results({0, 1, 2, 3}, {2});
  soak.port_counters.clear();
  write_file_atomically(dir_ / "soak2.json", results_to_json(soak));
  const auto in_html = [](std::string text) {
    for (std::size_t at = 0; (at = text.find_first_of("<>", at)) != std::string::npos;)
      text.replace(at, 1, text[at] == '<' ? "&lt;" : "&gt;");
    return text;
  };
  const std::vector<std::pair<std::string, std::string>> runs{{"soak1.json", "port_errors"},
                                                              {"soak2.json", "intermittent_host"}};
  for (const auto& [results, expected_kind] : runs) {
    const testing::ProcessResult diagnosed =
        run_process(directly({"diagnose", "--results", dir_ / results, "--topology", dir_ / "eight.yaml", "--json",
                              dir_ / "diagnosis.json"}));
    ASSERT_EQ(diagnosed.exit_code, 0) << describe(diagnosed);
    const testing::ProcessResult reported = run_process(
        directly({"report", dir_ / results, "--topology", dir_ / "eight.yaml", "-o", dir_ / "report.html"}));
    ASSERT_EQ(reported.exit_code, 0) << describe(reported);
    const std::string html = read_text_file(dir_ / "report.html");
    std::vector<std::string> kinds;
    const nlohmann::json diagnosis = nlohmann::json::parse(read_text_file(dir_ / "diagnosis.json"));
    for (const nlohmann::json& finding : diagnosis.at("findings")) {
      kinds.push_back(finding.at("kind").get<std::string>());
      EXPECT_THAT(html, HasSubstr(in_html(finding.at("subject").get<std::string>()))) << results;
    }
    EXPECT_THAT(kinds, ::testing::Contains(expected_kind)) << describe(diagnosed);
    // The findings as diagnose's published schema says, with a topology and without one.
    const testing::ProcessResult valid =
        testing::validate_against_schema(dir_ / "diagnosis.json", FABRICBENCH_SCHEMAS_DIR "/diagnose.schema.json");
    EXPECT_EQ(valid.exit_code, 0) << describe(valid);
  }
  // Without a topology: the peers judge, and a wrong result is a finding.
  soak.rows.at(0).wrong = 5;
  write_file_atomically(dir_ / "wrong.json", results_to_json(soak));
  const testing::ProcessResult peers =
      run_process(directly({"diagnose", "--results", dir_ / "wrong.json", "--json", dir_ / "peers.json"}));
  ASSERT_EQ(peers.exit_code, 0) << describe(peers);
  EXPECT_FALSE(nlohmann::json::parse(read_text_file(dir_ / "peers.json")).at("findings").empty()) << peers.out;
  const testing::ProcessResult peers_valid =
      testing::validate_against_schema(dir_ / "peers.json", FABRICBENCH_SCHEMAS_DIR "/diagnose.schema.json");
  EXPECT_EQ(peers_valid.exit_code, 0) << describe(peers_valid);
}

TEST_F(DrainListCommands, AcceptListsTheHostOutlier) {
  std::ofstream(dir_ / "outlier.yaml") << "checks:\n  - name: no slow host\n    kind: no_host_outlier\n"
                                          "    op: pairwise\n    metric: algbw_gbps\n    max_modified_z: 3.5\n";
  const testing::ProcessResult result = run_process(directly(
      {"accept", dir_ / "soak1.json", "--thresholds", dir_ / "outlier.yaml", "--drain-list", dir_ / "drain.txt"}));
  EXPECT_EQ(result.exit_code, 6) << describe(result);
  const std::vector<std::string> lines = drain_lines();
  ASSERT_EQ(lines.size(), 2u) << result.out;
  EXPECT_THAT(lines[1], StartsWith("node3\tfabricbench accept: no slow host: "));
}

}  // namespace
}  // namespace fb
