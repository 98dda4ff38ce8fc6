#include "cli/command_line.hpp"

#include "common/build_info.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace fb::cli {
namespace {

// "nan", "inf" and "1e999" all read as doubles. A NaN threshold compares false with everything
// (drift finds nothing and passes), an infinite one never trips: every floating-point flag of
// every command refuses them as a usage error. No description: the flag's value name stays FLOAT
// in --help, the man page and the completions.
std::string finite_or_reason(std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() && !std::isfinite(value)) return fmt::format("{} is not a finite number", text);
  return {};
}

void require_finite_numbers(CLI::App& app) {
  for (CLI::Option* option : app.get_options())
    // A validator with a description (a range) adds it to the type name: "FLOAT in [0 - 1]".
    if (option->get_type_name().starts_with("FLOAT")) option->check(CLI::Validator(finite_or_reason, ""));
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) require_finite_numbers(*sub);
}

}  // namespace

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
  require_finite_numbers(*line.app);
  return line;
}

}  // namespace fb::cli
