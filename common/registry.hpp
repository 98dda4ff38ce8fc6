#pragma once
// The registries of plugins: backends, commands, the ops of each backend, topology input formats,
// log importers. A plugin is one source file holding a namespace-scope Registrar that adds its
// entry while the program starts; nothing central lists plugins. Nothing references those files by
// name either, so the linker keeps them only because they are built with fabricbench_add_plugins
// (cmake/Plugins.cmake).
//
// An entry type says what it is for messages and has a name, and a one-line summary where help
// texts list it:
//   struct TopologyFormat {
//     static constexpr std::string_view registry_kind = "topology format";
//     std::string name;
//     std::string summary;
//     ...
//   };
//   const Registrar<TopologyFormat> registrar{{"nccl-xml", "NCCL topology dump", ...}};

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

template <class Entry>
concept RegistryEntry = requires(const Entry& entry) {
  { Entry::registry_kind } -> std::convertible_to<std::string_view>;
  { entry.name } -> std::convertible_to<std::string_view>;
};

// One line of a help text: an entry's name and summary (empty for entries without one).
struct RegistryListing {
  std::string name;
  std::string summary;
  bool operator==(const RegistryListing&) const = default;
};

template <RegistryEntry Entry>
class Registry {
 public:
  // The program's registry of Entry, the one every Registrar<Entry> fills. Function-local, so that
  // it exists when the first registrar runs, whichever file's static initialisers run first.
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  // Keeps the entries in name order. Throws std::logic_error when the name is taken: two plugins
  // for one name is a mistake in the build, not something to resolve by link order.
  void add(Entry entry) {
    const std::string_view name = entry.name;
    const auto at = std::lower_bound(entries_.begin(), entries_.end(), name,
                                     [](const Entry& e, std::string_view n) { return std::string_view(e.name) < n; });
    if (at != entries_.end() && std::string_view(at->name) == name)
      throw std::logic_error(fmt::format("two {}s named '{}' are registered", Entry::registry_kind, name));
    entries_.insert(at, std::move(entry));
  }

  // In name order: the same whatever order the linker put the plugins in, so help texts and the
  // order in which formats are tried do not change from one build to the next.
  const std::vector<Entry>& entries() const { return entries_; }

  const Entry* find(std::string_view name) const {
    for (const Entry& entry : entries_)
      if (std::string_view(entry.name) == name) return &entry;
    return nullptr;
  }

  // Throws UsageError naming what this build has: "unknown backend 'ucx' (available: cuda, mpi)".
  const Entry& at(std::string_view name) const {
    if (const Entry* entry = find(name)) return *entry;
    throw UsageError(fmt::format("unknown {} '{}' (available: {})", Entry::registry_kind, name, names()));
  }

  // "cuda, mpi, nccl"; "none" when nothing is registered.
  std::string names() const {
    std::string names;
    for (const Entry& entry : entries_) names += fmt::format("{}{}", names.empty() ? "" : ", ", entry.name);
    return names.empty() ? "none" : names;
  }

  // Names and summaries, in name order, for help texts.
  std::vector<RegistryListing> listing() const {
    std::vector<RegistryListing> lines;
    for (const Entry& entry : entries_) {
      if constexpr (requires { std::string(entry.summary); })
        lines.push_back({std::string(entry.name), std::string(entry.summary)});
      else
        lines.push_back({std::string(entry.name), {}});
    }
    return lines;
  }

 private:
  std::vector<Entry> entries_;
};

// A namespace-scope `const Registrar<Entry> registrar{{...}};` registers one plugin at startup. A
// duplicate name ends the program there with one line naming it: before main() there is no caller
// to throw to, and a build that lists a plugin twice must not start.
template <RegistryEntry Entry>
struct Registrar {
  explicit Registrar(Entry entry) noexcept {
    try {
      Registry<Entry>::instance().add(std::move(entry));
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fabricbench: internal error: %s\n", error.what());
      std::abort();
    }
  }
};

}  // namespace fb
