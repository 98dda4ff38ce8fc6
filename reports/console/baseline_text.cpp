#include "reports/console/baseline_text.hpp"

#include <fmt/format.h>

namespace fb {

void print_baseline(std::ostream& out, const diagnosis::BaselineVerdict& verdict, const std::string& description) {
  out << fmt::format("# baseline: {}\n", description);
  if (!verdict.measurements.empty())
    out << fmt::format("# {:<56} {:<13} {:>10} {:>10} {:>7} {:>5}  {}\n", "measurement", "verdict", "measured",
                       "baseline", "ratio", "runs", "bounds (x baseline)");
  for (const diagnosis::BaselineMeasurement& m : verdict.measurements)
    out << fmt::format("  {:<56} {:<13} {:>10.4g} {:>10.4g} {:>7.3f} {:>5}  {}\n", m.subject,
                       diagnosis::name_of(m.decision), m.measured, m.baseline_median, m.ratio, m.baseline_runs,
                       m.ratio_lower
                           ? fmt::format("{:.3f} .. {:.3f}; {}", *m.ratio_lower, *m.ratio_upper, m.spread_source)
                           : m.spread_source);
  out << fmt::format("# baseline verdict: {}\n", verdict.statement);
}

}  // namespace fb
