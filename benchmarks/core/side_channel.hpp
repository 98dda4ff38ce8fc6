#pragma once
// The watchdog's side channel: its own TCP connections, every rank to rank 0, not the transport
// under test, so that when MPI or NCCL is wedged, or a link is down, rank 0 can still ask every
// rank where it is. Every message is authenticated with HMAC-SHA256 under a key that rank 0 hands
// out over the backend's broadcast, never over the side channel (docs/reliability.md, "The side
// channel"). What the answers mean, and the deadlines that prompt the questions, are the
// watchdog's (benchmarks/core/watchdog.hpp).

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fb {

// Exchanges a fixed-size blob among all ranks (the backend implements it with its own
// collective): `blob` holds rank 0's contribution on entry and on return on every rank.
using BroadcastFromRankZero = std::function<void(std::span<std::byte> blob)>;

// What a rank tells rank 0 when asked: where it is (the watchdog's packed progress) and the
// links its host lost since the job started.
struct MemberAnswer {
  std::uint64_t progress = 0;
  std::vector<std::string> links_lost;
};

// Throws UsageError unless `spec` is empty, an interface name or an IPv4 subnet a.b.c.d/n. Every
// rank can check it; whether the interface exists only rank 0's host can say, and the
// constructor ends every rank with a UsageError when it does not.
void validate_interface_spec(const std::string& spec);

class SideChannel {
 public:
  // Collective: every rank constructs it at the same point. Rank 0 listens on the interface
  // `interface_name` names (see WatchdogSettings::interface_name), hands out the key and its
  // addresses over `broadcast` and registers the other ranks; they connect and prove their rank.
  SideChannel(int rank, const std::vector<std::string>& rank_hosts, const std::string& interface_name,
              const BroadcastFromRankZero& broadcast);
  ~SideChannel();
  SideChannel(const SideChannel&) = delete;
  SideChannel& operator=(const SideChannel&) = delete;

  // Rank 0: whether `member` registered at the start (a rank that did not has no side channel).
  bool joined_at_start(int member) const;
  // Rank 0: asks every registered rank where it is and waits at most `wait_s` for all the answers
  // together; the answers that came and hold, by rank, with `own` (rank 0's) as rank 0's.
  std::map<int, MemberAnswer> ask_members(const MemberAnswer& own, double wait_s);

  // Other ranks: the descriptor on which rank 0's questions arrive; -1 without a connection.
  int coordinator_socket() const { return coordinator_socket_; }
  // Other ranks: reads the question waiting on coordinator_socket() and answers it with
  // `answer()`. A question that does not carry rank 0's MAC, or a closed connection, ends the
  // connection.
  void answer_question(const std::function<MemberAnswer()>& answer);

 private:
  using Key = std::array<unsigned char, 32>;
  using Nonce = std::array<unsigned char, 16>;
  // Rank 0: registers the other ranks' connections, each proving its rank with the job's key.
  void accept_members(int listener, int nranks);
  // Rank 0: makes `fd`, whose Hello proved `rank`, that rank's connection (taking it, -1 left) and
  // welcomes it; false when the rank has one already or the welcome cannot be sent.
  bool register_member(int& fd, int rank, const Nonce& nonce);
  // Other ranks: connects to rank 0 at one of `addresses` and proves this rank.
  void join(std::span<const std::uint32_t> addresses, std::uint16_t port);
  // One attempt at one address; sets coordinator_socket_ when rank 0 welcomed this rank.
  void try_joining(std::uint32_t address, std::uint16_t port);

  int rank_;
  std::unique_ptr<Key> key_;           // from rank 0 over the backend's broadcast; never on the socket
  std::vector<int> member_sockets_;    // rank 0: one per other rank, by rank (index 0 unused)
  std::vector<Nonce> member_nonces_;   // rank 0: each connection's challenge
  std::vector<bool> joined_at_start_;  // rank 0: which ranks registered (index 0 unused)
  int coordinator_socket_ = -1;        // other ranks: the connection to rank 0
  Nonce coordinator_nonce_{};
  std::uint64_t last_question_sequence_ = 0;  // questions are numbered, so none can be replayed
};

}  // namespace fb
