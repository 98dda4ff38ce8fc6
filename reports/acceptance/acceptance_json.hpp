#pragma once
// `accept --json`: the verdict of a thresholds file for machines, one object per check with its
// findings (docs/schemas/accept.schema.json).

#include "diagnosis/acceptance.hpp"

#include <nlohmann/json.hpp>

namespace fb {

inline constexpr std::string_view accept_summary_schema = "fabricbench.accept.v1";

nlohmann::json acceptance_to_json(const diagnosis::AcceptanceVerdict& verdict, std::string_view thresholds_path);

}  // namespace fb
