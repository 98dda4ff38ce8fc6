#include "results/result_row.hpp"

namespace fb {

bool reports_statistic(const ResultRow& row, std::string_view field) {
  // Whole words only: "time_min_us" must not match inside a longer name.
  std::string_view rest = row.unreported_statistics;
  while (!rest.empty()) {
    const std::size_t end = rest.find(' ');
    if (rest.substr(0, end) == field) return false;
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return true;
}

}  // namespace fb
