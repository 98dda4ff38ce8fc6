// Every floating-point flag of every registered command, read from the command line the binary
// builds (not a list kept here), refuses NaN and infinity as a usage error.

#include "cli/command_line.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;

// Every option whose value is a double, with the subcommand path that reaches it.
void collect_float_options(CLI::App& app, std::vector<std::string> path,
                           std::vector<std::pair<std::vector<std::string>, std::string>>& found) {
  for (const CLI::Option* option : app.get_options())
    if (option->get_type_name().starts_with("FLOAT") && !option->get_lnames().empty())
      found.emplace_back(path, "--" + option->get_lnames().front());
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    std::vector<std::string> deeper = path;
    deeper.push_back(sub->get_name());
    collect_float_options(*sub, deeper, found);
  }
}

TEST(FiniteFlags, EveryFloatingPointFlagRefusesNanAndInfinity) {
  std::vector<std::pair<std::vector<std::string>, std::string>> options;
  {
    const cli::CommandLine line = cli::make_command_line({});
    collect_float_options(*line.app, {}, options);
  }
  // history's CUSUM threshold (`history drift --cusum-threshold`) is one of them: a NaN there
  // found no drift and exited 0.
  EXPECT_THAT(options,
              ::testing::Contains(std::pair<std::vector<std::string>, std::string>{{"history"}, "--cusum-threshold"}));
  ASSERT_GE(options.size(), 10U);
  for (const auto& [path, name] : options)
    for (const std::string value : {"nan", "NaN", "inf", "-inf", "1e999"}) {
      const cli::CommandLine line = cli::make_command_line({});
      std::vector<std::string> args = path;
      args.push_back(name + "=" + value);                             // "--flag -inf" would read -inf as flags
      std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
      try {
        line.app->parse(reversed);
        ADD_FAILURE() << name << " " << value << " was accepted";
      } catch (const CLI::ValidationError& e) {
        // A ranged flag's range check runs first and refuses an infinite value itself; NaN, which
        // compares false and passes a range, is always the finite check's.
        EXPECT_THAT(e.what(), ::testing::AnyOf(HasSubstr(value + " is not a finite number"),
                                               HasSubstr("Value " + value + " not in range")))
            << name;
        if (value == "nan" || value == "NaN") {
          EXPECT_THAT(e.what(), HasSubstr(value + " is not a finite number")) << name;
        }
      } catch (const CLI::ParseError& e) { ADD_FAILURE() << name << " " << value << ": " << e.what(); }
    }
  // A finite value still reads.
  const cli::CommandLine line = cli::make_command_line({});
  std::vector<std::string> finite{"--cusum-threshold=2.5", "drift", "history"};
  EXPECT_NO_THROW(line.app->parse(finite));
}

}  // namespace
}  // namespace fb
