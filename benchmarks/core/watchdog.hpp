#pragma once
// The watchdog: a deadline on every timed operation, enforced by a thread beside the measuring
// one, so a rank that dies, stops or loses its link ends the job with a message that names it
// instead of leaving the others blocked forever.
//
// When a deadline passes, rank 0 asks every rank where it is over the side channel
// (benchmarks/core/side_channel.hpp), and a rank that does not answer is named as the one
// missing. A rank that answers also says which of its host's network links went down since the
// job started, so the host whose cable failed is named also when the side channel does not cross
// that cable.

#include "benchmarks/core/side_channel.hpp"
#include "benchmarks/core/stall_report.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace fb {

// Where a rank is inside the current case; comparing two tells which rank is behind.
enum class CasePhase : std::uint8_t { prepare = 1, warmup, timed, gather, check, done };

struct RankProgress {
  std::uint32_t case_number = 0;  // 1-based; 0: not started
  CasePhase phase = CasePhase::prepare;
  std::uint32_t iteration = 0;

  auto operator<=>(const RankProgress&) const = default;
};

std::string describe(const RankProgress& progress);

struct WatchdogSettings {
  // Fixed deadline per step in seconds; 0: derive it from the size (see step_deadline_s).
  double fixed_timeout_s = 0;
  // Extra time the other ranks give rank 0 to end the job before they end it themselves.
  double coordinator_grace_s = 5;
  // How long rank 0 waits for the answers of the other ranks once a deadline passed.
  double answer_wait_s = 2;
  // The interface (name, or an IPv4 subnet a.b.c.d/n) whose address rank 0's side channel listens
  // on. Empty: loopback when every rank is on rank 0's host, else the first entry of Open MPI's
  // oob_tcp_if_include or btl_tcp_if_include that is an interface here (the network MPI uses),
  // else every address.
  std::string interface_name{};
};

// The deadline for one step (an iteration, a barrier, the gather of times) that moves
// `bytes_per_step` bytes: a floor for latency-bound steps plus the time at 50 MB/s, two orders of
// magnitude below any fabric worth measuring, so only a hang or a near-dead link reaches it.
double step_deadline_s(const WatchdogSettings& settings, std::uint64_t bytes_per_step);

// What a backend's `on_timeout` ends with: "fabricbench: MESSAGE" on stderr and the timeout exit
// code, at once. The measuring thread is blocked inside MPI or on a stream, so nothing that could
// wait on it runs; the launcher ends the other ranks, and every completed size is already on disk.
[[noreturn]] void exit_on_timeout(const std::string& message);

class Watchdog {
 public:
  // Collective: every rank constructs it at the same point. `on_timeout` runs on the watchdog
  // thread with the message; it must end the process (it runs while the measuring thread is
  // blocked) and must not return.
  Watchdog(int rank, std::vector<std::string> rank_hosts, WatchdogSettings settings,
           const BroadcastFromRankZero& broadcast, std::function<void(const std::string&)> on_timeout);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Arms the deadline for a new case; `label` names it in messages ("all_reduce 1048576 B
  // out-of-place"), `deadline_s` applies to each step.
  void begin_case(std::string label, double deadline_s);
  // Called by the measuring thread at every step: one relaxed atomic store, so it can sit in a
  // timed loop. The watchdog thread notices the change when it next samples (every 100 ms).
  // Defined here so the timed loops inline it: between a ping-pong's receive and its next send
  // even a call is on the round trip.
  void step(CasePhase phase, std::uint32_t iteration = 0) noexcept {
    const std::uint64_t case_bits = packed_progress_.load(std::memory_order_relaxed) & case_mask;
    packed_progress_.store(case_bits | pack_step(phase, iteration), std::memory_order_relaxed);
  }
  // Disarms until the next case.
  void end_case();
  // The measuring thread's own deadline for the current step passed (a backend's wait that gave
  // up): the step is treated as past the watchdog's deadline at its next sample, so the job ends
  // as for any deadline: rank 0 asks the ranks and hands the report naming them to the stall
  // handler (the incident) and on_timeout; another rank ends the job with its own report.
  void expire() noexcept;
  // `handler` sees the report of a passed deadline before `on_timeout` ends the job. Set it before
  // the first case; it must not throw.
  void set_stall_handler(StallHandler handler);

 private:
  void run_coordinator();
  void run_member();
  // Asks every rank where it is and composes the report of a deadline that passed.
  StallReport examine_stall(double stalled_s);
  // Hands the report to the stall handler, then to on_timeout, which ends the job.
  void end_job(const StallReport& report);
  std::string current_label();
  // Seconds since the measuring thread last stepped, while a case is armed; 0 when disarmed.
  double stalled_seconds();

  int rank_;
  std::vector<std::string> rank_hosts_;
  WatchdogSettings settings_;
  std::function<void(const std::string&)> on_timeout_;
  StallHandler stall_handler_;
  std::vector<std::string> links_up_at_start_;  // this host's, to tell which went down since

  // packed_progress_: the case number in the high 32 bits, then the phase (8 bits) and the
  // iteration (24 bits, saturating).
  static constexpr std::uint64_t case_mask = 0xffffffff00000000ull;
  static constexpr std::uint64_t pack_step(CasePhase phase, std::uint32_t iteration) noexcept {
    return (std::uint64_t{static_cast<std::uint8_t>(phase)} << 24) | std::min<std::uint32_t>(iteration, 0xffffff);
  }

  // Written by the measuring thread, read by the watchdog thread.
  std::atomic<std::uint64_t> packed_progress_{0};
  std::atomic<double> deadline_s_{0};  // 0: disarmed
  std::atomic<bool> stopping_{false};
  std::atomic<bool> expired_{false};  // set by expire(), cleared by begin_case()
  std::mutex label_mutex_;
  std::string label_;

  // The watchdog thread's own view: the last progress it saw and when it changed.
  std::uint64_t observed_progress_ = 0;
  std::chrono::steady_clock::time_point observed_since_{};

  SideChannel side_channel_;
  int wake_pipe_[2] = {-1, -1};  // wakes the watchdog thread for shutdown
  std::thread thread_;
};

}  // namespace fb
