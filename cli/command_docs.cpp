#include "cli/command_docs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace fb::cli {
namespace {

// CLI11's type name is "TEXT", "INT:POSITIVE" or "TEXT:{huge,base}" (a membership check): the
// value's kind, then what its validators say.
std::pair<std::string, std::vector<std::string>> value_kind_and_choices(const std::string& type_name) {
  const std::size_t colon = type_name.find(':');
  std::vector<std::string> choices;
  if (colon != std::string::npos && type_name.size() > colon + 2 && type_name[colon + 1] == '{' &&
      type_name.back() == '}') {
    std::istringstream list(type_name.substr(colon + 2, type_name.size() - colon - 3));
    for (std::string choice; std::getline(list, choice, ',');) choices.push_back(choice);
  }
  return {type_name.substr(0, colon), choices};
}

FlagDoc describe_flag(const CLI::Option& option) {
  FlagDoc flag;
  for (const std::string& name : option.get_snames()) flag.names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) flag.names.push_back("--" + name);
  if (option.get_items_expected_max() > 0) {
    auto [kind, choices] = value_kind_and_choices(option.get_type_name());
    flag.value_name = kind.empty() ? "VALUE" : kind;
    flag.choices = std::move(choices);
  }
  flag.help = option.get_description();
  flag.default_value = option.get_default_str();
  flag.repeatable =
      option.get_items_expected_max() > 1 || option.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  return flag;
}

PositionalDoc describe_positional(const CLI::Option& option) {
  return {.name = option.get_name(),
          .value_name = value_kind_and_choices(option.get_type_name()).first,
          .help = option.get_description(),
          .many = option.get_items_expected_max() > 1,
          .required = option.get_required()};
}

CommandDoc describe(const CLI::App& app, const std::vector<std::string>& path) {
  CommandDoc command;
  command.path = path;
  command.summary = app.get_description();
  command.subcommand_required = app.get_require_subcommand_min() > 0;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // CLI11's hidden options
    if (option->get_positional() && !option->nonpositional())
      command.positionals.push_back(describe_positional(*option));
    else
      command.flags.push_back(describe_flag(*option));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub->get_name());
    command.subcommands.push_back(describe(*sub, std::move(sub_path)));
  }
  return command;
}

// Every command in the order of a depth-first walk, the program first.
void collect(const CommandDoc& command, std::vector<const CommandDoc*>& all) {
  all.push_back(&command);
  for (const CommandDoc& sub : command.subcommands) collect(sub, all);
}

std::vector<const CommandDoc*> all_commands(const CommandDoc& program) {
  std::vector<const CommandDoc*> all;
  collect(program, all);
  return all;
}

std::string joined_path(const CommandDoc& command) { return fmt::format("{}", fmt::join(command.path, " ")); }

// ---- roff ----

// The UTF-8 sequence that starts at text[at], as groff names its code point ("\[u00D7]"); `at`
// is left on its last byte.
std::string roff_code_point(std::string_view text, std::size_t& at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  // Its length from the lead byte, then 6 bits per continuation byte.
  const int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  std::uint32_t code = lead & (0x7Fu >> length);
  for (int k = 1; k < length && at + 1 < text.size(); ++k)
    code = (code << 6) | (static_cast<unsigned char>(text[++at]) & 0x3Fu);
  return fmt::format("\\[u{:04X}]", code);
}

// Text as roff reads it: a backslash is \e, a line must not start with a control character, every
// character beyond ASCII is named by its code point (groff reads its input as Latin-1), and a
// line may break inside a long token after , | / and ;.
std::string roff_text(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (line_start && (byte == '.' || byte == '\'')) out += "\\&";
    line_start = byte == '\n';
    if (byte >= 0x80) {
      out += roff_code_point(text, i);
      continue;
    }
    out += byte == '\\' ? std::string("\\e") : std::string(1, static_cast<char>(byte));
    // A long token (op=OP,nodes=N[,gpus-per-node=G]) may break after these, so no line is left
    // too long to fill.
    const bool inside_word = i + 1 < text.size() && text[i + 1] != ' ';
    if (inside_word && (byte == ',' || byte == '|' || byte == '/' || byte == ';')) out += "\\:";
  }
  return out;
}

// A help text of several lines keeps its lines.
std::string roff_paragraph(std::string_view text) {
  std::string out;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (!out.empty()) out += "\n.br\n";
    out += roff_text(line);
  }
  return out;
}

// A flag's name in bold with its hyphens as minus signs, as man pages set options.
std::string roff_option(std::string_view name) {
  std::string out = "\\fB";
  for (char c : name) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out + "\\fR";
}

std::string usage_line(const CommandDoc& command) {
  std::string usage = roff_option(command.path.empty() ? "fabricbench" : "fabricbench " + joined_path(command));
  if (!command.flags.empty()) usage += " [\\fIOPTIONS\\fR]";
  for (const PositionalDoc& positional : command.positionals) {
    const std::string name = fmt::format("\\fI{}\\fR{}", roff_text(positional.name), positional.many ? "..." : "");
    usage += positional.required ? " " + name : " [" + name + "]";
  }
  if (!command.subcommands.empty()) usage += command.subcommand_required ? " \\fICOMMAND\\fR" : " [\\fICOMMAND\\fR]";
  return usage;
}

std::string man_section(const CommandDoc& command) {
  std::string out = fmt::format(".SS \"{}\"\n", command.path.empty() ? "fabricbench" : joined_path(command));
  out += fmt::format("{}\n.PP\n{}\n", usage_line(command), roff_paragraph(command.summary));
  for (const PositionalDoc& positional : command.positionals)
    out += fmt::format(".TP\n\\fI{}\\fR{}\n{}\n", roff_text(positional.name), positional.many ? "..." : "",
                       roff_paragraph(positional.help));
  for (const FlagDoc& flag : command.flags) {
    std::vector<std::string> names;
    for (const std::string& name : flag.names) names.push_back(roff_option(name));
    std::string value;
    if (!flag.value_name.empty())
      value = flag.choices.empty() ? fmt::format(" \\fI{}\\fR", roff_text(flag.value_name))
                                   : fmt::format(" {{{}}}", roff_text(fmt::format("{}", fmt::join(flag.choices, "|"))));
    if (flag.repeatable) value += "...";
    std::string help = roff_paragraph(flag.help);
    if (!flag.default_value.empty()) help += fmt::format(" (default: {})", roff_text(flag.default_value));
    out += fmt::format(".TP\n{}{}\n{}\n", fmt::join(names, ", "), value, help);
  }
  if (!command.subcommands.empty()) {
    std::vector<std::string> names;
    for (const CommandDoc& sub : command.subcommands) names.push_back(fmt::format("\\fB{}\\fR", sub.path.back()));
    out += fmt::format(".PP\nCommands: {}.\n", fmt::join(names, ", "));
  }
  return out;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// ---- shell ----

// `text` as one single-quoted shell word.
std::string shell_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A case pattern matching exactly this path (the program itself: the empty string).
std::string path_pattern(const CommandDoc& command) { return shell_quoted(joined_path(command)); }

std::vector<std::string> all_flag_names(const CommandDoc& command) {
  std::vector<std::string> names;
  for (const FlagDoc& flag : command.flags) names.insert(names.end(), flag.names.begin(), flag.names.end());
  return names;
}

// The first line of a help text, short enough for a completion menu.
std::string menu_text(std::string_view help) {
  std::string line{help.substr(0, help.find('\n'))};
  if (line.size() > 100) line = line.substr(0, 97) + "...";
  return line;
}

}  // namespace

CommandDoc describe_command_line(const CLI::App& app) { return describe(app, {}); }

std::string man_page(const CommandDoc& program, std::string_view template_text, std::string_view version) {
  // Ragged right: help texts hold tokens too long to justify a line around (op=OP,nodes=N[,...]).
  std::string commands = ".ad l\n";
  for (const CommandDoc* command : all_commands(program)) commands += man_section(*command);
  commands += ".ad b";
  std::string page(template_text);
  replace_all(page, "@COMMANDS@", commands);
  replace_all(page, "@VERSION@", version);
  return page;
}

std::string bash_completion(const CommandDoc& program) {
  const std::vector<const CommandDoc*> commands = all_commands(program);
  std::string subcommands, flags, values;
  for (const CommandDoc* command : commands) {
    std::vector<std::string> names;
    for (const CommandDoc& sub : command->subcommands) names.push_back(sub.path.back());
    if (!names.empty())
      subcommands += fmt::format("    {}) echo {} ;;\n", path_pattern(*command),
                                 shell_quoted(fmt::format("{}", fmt::join(names, " "))));
    flags += fmt::format("    {}) echo {} ;;\n", path_pattern(*command),
                         shell_quoted(fmt::format("{}", fmt::join(all_flag_names(*command), " "))));
    for (const FlagDoc& flag : command->flags) {
      if (flag.value_name.empty()) continue;
      for (const std::string& name : flag.names)
        values += fmt::format("    {}) echo {} ;;\n", shell_quoted(joined_path(*command) + "\t" + name),
                              shell_quoted(flag.choices.empty() ? "@files"
                                                                : fmt::format("{}", fmt::join(flag.choices, " "))));
    }
  }
  return fmt::format(R"sh(# bash completion for fabricbench, written from the commands and flags the build registered.
# Installed where bash-completion finds it; without bash-completion: source this file.

_fabricbench_subcommands() {{
  case "$1" in
{}  esac
}}

_fabricbench_flags() {{
  case "$1" in
{}  esac
}}

# The values a flag of a command takes: its fixed set, "@files", or nothing for a flag without a value.
_fabricbench_values() {{
  case "$1"$'\t'"$2" in
{}  esac
}}

_fabricbench() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} path="" word value_of="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${{COMP_WORDS[i]}}
    if [[ -n $value_of ]]; then
      value_of=""
    elif [[ $word == -* ]]; then
      [[ $word != *=* && -n $(_fabricbench_values "$path" "$word") ]] && value_of=$word
    elif [[ " $(_fabricbench_subcommands "$path") " == *" $word "* ]]; then
      path=${{path:+$path }}$word
    fi
  done
  local IFS=$'\n'
  if [[ -n $value_of ]]; then
    local values
    values=$(_fabricbench_values "$path" "$value_of")
    if [[ $values == @files ]]; then
      COMPREPLY=($(compgen -f -- "$cur"))
    else
      COMPREPLY=($(IFS=' '; compgen -W "$values" -- "$cur"))
    fi
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(IFS=' '; compgen -W "$(_fabricbench_flags "$path")" -- "$cur"))
  elif [[ -n $(_fabricbench_subcommands "$path") ]]; then
    COMPREPLY=($(IFS=' '; compgen -W "$(_fabricbench_subcommands "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}

complete -o filenames -F _fabricbench fabricbench
)sh",
                     subcommands, flags, values);
}

namespace {

// Text inside a zsh _arguments spec's [description] or :message: brackets and colons are syntax.
std::string zsh_spec_text(std::string_view text) {
  std::string out;
  for (char c : menu_text(text)) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// An entry of _describe's list, "name:description": only the colon is syntax there.
std::string zsh_describe_text(std::string_view text) {
  std::string out;
  for (char c : menu_text(text)) {
    if (c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_flag_spec(const FlagDoc& flag) {
  std::string action;
  if (!flag.value_name.empty())
    action = fmt::format(":{}:{}", zsh_spec_text(flag.value_name),
                         flag.choices.empty() ? "_files" : fmt::format("({})", fmt::join(flag.choices, " ")));
  const std::string description = fmt::format("[{}]{}", zsh_spec_text(flag.help), action);
  if (flag.names.size() == 1) return shell_quoted((flag.repeatable ? "*" : "") + flag.names.front() + description);
  // Either spelling, once ('(-b --minbytes)'{-b,--minbytes}'[...]'), or either as often as wanted.
  const std::string exclusion = flag.repeatable ? std::string("*") : fmt::format("({})", fmt::join(flag.names, " "));
  return fmt::format("{}{{{}}}{}", shell_quoted(exclusion), fmt::join(flag.names, ","), shell_quoted(description));
}

std::string zsh_function_name(const CommandDoc& command) {
  std::string name = "_fabricbench";
  for (const std::string& part : command.path) name += "__" + part;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string zsh_function(const CommandDoc& command) {
  std::vector<std::string> specs;
  for (const FlagDoc& flag : command.flags) specs.push_back(zsh_flag_spec(flag));
  std::string dispatch;
  if (!command.subcommands.empty()) {
    specs.push_back(shell_quoted("1: :->command"));
    specs.push_back(shell_quoted("*:: :->argument"));
    std::vector<std::string> entries, cases;
    for (const CommandDoc& sub : command.subcommands) {
      entries.push_back(shell_quoted(fmt::format("{}:{}", sub.path.back(), zsh_describe_text(sub.summary))));
      cases.push_back(fmt::format("        {}) {} ;;", shell_quoted(sub.path.back()), zsh_function_name(sub)));
    }
    dispatch = fmt::format(R"zsh(
  case $state in
    command)
      local -a commands=(
        {}
      )
      _describe -t commands command commands ;;
    argument)
      case $words[1] in
{}
      esac ;;
  esac)zsh",
                           fmt::join(entries, "\n        "), fmt::join(cases, "\n"));
  } else {
    for (const PositionalDoc& positional : command.positionals)
      specs.push_back(shell_quoted(fmt::format("{}:{}:_files", positional.many ? "*" : "", positional.name)));
  }
  return fmt::format(R"zsh(
{}() {{
  local curcontext=$curcontext state state_descr line
  typeset -A opt_args
  _arguments -C -s \
    {}{}
}}
)zsh",
                     zsh_function_name(command), fmt::join(specs, " \\\n    "), dispatch);
}

}  // namespace

std::string zsh_completion(const CommandDoc& program) {
  std::string out =
      "#compdef fabricbench\n# zsh completion for fabricbench, written from the commands and flags the build "
      "registered.\n";
  for (const CommandDoc* command : all_commands(program)) out += zsh_function(*command);
  out += "\n_fabricbench \"$@\"\n";
  return out;
}

}  // namespace fb::cli
