#include "topology/prediction_interval.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace fb::topo {
namespace {

// Student's t, 0.90 quantile, 1-30 degrees of freedom (any statistics table).
constexpr std::array<double, 30> t_90{3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372,
                                      1.363, 1.356, 1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325,
                                      1.323, 1.321, 1.319, 1.318, 1.316, 1.315, 1.314, 1.313, 1.311, 1.310};

std::size_t index_of(Regime regime) { return static_cast<std::size_t>(regime); }

// A group's own errors weigh as many points as they are; the pooled spread of the regime weighs
// this many more, so a group of one or two points leans on every point of its regime.
constexpr double prior_points = 3;

// t(df) x s x sqrt(1 + 1/sources), s the errors' spread shrunk towards the prior's, df the points
// behind it: an interval for one more draw from a group whose bias is known from `sources` draws.
double half_width(const ResidualSummary& own, double prior_rms, int sources) {
  const double m = own.points;
  const double spread =
      std::sqrt((m * own.rms_log * own.rms_log + prior_points * prior_rms * prior_rms) / (m + prior_points));
  const int degrees = static_cast<int>(m + prior_points) - 1;
  return t_quantile_80(degrees) * spread * std::sqrt(1.0 + 1.0 / std::max(1, sources));
}

// Each series' points beyond its smallest scale, as drifts per doubling from that smallest point:
// (r - r0) / log2(ranks / ranks0). A series never spans groups: another transport is no scale.
std::vector<Residual> scale_drifts(std::span<const Residual> residuals) {
  std::map<std::pair<std::string, std::size_t>, std::vector<const Residual*>> series;
  for (const Residual& r : residuals) {
    if (!r.series.empty() && r.ranks > 0) series[{r.series, interval_group_of(r.transport)}].push_back(&r);
  }
  std::vector<Residual> drifts;
  for (const auto& [key, points] : series) {
    const Residual* smallest =
        *std::min_element(points.begin(), points.end(),
                          [](const Residual* a, const Residual* b) { return a->ranks < b->ranks; });
    for (const Residual* p : points) {
      if (p->ranks <= smallest->ranks) continue;
      const double doublings = std::log2(static_cast<double>(p->ranks) / smallest->ranks);
      drifts.push_back(
          {p->source, p->transport, p->regime, (p->log_ratio - smallest->log_ratio) / doublings, p->ranks, key.first});
    }
  }
  return drifts;
}

int largest_ranks(std::span<const Residual> residuals) {
  int largest = 0;
  for (const Residual& r : residuals) largest = std::max(largest, r.ranks);
  return largest;
}

// The group's half-width at its calibrated scales, and the largest ranks behind it.
std::pair<double, int> calibrated_half_width(const IntervalCalibration& calibration, std::size_t group, std::size_t r) {
  const double pooled_rms = calibration.pooled[r].rms_log;
  const auto of_group = [&](std::size_t g) {
    const ResidualSummary& own = calibration.groups[g][r];
    return half_width(own, pooled_rms, own.sources);
  };
  if (calibration.groups[group][r].points > 0) {
    return {std::max(of_group(group), interval_floor_log), calibration.largest_ranks[group][r]};
  }
  // No source: what transports predicted as if they had none missed by, and never less certain
  // than the least certain group that has sources of its own; calibrated up to the largest scale
  // of any of those errors.
  const ResidualSummary& unseen = calibration.unseen_transport[r];
  double h = half_width(unseen, pooled_rms, unseen.sources);
  int largest = calibration.unseen_largest_ranks[r];
  for (std::size_t g = 0; g < interval_group_count; ++g) {
    if (calibration.groups[g][r].points == 0) continue;
    h = std::max(h, of_group(g));
    largest = std::max(largest, calibration.largest_ranks[g][r]);
  }
  return {std::max(h, interval_floor_log), largest};
}

}  // namespace

std::size_t interval_group_of(std::optional<Transport> transport) {
  if (!transport) return 0;
  switch (*transport) {
    case Transport::ib_verbs:
    case Transport::roce_verbs: return 1;
    case Transport::efa_libfabric: return 2;
    case Transport::tcpx: return 3;
    case Transport::tcpxo: return 4;
    case Transport::sockets: return 5;
  }
  return 0;
}

std::string_view interval_group_name(std::size_t group) {
  constexpr std::array<std::string_view, interval_group_count> names{"one node", "verbs (ib, roce)", "efa", "tcpx",
                                                                     "tcpxo",    "sockets"};
  return names.at(group);
}

double t_quantile_80(int degrees) {
  if (degrees <= static_cast<int>(t_90.size())) return t_90[static_cast<std::size_t>(std::max(1, degrees)) - 1];
  // Cornish-Fisher: z + (z^3 + z) / (4 df), within 0.001 of the table from 30 on.
  constexpr double z = 1.2816;
  return z + (z * z * z + z) / (4.0 * degrees);
}

ResidualSummary summarize(std::span<const Residual> residuals) {
  ResidualSummary summary;
  std::set<std::string> sources;
  double squares = 0;
  for (const Residual& r : residuals) {
    squares += r.log_ratio * r.log_ratio;
    sources.insert(r.source);
  }
  summary.points = static_cast<int>(residuals.size());
  summary.sources = static_cast<int>(sources.size());
  summary.rms_log = residuals.empty() ? 0.0 : std::sqrt(squares / static_cast<double>(residuals.size()));
  return summary;
}

IntervalCalibration calibrate_intervals(std::span<const Residual> out_of_source,
                                        std::span<const Residual> out_of_transport) {
  IntervalCalibration calibration;
  for (std::size_t r = 0; r < regime_count; ++r) {
    const auto in_regime = [&](const Residual& residual) { return index_of(residual.regime) == r; };
    std::vector<Residual> pooled;
    std::copy_if(out_of_source.begin(), out_of_source.end(), std::back_inserter(pooled), in_regime);
    calibration.pooled[r] = summarize(pooled);
    std::vector<Residual> unseen;
    std::copy_if(out_of_transport.begin(), out_of_transport.end(), std::back_inserter(unseen), in_regime);
    calibration.unseen_transport[r] = summarize(unseen);
    // The transports left out count as the unseen errors' sources: each is one draw of a new transport.
    std::set<std::size_t> transports;
    for (const Residual& residual : unseen) transports.insert(interval_group_of(residual.transport));
    calibration.unseen_transport[r].sources = static_cast<int>(transports.size());
    calibration.unseen_largest_ranks[r] = largest_ranks(unseen);
    for (std::size_t g = 0; g < interval_group_count; ++g) {
      std::vector<Residual> group;
      std::copy_if(pooled.begin(), pooled.end(), std::back_inserter(group),
                   [&](const Residual& residual) { return interval_group_of(residual.transport) == g; });
      calibration.groups[g][r] = summarize(group);
      calibration.largest_ranks[g][r] = largest_ranks(group);
    }
  }
  calibration.scale_drift = summarize(scale_drifts(out_of_source));
  return calibration;
}

double scale_half_width_per_doubling(const IntervalCalibration& calibration) {
  const ResidualSummary& drift = calibration.scale_drift;
  if (drift.points == 0) return 0.0;
  // A group's half-width without the pooled prior (no other drift to pool with): the series of
  // one source share its machine and method, so their drift is known from `sources` draws.
  return t_quantile_80(drift.points - 1) * drift.rms_log * std::sqrt(1.0 + 1.0 / std::max(1, drift.sources));
}

double interval_half_width_log(const IntervalCalibration& calibration, std::optional<Transport> transport,
                               Regime regime, int ranks) {
  const auto [h, largest] = calibrated_half_width(calibration, interval_group_of(transport), index_of(regime));
  if (ranks <= largest || largest <= 0) return h;
  const double beyond = scale_half_width_per_doubling(calibration) * std::log2(static_cast<double>(ranks) / largest);
  return std::sqrt(h * h + beyond * beyond);
}

double interval_half_width_log(const IntervalCalibration& calibration, std::optional<Transport> transport,
                               double bandwidth_share, int ranks) {
  const double share = std::clamp(bandwidth_share, 0.0, 1.0);
  return share * interval_half_width_log(calibration, transport, Regime::bandwidth, ranks) +
         (1 - share) * interval_half_width_log(calibration, transport, Regime::latency, ranks);
}

}  // namespace fb::topo

namespace fb::topo {

// calibrate_intervals on the published points (tests/topology/calibration_interval_test.cpp
// prints this table from them and fails when it drifts): {points, sources, rms log error} per
// group, pooled and unseen; the largest ranks behind each; the drift per doubling of scale.
const IntervalCalibration& shipped_interval_calibration() {
  static const IntervalCalibration calibration{
      {{{{{20, 9, 0.0579}, {10, 3, 0.2666}}},
        {{{3, 3, 0.0903}, {1, 1, 0.3112}}},
        {{{15, 1, 0.1325}, {0, 0, 0.0000}}},
        {{{0, 0, 0.0000}, {0, 0, 0.0000}}},
        {{{1, 1, 0.0050}, {2, 1, 0.1434}}},
        {{{0, 0, 0.0000}, {0, 0, 0.0000}}}}},
      {{{39, 13, 0.0954}, {13, 5, 0.2555}}},
      {{{19, 3, 0.1585}, {3, 2, 1.1196}}},
      {{{{72, 8}}, {{24, 16}}, {{256, 0}}, {{0, 0}}, {{16, 16}}, {{0, 0}}}},
      {{256, 16}},
      {12, 1, 0.0422},
  };
  return calibration;
}

}  // namespace fb::topo
