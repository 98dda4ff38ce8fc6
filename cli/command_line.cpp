#include "cli/command_line.hpp"

#include "common/build_info.hpp"

#include <string>

namespace fb::cli {

CommandLine make_command_line(const ProcessArguments& process) {
  CommandLine line;
  line.app =
      std::make_unique<CLI::App>("fabricbench: interconnect and collective-communication benchmarks for GPU clusters",
                                 "fabricbench");
  line.app->require_subcommand(1);
  line.app->set_version_flag("--version", std::string(tool_version()));
  for (const auto& command : CommandRegistry::instance().entries()) {
    CLI::App* sub = line.app->add_subcommand(command.name, command.summary);
    line.actions[sub] = command.setup(*sub, process);
  }
  return line;
}

}  // namespace fb::cli
