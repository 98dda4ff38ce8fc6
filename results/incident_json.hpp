#pragma once
// Incidents in the JSON results file (the "incidents" array); used by results_io.

#include "results/incident.hpp"

#include <nlohmann/json.hpp>

namespace fb {

nlohmann::ordered_json incident_to_json(const Incident& incident);

// Throws std::invalid_argument naming the key that is missing or has the wrong type or range.
Incident incident_from_json(const nlohmann::ordered_json& json);

}  // namespace fb
