// Which pages back the MPI backend's host buffers: the THP mode and smaps readers on built texts,
// and the kernel's real answer for a buffer that asks for huge pages.

#include "benchmarks/core/host_buffer.hpp"
#include "benchmarks/core/host_pages.hpp"
#include "common/text_file.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

namespace fb {
namespace {

using ::testing::HasSubstr;

constexpr std::size_t mib = std::size_t{1} << 20;

// The kernel's own THP mode, or empty where it has no transparent huge pages.
std::string real_thp_mode() {
  const auto text = read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  return text ? thp_mode_of(*text) : std::string();
}

TEST(ThpMode, IsTheBracketedWordOfTheSysfsFile) {
  EXPECT_EQ(thp_mode_of("always [madvise] never\n"), "madvise");
  EXPECT_EQ(thp_mode_of("[always] madvise never\n"), "always");
  EXPECT_EQ(thp_mode_of("always madvise [never]\n"), "never");
  EXPECT_EQ(thp_mode_of("always madvise never\n"), "");
}

TEST(Smaps, AnonHugePagesOfTheMappingHoldingTheAddress) {
  const std::string smaps = "563e80bc1000-563e80bc2000 r--p 00000000 fe:00 18624    /usr/bin/python3\n"
                            "Size:                  4 kB\n"
                            "AnonHugePages:         0 kB\n"
                            "7f0000000000-7f0000600000 rw-p 00000000 00:00 0\n"
                            "Size:               6144 kB\n"
                            "Rss:                6144 kB\n"
                            "AnonHugePages:      4096 kB\n"
                            "7f0000600000-7f0000601000 rw-p 00000000 00:00 0\n"
                            "AnonHugePages:         0 kB\n";
  EXPECT_EQ(anon_huge_bytes_at(smaps, 0x7f0000000000), 4096u * 1024);
  EXPECT_EQ(anon_huge_bytes_at(smaps, 0x7f00005fffff), 4096u * 1024);
  EXPECT_EQ(anon_huge_bytes_at(smaps, 0x7f0000600000), 0u);
  EXPECT_EQ(anon_huge_bytes_at(smaps, 0x563e80bc1800), 0u);
  EXPECT_EQ(anon_huge_bytes_at(smaps, 0x1000), std::nullopt);
  // A mapping without the field (a kernel without THP) says nothing.
  EXPECT_EQ(anon_huge_bytes_at("7f0000000000-7f0000600000 rw-p 00000000 00:00 0\nRss: 4 kB\n"
                               "7f0000600000-7f0000601000 rw-p 00000000 00:00 0\nAnonHugePages: 8 kB\n",
                               0x7f0000000000),
            std::nullopt);
}

// A built sysfs tree whose THP file says `mode`.
std::filesystem::path thp_tree(const testing::TempDir& dir, const std::string& mode_line) {
  const auto thp = dir / "sys/kernel/mm/transparent_hugepage";
  std::filesystem::create_directories(thp);
  std::ofstream(thp / "enabled") << mode_line << "\n";
  std::ofstream(thp / "hpage_pmd_size") << "2097152\n";
  return dir.path();
}

TEST(HostPagesProbe, ThpNeverIsNotGrantedAndWarnsNamingTheMode) {
  const testing::TempDir dir;
  const HostPagesReport report = probe_host_pages(HostPages::huge, thp_tree(dir, "always madvise [never]"));
  EXPECT_FALSE(report.huge_granted);
  EXPECT_EQ(report.thp_mode, "never");
  EXPECT_EQ(report.huge_page_bytes, 2 * mib);
  EXPECT_THAT(report.describe(), HasSubstr("transparent huge pages asked for and not granted (THP enabled: never)"));
  ASSERT_TRUE(report.warning().has_value());
  EXPECT_THAT(*report.warning(), HasSubstr("vary more from run to run"));
}

TEST(HostPagesProbe, BasePagesAreWhatTheRunAskedForAndDoNotWarn) {
  const testing::TempDir dir;
  const HostPagesReport report = probe_host_pages(HostPages::base, thp_tree(dir, "[always] madvise never"));
  EXPECT_FALSE(report.huge_granted);
  EXPECT_EQ(report.describe(), fmt::format("{} KiB pages (--host-pages base)", report.base_page_bytes / 1024));
  EXPECT_FALSE(report.warning().has_value());
}

TEST(HostPagesProbe, TheKernelGrantsHugePagesWhereThpIsOn) {
  const std::string mode = real_thp_mode();
  if (mode.empty() || mode == "never") GTEST_SKIP() << "transparent huge pages are off on this kernel (" << mode << ")";
  const HostPagesReport report = probe_host_pages(HostPages::huge);
  EXPECT_TRUE(report.huge_granted) << report.describe();
  EXPECT_EQ(report.thp_mode, mode);
  EXPECT_THAT(report.describe(), HasSubstr("MiB transparent huge pages for buffers of"));
  EXPECT_FALSE(report.warning().has_value());
}

// A buffer of one and a half huge pages is rounded up to two and both are huge.
TEST(HostBuffer, HugeBuffersAreAlignedRoundedUpAndBackedByHugePages) {
  const std::size_t huge = huge_page_bytes();
  HostBuffer<std::byte> buffer(huge + huge / 2, HostPages::huge);
  const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
  EXPECT_EQ(address % huge, 0u);
  std::memset(buffer.data(), 1, buffer.size());
  const std::string mode = real_thp_mode();
  if (mode.empty() || mode == "never") GTEST_SKIP() << "transparent huge pages are off on this kernel (" << mode << ")";
  // At least: a neighbouring huge mapping may have merged with it.
  EXPECT_GE(anon_huge_bytes_at(read_text_file("/proc/self/smaps"), address), 2 * huge);
}

TEST(HostBuffer, BasePagesAndSmallBuffersStayPageAligned) {
  HostBuffer<std::byte> base(4 * mib, HostPages::base);
  HostBuffer<std::byte> small(huge_page_threshold_bytes() - 1, HostPages::huge);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(base.data()) % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % 4096, 0u);
  std::memset(base.data(), 1, base.size());
  const std::string mode = real_thp_mode();
  if (mode != "madvise") GTEST_SKIP() << "only THP `madvise` leaves buffers that did not ask on base pages";
  EXPECT_EQ(anon_huge_bytes_at(read_text_file("/proc/self/smaps"), reinterpret_cast<std::uintptr_t>(base.data())), 0u);
}

}  // namespace
}  // namespace fb
