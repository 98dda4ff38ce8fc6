#pragma once
// The one JSON form of a finding (docs/schemas/finding.schema.json), whichever judgement made it:
// a check's rows at fault, a wrong result, drift, a slow host, or the model's ranked findings with
// their cost, ticket and link. diagnose --json, accept --json and the campaign summary hold it.

#include "diagnosis/fabric_judgement.hpp"
#include "diagnosis/finding.hpp"

#include <nlohmann/json.hpp>

namespace fb {

// kind, subject, unit, expected, measured, ratio, confidence (null where unknown), evidence.
nlohmann::json finding_json(const diagnosis::Finding& finding);

// finding_json, and rank, predicted_slowdown (null where unpriced), location, action, confirm,
// host, link {a, b, direction} and parallel_links where the finding names them.
nlohmann::json finding_json(const diagnosis::FindingTicket& ranked);

}  // namespace fb
