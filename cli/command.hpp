#pragma once
// Subcommands of the `fabricbench` executable register themselves here, one file each, so a new
// stage's command is added without editing main().

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
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

struct CommandRegistrar {
  CommandRegistrar(std::string name, std::string summary, CommandSetup setup) {
    command_registry().push_back({std::move(name), std::move(summary), std::move(setup)});
  }
};

}  // namespace fb::cli
