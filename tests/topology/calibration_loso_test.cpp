// Leave-one-source-out validation of the collective model. The choice layer's free constants
// (FittedConstants: launch overhead, NVLS efficiency per GPU generation) are fitted to the
// published points of every source but one, by least squares on the log of model/published, and
// the model then predicts the left-out source's points. A source is one publication (a
// repository's results file, an issue): its points share a machine and a method, so holding out
// one point at a time would leave its siblings in the fit.
//
// Asserted on points not used to fit (issue 28): large-message busbw (>= 128 MiB) within 1.10x and
// small-message time (<= 64 KiB) within 1.5x, geometric means; no point beyond 2x unless it names
// its unmodelled mechanism (known_miss). Each shipped FittedConstants value lies within 5% of the
// fit on every source and inside the range of the leave-one-source-out fits, so the constants in
// the code are what the published results give, not hand-set.

#include "calibration_fit.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fb::topo {
namespace {
using namespace calibration;  // the published points and their specs

TEST(CalibrationFit, TheShippedConstantsAreTheFitOnEverySource) {
  std::vector<Prepared> points = prepare();
  const FittedConstants all = fit(fitted_points(points, std::string()));
  std::set<std::string> sources;
  for (const Prepared& p : points) sources.insert(p.source);
  std::vector<FittedConstants> left_out;
  for (const std::string& source : sources) left_out.push_back(fit(fitted_points(points, source)));
  const FittedConstants shipped;
  for (const Coordinate& coordinate : coordinates) {
    const auto [low, high] =
        std::minmax_element(left_out.begin(), left_out.end(), [&](const FittedConstants& a, const FittedConstants& b) {
          return a.*coordinate.member < b.*coordinate.member;
        });
    const double value = shipped.*coordinate.member;
    fmt::print("fit on every source {:.3f}, leaving one out {:.3f}-{:.3f}, shipped {:.3f}\n", all.*coordinate.member,
               (*low).*coordinate.member, (*high).*coordinate.member, value);
    EXPECT_NEAR(value, all.*coordinate.member, 0.05 * all.*coordinate.member);
    // Shipped values are rounded to two or three digits: 5e-4 of slack at the range's ends.
    EXPECT_GE(value, (*low).*coordinate.member - 5e-4);
    EXPECT_LE(value, (*high).*coordinate.member + 5e-4);
  }
}

TEST(CalibrationFit, LeaveOneSourceOutPredictsTheSourceLeftOut) {
  std::vector<Prepared> points = prepare();
  std::map<std::string, int> sources;
  for (const Prepared& p : points) ++sources[p.source];
  double large_log_sum = 0;
  int large = 0;
  double small_log_sum = 0;
  int small = 0;
  fmt::print("| source left out | fitted: launch us, NVLS Hopper, Blackwell | point | model/published |\n");
  fmt::print("|---|---|---|---|\n");
  for (const auto& [source, count] : sources) {
    const FittedConstants constants = fit(fitted_points(points, source));
    for (Prepared& p : points) {
      if (p.source != source) continue;
      const double r = ratio(p, constants);
      fmt::print("| {} ({} points) | {:.2f}, {:.3f}, {:.3f} | {} {} {} | {:.3f}{} |\n", source, count,
                 constants.launch_overhead_us, constants.nvls_efficiency_hopper, constants.nvls_efficiency_blackwell,
                 p.point.configuration, p.point.op, size_text(p.point.bytes), r,
                 p.point.known_miss.empty() ? "" : " (known miss)");
      SCOPED_TRACE(p.point.configuration + " " + size_text(p.point.bytes) + " (" + p.point.source + ")");
      if (p.point.known_miss.empty()) { EXPECT_LT(std::abs(std::log(r)), std::log(2.0)); }
      if (p.point.metric == Metric::busbw_gbps && p.point.bytes >= 128 * MiB) {
        large_log_sum += std::abs(std::log(r));
        ++large;
      }
      if (p.point.metric == Metric::time_us && p.point.bytes <= 64 * KiB) {
        small_log_sum += std::abs(std::log(r));
        ++small;
      }
    }
  }
  const double large_error = std::exp(large_log_sum / large);
  const double small_error = std::exp(small_log_sum / small);
  fmt::print("\nheld out: large-message busbw {} points, geometric-mean error {:.3f}x; small-message time {} points, "
             "{:.3f}x\n",
             large, large_error, small, small_error);
  EXPECT_LT(large_error, 1.10);
  EXPECT_LT(small_error, 1.5);
}

}  // namespace
}  // namespace fb::topo
