#pragma once
// Subcommands of the `fabricbench` executable register themselves, one file each, so a new stage's
// command is added without editing main().

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

using CommandRegistry = Registry<CommandRegistration>;

}  // namespace fb::cli
