#include "benchmarks/core/watchdog.hpp"

#include "benchmarks/core/link_state.hpp"
#include "common/errors.hpp"
#include "common/termination_signals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <utility>

namespace fb {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr auto sample_period = std::chrono::milliseconds(100);

constexpr std::string_view no_side_channel = "no side channel: it could not join at the start";

RankProgress unpack(std::uint64_t packed) {
  return {static_cast<std::uint32_t>(packed >> 32), static_cast<CasePhase>((packed >> 24) & 0xff),
          static_cast<std::uint32_t>(packed & 0xffffff)};
}

[[noreturn]] void throw_system_error(std::string_view what) {
  throw std::runtime_error(fmt::format("watchdog: {}: {}", what, std::strerror(errno)));
}

void close_quietly(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string describe(const RankProgress& progress) {
  switch (progress.phase) {
    case CasePhase::prepare: return "preparing buffers";
    case CasePhase::warmup: return fmt::format("warm-up iteration {}", progress.iteration);
    case CasePhase::timed: return fmt::format("timed iteration {}", progress.iteration);
    case CasePhase::gather: return "gathering times";
    case CasePhase::check: return "validating";
    case CasePhase::done: return "done";
  }
  return "unknown";
}

double step_deadline_s(const WatchdogSettings& settings, std::uint64_t bytes_per_step) {
  if (settings.fixed_timeout_s > 0) return settings.fixed_timeout_s;
  constexpr double floor_s = 30;
  constexpr double slowest_plausible_bytes_per_s = 50e6;
  return floor_s + static_cast<double>(bytes_per_step) / slowest_plausible_bytes_per_s;
}

void exit_on_timeout(const std::string& message) {
  const std::string line = "fabricbench: " + message + "\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  std::_Exit(static_cast<int>(ExitCode::timeout));
}

Watchdog::Watchdog(int rank, std::vector<std::string> rank_hosts, WatchdogSettings settings,
                   const BroadcastFromRankZero& broadcast, std::function<void(const std::string&)> on_timeout)
    : rank_(rank),
      rank_hosts_(std::move(rank_hosts)),
      settings_(settings),
      on_timeout_(std::move(on_timeout)),
      links_up_at_start_(links_up()),
      side_channel_(rank, rank_hosts_, settings_.interface_name, broadcast) {
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) throw_system_error("pipe");
  thread_ = std::thread([this] {
    // Termination signals go to the measuring thread, which holds them back while it writes files.
    const sigset_t termination = termination_signals();
    pthread_sigmask(SIG_BLOCK, &termination, nullptr);
    rank_ == 0 ? run_coordinator() : run_member();
  });
}

Watchdog::~Watchdog() {
  stopping_.store(true);
  const char byte = 0;
  if (::write(wake_pipe_[1], &byte, 1) < 0) {
    // The thread also polls stopping_ every sample period; the write only makes it prompt.
  }
  if (thread_.joinable()) thread_.join();
  close_quietly(wake_pipe_[0]);
  close_quietly(wake_pipe_[1]);
}

void Watchdog::begin_case(std::string label, double deadline_s) {
  {
    const std::lock_guard lock(label_mutex_);
    label_ = std::move(label);
  }
  const RankProgress current = unpack(packed_progress_.load(std::memory_order_relaxed));
  packed_progress_.store((std::uint64_t{current.case_number + 1} << 32) | pack_step(CasePhase::prepare, 0),
                         std::memory_order_relaxed);
  expired_.store(false);
  deadline_s_.store(deadline_s);
}

void Watchdog::end_case() { deadline_s_.store(0); }

void Watchdog::expire() noexcept { expired_.store(true); }

void Watchdog::set_stall_handler(StallHandler handler) { stall_handler_ = std::move(handler); }

void Watchdog::end_job(const StallReport& report) {
  if (stall_handler_) stall_handler_(report);
  on_timeout_(report.message);
}

std::string Watchdog::current_label() {
  const std::lock_guard lock(label_mutex_);
  return label_;
}

double Watchdog::stalled_seconds() {
  const auto now = SteadyClock::now();
  const std::uint64_t progress = packed_progress_.load(std::memory_order_relaxed);
  if (progress != observed_progress_ || deadline_s_.load() == 0) {
    observed_progress_ = progress;
    observed_since_ = now;
  }
  return deadline_s_.load() == 0 ? 0 : std::chrono::duration<double>(now - observed_since_).count();
}

void Watchdog::run_coordinator() {
  while (!stopping_.load()) {
    pollfd pfd{wake_pipe_[0], POLLIN, 0};
    ::poll(&pfd, 1, static_cast<int>(sample_period.count()));
    const double deadline_s = deadline_s_.load();
    const double stalled_s = stalled_seconds();
    if (deadline_s > 0 && (stalled_s > deadline_s || expired_.load())) end_job(examine_stall(stalled_s));
  }
}

void Watchdog::run_member() {
  while (!stopping_.load()) {
    const int coordinator_socket = side_channel_.coordinator_socket();
    std::array<pollfd, 2> pfds{pollfd{wake_pipe_[0], POLLIN, 0}, pollfd{coordinator_socket, POLLIN, 0}};
    if (::poll(pfds.data(), coordinator_socket >= 0 ? 2 : 1, static_cast<int>(sample_period.count())) > 0 &&
        (pfds[1].revents & (POLLIN | POLLHUP)) != 0)
      side_channel_.answer_question([this] {
        return MemberAnswer{packed_progress_.load(std::memory_order_relaxed),
                            links_lost(links_up_at_start_, links_up())};
      });
    // Rank 0 ends the job when a deadline passes; if it has not after a grace period, it is
    // itself stuck or gone, and this rank ends the job.
    const double deadline_s = deadline_s_.load();
    const double stalled_s = stalled_seconds();
    const bool expired = expired_.load();
    if (deadline_s > 0 && (stalled_s > deadline_s + settings_.coordinator_grace_s || expired)) {
      StallReport report{current_label(), deadline_s, stalled_s, "", {}, ""};
      const std::string position = describe(unpack(packed_progress_.load()));
      report.ranks.push_back({rank_, rank_hosts_.at(static_cast<std::size_t>(rank_)), true, position, false,
                              links_lost(links_up_at_start_, links_up())});
      report.message =
          fmt::format("timeout: {} made no progress on rank {} ({}) for {:.1f} s at {}, and {}", report.case_label,
                      rank_, rank_hosts_.at(static_cast<std::size_t>(rank_)), stalled_s, position,
                      expired ? "its own deadline passed before rank 0 ended the job" : "rank 0 did not end the job");
      end_job(report);
    }
  }
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): asks the ranks, then names the cause from who answered, what progress and which links they report
StallReport Watchdog::examine_stall(double stalled_s) {
  const int nranks = static_cast<int>(rank_hosts_.size());
  std::map<int, MemberAnswer> answers =
      side_channel_.ask_members({packed_progress_.load(), links_lost(links_up_at_start_, links_up())},
                                settings_.answer_wait_s);
  // The ranks that hold the job back: those that did not answer. When every rank answered and
  // some are further along than others, those furthest behind. A rank that answers while another
  // is silent is waiting for it, however far behind the rest it stopped (rank 0 stays in the
  // gather of times that the silent rank never sends, while the others go on to the next case).
  const bool some_silent = static_cast<int>(answers.size()) < nranks;
  RankProgress furthest = unpack(answers[0].progress);
  RankProgress least = furthest;
  for (const auto& [member, answer] : answers) {
    furthest = std::max(furthest, unpack(answer.progress));
    least = std::min(least, unpack(answer.progress));
  }
  StallReport report{current_label(), deadline_s_.load(), stalled_s, describe(unpack(answers[0].progress)), {}, ""};
  std::string missing;
  std::string lost_elsewhere;
  for (int member = 0; member < nranks; ++member) {
    const std::string& host = rank_hosts_.at(static_cast<std::size_t>(member));
    // A rank that never joined the side channel is said to be so, in the message and the incident.
    const bool never_joined = member > 0 && !side_channel_.joined_at_start(member);
    RankStall stall{member, host, false, never_joined ? std::string(no_side_channel) : "", false, {}};
    if (const auto answer = answers.find(member); answer != answers.end()) {
      const RankProgress progress = unpack(answer->second.progress);
      stall = {member,
               host,
               true,
               describe(progress),
               some_silent || !(least < furthest && progress == least),
               answer->second.links_lost};
    }
    const std::string links = fmt::format("{}", fmt::join(stall.links_lost, ", "));
    if (!stall.arrived)
      missing += fmt::format("{}{} on {} ({}{})", missing.empty() ? "" : ", ", member, host,
                             stall.answered ? "still at " + stall.position
                             : never_joined ? no_side_channel
                                            : "no answer",
                             links.empty() ? "" : "; " + links + " went down during the run");
    else if (!links.empty())
      lost_elsewhere += fmt::format("{}{} on {} ({})", lost_elsewhere.empty() ? "" : ", ", member, host, links);
    report.ranks.push_back(std::move(stall));
  }
  report.message =
      fmt::format("timeout: {} made no progress for {:.1f} s (rank 0 at {}); {}{}", report.case_label, stalled_s,
                  report.coordinator_position,
                  missing.empty() ? "every rank arrived at the same step, so the transport did not complete it"
                                  : "ranks that did not arrive: " + missing,
                  lost_elsewhere.empty()
                      ? ""
                      : "; links that went down during the run on ranks that arrived: " + lost_elsewhere);
  return report;
}

}  // namespace fb
