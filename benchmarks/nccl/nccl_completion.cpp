#include "benchmarks/nccl/nccl_completion.hpp"

#include <utility>

namespace fb {

SettleOutcome settle_communicators(std::size_t count, const CommunicatorPolling& polling) {
  for (std::size_t index = 0; index < count; ++index) {
    while (true) {
      const ncclResult_t state = polling.state(index);
      if (state == ncclSuccess) break;
      if (state != ncclInProgress) return {SettleOutcome::Kind::failed, index, state};
      if (polling.past_deadline()) return {SettleOutcome::Kind::timed_out, index, state};
      polling.sleep();
    }
  }
  return {};
}

CommunicatorPolling with_real_pauses(CommunicatorPolling polling) {
  polling.sleep = [] { std::this_thread::sleep_for(std::chrono::microseconds(50)); };
  return polling;
}

DeadlineGuard::DeadlineGuard(std::chrono::steady_clock::duration deadline, std::function<void()> on_expiry) {
  const auto give_up_at = std::chrono::steady_clock::now() + deadline;
  thread_ = std::thread([this, give_up_at, on_expiry = std::move(on_expiry)] {
    std::unique_lock lock(mutex_);
    if (!disarmed_.wait_until(lock, give_up_at, [this] { return done_; })) on_expiry();
  });
}

DeadlineGuard::~DeadlineGuard() {
  {
    const std::lock_guard lock(mutex_);
    done_ = true;
  }
  disarmed_.notify_one();
  thread_.join();
}

}  // namespace fb
