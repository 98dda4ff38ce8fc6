#pragma once
// Timing loops shared by host-side backends. They record one duration per iteration so the core
// can report the distribution, and keep the per-iteration cost to one clock read and one store.

#include <chrono>
#include <span>

namespace fb {

using BenchClock = std::chrono::steady_clock;

// For ops that synchronize themselves (ping-pong, windowed streaming with an acknowledgement):
// iterations run back to back and each lasts from the previous iteration's end to its own.
template <class Iteration>
void time_back_to_back(std::span<double> seconds, Iteration&& iteration) {
  auto previous = BenchClock::now();
  for (double& duration : seconds) {
    iteration();
    const auto now = BenchClock::now();
    duration = std::chrono::duration<double>(now - previous).count();
    previous = now;
  }
}

// For collectives: every iteration starts from a common point (a barrier, outside the timed
// region), so a rank that arrives late is charged to the iteration, not hidden in the next one.
template <class Synchronize, class Iteration>
void time_synchronized(std::span<double> seconds, Synchronize&& synchronize, Iteration&& iteration) {
  for (double& duration : seconds) {
    synchronize();
    const auto start = BenchClock::now();
    iteration();
    duration = std::chrono::duration<double>(BenchClock::now() - start).count();
  }
}

}  // namespace fb
