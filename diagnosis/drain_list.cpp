#include "diagnosis/drain_list.hpp"

#include "results/results_io.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

namespace fb::diagnosis {
namespace {

// One line that survives `while read -r host reason` and a double-quoted shell word.
std::string one_line_reason(std::string_view text) {
  std::string reason;
  for (const char c : text) {
    if (c == '\n' || c == '\r' || c == '\t')
      reason += ' ';
    else if (c == '"' || c == '`' || c == '$' || c == '\\')
      reason += '\'';
    else
      reason += c;
  }
  return reason;
}

}  // namespace

void DrainList::add(const std::string& host, std::string_view reason) {
  auto [it, added] = reasons_.try_emplace(host);
  if (added) hosts_.push_back(host);
  it->second.push_back(one_line_reason(reason));
}

std::string DrainList::reason_of(const std::string& host) const {
  const auto found = reasons_.find(host);
  return found == reasons_.end() ? std::string() : fmt::format("{}", fmt::join(found->second, "; "));
}

std::string DrainList::text() const {
  std::string text = fmt::format("# fabricbench drain list ({}, {:%Y-%m-%dT%H:%M:%SZ}): HOST<TAB>REASON per line\n",
                                 command_, std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  for (const std::string& host : hosts_) {
    std::string reason = fmt::format("fabricbench {}: {}", command_, fmt::join(reasons_.at(host), "; "));
    if (reason.size() > max_reason_bytes) {
      // Cut on a character boundary: UTF-8 continuation bytes are 10xxxxxx.
      std::size_t end = max_reason_bytes - 4;
      while (end > 0 && (static_cast<unsigned char>(reason[end]) & 0xC0) == 0x80) --end;
      reason = reason.substr(0, end) + " ...";
    }
    text += fmt::format("{}\t{}\n", host, reason);
  }
  return text;
}

void DrainList::write(const std::filesystem::path& path, std::ostream& out) const {
  write_file_atomically(path, text());
  out << fmt::format("# drain list: {} ({} host{})\n", path.string(), hosts_.size(), hosts_.size() == 1 ? "" : "s");
}

}  // namespace fb::diagnosis
