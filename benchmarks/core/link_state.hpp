#pragma once
// Which network links of this host are up, as the kernel reports them: what the watchdog compares
// with the start of the job to say that a stuck rank's host lost its link.

#include <filesystem>
#include <string>
#include <vector>

namespace fb {

// Every network interface under SYSFS/class/net whose operstate is "up" ("eth0"), and every RDMA
// port under SYSFS/class/infiniband whose state is ACTIVE ("mlx5_0/1"), sorted. Loopback reports
// "unknown" and is never listed; a directory that cannot be read contributes nothing.
std::vector<std::string> links_up(const std::filesystem::path& sysfs = "/sys");

// The links of `before` that are not in `now` (both sorted, as links_up returns them).
std::vector<std::string> links_lost(const std::vector<std::string>& before, const std::vector<std::string>& now);

}  // namespace fb
