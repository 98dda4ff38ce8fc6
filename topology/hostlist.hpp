#pragma once
// Slurm hostlist expressions: "node[01-16,20],login1" -> node01 ... node16, node20, login1.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {

struct HostlistResult {
  std::vector<std::string> hosts;
  std::string error;  // what was expected, when the expression is malformed
};

// Expands every bracket group (several groups multiply: "r[1-2]n[1-2]" is four names). Zero
// padding follows the lower bound's width, as Slurm does. Refuses more than `max_hosts` names.
HostlistResult expand_hostlist(std::string_view expression, std::size_t max_hosts = 1'000'000);

}  // namespace fb::topo
