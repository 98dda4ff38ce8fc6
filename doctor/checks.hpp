#pragma once
// What `fabricbench doctor` flags: per host (links trained below their capability, ports down,
// GPUs without a NIC on their NUMA node, ACS redirection, no GPUDirect RDMA) and across hosts
// (a host that differs from the majority in versions, device counts or link state).

#include "doctor/host_inventory.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::doctor {

// error: the fabric will be slow or broken, the doctor fails (exit code doctor_flags).
// warning: likely a problem, worth a look; info: what could not be checked, and why.
enum class Severity { info, warning, error };

std::string_view name_of(Severity severity);

// What the doctor raises about a host's inventory or a difference between hosts: a severity and a
// sentence, no measurement. Not a report's Finding (diagnosis/finding.hpp), which judges
// measured results against an expected number.
struct Flag {
  Severity severity = Severity::info;
  std::string host;     // empty for a cross-host finding that no single host is to blame for
  std::string subject;  // the device, port, bridge or attribute: "NIC mlx5_3 (0000:9a:00.0)"
  std::string message;
};

std::vector<Flag> check_host(const HostInventory& inventory);

// Every attribute on which some host differs from the value a strict majority of hosts share;
// without such a majority, one finding lists who has what. Needs at least two hosts.
std::vector<Flag> compare_hosts(std::span<const HostInventory> hosts);

// check_host for each host, then compare_hosts.
std::vector<Flag> check_hosts(std::span<const HostInventory> hosts);

bool has_errors(std::span<const Flag> findings);

}  // namespace fb::doctor
