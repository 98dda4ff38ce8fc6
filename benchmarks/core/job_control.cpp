#include "benchmarks/core/job_control.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace fb {

std::vector<std::string> per_device_rank(const std::vector<std::string>& by_process, int ranks_per_process) {
  std::vector<std::string> by_rank;
  for (const std::string& process_local : by_process)
    by_rank.insert(by_rank.end(), static_cast<std::size_t>(ranks_per_process), process_local);
  return by_rank;
}

void SingleProcessJob::abort_all(int exit_code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(exit_code);
}

}  // namespace fb
