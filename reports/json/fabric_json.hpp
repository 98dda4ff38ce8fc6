#pragma once
// diagnose --json: the troubleshooting judgement for machines (docs/schemas/diagnose.schema.json).
// v1 wrote the model's findings and the other findings in two shapes; v2 writes every finding in
// the one form of reports/json/finding_json.hpp.

#include "diagnosis/fabric_judgement.hpp"

#include <nlohmann/json.hpp>

#include <string_view>

namespace fb {

inline constexpr std::string_view diagnose_schema = "fabricbench.diagnose.v2";

nlohmann::json fabric_judgement_json(const diagnosis::FabricJudgement& judged);

}  // namespace fb
