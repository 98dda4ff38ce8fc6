// Rank 0's watchdog side channel under a flood of connections that never prove a rank, while a
// real rank joins late: the rank still registers and the run completes. Rank 1 starts every TCP
// connect late (late_connect.cpp, preloaded into it alone); meanwhile the test finds rank 0's
// listener and keeps opening connections to it, idle ones and ones that send a forged Hello.

#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::allow_root;
using testing::ChildProcess;
using testing::describe;
using testing::ProcessResult;
using testing::TempDir;

std::string read_proc(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The process of `session` whose environment says it is MPI rank 0.
std::optional<pid_t> rank_zero_of(pid_t session) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (::getsid(pid) != session) continue;
    const std::string environment = read_proc(entry.path() / "environ");
    if (environment.find(std::string("OMPI_COMM_WORLD_RANK=0") + '\0') != std::string::npos &&
        std::filesystem::read_symlink(entry.path() / "exe", error) == std::filesystem::path(FABRICBENCH_BINARY))
      return pid;
  }
  return std::nullopt;
}

// The port of a listening IPv4 TCP socket that process `pid` holds.
std::optional<std::uint16_t> listening_port_of(pid_t pid) {
  const std::filesystem::path proc = std::filesystem::path("/proc") / std::to_string(pid);
  std::set<std::string> inodes;
  std::error_code error;
  for (const auto& fd : std::filesystem::directory_iterator(proc / "fd", error)) {
    const std::string target = std::filesystem::read_symlink(fd.path(), error).string();
    if (target.starts_with("socket:[")) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::istringstream table(read_proc(proc / "net/tcp"));
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
    if (state == "0A" && inodes.contains(inode))
      return static_cast<std::uint16_t>(std::stoul(local.substr(local.find(':') + 1), nullptr, 16));
  }
  return std::nullopt;
}

// Opens connections to 127.0.0.1:`port` until `stop`, holding the latest few hundred: two of
// three idle, one of three sending a Hello of the right size without the key.
void flood(std::uint16_t port, const std::atomic<bool>& stop, std::atomic<int>& opened) {
  std::deque<int> held;
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(port);
  target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  while (!stop.load()) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) break;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0 && errno != EINPROGRESS) {
      ::close(fd);
      if (errno == ECONNREFUSED) break;  // the listener is closed: registration is over
      continue;
    }
    if (++opened % 3 == 0) {
      const std::array<char, 36> forged{1};
      [[maybe_unused]] const ssize_t sent = ::send(fd, forged.data(), forged.size(), MSG_NOSIGNAL);
    }
    held.push_back(fd);
    if (held.size() > 400) {
      ::close(held.front());
      held.pop_front();
    }
  }
  for (const int fd : held) ::close(fd);
}

TEST(SideChannelFlood, ALateRankJoinsThroughAFloodOfConnections) {
  const TempDir dir;
  const std::vector<std::string> args{"run",   "all_reduce",  "-b",     "8",           "-e",          "1K",
                                      "-n",    "2",           "-w",     "1",           "--placement", "out-of-place",
                                      "--csv", dir / "r.csv", "--json", dir / "r.json"};
  std::vector<std::string> argv{
      MPIEXEC_BINARY,    "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader", "-np", "1",
      FABRICBENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  // Under AddressSanitizer (scripts/sanitize.sh) the preloaded shim comes before ASan's runtime,
  // which ASan refuses unless told the order is intended.
  const char* asan_options = std::getenv("ASAN_OPTIONS");
  const std::string asan_order =
      fmt::format("ASAN_OPTIONS={}verify_asan_link_order=0", asan_options ? std::string(asan_options) + ":" : "");
  for (const std::string& word : {std::string(":"), std::string("-np"), std::string("1"), std::string("/usr/bin/env"),
                                  asan_order, std::string("LD_PRELOAD=" FABRICBENCH_LATE_CONNECT_LIBRARY),
                                  std::string("FB_TEST_CONNECT_DELAY_MS=3000"), std::string(FABRICBENCH_BINARY)})
    argv.push_back(word);
  argv.insert(argv.end(), args.begin(), args.end());

  ChildProcess run(argv, allow_root);
  std::optional<std::uint16_t> port;
  for (int attempt = 0; attempt < 6000 && !port; ++attempt) {
    if (const auto rank_zero = rank_zero_of(run.pid())) port = listening_port_of(*rank_zero);
    if (!port) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::atomic<bool> stop{false};
  std::atomic<int> opened{0};
  std::optional<std::thread> flooding;
  if (port) flooding.emplace(flood, *port, std::cref(stop), std::ref(opened));
  const ProcessResult result = run.wait(std::chrono::seconds(240));
  stop.store(true);
  if (flooding) flooding->join();

  ASSERT_TRUE(port.has_value()) << "rank 0's side channel listener was not found\n" << describe(result);
  EXPECT_GT(opened.load(), 100) << "the flood did not run";
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.err, Not(HasSubstr("cannot reach rank 0")));
  EXPECT_EQ(read_results_json(dir / "r.json").rows.size(), 8u);  // 8 B to 1 KiB: 8 sizes
}

}  // namespace
}  // namespace fb
