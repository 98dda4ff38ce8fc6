#pragma once
// The doctor's output: a table of hosts, optionally every device of every host, the findings,
// and the same as one JSON document.

#include "doctor/checks.hpp"
#include "doctor/host_inventory.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <span>

namespace fb::doctor {

inline constexpr std::string_view doctor_report_schema = "fabricbench.doctor.v1";

// One line per host; with `show_devices`, a line per GPU, NIC and RDMA port of every host; then
// one line per finding and a closing count of errors and warnings.
void print_doctor_report(std::ostream& out, std::span<const HostInventory> hosts, std::span<const Flag> findings,
                         bool show_devices);

nlohmann::json doctor_report_json(std::span<const HostInventory> hosts, std::span<const Flag> findings);

}  // namespace fb::doctor
