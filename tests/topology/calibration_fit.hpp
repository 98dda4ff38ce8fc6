#pragma once
// The calibration's fitting machinery, shared by the leave-one-source-out test and the interval
// calibration: the published points prepared as models, the ratio of a prediction to a point, and
// the least-squares fit of FittedConstants to a set of points.

#include "published_points.hpp"

#include "topology/nccl_tuning.hpp"
#include "topology/prediction_interval.hpp"
#include "topology/routing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace fb::topo::calibration {

struct Prepared {
  PublishedPoint point;
  std::string source;  // the publication: the source's first word (repository and file, or issue)
  CollectiveModel model;
  const NcclTuning* tuning = nullptr;
};

// One point as a model; `respec` rewrites its cluster first (the leave-one-transport-out runs).
inline Prepared prepare_point(const PublishedPoint& point, const std::function<void(ClusterSpec&)>& respec = {}) {
  ClusterSpec spec = point.cluster();
  if (respec) respec(spec);
  const Graph graph = build_cluster(spec);
  ModelOptions options;
  options.gpus_per_process = point.gpus_per_process;
  return Prepared{point, point.source.substr(0, point.source.find(' ')),
                  model_collectives(graph, place_ranks(graph, point.nodes, point.gpus_per_node), options),
                  nccl_tuning_for(parse_nccl_version(point.nccl_version)).tuning};
}

inline std::vector<Prepared> prepare() {
  std::vector<Prepared> out;
  for (PublishedPoint& point : published_points()) {
    // Acceptance floors are bounds, not measurements: nothing to fit or predict.
    if (point.metric == Metric::floor_busbw_gbps) continue;
    Prepared prepared = prepare_point(point);
    out.push_back(std::move(prepared));
  }
  return out;
}

inline double ratio(Prepared& p, const FittedConstants& constants) {
  p.model.constants = constants;
  const Prediction prediction = predict(p.model, op_by_name(p.point.op), p.point.bytes, p.point.forced, *p.tuning);
  const double predicted = p.point.metric == Metric::time_us ? prediction.time_us : prediction.busbw_gbps;
  return predicted / p.point.published;
}

// The constants one coordinate at a time: {member, lower, upper}.
struct Coordinate {
  double FittedConstants::*member;
  double lower;
  double upper;
};
constexpr std::array coordinates{Coordinate{&FittedConstants::launch_overhead_us, 0.0, 5.0},
                                 Coordinate{&FittedConstants::nvls_efficiency_hopper, 0.5, 1.0},
                                 Coordinate{&FittedConstants::nvls_efficiency_blackwell, 0.5, 1.0}};

inline double loss(std::vector<Prepared*>& training, const FittedConstants& constants) {
  double sum = 0;
  for (Prepared* p : training) sum += std::pow(std::log(ratio(*p, constants)), 2);
  return sum;
}

// Least squares by golden-section search per coordinate, a few rounds. A constant no training
// point depends on (Blackwell's NVLS when the only B200 source is left out) takes its
// neighbour generation's value: an unseen generation is predicted as the one before it.
inline FittedConstants fit(std::vector<Prepared*> training) {
  FittedConstants constants;
  std::array<bool, coordinates.size()> identified{};
  for (int round = 0; round < 4; ++round) {
    for (std::size_t c = 0; c < coordinates.size(); ++c) {
      const Coordinate& coordinate = coordinates[c];
      const auto at = [&](double value) {
        FittedConstants trial = constants;
        trial.*coordinate.member = value;
        return loss(training, trial);
      };
      identified[c] = at(coordinate.lower) != at(coordinate.upper);
      if (!identified[c]) continue;
      const double golden = (std::sqrt(5.0) - 1) / 2;
      double a = coordinate.lower;
      double b = coordinate.upper;
      for (int step = 0; step < 30; ++step) {
        const double x1 = b - golden * (b - a);
        const double x2 = a + golden * (b - a);
        if (at(x1) < at(x2)) {
          b = x2;
        } else {
          a = x1;
        }
      }
      constants.*coordinate.member = (a + b) / 2;
    }
  }
  if (!identified[2]) constants.nvls_efficiency_blackwell = constants.nvls_efficiency_hopper;
  if (!identified[1]) constants.nvls_efficiency_hopper = constants.nvls_efficiency_blackwell;
  return constants;
}

// The points a fit uses: those without a named unmodelled mechanism, but for those left out.
inline std::vector<Prepared*> fitted_points(std::vector<Prepared>& points,
                                            const std::function<bool(const Prepared&)>& left_out) {
  std::vector<Prepared*> out;
  for (Prepared& p : points) {
    if (!left_out(p) && p.point.known_miss.empty()) out.push_back(&p);
  }
  return out;
}

inline std::vector<Prepared*> fitted_points(std::vector<Prepared>& points, const std::string& left_out_source) {
  return fitted_points(points, [&](const Prepared& p) { return p.source == left_out_source; });
}

// The regime a point calibrates: large-message busbw (>= 128 MiB) or small-message time (<= 64
// KiB); none for the others.
inline std::optional<Regime> regime_of(const PublishedPoint& point) {
  if (point.metric == Metric::busbw_gbps && point.bytes >= 128 * MiB) return Regime::bandwidth;
  if (point.metric == Metric::time_us && point.bytes <= 64 * KiB) return Regime::latency;
  return std::nullopt;
}

// What a point is apart from its node count: points of one source that differ only there are one
// series, and their errors show how the model's error moves with scale.
inline std::string series_of(const Prepared& p) {
  const PublishedPoint& point = p.point;
  return fmt::format("{} {} {} B metric {} algo {} proto {} -g {} gpus/node {}", p.source, point.op, point.bytes,
                     static_cast<int>(point.metric), point.forced.algorithm ? name_of(*point.forced.algorithm) : "auto",
                     point.forced.protocol ? name_of(*point.forced.protocol) : "auto", point.gpus_per_process,
                     point.gpus_per_node);
}

// Every point predicted with the constants fitted on every other source.
inline std::vector<Residual> out_of_source_residuals(std::vector<Prepared>& points) {
  std::map<std::string, FittedConstants> fits;
  std::vector<Residual> out;
  for (Prepared& p : points) {
    const std::optional<Regime> regime = regime_of(p.point);
    if (!regime) continue;
    auto fitted = fits.find(p.source);
    if (fitted == fits.end()) fitted = fits.emplace(p.source, fit(fitted_points(points, p.source))).first;
    out.push_back(
        {p.source, p.model.transport, *regime, std::log(ratio(p, fitted->second)), p.model.ranks, series_of(p)});
  }
  return out;
}

// A transport as if it had no source: its ports driven by the figures a transport without a
// published point gets (RoCE verbs': assumed efficiency, no per-step or extra per-peer cost), and
// the constants fitted without any of its sources. Its points' errors are what a new transport's
// predictions can expect.
inline std::vector<Residual> out_of_transport_residuals(std::vector<Prepared>& points) {
  std::vector<Residual> out;
  std::set<Transport> transports;
  for (const Prepared& p : points) {
    if (p.model.transport) transports.insert(*p.model.transport);
  }
  const auto as_unseen = [](ClusterSpec& spec) {
    const auto unseen = [](const LinkSpec& port) {
      return *network_by_rate(LinkType::roce, port.capacity_gbps * 8000.0);
    };
    spec.node.nic_link = unseen(spec.node.nic_link);
    if (!spec.fabric.tiers.empty()) spec.fabric.switch_link = unseen(spec.fabric.switch_link);
  };
  for (const Transport transport : transports) {
    const FittedConstants constants =
        fit(fitted_points(points, [&](const Prepared& p) { return p.model.transport == transport; }));
    for (Prepared& p : points) {
      const std::optional<Regime> regime = regime_of(p.point);
      if (p.model.transport != transport || !regime) continue;
      Prepared unseen = prepare_point(p.point, as_unseen);
      out.push_back({p.source, transport, *regime, std::log(ratio(unseen, constants)), unseen.model.ranks, ""});
    }
  }
  return out;
}

}  // namespace fb::topo::calibration
