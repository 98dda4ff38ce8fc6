#pragma once
// The whole command line: one CLI11 subcommand per registered command (cli/command.hpp), with the
// action each runs. main() parses with it; the man page and the shell completions are written from
// it at build time (cli/command_docs.hpp), so they list what the build registers.

#include "cli/command.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <memory>

namespace fb::cli {

struct CommandLine {
  std::unique_ptr<CLI::App> app;
  std::map<CLI::App*, std::function<int()>> actions;  // per registered command
};

CommandLine make_command_line(const ProcessArguments& process);

}  // namespace fb::cli
