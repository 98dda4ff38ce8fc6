#include "common/sysfs_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>

namespace fb {

std::optional<std::string> read_system_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> text;
  struct stat status {};
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
    text.emplace();
    std::array<char, 4096> buffer{};
    for (;;) {
      const ssize_t got = ::read(fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      // A driver may refuse an attribute after a successful open.
      if (got < 0) text.reset();
      if (got <= 0) break;
      text->append(buffer.data(), static_cast<std::size_t>(got));
    }
  }
  ::close(fd);
  return text;
}

std::optional<std::string> read_first_line(const std::filesystem::path& path) {
  const std::optional<std::string> text = read_system_file(path);
  if (!text || text->empty()) return std::nullopt;
  const std::string line = text->substr(0, text->find('\n'));
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

std::vector<RdmaPort> rdma_ports(const std::filesystem::path& infiniband_class) {
  std::vector<RdmaPort> ports;
  for (const std::string& device : sorted_entries(infiniband_class)) {
    const std::filesystem::path ports_dir = infiniband_class / device / "ports";
    const std::size_t first_of_device = ports.size();
    for (const std::string& entry : sorted_entries(ports_dir)) {
      int number = 0;
      const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), number);
      if (error == std::errc() && end == entry.data() + entry.size() && number >= 0)
        ports.push_back({device, number, device + "/" + entry, ports_dir / entry});
    }
    // Port directories are named by number: "10" sorts after "9".
    std::sort(ports.begin() + static_cast<std::ptrdiff_t>(first_of_device), ports.end(),
              [](const RdmaPort& a, const RdmaPort& b) { return a.number < b.number; });
  }
  return ports;
}

std::string read_port_state(const std::filesystem::path& state_file) {
  const std::string text = read_first_line(state_file).value_or("");
  const auto colon = text.find(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

}  // namespace fb
