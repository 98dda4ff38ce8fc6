// `fabricbench diagnose --routes --plan-confirm` end to end: the real binary on the genuine 8-host
// fabric OpenSM routed with ftree (tests/topology/fixtures/forwarding), with pair measurements
// simulated on the paths the tables give and one cable of the leaf01-spine01 bundle at a quarter.
// The first pass, the confirm round it plans, and the second diagnosis over both runs.

#include "common/pair_schedule.hpp"
#include "common/text_file.hpp"
#include "topology/pair_simulation.hpp"
#include "process_runner.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"
#include "topology/format_registry.hpp"
#include "topology/forwarding_tables.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <numeric>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::ProcessResult;
using testing::TempDir;

std::string fixture(const std::string& file) {
  return std::string(TOPOLOGY_FIXTURES_DIR) + "/forwarding/ftree/" + file;
}

class DiagnoseRoutesCommand : public ::testing::Test {
 protected:
  DiagnoseRoutesCommand() {
    for (const topo::LinkId l : graph_.links_of(graph_.find("leaf01")))
      if (graph_.link(l).other_end(graph_.find("leaf01")) == graph_.find("spine01")) bundle_.push_back(l);
    truth_.set_link_capacity(bundle_.at(1), graph_.link(bundle_.at(1)).spec.capacity_gbps / 4);
  }

  // Simulated measurements of `rounds` on the faulty fabric, written as a results file.
  std::string measure(std::span<const PairRound> rounds, const std::string& run_id, std::uint64_t seed) {
    ResultSet results;
    results.rows =
        topo::simulate_pair_rounds(truth_, hosts_, rounds, {.noise_fraction = 0.03, .seed = seed, .tables = &router_});
    for (ResultRow& row : results.rows) row.run_id = run_id;
    const std::string path = (dir_ / (run_id + ".csv")).string();
    std::ofstream(path) << results_to_csv(results);
    return path;
  }

  ProcessResult diagnose(const std::vector<std::string>& results, const std::vector<std::string>& extra) {
    std::vector<std::string> argv{FABRICBENCH_BINARY, "diagnose", "--topology", fixture("ibnetdiscover.txt")};
    for (const std::string& path : results) argv.insert(argv.end(), {"--results", path});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run_process(argv);
  }

  std::vector<PairRound> rounds_of(const std::vector<HostPairRound>& host_rounds) const {
    std::vector<std::string> names = hosts_;
    RankPlacement placement = placement_of(names, 0);
    return host_pair_rounds(placement, host_rounds);
  }

  TempDir dir_;
  topo::Graph graph_ = topo::load_topology({fixture("ibnetdiscover.txt")});
  topo::Graph truth_ = graph_;
  topo::ForwardingTables tables_ = topo::load_forwarding_tables(fixture("dump_fts.txt"));
  topo::TableRouter router_{graph_, tables_};
  std::vector<std::string> hosts_{"h001", "h002", "h003", "h004", "h005", "h006", "h007", "h008"};
  std::vector<topo::LinkId> bundle_;
};

std::vector<nlohmann::json> degraded_links(const nlohmann::json& diagnosis) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& finding : diagnosis.at("findings"))
    if (finding.at("kind") == "degraded_link") found.push_back(finding);
  return found;
}

TEST_F(DiagnoseRoutesCommand, ConfirmRoundNamesTheCableAndItsPorts) {
  std::vector<int> endpoints(hosts_.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  const std::vector<PairRound> pairings = pairwise_rounds(endpoints);
  const std::string first = measure(std::span(pairings).first(4), "first", 11);
  const std::string confirm_pairs = (dir_ / "confirm.txt").string();
  const std::string first_json = (dir_ / "first.json").string();

  // Without the tables: the model's ECMP spread, said so.
  const ProcessResult ecmp = diagnose({first}, {});
  ASSERT_EQ(ecmp.exit_code, 0) << testing::describe(ecmp);
  EXPECT_THAT(ecmp.out, HasSubstr("# routes: the model's ECMP spread"));

  const ProcessResult planned =
      diagnose({first}, {"--routes", fixture("dump_fts.txt"), "--plan-confirm", confirm_pairs, "--json", first_json});
  ASSERT_EQ(planned.exit_code, 0) << testing::describe(planned);
  EXPECT_THAT(planned.out, HasSubstr("# routes: 16 of 16 pair measurements on the forwarding tables' paths"));
  // Two pairings cross the slow cable once: named, on one slow pair, so the plan confirms it.
  EXPECT_THAT(planned.out, HasSubstr("2 pairs on the forwarding tables' routes that cross it, to confirm it"));
  const std::string plan_text = read_text_file(confirm_pairs);
  ASSERT_THAT(plan_text, HasSubstr("# round 1")) << planned.out;
  const std::vector<HostPairRound> host_rounds = parse_host_pair_rounds(confirm_pairs, plan_text);

  const std::string confirm = measure(rounds_of(host_rounds), "confirm", 12);
  const std::string second_json = (dir_ / "second.json").string();
  const ProcessResult second =
      diagnose({first, confirm}, {"--routes", fixture("opensm-lfts.dump"), "--json", second_json});
  ASSERT_EQ(second.exit_code, 0) << testing::describe(second);
  const nlohmann::json diagnosis = nlohmann::json::parse(read_text_file(second_json));
  EXPECT_EQ(diagnosis.at("routes"), "forwarding tables");
  const std::vector<nlohmann::json> found = degraded_links(diagnosis);
  ASSERT_EQ(found.size(), 1u) << diagnosis.dump(1);
  EXPECT_FALSE(found[0].contains("parallel_links")) << found[0].dump(1);
  EXPECT_EQ(found[0].at("evidence").size(), 3u) << "the first pass's slow pair and the confirm round's two";
  // leaf01 port 4 is cabled to spine01 port 2 (fabric.net); ibnetdiscover states both ports.
  EXPECT_THAT(found[0].at("location").get<std::string>(), HasSubstr("leaf01 port 4"));
  EXPECT_THAT(found[0].at("location").get<std::string>(), HasSubstr("spine01 port 2"));
  EXPECT_THAT(found[0].at("action").get<std::string>(), HasSubstr("reseat or replace the cable between"));
  EXPECT_EQ(found[0].at("rank"), 1);
  EXPECT_GE(found[0].at("predicted_slowdown").get<double>(), 0.0);
  EXPECT_THAT(second.out, HasSubstr("      rank 1: "));
  EXPECT_THAT(second.out, HasSubstr("routes: the forwarding tables' paths, each step's flows routed hop by hop"));
  EXPECT_THAT(diagnosis.at("cost_basis").get<std::string>(), HasSubstr("held under the fault"));
  // `report` takes the same inputs and names the same findings: both render diagnosis::judge_fabric.
  const std::string html_path = (dir_ / "report.html").string();
  const ProcessResult report =
      testing::run_process({FABRICBENCH_BINARY, "report", first, confirm, "--topology", fixture("ibnetdiscover.txt"),
                            "--routes", fixture("opensm-lfts.dump"), "-o", html_path});
  ASSERT_EQ(report.exit_code, 0) << testing::describe(report);
  const std::string html = read_text_file(html_path);
  const std::size_t table = html.find("<table class=\"findings\">");
  ASSERT_NE(table, std::string::npos) << report.out;
  const std::string findings_table = html.substr(table, html.find("</table>", table) - table);
  std::size_t rows = 0;
  for (std::size_t at = findings_table.find("<tr><td>"); at != std::string::npos;
       at = findings_table.find("<tr><td>", at + 1))
    ++rows;
  EXPECT_EQ(rows, diagnosis.at("findings").size());
  const auto escaped = [](const std::string& text) {
    std::string out;
    for (const char c : text) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
  };
  for (const nlohmann::json& finding : diagnosis.at("findings"))
    EXPECT_THAT(findings_table, HasSubstr("<tr><td>" + escaped(finding.at("kind")) + "</td><td>" +
                                          escaped(finding.at("subject")) + "</td>"));
  // Without the tables the same findings are priced on pooled uplinks, and the costs say so.
  const ProcessResult pooled = diagnose({first, confirm}, {});
  ASSERT_EQ(pooled.exit_code, 0) << testing::describe(pooled);
  EXPECT_THAT(pooled.out, HasSubstr("routes unknown: uplinks pooled"));
}

TEST_F(DiagnoseRoutesCommand, RoutesNeedTheFabricsOwnTopology) {
  std::vector<int> endpoints(hosts_.size());
  std::iota(endpoints.begin(), endpoints.end(), 0);
  const std::string first = measure(pairwise_rounds(endpoints), "first", 5);
  const ProcessResult without_topology =
      testing::run_process({FABRICBENCH_BINARY, "diagnose", "--results", first, "--routes", fixture("dump_fts.txt")});
  EXPECT_EQ(without_topology.exit_code, 2) << testing::describe(without_topology);
  EXPECT_THAT(without_topology.err, HasSubstr("--routes and --plan-confirm need --topology"));
  const ProcessResult other_fabric =
      testing::run_process({FABRICBENCH_BINARY, "diagnose", "--results", first, "--topology",
                            std::string(TOPOLOGY_SAMPLES_DIR) + "/fabric.ibnet", "--routes", fixture("dump_fts.txt")});
  EXPECT_NE(other_fabric.exit_code, 0);
  EXPECT_THAT(other_fabric.err, HasSubstr("are both from the same fabric?"));
}

}  // namespace
}  // namespace fb
