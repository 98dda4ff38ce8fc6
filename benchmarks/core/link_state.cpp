#include "benchmarks/core/link_state.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace fb {
namespace {

std::string first_word(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string word;
  in >> word;
  return word;
}

std::vector<std::string> entries_of(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) names.push_back(entry.path().filename());
  return names;
}

}  // namespace

std::vector<std::string> links_up(const std::filesystem::path& sysfs) {
  std::vector<std::string> up;
  const std::filesystem::path net = sysfs / "class" / "net";
  for (const std::string& interface : entries_of(net))
    if (first_word(net / interface / "operstate") == "up") up.push_back(interface);
  // The kernel writes a port's state as "4: ACTIVE".
  const std::filesystem::path rdma = sysfs / "class" / "infiniband";
  for (const std::string& device : entries_of(rdma)) {
    const std::filesystem::path ports = rdma / device / "ports";
    for (const std::string& port : entries_of(ports)) {
      std::ifstream in(ports / port / "state");
      std::string number, state;
      in >> number >> state;
      if (state == "ACTIVE") up.push_back(device + "/" + port);
    }
  }
  std::sort(up.begin(), up.end());
  return up;
}

std::vector<std::string> links_lost(const std::vector<std::string>& before, const std::vector<std::string>& now) {
  std::vector<std::string> lost;
  std::set_difference(before.begin(), before.end(), now.begin(), now.end(), std::back_inserter(lost));
  return lost;
}

}  // namespace fb
