// The watchdog's side channel between real sockets, with the ranks as threads of this process
// and the backend's MPI broadcast replaced by a shared buffer.

#include "benchmarks/core/watchdog.hpp"
#include "common/errors.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fb {
namespace {

// What rank 0 broadcasts, handed to the other ranks' threads.
class ThreadBroadcast {
 public:
  BroadcastFromRankZero for_rank(int rank) {
    return [this, rank](std::span<std::byte> blob) {
      std::unique_lock lock(mutex_);
      if (rank == 0) {
        blob_.assign(blob.begin(), blob.end());
        published_.notify_all();
      } else {
        published_.wait(lock, [&] { return !blob_.empty(); });
        std::copy(blob_.begin(), blob_.end(), blob.begin());
      }
    };
  }
  void wait_until_published() {
    std::unique_lock lock(mutex_);
    published_.wait(lock, [&] { return !blob_.empty(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable published_;
  std::vector<std::byte> blob_;
};

// The port of the one listening TCP socket of this process: rank 0's, while it accepts.
std::uint16_t listening_port() {
  for (int fd = 0; fd < 4096; ++fd) {
    int listening = 0;
    socklen_t length = sizeof listening;
    sockaddr_in address{};
    socklen_t address_length = sizeof address;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &address_length) == 0 && address.sin_family == AF_INET)
      return ntohs(address.sin_port);
  }
  return 0;
}

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(port);
  target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target), 0);
  return fd;
}

// Two ranks: rank 0's watchdog starts accepting; `before_rank_1` runs against its listener before
// rank 1 starts; then a deadline passes (or, with `expire_on_rank_0`, rank 0's measuring thread
// says its own deadline passed) and rank 0 asks rank 1 where it is.
StallReport stall_after(const std::function<void(std::uint16_t port)>& before_rank_1, double deadline_s = 0.3,
                        bool expire_on_rank_0 = false) {
  const std::vector<std::string> hosts{"node01", "node01"};
  ThreadBroadcast broadcast;
  std::unique_ptr<Watchdog> rank0;
  std::unique_ptr<Watchdog> rank1;
  const auto ignore_timeout = [](const std::string&) {};  // the test disarms instead of exiting
  std::thread rank0_thread(
      [&] { rank0 = std::make_unique<Watchdog>(0, hosts, WatchdogSettings{}, broadcast.for_rank(0), ignore_timeout); });
  broadcast.wait_until_published();
  const std::uint16_t port = listening_port();
  EXPECT_NE(port, 0);
  before_rank_1(port);
  std::thread rank1_thread(
      [&] { rank1 = std::make_unique<Watchdog>(1, hosts, WatchdogSettings{}, broadcast.for_rank(1), ignore_timeout); });
  rank0_thread.join();
  rank1_thread.join();

  std::promise<StallReport> first_report;
  std::once_flag reported;
  rank0->set_stall_handler(
      [&](const StallReport& report) { std::call_once(reported, [&] { first_report.set_value(report); }); });
  rank1->begin_case("all_reduce 8 B out-of-place (float)", deadline_s);
  rank0->begin_case("all_reduce 8 B out-of-place (float)", deadline_s);
  if (expire_on_rank_0) {
    rank1->step(CasePhase::warmup);
    rank0->step(CasePhase::warmup);
    rank0->expire();
  }
  auto future = first_report.get_future();
  EXPECT_EQ(future.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  rank0->end_case();
  rank1->end_case();
  return future.get();
}

// Connections that never say who they are (a port scanner, or an attacker holding the port)
// used to be read one at a time, 5 s each, until the 30 s bootstrap ran out, so ranks starting
// later were never on the side channel and a later stall named them as silent.
TEST(WatchdogSideChannel, IdleConnectionsDoNotLockLateRanksOut) {
  std::vector<int> idle;
  const StallReport report = stall_after([&](std::uint16_t port) {
    for (int i = 0; i < 60; ++i) idle.push_back(connect_to(port));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  for (int fd : idle) ::close(fd);
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_TRUE(report.ranks[1].answered) << report.message;
  EXPECT_EQ(report.ranks[1].position, "preparing buffers");
}

// A backend's own wait that gives up in warm-up (the NCCL backend's streams) ends the job as the
// watchdog's deadline does: rank 0 asks the ranks at once, long before the watchdog's own 600 s,
// and the report that becomes the incident names every rank and where it was.
TEST(WatchdogSideChannel, ARanksOwnDeadlineInWarmUpEndsTheJobWithTheRanksNamed) {
  const auto started = std::chrono::steady_clock::now();
  const StallReport report = stall_after([](std::uint16_t) {}, 600, true);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_EQ(report.deadline_s, 600);
  EXPECT_EQ(report.case_label, "all_reduce 8 B out-of-place (float)");
  ASSERT_EQ(report.ranks.size(), 2u) << report.message;
  for (const RankStall& rank : report.ranks) {
    EXPECT_TRUE(rank.answered) << report.message;
    EXPECT_EQ(rank.position, "warm-up iteration 0") << report.message;
    EXPECT_EQ(rank.host, "node01");
  }
  EXPECT_NE(report.message.find("every rank arrived at the same step"), std::string::npos) << report.message;
}

// Without the key (which travels over MPI, never over the socket) a connection cannot register
// as a rank: a Hello with a wrong MAC is refused and its slot stays free for the real rank.
TEST(WatchdogSideChannel, AHelloWithoutTheKeyIsRefused) {
  bool refused = false;
  const StallReport report = stall_after([&](std::uint16_t port) {
    const int fd = connect_to(port);
    std::array<unsigned char, 16> nonce{};
    ASSERT_EQ(::recv(fd, nonce.data(), nonce.size(), MSG_WAITALL), 16);
    struct {
      std::int32_t rank = 1;
      std::array<unsigned char, 32> mac{};
    } forged;
    forged.mac.fill(0x5a);
    ASSERT_EQ(::send(fd, &forged, sizeof forged, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof forged));
    pollfd pfd{fd, POLLIN, 0};
    char byte = 0;
    refused = ::poll(&pfd, 1, 5000) == 1 && ::recv(fd, &byte, 1, 0) == 0;  // closed, no welcome
    ::close(fd);
  });
  EXPECT_TRUE(refused) << "rank 0 answered a Hello without the key";
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_TRUE(report.ranks[1].answered) << report.message;
}

// A --watchdog-interface that cannot be right is a usage error on every rank, before anything
// listens: a subnet out of range, or a name no interface can have.
TEST(WatchdogSideChannel, AMalformedInterfaceIsAUsageError) {
  for (const std::string spec :
       {"10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "300.0.0.0/8", "10.0.0.0/-1", "eth 0", "a-name-longer-than-ifnamsiz"})
    EXPECT_THROW(validate_interface_spec(spec), UsageError) << spec;
  for (const std::string spec : {"", "eth0", "lo", "10.0.0.0/8", "127.0.0.0/0", "192.168.1.0/32"})
    EXPECT_NO_THROW(validate_interface_spec(spec)) << spec;
}

// An interface rank 0's host does not have used to warn and listen on every address; now every
// rank ends with the same usage error, rank 0 included, and none waits for the others.
TEST(WatchdogSideChannel, AnInterfaceRankZeroDoesNotHaveEndsEveryRankWithAUsageError) {
  const std::vector<std::string> hosts{"node01", "node01"};
  ThreadBroadcast broadcast;
  std::array<std::string, 2> errors;
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank)
    ranks.emplace_back([&, rank] {
      try {
        SideChannel channel(rank, hosts, "fbnosuchif0", broadcast.for_rank(rank));
      } catch (const UsageError& e) { errors[static_cast<std::size_t>(rank)] = e.what(); }
    });
  for (std::thread& rank : ranks) rank.join();
  for (const std::string& error : errors)
    EXPECT_EQ(error, "--watchdog-interface fbnosuchif0 has no IPv4 address on rank 0's host node01");
}

}  // namespace
}  // namespace fb
