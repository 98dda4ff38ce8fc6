#pragma once
// Device-side timing of GPU work and waiting for it with a deadline. The host never blocks in a
// CUDA call that could hang: it polls, so a stuck collective or copy becomes a named timeout.

#include "benchmarks/cuda/device_memory.hpp"

#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace fb {

// Events around every iteration on every stream of the process (one stream per GPU it drives).
// An iteration's time is its longest stream: the process is done when its last GPU is.
class IterationTimer {
 public:
  IterationTimer(std::span<const CudaStream> streams, int iterations);

  void record_start(int iteration);
  void record_stop(int iteration);
  // Seconds per iteration; valid once the streams have completed the recorded work.
  std::vector<double> seconds() const;
  // Seconds per iteration of each stream, by stream.
  std::vector<std::vector<double>> seconds_by_stream() const;

 private:
  std::span<const CudaStream> streams_;
  int iterations_;
  std::vector<CudaEvent> starts_;  // iteration-major: [iteration * streams + stream]
  std::vector<CudaEvent> stops_;
};

// Returns when every stream has completed its work. Between checks runs `poll`, which may throw
// (the NCCL backend's asynchronous-error check). When `deadline` passes first, runs `on_timeout`
// (which aborts what can be aborted) and throws TimeoutError with `describe_stall()`.
void wait_for_streams(std::span<const CudaStream> streams, std::chrono::steady_clock::duration deadline,
                      const std::function<void()>& poll, const std::function<void()>& on_timeout,
                      const std::function<std::string()>& describe_stall);

}  // namespace fb
