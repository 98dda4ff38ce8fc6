#include "results/provenance.hpp"

#include <fmt/format.h>

namespace fb {

std::string describe_rank_hosts(const std::vector<std::string>& rank_hosts) {
  std::string text;
  for (std::size_t first = 0; first < rank_hosts.size();) {
    std::size_t last = first;
    while (last + 1 < rank_hosts.size() && rank_hosts[last + 1] == rank_hosts[first]) ++last;
    text += fmt::format("{}{} (rank{} {})", text.empty() ? "" : ", ", rank_hosts[first], first == last ? "" : "s",
                        first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last));
    first = last + 1;
  }
  return text;
}

}  // namespace fb
