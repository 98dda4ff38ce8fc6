#include "benchmarks/core/backend.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace fb {
namespace {

std::vector<BackendRegistration>& registry() {
  static std::vector<BackendRegistration> backends;
  return backends;
}

}  // namespace

BackendRegistrar::BackendRegistrar(std::string name, std::string summary, BackendFactory factory,
                                   BackendCapabilities capabilities) {
  registry().push_back({std::move(name), std::move(summary), std::move(factory), capabilities});
}

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

const std::vector<BackendRegistration>& registered_backends() { return registry(); }

const BackendRegistration& backend_by_name(std::string_view name) {
  std::string known;
  for (const auto& backend : registry()) {
    if (backend.name == name) return backend;
    known += fmt::format("{}{}", known.empty() ? "" : ", ", backend.name);
  }
  throw UsageError(fmt::format("backend '{}' is not part of this build (available: {})", name,
                               known.empty() ? "none" : known));
}

}  // namespace fb
