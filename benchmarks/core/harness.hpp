#pragma once
// Timing loops shared by host-side backends. They record one duration per iteration so the core
// can report the distribution, and keep the per-iteration cost to one counter read and one store:
// at 8-byte shared-memory ping-pong (about 0.2 us a round trip) a 23 ns clock_gettime per
// iteration alone would inflate the latency by 10%.

#include <chrono>
#include <cstdint>
#include <span>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace fb {

// A monotonic tick counter: the invariant TSC on x86-64 (about 10 ns to read), the steady clock
// elsewhere or when the TSC is not invariant. Which one is decided once, when the program loads,
// so a read inside a timed loop is the counter read alone, not also a call and a guard check.
class TickClock {
 public:
  static std::uint64_t now() {
#if defined(__x86_64__)
    if (tsc_invariant) return __rdtsc();
#endif
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }

  // Calibrated once per process against the steady clock.
  static double seconds_per_tick();

 private:
  static bool tsc_is_invariant();
  static inline const bool tsc_invariant = tsc_is_invariant();
};

// For ops that synchronize themselves (ping-pong, windowed streaming with an acknowledgement):
// iterations run back to back and each lasts from the previous iteration's end to its own.
// Returns the seconds the whole loop took. The iterations tile it, so that over their count is
// the loop's mean, which is what osu_latency reports (two clock reads around its loop): on
// several ranks each rank's intervals are shifted against its peers' (a ping-pong's responder
// times from its send to its next send), so the mean of per-iteration maxima over ranks would
// exceed every rank's own loop mean, while the slowest rank's loop mean does not (#44).
template <class Iteration>
double time_back_to_back(std::span<double> seconds, Iteration&& iteration) {
  const auto first = TickClock::now();
  auto previous = first;
  for (double& duration : seconds) {
    iteration();
    const auto now = TickClock::now();
    duration = static_cast<double>(now - previous);
    previous = now;
  }
  const double seconds_per_tick = TickClock::seconds_per_tick();
  for (double& duration : seconds) duration *= seconds_per_tick;
  return static_cast<double>(previous - first) * seconds_per_tick;
}

// For collectives: every iteration starts from a common point (a barrier, outside the timed
// region), so a rank that arrives late is charged to the iteration, not hidden in the next one.
template <class Synchronize, class Iteration>
void time_synchronized(std::span<double> seconds, Synchronize&& synchronize, Iteration&& iteration) {
  for (double& duration : seconds) {
    synchronize();
    const auto start = TickClock::now();
    iteration();
    duration = static_cast<double>(TickClock::now() - start);
  }
  const double seconds_per_tick = TickClock::seconds_per_tick();
  for (double& duration : seconds) duration *= seconds_per_tick;
}

// -n auto, as Google Benchmark sizes its loops: the iterations of `iteration_seconds` each that
// last at least `min_time_s`, within [least, most].
int iterations_to_fill(double min_time_s, double iteration_seconds, int least, int most);

}  // namespace fb
