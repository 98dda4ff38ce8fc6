#include "reports/json/finding_json.hpp"

namespace fb {
namespace {

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json finding_json(const diagnosis::Finding& finding) {
  return {{"kind", finding.kind},
          {"subject", finding.subject},
          {"unit", finding.unit},
          {"expected", optional_json(finding.expected)},
          {"measured", optional_json(finding.measured)},
          {"ratio", optional_json(finding.ratio())},
          {"confidence", optional_json(finding.confidence)},
          {"evidence", finding.evidence}};
}

nlohmann::json finding_json(const diagnosis::FindingTicket& ranked) {
  nlohmann::json json = finding_json(ranked.finding);
  json["rank"] = ranked.rank;
  json["predicted_slowdown"] = ranked.cost ? nlohmann::json(ranked.cost->slowdown) : nlohmann::json(nullptr);
  json["location"] = ranked.ticket.location;
  json["action"] = ranked.ticket.action;
  json["confirm"] = ranked.ticket.confirm;
  if (!ranked.blamed_host.empty()) json["host"] = ranked.blamed_host;
  if (ranked.finding.link)
    json["link"] = {{"a", ranked.link_a}, {"b", ranked.link_b}, {"direction", name_of(ranked.finding.direction)}};
  if (!ranked.parallel_links.empty()) json["parallel_links"] = ranked.parallel_links;
  return json;
}

}  // namespace fb
