#pragma once
// Which pages back the host buffers of a run, and whether the kernel granted the huge pages a run
// asked for: host-memory bandwidth depends on it (host_buffer.hpp), so the results say it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fb {

enum class HostPages {
  huge,  // transparent huge pages for buffers of huge_page_threshold_bytes() and more (the default)
  base,  // the kernel's base pages, as a plain malloc gets them under THP `madvise` or `never`
};

std::string_view name_of(HostPages pages);

// The PMD huge page size the kernel reports; 2 MiB where it reports none.
std::size_t huge_page_bytes();
// The smallest buffer put on huge pages (64 KiB with 2 MiB pages): from there on, transfers between
// processes copy whole pages and page-table walks show in their bandwidth; below, messages go
// through the transport's own bounce buffers, and a huge page each would be memory for nothing.
std::size_t huge_page_threshold_bytes();

// `bytes` rounded up to whole huge pages.
std::size_t round_up_to_huge_pages(std::size_t bytes);
// A private anonymous mapping of round_up_to_huge_pages(bytes), aligned to a huge page and asked
// for transparent huge pages (a kernel that refuses leaves base pages, which the probe below
// reports). Throws std::bad_alloc when the kernel has no room; munmap releases it.
void* map_huge_pages(std::size_t bytes);

// The bracketed mode of /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never" ->
// "madvise"); empty when the text has none.
std::string thp_mode_of(std::string_view enabled_text);

// AnonHugePages of the /proc/PID/smaps mapping that holds `address`; nullopt when no mapping
// holds it or the mapping lacks the field.
std::optional<std::uint64_t> anon_huge_bytes_at(std::string_view smaps_text, std::uintptr_t address);

struct HostPagesReport {
  HostPages requested = HostPages::huge;
  std::string thp_mode;  // empty: the kernel has no transparent huge pages
  bool huge_granted = false;
  std::size_t huge_page_bytes = 0;
  std::size_t base_page_bytes = 0;

  // The provenance line: "2 MiB transparent huge pages for buffers of 64 KiB and more, ...".
  std::string describe() const;
  // Set when huge pages were asked for and not granted.
  std::optional<std::string> warning() const;
};

// Asks for huge pages on a probe buffer the way the MPI backend's buffers do, touches it and reads
// back from /proc/self/smaps whether the kernel granted them. `sysfs_root` is "/" on a real host.
HostPagesReport probe_host_pages(HostPages requested, const std::filesystem::path& sysfs_root = "/");

}  // namespace fb
