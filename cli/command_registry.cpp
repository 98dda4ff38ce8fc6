#include "cli/command.hpp"

namespace fb::cli {

std::vector<CommandRegistration>& command_registry() {
  static std::vector<CommandRegistration> commands;
  return commands;
}

ProcessArguments& process_arguments() {
  static ProcessArguments arguments;
  return arguments;
}

}  // namespace fb::cli
