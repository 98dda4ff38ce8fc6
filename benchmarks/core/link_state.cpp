#include "benchmarks/core/link_state.hpp"

#include "common/sysfs_files.hpp"

#include <algorithm>
#include <iterator>

namespace fb {

std::vector<std::string> links_up(const std::filesystem::path& sysfs) {
  std::vector<std::string> up;
  const std::filesystem::path net = sysfs / "class" / "net";
  for (const std::string& interface : sorted_entries(net))
    if (read_first_line(net / interface / "operstate") == "up") up.push_back(interface);
  for (const RdmaPort& port : rdma_ports(sysfs / "class" / "infiniband"))
    if (read_port_state(port.dir / "state") == "ACTIVE") up.push_back(port.name);
  std::sort(up.begin(), up.end());
  return up;
}

std::vector<std::string> links_lost(const std::vector<std::string>& before, const std::vector<std::string>& now) {
  std::vector<std::string> lost;
  std::set_difference(before.begin(), before.end(), now.begin(), now.end(), std::back_inserter(lost));
  return lost;
}

}  // namespace fb
