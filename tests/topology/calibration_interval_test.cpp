// The 80% prediction intervals against the calibration's own errors (topology/prediction_interval.hpp).
//
// Every published point is predicted with the constants fitted on the other sources (leave one
// source out), and every network transport with a source is predicted once more as if it had
// none (leave one transport out): its ports given the figures of a transport without a published
// point, the constants fitted without its sources. The shipped table must be what those errors
// give; an interval must hold its point prediction and the link's bound; removing a transport's
// sources must widen its intervals; and each source's points, judged by intervals calibrated
// without that source, must fall inside 70% of the time or more. docs/model.md carries the output.

#include "calibration_fit.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace fb::topo {
namespace {
using namespace calibration;  // the published points and the fit

std::string group_name(std::size_t group) { return std::string(interval_group_name(group)); }

// A transport of the group, to ask for its interval.
std::optional<Transport> transport_of_group(std::size_t group) {
  for (const TransportFigures& figures : network_transports()) {
    if (interval_group_of(figures.transport) == group) return figures.transport;
  }
  return std::nullopt;
}

std::string regime_name(std::size_t regime) { return regime == 0 ? "bandwidth" : "latency"; }

struct Errors {
  std::vector<Residual> out_of_source;
  std::vector<Residual> out_of_transport;
};

const Errors& errors() {
  static const Errors computed = [] {
    std::vector<Prepared> points = prepare();
    Errors e;
    e.out_of_source = out_of_source_residuals(points);
    e.out_of_transport = out_of_transport_residuals(points);
    return e;
  }();
  return computed;
}

void expect_same(const ResidualSummary& shipped, const ResidualSummary& computed, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(shipped.points, computed.points);
  EXPECT_EQ(shipped.sources, computed.sources);
  EXPECT_NEAR(shipped.rms_log, computed.rms_log, 0.0015);
}

std::string initializer(const ResidualSummary& s) {
  return fmt::format("{{{}, {}, {:.4f}}}", s.points, s.sources, s.rms_log);
}

TEST(CalibrationInterval, TheShippedTableIsTheCalibrationsOwnErrors) {
  const IntervalCalibration computed = calibrate_intervals(errors().out_of_source, errors().out_of_transport);
  const IntervalCalibration& shipped = shipped_interval_calibration();
  fmt::print("| group | regime | points | sources | rms log error | 80% half-width | interval (high / low) |\n");
  fmt::print("|---|---|---|---|---|---|---|\n");
  for (std::size_t g = 0; g < interval_group_count; ++g) {
    const std::optional<Transport> transport = transport_of_group(g);
    for (std::size_t r = 0; r < regime_count; ++r) {
      const ResidualSummary& s = computed.groups[g][r];
      const double h = interval_half_width_log(computed, transport, static_cast<Regime>(r));
      fmt::print("| {} | {} | {} | {} | {:.3f} | x/ {:.3f} | {:.2f}x |\n", group_name(g), regime_name(r), s.points,
                 s.sources, s.rms_log, std::exp(h), std::exp(2 * h));
      expect_same(shipped.groups[g][r], s, group_name(g) + " " + regime_name(r));
    }
  }
  for (std::size_t r = 0; r < regime_count; ++r) {
    fmt::print("pooled {}: {} points, {} sources, rms {:.3f}; unseen transport: {} points, {} transports, rms {:.3f}\n",
               regime_name(r), computed.pooled[r].points, computed.pooled[r].sources, computed.pooled[r].rms_log,
               computed.unseen_transport[r].points, computed.unseen_transport[r].sources,
               computed.unseen_transport[r].rms_log);
    expect_same(shipped.pooled[r], computed.pooled[r], "pooled " + regime_name(r));
    expect_same(shipped.unseen_transport[r], computed.unseen_transport[r], "unseen " + regime_name(r));
  }
  // What prediction_interval.cpp ships, to paste when the model changes.
  std::string groups;
  for (std::size_t g = 0; g < interval_group_count; ++g) {
    groups += fmt::format("{{{{{}, {}}}}}, ", initializer(computed.groups[g][0]), initializer(computed.groups[g][1]));
  }
  fmt::print("groups {{{{{}}}}}\npooled {{{{{}, {}}}}}\nunseen {{{{{}, {}}}}}\n", groups,
             initializer(computed.pooled[0]), initializer(computed.pooled[1]),
             initializer(computed.unseen_transport[0]), initializer(computed.unseen_transport[1]));
}

// The geometric-mean error of a set of residuals, as a factor.
double geomean_error(const std::vector<Residual>& residuals, Regime regime) {
  double sum = 0;
  int count = 0;
  for (const Residual& r : residuals) {
    if (r.regime != regime) continue;
    sum += std::abs(r.log_ratio);
    ++count;
  }
  return count == 0 ? 1.0 : std::exp(sum / count);
}

TEST(CalibrationInterval, LeaveOneTransportOutIsWhatANewTransportCanExpect) {
  fmt::print("| transport predicted as unseen | point | model/published |\n|---|---|---|\n");
  for (const Residual& r : errors().out_of_transport) {
    fmt::print("| {} | {} {} | {:.3f} |\n", group_name(interval_group_of(r.transport)), r.source,
               regime_name(static_cast<std::size_t>(r.regime)), std::exp(r.log_ratio));
  }
  const double loso_bandwidth = geomean_error(errors().out_of_source, Regime::bandwidth);
  const double loso_latency = geomean_error(errors().out_of_source, Regime::latency);
  const double loto_bandwidth = geomean_error(errors().out_of_transport, Regime::bandwidth);
  const double loto_latency = geomean_error(errors().out_of_transport, Regime::latency);
  fmt::print("leave one source out: busbw {:.3f}x, small-message time {:.3f}x; leave one transport out: busbw "
             "{:.3f}x, small-message time {:.3f}x\n",
             loso_bandwidth, loso_latency, loto_bandwidth, loto_latency);
  // docs/model.md states these; a model change that moves them past the bounds must say so there.
  EXPECT_LT(loso_bandwidth, 1.10);
  EXPECT_LT(loso_latency, 1.5);
  EXPECT_LT(loto_bandwidth, 1.25);
  EXPECT_LT(loto_latency, 3.0);
}

// Errors without the sources of the transport's group: the calibration it would have had.
Errors without(Transport transport) {
  const std::size_t group = interval_group_of(transport);
  Errors e;
  for (const Residual& r : errors().out_of_source) {
    if (interval_group_of(r.transport) != group) e.out_of_source.push_back(r);
  }
  for (const Residual& r : errors().out_of_transport) {
    if (interval_group_of(r.transport) != group) e.out_of_transport.push_back(r);
  }
  return e;
}

// InfiniBand's and TCPXO's sources narrow their intervals: without them each falls back to what
// transports predicted as if they had no source missed by. EFA's own points are off by more than
// any other transport's (p5's 1 GiB all_reduce from 4 nodes on, a per-call cost the model lacks),
// so its source widens its interval: dropping it would hide that, and the test says so.
TEST(CalibrationInterval, IntervalsWidenWhenATransportsSourcesAreRemoved) {
  const IntervalCalibration all = calibrate_intervals(errors().out_of_source, errors().out_of_transport);
  const auto widths = [&](Transport transport, Regime regime) {
    const Errors fewer = without(transport);
    const IntervalCalibration removed = calibrate_intervals(fewer.out_of_source, fewer.out_of_transport);
    const double with_sources = interval_half_width_log(all, transport, regime);
    const double without_sources = interval_half_width_log(removed, transport, regime);
    fmt::print("{} {}: x/ {:.3f} with its {} points, x/ {:.3f} without\n", figures_of(transport).key,
               regime_name(static_cast<std::size_t>(regime)), std::exp(with_sources),
               all.groups[interval_group_of(transport)][static_cast<std::size_t>(regime)].points,
               std::exp(without_sources));
    return std::pair{with_sources, without_sources};
  };
  for (const Transport transport : {Transport::ib_verbs, Transport::tcpxo}) {
    for (const Regime regime : {Regime::bandwidth, Regime::latency}) {
      const auto [with_sources, without_sources] = widths(transport, regime);
      SCOPED_TRACE(fmt::format("{} {}", figures_of(transport).key, regime_name(static_cast<std::size_t>(regime))));
      EXPECT_GT(without_sources, with_sources * 1.05);
    }
  }
  // RoCE has no source of its own but shares InfiniBand's software (verbs): removing InfiniBand's
  // sources widens RoCE's interval too.
  const Errors no_verbs = without(Transport::ib_verbs);
  EXPECT_GT(interval_half_width_log(calibrate_intervals(no_verbs.out_of_source, no_verbs.out_of_transport),
                                    Transport::roce_verbs, Regime::bandwidth),
            interval_half_width_log(all, Transport::roce_verbs, Regime::bandwidth));
  const auto [efa_with, efa_without] = widths(Transport::efa_libfabric, Regime::bandwidth);
  EXPECT_GT(efa_with, efa_without);
}

TEST(CalibrationInterval, EachSourceJudgedByIntervalsCalibratedWithoutIt) {
  std::set<std::string> sources;
  for (const Residual& r : errors().out_of_source) sources.insert(r.source);
  int inside = 0;
  int total = 0;
  std::vector<double> widths;
  for (const std::string& source : sources) {
    Errors rest;
    for (const Residual& r : errors().out_of_source) {
      if (r.source != source) rest.out_of_source.push_back(r);
    }
    for (const Residual& r : errors().out_of_transport) {
      if (r.source != source) rest.out_of_transport.push_back(r);
    }
    const IntervalCalibration calibration = calibrate_intervals(rest.out_of_source, rest.out_of_transport);
    for (const Residual& r : errors().out_of_source) {
      if (r.source != source) continue;
      const double h = interval_half_width_log(calibration, r.transport, r.regime);
      inside += std::abs(r.log_ratio) <= h ? 1 : 0;
      ++total;
      widths.push_back(std::exp(2 * h));
    }
  }
  std::sort(widths.begin(), widths.end());
  const double coverage = static_cast<double>(inside) / total;
  const double median_width = widths[widths.size() / 2];
  fmt::print("held-out coverage: {} of {} points ({:.0f}%) inside their 80% interval; median width {:.2f}x\n", inside,
             total, 100 * coverage, median_width);
  EXPECT_GE(coverage, 0.70);
  EXPECT_LT(median_width, 1.6);
}

// Every candidate of every op on the published points' clusters, at sizes from 8 B to 8 GiB.
TEST(PredictionInterval, HoldsThePointPredictionAndNeverPassesTheBound) {
  std::vector<Prepared> points = prepare();
  for (Prepared& p : points) {
    for (const OpTraits& op : all_ops()) {
      if (op.modelled_as == ModelledCollective::none) continue;
      for (std::uint64_t bytes = 8 * 1024; bytes <= 8 * GiB; bytes *= 64) {
        for (const Prediction& c : candidates(p.model, op, bytes, *p.tuning)) {
          SCOPED_TRACE(fmt::format("{} {} {} B {}/{}", p.point.configuration, op.name, bytes, name_of(c.algorithm),
                                   name_of(c.protocol)));
          EXPECT_LE(c.time_low_us, c.time_us);
          EXPECT_GE(c.time_high_us, c.time_us);
          EXPECT_LE(c.busbw_low_gbps, c.busbw_gbps);
          EXPECT_GE(c.busbw_high_gbps, c.busbw_gbps);
          EXPECT_LE(c.busbw_high_gbps, std::max(c.bound_gbps, c.busbw_gbps) * (1 + 1e-9));
          // Never narrower than the floor on its slow side.
          EXPECT_GE(c.time_high_us / c.time_us, std::exp(interval_floor_log) * (1 - 1e-9));
        }
      }
    }
  }
}

}  // namespace
}  // namespace fb::topo
