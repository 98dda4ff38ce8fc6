#include "doctor/sysfs_files.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>

namespace fb::doctor {

std::optional<std::string> read_first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  constexpr std::string_view blanks = " \t\r\n";
  const auto first = line.find_first_not_of(blanks);
  if (first == std::string::npos) return std::string();
  return line.substr(first, line.find_last_not_of(blanks) - first + 1);
}

std::optional<long> read_integer(const std::filesystem::path& path) {
  const std::optional<std::string> text = read_first_line(path);
  if (!text || text->empty()) return std::nullopt;
  std::string_view digits = *text;
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
    base = 16;
  }
  long value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<std::filesystem::path> resolve(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::path resolved = std::filesystem::canonical(path, error);
  if (error) return std::nullopt;
  return resolved;
}

std::vector<std::string> sorted_entries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path under_root(const std::filesystem::path& root, const std::filesystem::path& absolute) {
  return root / absolute.relative_path();
}

}  // namespace fb::doctor
