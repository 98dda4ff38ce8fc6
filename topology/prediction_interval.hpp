#pragma once
// How far off a prediction may be: an 80% prediction interval around every point prediction,
// from the calibration's own errors on published points it was not fitted to (docs/model.md,
// "Prediction intervals").
//
// The errors are log(model/published) of each published point predicted with the constants
// fitted on every other source (leave-one-source-out), grouped by what the prediction crosses
// (one node, or its network transport) and by regime: large-message busbw (bandwidth) and
// small-message time (latency). A transport with no source of its own takes the errors of
// transports predicted as if they had none (leave-one-transport-out: their own figures replaced
// by those a transport without a source gets). tests/topology/calibration_interval_test.cpp
// recomputes every summary from the published points and fails when the shipped table drifts.
//
// Beyond the largest scale (ranks) a group's points reach, the interval widens by how fast the
// held-out error of one source's series moved as its own scale doubled (scale_drift below).

#include "topology/network_transport.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fb::topo {

enum class Regime { bandwidth, latency };
constexpr std::size_t regime_count = 2;

// What a prediction's errors are grouped by: one node (no network: nullopt), or the software that
// drives the network. InfiniBand and RoCE are one group: both run NCCL's own verbs transport
// (src/transport/net_ib), whose tuner figures NCCL measured; the others are a group each.
constexpr std::size_t interval_group_count = 6;
std::size_t interval_group_of(std::optional<Transport> transport);
std::string_view interval_group_name(std::size_t group);  // "one node", "verbs (ib, roce)", "efa", ...

// One published point's error on a prediction not fitted to its own source.
struct Residual {
  std::string source;
  std::optional<Transport> transport;  // nullopt: one node
  Regime regime = Regime::bandwidth;
  double log_ratio = 0;  // log(model / published), time for latency, busbw for bandwidth
  // The prediction's scale: the ranks its collective steps over. The published series that span
  // scales keep 8 ranks a node, so ranks and nodes drift alike there; ranks also count a node of 72
  // GPUs, or a rack of them as one node of many, as the larger step count it is.
  int ranks = 0;
  // What the point is apart from its scale (source, op, size, forced choice...): points of one
  // series at different ranks measure how the error moves with scale. Empty: in no series.
  std::string series;
};

// A set of errors: how many points and publications, and their root mean square (bias counts).
struct ResidualSummary {
  int points = 0;
  int sources = 0;
  double rms_log = 0;
};

struct IntervalCalibration {
  // Leave-one-source-out errors per group and regime, and over all groups per regime.
  std::array<std::array<ResidualSummary, regime_count>, interval_group_count> groups{};
  std::array<ResidualSummary, regime_count> pooled{};
  // Leave-one-transport-out: transports predicted with the figures of a transport without a source.
  std::array<ResidualSummary, regime_count> unseen_transport{};
  // The largest scale (ranks) behind each group's and the unseen-transport errors: an interval is
  // calibrated up to there.
  std::array<std::array<int, regime_count>, interval_group_count> largest_ranks{};
  std::array<int, regime_count> unseen_largest_ranks{};
  // How the error moves per doubling of scale beyond what a fit has seen: within each series of one
  // source, (r - r0) / log2(ranks / ranks0) against its smallest scale, pooled as a root mean
  // square over both regimes (points: those drifts, sources: their publications).
  ResidualSummary scale_drift{};
};

ResidualSummary summarize(std::span<const Residual> residuals);
// Summaries from leave-one-source-out (`out_of_source`) and leave-one-transport-out errors.
IntervalCalibration calibrate_intervals(std::span<const Residual> out_of_source,
                                        std::span<const Residual> out_of_transport);

// The table the model ships: calibrate_intervals on the published points (the test checks it).
const IntervalCalibration& shipped_interval_calibration();

// Student's t 0.90 quantile (the two-sided 80% interval) for `degrees` degrees of freedom >= 1.
double t_quantile_80(int degrees);

// Never narrower than this half-width (a factor of 1.08 either side): the published points
// themselves are read to 2-3 digits and vary a few percent from run to run.
constexpr double interval_floor_log = 0.077;

// The 80% half-width one doubling of scale beyond a group's largest adds: t(m - 1) x the drifts'
// root mean square x sqrt(1 + 1/n), m the drifts, n their sources; 0 when no series spans scales.
double scale_half_width_per_doubling(const IntervalCalibration& calibration);

// The interval's half-width in log units for a prediction of this group and regime at `ranks`:
// t(m + 2) x s x sqrt(1 + 1/sources), with m the group's points, s their error spread shrunk
// towards the regime's pooled spread as if it were 3 more points (a group of few points leans on
// all of them), and the sources counting publications (a source's points share its machine and
// method, so its bias is one draw). A group with no point takes the errors of transports predicted
// as if they had none (sources: those transports), and never less than the widest group that has
// points of its own. At least the floor. Beyond the largest ranks L behind it, in quadrature with
// the scale term: sqrt(h^2 + (g x log2(ranks / L))^2), g the per-doubling figure above; at or
// below L (or ranks <= 0), h alone.
double interval_half_width_log(const IntervalCalibration& calibration, std::optional<Transport> transport,
                               Regime regime, int ranks);

// For a prediction whose time is `bandwidth_share` bytes / bandwidth (the rest latency and
// launch): the two regimes' half-widths weighted by that share.
double interval_half_width_log(const IntervalCalibration& calibration, std::optional<Transport> transport,
                               double bandwidth_share, int ranks);

}  // namespace fb::topo
