#pragma once
// Subcommands of the `fabricbench` executable register themselves here, one file each, so a new
// stage's command is added without editing main().

#include "common/op_catalog.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

namespace fb::cli {

// Declares the subcommand's flags on `sub` (binding them to state the returned action owns) and
// returns the action to run when the user picked this subcommand. The action returns the exit code.
using CommandSetup = std::function<std::function<int()>(CLI::App& sub)>;

struct CommandRegistration {
  std::string name;
  std::string summary;
  CommandSetup setup;
};

std::vector<CommandRegistration>& command_registry();

// The process's own argc/argv, recorded by main() before parsing: MPI_Init takes them, and
// provenance records the command line as typed.
struct ProcessArguments {
  int argc = 0;
  char** argv = nullptr;
};
ProcessArguments& process_arguments();

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

// The names of the catalog's ops that `is_one` picks.
template <class IsOne>
std::string op_names(IsOne is_one, std::string_view separator = ", ") {
  return joined(all_ops() | std::views::filter(is_one), [](const OpTraits& op) { return std::string(op.name); },
                separator);
}

struct CommandRegistrar {
  CommandRegistrar(std::string name, std::string summary, CommandSetup setup) {
    command_registry().push_back({std::move(name), std::move(summary), std::move(setup)});
  }
};

}  // namespace fb::cli
