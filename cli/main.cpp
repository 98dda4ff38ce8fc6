// fabricbench: measure the fabric, model it, report on it. Each subcommand registers itself (see
// cli/command.hpp); main parses the command line and runs the chosen one.

#include "cli/command.hpp"
#include "benchmarks/mpi/launcher_environment.hpp"
#include "common/build_info.hpp"
#include "common/errors.hpp"

#include <fmt/format.h>

#include <iostream>
#include <map>

int main(int argc, char** argv) {
  CLI::App app{"fabricbench: interconnect and collective-communication benchmarks for GPU clusters", "fabricbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(fb::tool_version()));
  std::map<CLI::App*, std::function<int()>> actions;
  const fb::cli::ProcessArguments process{argc, argv};
  for (const auto& command : fb::cli::CommandRegistry::instance().entries()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    actions[sub] = command.setup(*sub, process);
  }

  // Every rank parses the same command line; only the first prints what is wrong with it.
  const bool prints = fb::launcher_rank() == 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return prints ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return prints ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (prints) std::cerr << fmt::format("fabricbench: error: {} (see fabricbench --help)\n", e.what());
    return static_cast<int>(fb::ExitCode::usage);
  }
  // Commands report failure by throwing; the error's category decides the exit code, and the
  // message is one line.
  const auto fail = [](const std::exception& error, fb::ExitCode code) {
    std::cerr << fmt::format("fabricbench: error: {}\n", error.what());
    return static_cast<int>(code);
  };
  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    try {
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
    } catch (const std::exception& error) {
      return fail(error, fb::ExitCode::runtime);
    }
  }
  return static_cast<int>(fb::ExitCode::usage);
}
