#pragma once
// The counters and link of every InfiniBand/RoCE port, as sysfs shows them:
// /sys/class/infiniband/DEV/ports/N/{state,rate} and every file of counters/ and hw_counters/.
// `doctor` reads them once (and again after --counter-interval); `run` before and after it
// measures, to say which ports gathered errors while it did.

#include "results/port_counters.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fb::doctor {

struct PortCounterSample {
  std::string port;   // "mlx5_0/1"
  std::string state;  // "ACTIVE" (the kernel's "4: ACTIVE" without the number)
  std::string rate;   // "400 Gb/sec (4X NDR)"
  // Every counter file that could be read as a whole number. Drivers refuse some (RoCE ports
  // answer EINVAL for IB-only counters): those are absent, not 0.
  std::map<std::string, std::uint64_t> counters;

  bool operator==(const PortCounterSample&) const = default;
};

// The counters of one port directory (.../ports/N): counters/ and hw_counters/ together.
std::map<std::string, std::uint64_t> read_port_counters(const std::filesystem::path& port_dir);

// Every port under `sysfs_root`/sys/class/infiniband, ordered by device, then port number. No
// such directory (a host without RDMA) gives none.
std::vector<PortCounterSample> sample_port_counters(const std::filesystem::path& sysfs_root);

// How each port of `host` changed from `before` to `after`, in port order. A port in one sample
// only is "absent" in the other and has no deltas.
std::vector<PortCounterChange> port_counter_changes(const std::string& host,
                                                    const std::vector<PortCounterSample>& before,
                                                    const std::vector<PortCounterSample>& after);

// The error counters (error_counter_names) that grew from `before` to `after`, by name.
std::map<std::string, std::uint64_t> grown_error_counters(const std::map<std::string, std::uint64_t>& before,
                                                          const std::map<std::string, std::uint64_t>& after);

void to_json(nlohmann::json& out, const PortCounterSample& sample);
void from_json(const nlohmann::json& in, PortCounterSample& sample);

}  // namespace fb::doctor
