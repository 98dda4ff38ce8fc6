#include "benchmarks/core/host_pages.hpp"

#include "benchmarks/core/host_buffer.hpp"
#include "common/sysfs_files.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <new>

namespace fb {
namespace {

constexpr std::size_t default_huge_page_bytes = std::size_t{2} << 20;

std::filesystem::path thp_directory(const std::filesystem::path& sysfs_root) {
  return sysfs_root / "sys/kernel/mm/transparent_hugepage";
}

std::size_t huge_page_bytes_under(const std::filesystem::path& sysfs_root) {
  const std::optional<std::string> text = read_system_file(thp_directory(sysfs_root) / "hpage_pmd_size");
  std::size_t bytes = 0;
  if (text && std::from_chars(text->data(), text->data() + text->size(), bytes).ec == std::errc{} && bytes > 0)
    return bytes;
  return default_huge_page_bytes;
}

std::size_t threshold_of(std::size_t huge_bytes) { return huge_bytes / 32; }

// Page sizes are whole KiB or MiB: "4 KiB", "2 MiB", "512 MiB".
std::string page_size_text(std::size_t bytes) {
  constexpr std::size_t mib = std::size_t{1} << 20;
  return bytes % mib == 0 ? fmt::format("{} MiB", bytes / mib) : fmt::format("{} KiB", bytes / 1024);
}

}  // namespace

std::string_view name_of(HostPages pages) { return pages == HostPages::huge ? "huge" : "base"; }

std::size_t huge_page_bytes() {
  static const std::size_t bytes = huge_page_bytes_under("/");
  return bytes;
}

std::size_t huge_page_threshold_bytes() { return threshold_of(huge_page_bytes()); }

std::size_t round_up_to_huge_pages(std::size_t bytes) {
  const std::size_t huge = huge_page_bytes();
  return (bytes + huge - 1) / huge * huge;
}

void* map_huge_pages(std::size_t bytes) {
  const std::size_t huge = huge_page_bytes();
  const std::size_t length = round_up_to_huge_pages(bytes);
  // Map one huge page more than needed and unmap the slack on either side of the aligned part.
  void* mapping = ::mmap(nullptr, length + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(mapping);
  const std::uintptr_t aligned = (start + huge - 1) / huge * huge;
  if (aligned > start) ::munmap(mapping, aligned - start);
  if (const std::uintptr_t end = start + length + huge; end > aligned + length)
    ::munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

std::string thp_mode_of(std::string_view enabled_text) {
  const auto open = enabled_text.find('[');
  const auto close = enabled_text.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return {};
  return std::string(enabled_text.substr(open + 1, close - open - 1));
}

std::optional<std::uint64_t> anon_huge_bytes_at(std::string_view smaps_text, std::uintptr_t address) {
  bool inside = false;
  for (const NumberedLine& numbered : split_lines(smaps_text)) {
    const std::string_view line = numbered.text;
    // A mapping's header is "start-end perms offset dev inode [path]"; its fields follow it.
    const auto dash = line.find('-');
    const auto space = line.find(' ');
    std::uintptr_t start = 0, end = 0;
    if (dash != std::string_view::npos && space != std::string_view::npos && dash < space &&
        std::from_chars(line.data(), line.data() + dash, start, 16).ec == std::errc{} &&
        std::from_chars(line.data() + dash + 1, line.data() + space, end, 16).ec == std::errc{}) {
      if (inside) return std::nullopt;
      inside = start <= address && address < end;
      continue;
    }
    constexpr std::string_view field = "AnonHugePages:";
    if (!inside || !line.starts_with(field)) continue;
    std::string_view value = trim(line.substr(field.size()));
    std::uint64_t kib = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), kib).ec != std::errc{}) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

std::string HostPagesReport::describe() const {
  const std::string base = fmt::format("{} pages", page_size_text(base_page_bytes));
  if (requested == HostPages::base) return fmt::format("{} (--host-pages base)", base);
  const std::string mode = thp_mode.empty() ? "the kernel has no transparent huge pages" : "THP enabled: " + thp_mode;
  if (!huge_granted) return fmt::format("{}: transparent huge pages asked for and not granted ({})", base, mode);
  return fmt::format("{} transparent huge pages for buffers of {} and more, {} below (granted; {})",
                     page_size_text(huge_page_bytes), page_size_text(threshold_of(huge_page_bytes)), base, mode);
}

std::optional<std::string> HostPagesReport::warning() const {
  if (requested != HostPages::huge || huge_granted) return std::nullopt;
  return fmt::format("host buffers are on {}; transfers between host buffers will vary more from run to run "
                     "(docs/performance.md)",
                     describe());
}

HostPagesReport probe_host_pages(HostPages requested, const std::filesystem::path& sysfs_root) {
  HostPagesReport report;
  report.requested = requested;
  report.huge_page_bytes = huge_page_bytes_under(sysfs_root);
  report.base_page_bytes = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (const auto enabled = read_system_file(thp_directory(sysfs_root) / "enabled"))
    report.thp_mode = thp_mode_of(*enabled);
  if (requested == HostPages::base || report.thp_mode.empty() || report.thp_mode == "never") return report;
  HostBuffer<std::byte> probe(report.huge_page_bytes, HostPages::huge);
  std::memset(probe.data(), 1, probe.size());
  const std::optional<std::string> smaps = read_system_file("/proc/self/smaps");
  const auto granted_bytes =
      smaps ? anon_huge_bytes_at(*smaps, reinterpret_cast<std::uintptr_t>(probe.data())) : std::nullopt;
  report.huge_granted = granted_bytes && *granted_bytes >= report.huge_page_bytes;
  return report;
}

}  // namespace fb
