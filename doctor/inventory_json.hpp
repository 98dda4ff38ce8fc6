#pragma once
// JSON form of a host inventory: what each host sends to rank 0 and what `--json` writes.
// Absent values are null, so a reader can tell "not reported" from zero.

#include "doctor/host_inventory.hpp"

#include <nlohmann/json.hpp>

namespace fb::doctor {

void to_json(nlohmann::json& json, const PciLink& link);
void from_json(const nlohmann::json& json, PciLink& link);
void to_json(nlohmann::json& json, const HostInventory& inventory);
void from_json(const nlohmann::json& json, HostInventory& inventory);

}  // namespace fb::doctor
