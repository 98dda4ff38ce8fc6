#pragma once
// `--fail-on CONDITION...` of the judging commands (diagnose, report, compare): what they found
// becomes exit code 6 (ExitCode::acceptance_failed, as `accept`), so a CI job fails on it.

#include "common/errors.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace fb::cli {

struct FailOnCondition {
  std::string name;
  std::string meaning;
};

inline void add_fail_on_option(CLI::App& sub, std::vector<std::string>& chosen,
                               const std::vector<FailOnCondition>& conditions) {
  std::vector<std::string> names;
  std::string help = "exit with code 6 when:";
  for (const FailOnCondition& c : conditions) {
    names.push_back(c.name);
    help += " " + c.name + " (" + c.meaning + ")";
  }
  sub.add_option("--fail-on", chosen, help)->check(CLI::IsMember(names))->delimiter(',');
}

// The exit code: 6 when any chosen condition holds; `holds` says whether one does.
template <class Holds>
int exit_code_for(const std::vector<std::string>& chosen, Holds&& holds) {
  const bool failed = std::any_of(chosen.begin(), chosen.end(), [&](const std::string& c) { return holds(c); });
  return static_cast<int>(failed ? ExitCode::acceptance_failed : ExitCode::ok);
}

}  // namespace fb::cli
