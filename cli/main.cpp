// fabricbench: measure the fabric, model it, report on it. Each subcommand registers itself (see
// cli/command.hpp); main parses the command line and runs the chosen one.

#include "benchmarks/mpi/launcher_environment.hpp"
#include "cli/command_line.hpp"
#include "common/console_text.hpp"
#include "common/errors.hpp"
#include "common/spelling.hpp"
#include "results/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Calls `visit` with every option of the command line's parsed (sub)commands.
template <class Visit>
void for_each_parsed_option(CLI::App& app, Visit visit) {
  for (CLI::App* level = &app; level != nullptr;) {
    for (const CLI::Option* option : level->get_options()) visit(*option);
    const std::vector<CLI::App*> parsed = level->get_subcommands();
    level = parsed.empty() ? nullptr : parsed.front();
  }
}

// Every flag the command line's parsed (sub)commands know, as typed: "--csv", "-o".
std::vector<std::string> known_flags(CLI::App& app) {
  std::vector<std::string> flags;
  for_each_parsed_option(app, [&](const CLI::Option& option) {
    for (const std::string& name : option.get_lnames()) flags.push_back("--" + name);
    for (const std::string& name : option.get_snames()) flags.push_back("-" + name);
  });
  return flags;
}

// An output given `-` owns standard output, and what a person reads moves to standard error, so
// that `--json - | jq` gets JSON alone. Two such outputs would interleave two formats on one
// stream: a usage error.
void give_standard_output_to_data(CLI::App& app) {
  std::vector<std::string> given;
  for_each_parsed_option(app, [&](const CLI::Option& option) {
    const std::vector<std::string>& values = option.results();
    if (std::find(values.begin(), values.end(), "-") != values.end()) given.push_back(option.get_name());
  });
  if (given.size() > 1)
    throw fb::UsageError(
        fmt::format("{} and {} both name standard output (-), which carries one of them", given[0], given[1]));
  if (given.size() == 1) fb::reserve_standard_output_for_data();
}

// CLI11's message, with the flag a mistyped one was meant to be. A mistyped long flag is named
// whatever CLI11 reports: where a positional takes a varying count (compare's "A B" or "--baseline
// SPEC B"), the flag's value lands among the positionals and CLI11 reports their count instead.
// Short tokens are looked at only when CLI11 reports extras, since "-1" may be a value.
std::string with_suggestion(const CLI::ParseError& error, CLI::App& app, int argc, char** argv) {
  std::string message = error.what();
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  const std::vector<std::string> flags = known_flags(app);
  for (int i = 1; i < argc; ++i) {
    std::string typed = argv[i];
    if (!typed.starts_with(extras ? "-" : "--") || typed == "-" || typed == "--") continue;
    typed = typed.substr(0, typed.find('='));
    if (std::find(flags.begin(), flags.end(), typed) != flags.end()) continue;
    if (const auto meant = fb::closest_spelling(typed, flags))
      return message + fmt::format("; did you mean '{}' for '{}'?", *meant, typed);
  }
  return message;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): wires every registered command and maps each error category to its exit code and one-line message; the branches are the categories
int main(int argc, char** argv) {
  fb::cli::CommandLine command_line = fb::cli::make_command_line({argc, argv});
  CLI::App& app = *command_line.app;

  // Every rank parses the same command line; only the first prints what is wrong with it.
  const bool prints = fb::launcher_rank() == 0;
  // A mistyped command would otherwise read as a missing one ("A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> commands;
    for (const auto& command : fb::cli::CommandRegistry::instance().entries()) commands.emplace_back(command.name);
    if (std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
      if (prints)
        std::cerr << fmt::format("fabricbench: error: unknown command '{}'{} (see fabricbench --help)\n", argv[1],
                                 fb::did_you_mean(argv[1], commands));
      return static_cast<int>(fb::ExitCode::usage);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) { return prints ? app.exit(e) : 0; } catch (const CLI::CallForVersion& e) {
    return prints ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (prints)
      std::cerr << fmt::format("fabricbench: error: {} (see fabricbench --help)\n",
                               with_suggestion(e, app, argc, argv));
    return static_cast<int>(fb::ExitCode::usage);
  }
  // Commands report failure by throwing; the error's category decides the exit code, and the
  // message is one line, whatever input it quotes (a file's control characters are shown escaped).
  const auto fail = [](const std::exception& error, fb::ExitCode code) {
    std::cerr << fmt::format("fabricbench: error: {}\n", fb::console_text(error.what()));
    return static_cast<int>(code);
  };
  for (auto& [sub, action] : command_line.actions) {
    if (!sub->parsed()) continue;
    try {
      give_standard_output_to_data(app);
      return action();
    } catch (const fb::UsageError& error) {
      return fail(error, fb::ExitCode::usage);
    } catch (const fb::InputError& error) {
      return fail(error, fb::ExitCode::input);
    } catch (const fb::TimeoutError& error) {
      return fail(error, fb::ExitCode::timeout);
    } catch (const fb::NoDeviceError& error) {
      // Every rank finds the same machine; one line per job says the backend was skipped.
      if (prints) std::cerr << fmt::format("fabricbench: skipped: {}\n", error.what());
      return static_cast<int>(fb::ExitCode::no_device);
    } catch (const std::exception& error) { return fail(error, fb::ExitCode::runtime); }
  }
  return static_cast<int>(fb::ExitCode::usage);
}
