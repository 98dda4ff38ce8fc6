#include "benchmarks/core/stall_report.hpp"

namespace fb {

StallReport per_device_rank(const StallReport& report, int ranks_per_process) {
  StallReport expanded = report;
  expanded.ranks.clear();
  for (const RankStall& process : report.ranks) {
    for (int j = 0; j < ranks_per_process; ++j) {
      RankStall& device = expanded.ranks.emplace_back(process);
      device.rank = process.rank * ranks_per_process + j;
    }
  }
  return expanded;
}

}  // namespace fb
