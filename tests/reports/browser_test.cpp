// The HTML report opened in a real headless browser (Debian's chromium): every plot renders, the
// console stays clean, and a hostile host name shows as text rather than becoming an element.

#include "report_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fb {
namespace {

constexpr const char* chromium = "/usr/bin/chromium";

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Scratch {
  Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fabricbench-browser-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path path;
};

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST(Browser, ReportRendersEveryPlotWithoutConsoleErrorsAndShowsHostileNamesAsText) {
  if (::access(chromium, X_OK) != 0) GTEST_SKIP() << chromium << " is missing (scripts/setup.sh installs chromium)";
  if (::access("/usr/bin/gnuplot", X_OK) != 0 || ::access("/usr/bin/dot", X_OK) != 0)
    GTEST_SKIP() << "gnuplot or dot is missing (scripts/setup.sh installs gnuplot-nox and graphviz)";
  const Scratch scratch;
  const ReportInput input = testing::hostile_report_input();
  const std::filesystem::path report = scratch.path / "report.html";
  std::ofstream(report) << render_html_report(input);
  const std::filesystem::path dom = scratch.path / "dom.html";
  const std::filesystem::path log = scratch.path / "chromium.log";
  const std::filesystem::path profile = scratch.path / "profile";

  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child only redirects and execs: the flags keep chromium off the network and quiet.
    std::FILE* out = std::freopen(dom.c_str(), "w", stdout);
    std::FILE* err = std::freopen(log.c_str(), "w", stderr);
    if (!out || !err) ::_exit(126);
    const std::string profile_flag = "--user-data-dir=" + profile.string();
    const std::string url = "file://" + report.string();
    ::execl(chromium, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", profile_flag.c_str(),
            "--enable-logging=stderr", "--v=0", "--dump-dom", url.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string browser_log = read_text(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << browser_log;

  const std::string rendered = read_text(dom);
  EXPECT_EQ(count_of(rendered, "<svg"), expected_plot_count(input)) << "every plot must be in the rendered DOM";
  EXPECT_EQ(count_of(rendered, "<img"), 0u) << "an input string became an element";
  EXPECT_THAT(rendered, ::testing::HasSubstr("&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_THAT(browser_log, ::testing::Not(::testing::HasSubstr("Uncaught")));
  EXPECT_THAT(browser_log, ::testing::Not(::testing::HasSubstr(":CONSOLE(")));
  EXPECT_THAT(browser_log, ::testing::Not(::testing::HasSubstr("Refused to")));  // CSP violations
}

}  // namespace
}  // namespace fb
