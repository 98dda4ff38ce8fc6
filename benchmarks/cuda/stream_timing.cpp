#include "benchmarks/cuda/stream_timing.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <thread>

namespace fb {

IterationTimer::IterationTimer(std::span<const CudaStream> streams, int iterations)
    : streams_(streams), iterations_(iterations) {
  const std::size_t events = streams.size() * static_cast<std::size_t>(iterations);
  starts_.reserve(events);
  stops_.reserve(events);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (const CudaStream& stream : streams) {
      starts_.emplace_back(stream.device());
      stops_.emplace_back(stream.device());
    }
  }
}

void IterationTimer::record_start(int iteration) {
  for (std::size_t s = 0; s < streams_.size(); ++s)
    FB_CUDA_CHECK(
        cudaEventRecord(starts_[static_cast<std::size_t>(iteration) * streams_.size() + s].get(), streams_[s].get()));
}

void IterationTimer::record_stop(int iteration) {
  for (std::size_t s = 0; s < streams_.size(); ++s)
    FB_CUDA_CHECK(
        cudaEventRecord(stops_[static_cast<std::size_t>(iteration) * streams_.size() + s].get(), streams_[s].get()));
}

std::vector<std::vector<double>> IterationTimer::seconds_by_stream() const {
  std::vector<std::vector<double>> seconds(streams_.size(), std::vector<double>(static_cast<std::size_t>(iterations_)));
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    for (std::size_t i = 0; i < seconds[s].size(); ++i) {
      float milliseconds = 0;
      const std::size_t e = i * streams_.size() + s;
      FB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, starts_[e].get(), stops_[e].get()));
      seconds[s][i] = static_cast<double>(milliseconds) * 1e-3;
    }
  }
  return seconds;
}

std::vector<double> IterationTimer::seconds() const {
  std::vector<double> slowest(static_cast<std::size_t>(iterations_), 0.0);
  for (const std::vector<double>& stream_seconds : seconds_by_stream())
    for (std::size_t i = 0; i < slowest.size(); ++i) slowest[i] = std::max(slowest[i], stream_seconds[i]);
  return slowest;
}

void wait_for_streams(std::span<const CudaStream> streams, std::chrono::steady_clock::duration deadline,
                      const std::function<void()>& poll, const std::function<void()>& on_timeout,
                      const std::function<std::string()>& describe_stall) {
  const auto give_up_at = std::chrono::steady_clock::now() + deadline;
  std::size_t next = 0;  // streams before it have completed
  while (true) {
    while (next < streams.size()) {
      const cudaError_t status = cudaStreamQuery(streams[next].get());
      if (status == cudaErrorNotReady) break;
      FB_CUDA_CHECK(status);
      ++next;
    }
    if (next == streams.size()) return;
    if (poll) poll();
    if (std::chrono::steady_clock::now() > give_up_at) {
      if (on_timeout) on_timeout();
      throw TimeoutError(describe_stall());
    }
    // Device times come from events, so how soon the host notices completion changes no result.
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace fb
