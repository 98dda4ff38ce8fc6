#include "reports/json/fabric_json.hpp"

#include "reports/json/finding_json.hpp"

namespace fb {
namespace {

nlohmann::json efficiency_json(const std::vector<diagnosis::EfficiencySummary>& summaries) {
  nlohmann::json json = nlohmann::json::array();
  for (const diagnosis::EfficiencySummary& s : summaries)
    json.push_back({{"op", s.op},
                    {"bytes", s.bytes},
                    {"in_place", s.in_place},
                    {"rows", s.rows},
                    {"unit", s.unit},
                    {"median_expected", s.median_expected},
                    {"median_measured", s.median_measured},
                    {"median_efficiency_pct", s.median_efficiency_pct},
                    {"lowest_efficiency_pct", s.lowest_efficiency_pct},
                    {"lowest_row", s.lowest_row}});
  return json;
}

}  // namespace

nlohmann::json fabric_judgement_json(const diagnosis::FabricJudgement& judged) {
  nlohmann::json findings = nlohmann::json::array();
  for (const diagnosis::FindingTicket& ranked : judged.ranked) findings.push_back(finding_json(ranked));
  for (const diagnosis::Finding& finding : judged.row_findings()) findings.push_back(finding_json(finding));
  nlohmann::json json{{"schema", diagnose_schema},
                      {"topology_given", judged.topology_given},
                      {"incidents", judged.incidents},
                      {"findings", std::move(findings)},
                      {"efficiency", efficiency_json(judged.efficiency)},
                      {"drain_hosts", judged.drain.hosts()}};
  if (!judged.topology_given) return json;
  const diagnosis::Diagnosis& d = judged.diagnosis;
  json["calibration"] = d.calibration;
  json["flows_examined"] = d.flows_examined;
  json["routes"] = d.tables_given ? "forwarding tables" : "ecmp";
  json["flows_on_table_routes"] = d.flows_on_table_routes;
  json["slow_flows"] = d.slow_flows;
  json["slow_flows_explained"] = d.slow_flows_explained;
  json["job_mix"] = judged.job_mix;
  json["cost_basis"] = judged.cost_basis;
  json["crossable_links"] = d.crossable_links;
  json["uncovered_links"] = nlohmann::json::array();
  for (const diagnosis::UncoveredLink& link : judged.uncovered_links)
    json["uncovered_links"].push_back({{"direction", link.direction}, {"cable", link.cable}});
  json["unverified_links"] = nlohmann::json::array();
  for (const diagnosis::UncoveredLink& link : judged.unverified_links)
    json["unverified_links"].push_back({{"direction", link.direction}, {"cable", link.cable}});
  json["unexplained_slow_pairs"] = nlohmann::json::array();
  for (const diagnosis::SlowPair& pair : d.unexplained_slow_pairs)
    json["unexplained_slow_pairs"].push_back({{"run_id", pair.run_id},
                                              {"src_host", pair.src_host},
                                              {"dst_host", pair.dst_host},
                                              {"round", pair.round},
                                              {"repetition", pair.repetition.value_or(0)},
                                              {"ratio", pair.ratio}});
  json["blind_spots"] = d.blind_spots;
  return json;
}

}  // namespace fb
