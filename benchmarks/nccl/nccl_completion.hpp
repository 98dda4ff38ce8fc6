#pragma once
// Waiting for NCCL with a deadline, factored out of the backend so that it can be checked without
// a GPU (tests/gpu/nccl_completion_test.cpp): the poll of a communicator's state after
// ncclCommFinalize, and a guard that ends the process when a blocking call (creating the
// communicators, finalizing them) does not return in time.
//
// The communicators are blocking, as nccl-tests' are (nccl_backend.cpp says why), so no wait sits
// inside a case's timed window; a case's hangs are the streams' and the watchdog's business.

#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

namespace fb {

struct CommunicatorPolling {
  // ncclCommGetAsyncError of the process's communicator `index`.
  std::function<ncclResult_t(std::size_t index)> state;
  // True once the wait's deadline has passed.
  std::function<bool()> past_deadline;
  // Run between two polls that found work still in progress. Replaceable so a test can count.
  std::function<void()> sleep;
};

// How a wait ended.
struct SettleOutcome {
  enum class Kind { settled, failed, timed_out } kind = Kind::settled;
  std::size_t communicator = 0;      // failed, timed_out: the first communicator not settled
  ncclResult_t state = ncclSuccess;  // failed: its asynchronous error
};

// Polls communicators 0..count-1 until none answers ncclInProgress (after ncclCommFinalize: the
// communicator is globally quiescent, nccl.h), one failed or the deadline passed.
SettleOutcome settle_communicators(std::size_t count, const CommunicatorPolling& polling);

// The sleep a real wait uses between polls.
CommunicatorPolling with_real_pauses(CommunicatorPolling polling);

// Runs `on_expiry` on a thread of its own when it is still alive `deadline` after construction:
// the thread that constructed it is then inside a blocking NCCL call that may never return, and
// `on_expiry` must end the process (exit_on_timeout). Destroying it in time disarms it.
class DeadlineGuard {
 public:
  DeadlineGuard(std::chrono::steady_clock::duration deadline, std::function<void()> on_expiry);
  ~DeadlineGuard();
  DeadlineGuard(const DeadlineGuard&) = delete;
  DeadlineGuard& operator=(const DeadlineGuard&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable disarmed_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace fb
