#include "core/backend.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace fb {
namespace {

std::vector<BackendRegistration>& registry() {
  static std::vector<BackendRegistration> backends;
  return backends;
}

}  // namespace

BackendRegistrar::BackendRegistrar(std::string name, std::string summary, BackendFactory factory) {
  registry().push_back({std::move(name), std::move(summary), std::move(factory)});
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
