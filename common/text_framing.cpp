#include "common/text_framing.hpp"

#include "common/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace fb {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_name_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '-';
}

// How many characters from `at` satisfy `accept`.
template <typename Accept>
std::size_t run_at(std::string_view s, std::size_t at, Accept accept) {
  std::size_t n = 0;
  while (at + n < s.size() && accept(s[at + n])) ++n;
  return n;
}

// `pattern` at `at`: 'd' is a digit, 'T' is 'T' or a space, anything else itself.
bool matches_pattern(std::string_view s, std::size_t at, std::string_view pattern) {
  if (at + pattern.size() > s.size()) return false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = s[at + i];
    const char p = pattern[i];
    if (p == 'd' ? !is_digit(c) : p == 'T' ? (c != 'T' && c != ' ') : c != p) return false;
  }
  return true;
}

// Terminal control sequences (colours, cursor moves; the window title a prompt sets) removed.
// CSI is ESC [ up to a final byte in @..~, OSC is ESC ] up to BEL or ESC \. A newline always stays:
// lines are never joined.
// NOLINTNEXTLINE(readability-function-cognitive-complexity): peels one escape sequence kind per branch (CSI, OSC, two-byte) as ECMA-48 defines them, each a short scan
std::string without_escape_sequences(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '\x1b') {
      out += text[i++];
      continue;
    }
    const char kind = i + 1 < text.size() ? text[i + 1] : '\0';
    std::size_t j = i + 2;
    if (kind == '[') {
      while (j < text.size() && text[j] != '\n' && !(text[j] >= '@' && text[j] <= '~')) ++j;
      if (j < text.size() && text[j] != '\n') ++j;
    } else if (kind == ']') {
      while (j < text.size() && text[j] != '\n' && text[j] != '\x07' && text[j] != '\x1b') ++j;
      if (j < text.size() && text[j] == '\x07') ++j;
      if (j + 1 < text.size() && text[j] == '\x1b' && text[j + 1] == '\\') j += 2;
    } else if (kind == '\n' || kind == '\0') {
      j = i + 1;
    }
    i = j;
  }
  return out;
}

// --- the prefixes, each as the length it takes at the start of a line (0: absent) ---

// syslog's and journalctl's "Nov  9 05:46:50".
std::size_t syslog_time_at(std::string_view s, std::size_t at) {
  static constexpr std::array<std::string_view, 12> months{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (at + 15 > s.size() || std::find(months.begin(), months.end(), s.substr(at, 3)) == months.end()) return 0;
  if (s[at + 3] != ' ' || !(is_digit(s[at + 4]) || s[at + 4] == ' ') || !is_digit(s[at + 5])) return 0;
  return matches_pattern(s, at + 6, " dd:dd:dd") ? 15 : 0;
}

// ctime's "Mon Nov 29 06:45:12 2025", as Open MPI's --timestamp-output writes it.
std::size_t ctime_at(std::string_view s, std::size_t at) {
  static constexpr std::array<std::string_view, 7> days{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  if (at + 24 > s.size() || std::find(days.begin(), days.end(), s.substr(at, 3)) == days.end() || s[at + 3] != ' ')
    return 0;
  return syslog_time_at(s, at + 4) == 15 && matches_pattern(s, at + 19, " dddd") ? 24 : 0;
}

// Open MPI's --tag-output "[JOB,RANK]<stdout>:" ("<stderr>:", "<stddiag>:"), with
// --timestamp-output's time before it, or that time alone before the stream.
std::size_t open_mpi_tag(std::string_view line) {
  std::size_t at = ctime_at(line, 0);
  const bool timed = at > 0;
  if (at < line.size() && line[at] == '[') {
    const std::size_t close = line.find(']', at);
    if (close == std::string_view::npos || close < at + 4) return 0;
    // "1,0"; PRRTE (Open MPI 5) may name the job: "prterun-node01-4242@1,0".
    const std::string_view ids = line.substr(at + 1, close - at - 1);
    const std::size_t comma = ids.rfind(',');
    if (comma == std::string_view::npos || comma + 1 == ids.size() || ids.find(' ') != std::string_view::npos ||
        ids.substr(comma + 1).find_first_not_of("0123456789") != std::string_view::npos)
      return 0;
    at = close + 1;
  } else if (!timed) {
    return 0;
  }
  for (const std::string_view stream : {"<stdout>:", "<stderr>:", "<stddiag>:"})
    if (line.substr(at).starts_with(stream)) return at + stream.size();
  return 0;
}

// srun -l: the task number, padded with spaces to the widest one, and ": ".
std::size_t srun_label(std::string_view line) {
  const std::size_t pad = run_at(line, 0, [](char c) { return c == ' '; });
  const std::size_t digits = run_at(line, pad, is_digit);
  const std::size_t colon = pad + digits;
  if (digits == 0 || digits > 7 || colon >= line.size() || line[colon] != ':') return 0;
  if (colon + 1 == line.size()) return colon + 1;  // an empty line, its trailing space trimmed
  return line[colon + 1] == ' ' ? colon + 2 : 0;
}

// "2024-05-01T12:34:56", "2024-05-01 12:34:56,123", with a zone ("Z", "+02:00", "+0000").
std::size_t iso_time_at(std::string_view s, std::size_t at) {
  if (!matches_pattern(s, at, "dddd-dd-ddTdd:dd:dd")) return 0;
  std::size_t end = at + 19;
  if (end < s.size() && (s[end] == '.' || s[end] == ',')) {
    const std::size_t fraction = run_at(s, end + 1, is_digit);
    if (fraction > 0) end += 1 + fraction;
  }
  if (end < s.size() && s[end] == 'Z') {
    ++end;
  } else if (end < s.size() && (s[end] == '+' || s[end] == '-')) {
    if (matches_pattern(s, end + 1, "dd:dd"))
      end += 6;
    else if (matches_pattern(s, end + 1, "dddd"))
      end += 5;
  }
  return end - at;
}

// What journalctl writes after its time: " HOST IDENT[PID]:" (or " HOST IDENT:").
std::size_t journal_source_at(std::string_view s, std::size_t at, bool pid_required) {
  if (at >= s.size() || s[at] != ' ') return 0;
  const std::size_t host = run_at(s, at + 1, is_name_char);
  if (host == 0 || at + 1 + host >= s.size() || s[at + 1 + host] != ' ') return 0;
  std::size_t end = at + 2 + host;
  const std::size_t ident = run_at(s, end, [](char c) { return is_name_char(c) || c == '/'; });
  if (ident == 0) return 0;
  end += ident;
  const bool pid = end < s.size() && s[end] == '[';
  if (pid) {
    const std::size_t digits = run_at(s, end + 1, is_digit);
    if (digits == 0 || end + 1 + digits >= s.size() || s[end + 1 + digits] != ']') return 0;
    end += digits + 2;
  }
  if ((pid_required && !pid) || end >= s.size() || s[end] != ':') return 0;
  return end + 1 - at;
}

// A time at the start of a line, as kubectl --timestamps, journalctl, syslog or a logging wrapper
// writes it, with the separator after it.
std::size_t timestamp(std::string_view line) {
  std::size_t end = 0;
  if (line.starts_with('[')) {
    const std::size_t iso = iso_time_at(line, 1);
    const std::size_t time = iso > 0 ? iso : syslog_time_at(line, 1);
    if (time > 0 && 1 + time < line.size() && line[1 + time] == ']') end = time + 2;
  } else if (const std::size_t iso = iso_time_at(line, 0); iso > 0) {
    end = iso + journal_source_at(line, iso, true);
  } else if (const std::size_t time = syslog_time_at(line, 0); time > 0) {
    end = time + journal_source_at(line, time, false);
  }
  if (end == 0) return 0;
  if (end == line.size()) return end;
  return line[end] == ' ' || line[end] == '\t' ? end + 1 : 0;
}

// E-mail quoting: "> " (">" alone on a quoted empty line).
std::size_t quote_mark(std::string_view line) {
  if (!line.starts_with('>')) return 0;
  return line.size() > 1 && line[1] == ' ' ? 2 : 1;
}

// A Markdown code fence around a pasted log ("```", "```text", "~~~"): the whole line, which
// becomes empty (a fence right below a topo -m matrix would otherwise read as a device row).
std::size_t code_fence(std::string_view line) {
  const std::string_view content = trim(line);
  if (!content.starts_with("```") && !content.starts_with("~~~")) return 0;
  const std::string_view info = content.substr(3);
  return info.find_first_of(" \t") == std::string_view::npos ? line.size() : 0;
}

bool starts_user_name(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// "user@host" from `at`; a user name starts with a letter or '_'.
std::size_t user_at_host(std::string_view s, std::size_t at) {
  if (at >= s.size() || !starts_user_name(s[at])) return 0;
  const std::size_t user = run_at(s, at, is_name_char);
  if (user == 0 || at + user >= s.size() || s[at + user] != '@') return 0;
  const std::size_t host = run_at(s, at + user + 1, is_name_char);
  return host == 0 ? 0 : user + 1 + host;
}

// A shell prompt from `at` ("user@host:~/dir$ ", "[user@host dir]# ", "(venv) user@host:~$"), with
// the space after it; 0 when there is none.
std::size_t prompt_at(std::string_view s, std::size_t at) {
  std::size_t i = at;
  if (i < s.size() && s[i] == '(') {
    const std::size_t close = s.find(") ", i);
    if (close == std::string_view::npos || close - i > 64) return 0;
    i = close + 2;
  }
  if (i < s.size() && s[i] == '[') {
    const std::size_t who = user_at_host(s, i + 1);
    const std::size_t close = who == 0 ? std::string_view::npos : s.find(']', i + 1 + who);
    if (close == std::string_view::npos || (close != i + 1 + who && s[i + 1 + who] != ' ')) return 0;
    i = close + 1;
  } else {
    const std::size_t who = user_at_host(s, i);
    if (who == 0 || i + who >= s.size() || s[i + who] != ':') return 0;
    i += who + 1 + run_at(s, i + who + 1, [](char c) { return c != ' ' && c != '$' && c != '#'; });
  }
  if (i >= s.size() || (s[i] != '$' && s[i] != '#')) return 0;
  ++i;
  if (i == s.size()) return i - at;
  return s[i] == ' ' ? i + 1 - at : 0;
}

std::size_t leading_prompt(std::string_view line) {
  return line.find('@') == std::string_view::npos ? 0 : prompt_at(line, 0);
}

// Where a prompt glued to the end of a line begins (output whose last line had no newline, the
// prompt printed after it); npos when there is none.
std::size_t trailing_prompt(std::string_view line) {
  const std::string_view content = trim(line);
  if (content.empty() || (content.back() != '$' && content.back() != '#')) return std::string_view::npos;
  const std::size_t offset = static_cast<std::size_t>(content.data() - line.data());
  for (std::size_t at = content.find('@'); at != std::string_view::npos; at = content.find('@', at + 1)) {
    std::size_t user = at;
    while (user > 0 && is_name_char(content[user - 1])) --user;
    // "-----user@host": the dashes before a user name are output, not part of it.
    while (user < at && !starts_user_name(content[user])) ++user;
    for (const std::size_t start : {user, user > 0 && content[user - 1] == '[' ? user - 1 : user}) {
      if (start > 0 && prompt_at(content, start) == content.size() - start && !trim(content.substr(0, start)).empty())
        return offset + start;
    }
  }
  return std::string_view::npos;
}

struct PrefixLayer {
  std::string_view name;
  std::size_t (*length)(std::string_view line);
  // Peeled from every line that carries it (specific enough never to be content), or only when
  // most lines carry it (a number and a colon, a time, a '>' could start a line of content).
  bool wherever_found;
};

constexpr std::array<PrefixLayer, 6> prefix_layers{{
    {"Open MPI --tag-output prefixes", open_mpi_tag, true},
    {"srun -l task labels", srun_label, false},
    {"timestamps", timestamp, false},
    {"e-mail quoting", quote_mark, false},
    {"shell prompts", leading_prompt, true},
    {"Markdown code fences", code_fence, true},
}};

bool has_content(std::string_view line) { return !trim(line).empty(); }

struct Peeled {
  std::string example;  // the first prefix peeled, as written
  std::size_t lines = 0;
  int levels = 0;  // how often the layer was found around the text (nested quoting)
};

class Peeler {
 public:
  explicit Peeler(std::vector<NumberedLine> lines) : lines_(std::move(lines)) {
    content_lines_ = static_cast<std::size_t>(
        std::count_if(lines_.begin(), lines_.end(), [](const NumberedLine& line) { return has_content(line.text); }));
  }

  // Peels layer after layer until none is left: the layers may come in any order ("    [1,0]<stdout>:"
  // and "[1,0]<stdout>:    " both hold an indentation and a tag).
  void peel_all() {
    constexpr int most_layers = 16;
    for (int pass = 0; pass < most_layers; ++pass) {
      bool peeled = false;
      for (std::size_t l = 0; l < prefix_layers.size(); ++l) peeled |= peel_prefix(l);
      peeled |= peel_indentation();
      if (!peeled) break;
    }
    peel_trailing_prompts();
  }

  const std::vector<NumberedLine>& lines() const { return lines_; }

  // One clause per layer peeled.
  std::vector<std::string> clauses() const {
    std::vector<std::string> clauses;
    for (std::size_t l = 0; l < prefix_layers.size(); ++l) {
      const Peeled& p = prefix_peeled_[l];
      if (p.lines == 0) continue;
      clauses.push_back(fmt::format("{} ({}, {} line{}{})", prefix_layers[l].name, quote_input(p.example), p.lines,
                                    p.lines == 1 ? "" : "s",
                                    p.levels > 1 ? fmt::format(", {} levels", p.levels) : std::string()));
    }
    if (!indentation_.empty())
      clauses.push_back(fmt::format("an indentation of {} on every line", quote_input(indentation_)));
    if (trailing_prompts_ > 0)
      clauses.push_back(fmt::format("a shell prompt at the end of {} line{} (first: line {})", trailing_prompts_,
                                    trailing_prompts_ == 1 ? "" : "s", first_trailing_prompt_line_));
    return clauses;
  }

 private:
  bool peel_prefix(std::size_t layer) {
    const PrefixLayer& kind = prefix_layers[layer];
    std::size_t found = 0;
    for (const NumberedLine& line : lines_) found += kind.length(line.text) > 0 ? 1 : 0;
    if (found == 0 || (!kind.wherever_found && 2 * found < content_lines_)) return false;
    Peeled& peeled = prefix_peeled_[layer];
    for (NumberedLine& line : lines_) {
      const std::size_t length = kind.length(line.text);
      if (length == 0) continue;
      if (peeled.example.empty()) peeled.example = std::string(line.text.substr(0, length));
      line.text.remove_prefix(length);
    }
    peeled.lines = std::max(peeled.lines, found);
    ++peeled.levels;
    return true;
  }

  bool peel_indentation() {
    std::optional<std::string_view> common;
    for (const NumberedLine& line : lines_) {
      if (!has_content(line.text)) continue;
      const std::string_view indent =
          line.text.substr(0, run_at(line.text, 0, [](char c) { return c == ' ' || c == '\t'; }));
      if (!common) {
        common = indent;
        continue;
      }
      std::size_t shared = 0;
      while (shared < common->size() && shared < indent.size() && (*common)[shared] == indent[shared]) ++shared;
      common = common->substr(0, shared);
      if (common->empty()) return false;
    }
    if (!common || common->empty()) return false;
    const std::string indent(*common);
    for (NumberedLine& line : lines_) {
      if (line.text.starts_with(indent))
        line.text.remove_prefix(indent.size());
      else if (!has_content(line.text))
        line.text = {};
    }
    indentation_ += indent;
    return true;
  }

  void peel_trailing_prompts() {
    for (NumberedLine& line : lines_) {
      if (line.text.find('@') == std::string_view::npos) continue;
      const std::size_t start = trailing_prompt(line.text);
      if (start == std::string_view::npos) continue;
      line.text = line.text.substr(0, start);
      if (trailing_prompts_++ == 0) first_trailing_prompt_line_ = line.number;
    }
  }

  std::vector<NumberedLine> lines_;
  std::size_t content_lines_ = 0;
  std::array<Peeled, prefix_layers.size()> prefix_peeled_{};
  std::string indentation_;
  std::size_t trailing_prompts_ = 0;
  std::size_t first_trailing_prompt_line_ = 0;
};

}  // namespace

std::string FramedText::note() const {
  if (peeled_.empty()) return {};
  return fmt::format("{}: {}", framing_note_prefix, peeled_);
}

FramedText peel_framing(std::string_view text) {
  std::vector<std::string> clauses;
  std::string without_escapes;
  std::string_view base = text;
  if (text.find('\x1b') != std::string_view::npos) {
    without_escapes = without_escape_sequences(text);
    base = without_escapes;
    clauses.emplace_back("ANSI escape sequences (terminal colours)");
  }
  Peeler peeler(split_lines(base));
  peeler.peel_all();
  const std::vector<std::string> layers = peeler.clauses();
  clauses.insert(clauses.end(), layers.begin(), layers.end());
  if (base.find("\r\n") != std::string_view::npos) clauses.emplace_back("CRLF line ends");
  if (clauses.empty()) return FramedText(text);
  std::string peeled_text;
  peeled_text.reserve(base.size());
  for (const NumberedLine& line : peeler.lines()) {
    peeled_text += line.text;
    peeled_text += '\n';
  }
  // A last line without a newline stays so: readers take it for a line cut short.
  if (!base.empty() && base.back() != '\n' && !peeled_text.empty()) peeled_text.pop_back();
  std::string peeled;
  for (const std::string& clause : clauses) peeled += (peeled.empty() ? "" : "; ") + clause;
  return FramedText(text, std::move(peeled_text), std::move(peeled));
}

}  // namespace fb
