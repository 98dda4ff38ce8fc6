#pragma once
// Waiting for non-blocking NCCL communicators to take up a call, factored out of the backend so
// that the loop can be checked with a fake communicator (tests/gpu/nccl_completion_test.cpp).
//
// Inside a case the wait sits in the timed window: a non-blocking communicator answers
// ncclInProgress after ncclGroupEnd until NCCL has launched the group, and every microsecond the
// host spends noticing the change delays the next enqueue and shows in the device-side timing
// whenever an operation is shorter than that. So a case's wait never sleeps: it polls again at
// once, yielding the core to NCCL's own threads between polls, as nccl-tests' wait for its streams
// does. Only communicator creation, which takes seconds and is not timed, sleeps between polls.

#include <nccl.h>

#include <cstddef>
#include <functional>
#include <optional>

namespace fb {

enum class PollPace {
  spin,   // poll again at once, yielding the core between polls: every wait inside a case
  sleep,  // sleep between polls: creating the communicators
};

// The pace of a wait: spin inside a case (warm-up, timed iterations, check), sleep outside one.
constexpr PollPace pace_of(bool inside_case) { return inside_case ? PollPace::spin : PollPace::sleep; }

struct CommunicatorPolling {
  // ncclCommGetAsyncError of the process's communicator `index`.
  std::function<ncclResult_t(std::size_t index)> state;
  // True once the wait's deadline has passed.
  std::function<bool()> past_deadline;
  // Run between two polls that found work still in progress: `yield` at PollPace::spin, `sleep`
  // at PollPace::sleep. Replaceable so a test can count them.
  std::function<void()> yield;
  std::function<void()> sleep;
  // Checked between polls: true when another thread asked the wait to stop (the watchdog).
  std::function<bool()> stop_requested;
};

// How a wait ended.
struct SettleOutcome {
  enum class Kind { settled, failed, timed_out, stopped } kind = Kind::settled;
  std::size_t communicator = 0;      // failed, timed_out: the first communicator not settled
  ncclResult_t state = ncclSuccess;  // failed: its asynchronous error
};

// Polls communicators 0..count-1 until none answers ncclInProgress, one failed, the deadline
// passed or a stop was requested.
SettleOutcome settle_communicators(std::size_t count, PollPace pace, const CommunicatorPolling& polling);

// The yield and sleep a real wait uses.
CommunicatorPolling with_real_pauses(CommunicatorPolling polling);

}  // namespace fb
