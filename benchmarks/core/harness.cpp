#include "benchmarks/core/harness.hpp"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace fb {

bool TickClock::tsc_is_invariant() {
#if defined(__x86_64__)
  // CPUID 0x80000007, EDX bit 8: the TSC ticks at a constant rate across P-, C- and T-states.
  static const bool invariant = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8)) != 0;
  }();
  return invariant;
#else
  return false;
#endif
}

double TickClock::seconds_per_tick() {
  static const double calibrated = [] {
    using Steady = std::chrono::steady_clock;
    if (!tsc_is_invariant()) return std::chrono::duration<double>(Steady::duration(1)).count();
    // 20 ms bounds the calibration error to about 1e-6 with a nanosecond steady clock.
    constexpr auto calibration_time = std::chrono::milliseconds(20);
    const auto steady_start = Steady::now();
    const auto ticks_start = now();
    Steady::time_point steady_end;
    do steady_end = Steady::now();
    while (steady_end - steady_start < calibration_time);
    const auto ticks_end = now();
    return std::chrono::duration<double>(steady_end - steady_start).count() /
           static_cast<double>(ticks_end - ticks_start);
  }();
  return calibrated;
}

int iterations_to_fill(double min_time_s, double iteration_seconds, int least, int most) {
  // An iteration too fast for the clock to see counts as a nanosecond, not as a division by zero.
  const double wanted = std::ceil(min_time_s / std::max(iteration_seconds, 1e-9));
  return static_cast<int>(std::clamp(wanted, static_cast<double>(least), static_cast<double>(most)));
}

}  // namespace fb
