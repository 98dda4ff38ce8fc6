#pragma once
// The manual page and the bash and zsh completions, written from the command line the build
// registers (cli/command_line.hpp): a command, subcommand or flag added in its own file is in all
// three at the next build, and none lists one the binary does not have.

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fb::cli {

struct FlagDoc {
  std::vector<std::string> names;    // "-b", "--minbytes", as typed
  std::string value_name;            // "TEXT", "INT", ...; empty for a flag that takes no value
  std::vector<std::string> choices;  // the values a membership check allows; empty: any
  std::string help;
  std::string default_value;  // empty when none is shown
  bool repeatable = false;    // takes several values, or may be given several times
};

struct PositionalDoc {
  std::string name;
  std::string value_name;
  std::string help;
  bool many = false;  // one or more
  bool required = false;
};

struct CommandDoc {
  std::vector<std::string> path;  // {"topo", "analyze"}; empty for the program itself
  std::string summary;
  std::vector<FlagDoc> flags;  // --help included, hidden options left out
  std::vector<PositionalDoc> positionals;
  std::vector<CommandDoc> subcommands;
  bool subcommand_required = false;
};

// The program and every (sub)command below it, in registration order.
CommandDoc describe_command_line(const CLI::App& app);

// `template_text` is the hand-written page (docs/man/fabricbench.1.in): its line "@COMMANDS@" is
// replaced by a section per command and subcommand, "@VERSION@" by `version`.
std::string man_page(const CommandDoc& program, std::string_view template_text, std::string_view version);

// A script for bash's `complete -F` (no bash-completion helpers needed): commands, subcommands,
// each level's flags, and the values of flags with a fixed set; files elsewhere.
std::string bash_completion(const CommandDoc& program);

// A `#compdef fabricbench` function for zsh's completion system, with each flag's description.
std::string zsh_completion(const CommandDoc& program);

}  // namespace fb::cli
