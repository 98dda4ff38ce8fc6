#include "benchmarks/core/backend.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

namespace fb {

void BackendRegistration::require_supported(const LaunchOptions& launch) const {
  if (launch.gpus_per_process < 1) throw UsageError(fmt::format("-g {} must be at least 1", launch.gpus_per_process));
  if (launch.graph_launches < 0) throw UsageError(fmt::format("-G {} must not be negative", launch.graph_launches));
  if (launch.gpus_per_process > 1 && !capabilities.several_gpus_per_process)
    throw UsageError(fmt::format("-g {}: the {} backend drives one GPU (or none) per process; -g is for the nccl "
                                 "backend",
                                 launch.gpus_per_process, name));
  if (launch.graph_launches > 0 && !capabilities.cuda_graphs)
    throw UsageError(fmt::format("-G {}: the {} backend does not launch CUDA graphs; -G is for the nccl backend",
                                 launch.graph_launches, name));
}

}  // namespace fb
