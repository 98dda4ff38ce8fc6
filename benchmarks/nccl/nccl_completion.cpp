#include "benchmarks/nccl/nccl_completion.hpp"

#include <chrono>
#include <thread>

namespace fb {

SettleOutcome settle_communicators(std::size_t count, PollPace pace, const CommunicatorPolling& polling) {
  for (std::size_t index = 0; index < count; ++index) {
    while (true) {
      const ncclResult_t state = polling.state(index);
      if (state == ncclSuccess) break;
      if (state != ncclInProgress) return {SettleOutcome::Kind::failed, index, state};
      if (polling.stop_requested && polling.stop_requested()) return {SettleOutcome::Kind::stopped, index, state};
      if (polling.past_deadline()) return {SettleOutcome::Kind::timed_out, index, state};
      if (pace == PollPace::spin)
        polling.yield();
      else
        polling.sleep();
    }
  }
  return {};
}

CommunicatorPolling with_real_pauses(CommunicatorPolling polling) {
  polling.yield = [] { std::this_thread::yield(); };
  polling.sleep = [] { std::this_thread::sleep_for(std::chrono::microseconds(50)); };
  return polling;
}

}  // namespace fb
