#pragma once
// Subcommands of the `fabricbench` executable register themselves, one file each, so a new stage's
// command is added without editing main().

#include "common/op_catalog.hpp"
#include "common/registry.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace fb::cli {

// The process's argc/argv as main() received them: MPI_Init takes them, and provenance records
// the command line as typed.
struct ProcessArguments {
  int argc = 0;
  char** argv = nullptr;
};

// Declares the subcommand's flags on `sub` (binding them to state the returned action owns) and
// returns the action to run when the user picked this subcommand. The action returns the exit code.
using CommandSetup = std::function<std::function<int()>(CLI::App& sub, const ProcessArguments& process)>;

// Each *_command.cpp registers one with a Registrar<CommandRegistration>.
struct CommandRegistration {
  static constexpr std::string_view registry_kind = "command";
  std::string name;
  std::string summary;
  CommandSetup setup;
};

// "a, b, c": what `describe` says of each entry of a registry (or of the op catalog), for help
// texts, so they list what the build has rather than what someone remembered to write.
template <class Entries, class Describe>
std::string joined(Entries&& entries, Describe describe, std::string_view separator = ", ") {
  std::string text;
  for (const auto& entry : entries) {
    if (!text.empty()) text += separator;
    text += describe(entry);
  }
  return text;
}

// The names of the catalog's ops that `is_one` picks. (A loop, not std::views::filter: clang 14,
// which clang-tidy runs on, cannot compile GCC 12's <ranges> views.)
template <class IsOne>
std::string op_names(IsOne is_one, std::string_view separator = ", ") {
  std::string names;
  for (const OpTraits& op : all_ops()) {
    if (!is_one(op)) continue;
    if (!names.empty()) names += separator;
    names += op.name;
  }
  return names;
}

using CommandRegistry = Registry<CommandRegistration>;

}  // namespace fb::cli
