// The collective model against published results. Every row is one public measurement with its
// source; the test prints the model's ratio for each (docs/model.md carries the table) and fails
// when a ratio leaves its bound, so a model change that breaks calibration does not pass.
//
// Bounds (issue 13): large-message bus bandwidth (>= 128 MiB) within 10% geometric-mean error and
// no point off by more than 25%; 8 B to 64 KiB times within 1.5x each; point-to-point link rates
// within 5%; vendor acceptance floors at or below the prediction. A point the model's mechanisms do
// not explain says why (known_miss) and is held to a looser bound (1.6x), so it still cannot drift.

#include "published_points.hpp"

#include "common/errors.hpp"
#include "topology/cluster_spec.hpp"
#include "topology/collective_model.hpp"
#include "topology/nccl_tuning.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {
namespace {
using namespace calibration;  // the published points and their specs

TEST(Calibration, PublishedCollectiveResults) {
  double log_error_sum = 0;
  int large_points = 0;
  fmt::print(
      "| configuration | op, size | published | model | model/published | algorithm | NCCL (figures) | source |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  for (const PublishedPoint& point : published_points()) {
    const Graph graph = build_cluster(point.cluster());
    ModelOptions options;
    options.gpus_per_process = point.gpus_per_process;
    const CollectiveModel model =
        model_collectives(graph, place_ranks(graph, point.nodes, point.gpus_per_node), options);
    const NcclTuningChoice tuning = nccl_tuning_for(parse_nccl_version(point.nccl_version));
    const Prediction prediction = predict(model, op_by_name(point.op), point.bytes, point.forced, *tuning.tuning);
    const bool is_time = point.metric == Metric::time_us;
    const double predicted = is_time ? prediction.time_us : prediction.busbw_gbps;
    const double ratio = predicted / point.published;
    const std::string unit = is_time ? "us" : "GB/s";
    fmt::print("| {} | {} {} {} | {}{:.2f} {} | {:.2f} {} | {:.3f}{} | {} {} | {} | {} |\n", point.configuration,
               point.op, size_text(point.bytes), is_time ? "time" : "busbw",
               point.metric == Metric::floor_busbw_gbps ? ">= " : "", point.published, unit, predicted, unit, ratio,
               point.known_miss.empty() ? "" : " (known miss: " + point.known_miss + ")", name_of(prediction.algorithm),
               name_of(prediction.protocol),
               point.nccl_version.empty() ? fmt::format("not stated ({})", tuning.tuning->range)
                                          : fmt::format("{} ({})", point.nccl_version, tuning.tuning->range),
               point.source);
    SCOPED_TRACE(point.configuration + " " + size_text(point.bytes) + " (" + point.source + ")");
    const double miss_bound = 1.6;
    switch (point.metric) {
      case Metric::busbw_gbps:
        EXPECT_GT(ratio, point.known_miss.empty() ? 0.75 : 1 / miss_bound);
        EXPECT_LT(ratio, point.known_miss.empty() ? 1.25 : miss_bound);
        if (point.bytes >= 128 * MiB) {
          log_error_sum += std::abs(std::log(ratio));
          ++large_points;
        }
        break;
      case Metric::time_us:
        EXPECT_GT(ratio, point.known_miss.empty() ? 1 / 1.5 : 1 / (1.5 * miss_bound));
        EXPECT_LT(ratio, point.known_miss.empty() ? 1.5 : 1.5 * miss_bound);
        break;
      case Metric::floor_busbw_gbps: EXPECT_GE(predicted, point.published); break;
    }
  }
  const double geometric_mean_error = std::exp(log_error_sum / large_points) - 1;
  fmt::print("\nlarge-message busbw: {} points, geometric-mean error {:.1f}%\n", large_points,
             100 * geometric_mean_error);
  EXPECT_LT(geometric_mean_error, 0.10);
}

// The two small-message points the releases were read for, predicted with every release's figures.
const NcclTuning& release(std::string_view version) { return *nccl_tuning_for(parse_nccl_version(version)).tuning; }

TEST(NcclReleases, DgxA100RunsRingLLAt8BytesWithEveryReleasesFigures) {
  const Graph graph = build_cluster(a100_node(1, 8));
  const CollectiveModel model = model_collectives(graph, place_ranks(graph, 1, 0));
  const OpTraits& all_reduce = op_by_name("all_reduce");
  for (const NcclTuning& tuning : nccl_tunings()) {
    SCOPED_TRACE(std::string(tuning.range));
    const Prediction chosen = predict(model, all_reduce, 8, {}, tuning);
    EXPECT_EQ(chosen.algorithm, Algorithm::ring);
    EXPECT_EQ(chosen.protocol, Protocol::ll);
    EXPECT_EQ(predict(model, all_reduce, 8, {Algorithm::ring, std::nullopt}, tuning).protocol, Protocol::ll);
  }
  // 14 ring steps after a base latency, and 1.422 us to launch: published (nccl-tests#123, -t 8)
  // LL 21, LL128 32, Simple 84 us. Before 2.18: base 3.6 / 10 / 8.4 us, NVLink hops .47 / 1.9 / 3.4.
  const auto time = [&](std::string_view version, Protocol protocol) {
    return predict(model, all_reduce, 8, {Algorithm::ring, protocol}, release(version)).time_us;
  };
  EXPECT_NEAR(time("2.16", Protocol::ll), 11.60, 0.01);
  EXPECT_NEAR(time("2.16", Protocol::ll128), 38.02, 0.01);
  EXPECT_NEAR(time("2.16", Protocol::simple), 57.42, 0.01);
  // From 2.18: base 6.6 / 14 / 8.4 us, NVLink hops .6 / 1.9 / 3.4.
  EXPECT_NEAR(time("2.18", Protocol::ll), 16.42, 0.01);
  EXPECT_NEAR(time("2.18", Protocol::ll128), 42.02, 0.01);
  EXPECT_NEAR(time("2.30", Protocol::ll), 16.42, 0.01);
}

TEST(Calibration, OneThreadDrivingEightGpusAddsSevenLaunches) {
  const Graph graph = build_cluster(a100_node(1, 8));
  const std::vector<VertexId> ranks = place_ranks(graph, 1, 0);
  ModelOptions one_thread_for_all;
  one_thread_for_all.gpus_per_process = 8;
  const CollectiveModel per_gpu = model_collectives(graph, ranks);
  const CollectiveModel per_node = model_collectives(graph, ranks, one_thread_for_all);
  EXPECT_DOUBLE_EQ(serial_launch_us(per_gpu), 0.0);
  EXPECT_DOUBLE_EQ(serial_launch_us(per_node), 7 * 1.422);
  // nccl-tests#123 on DGX A100 at 8 B: ring LL 21 us with -t 8, 33.7 us with -g 8.
  const Forced ring{Algorithm::ring, std::nullopt};
  const Prediction one = predict(per_gpu, op_by_name("all_reduce"), 8, ring);
  const Prediction eight = predict(per_node, op_by_name("all_reduce"), 8, ring);
  EXPECT_NEAR(one.time_us, 16.42, 0.01);
  EXPECT_NEAR(eight.time_us, 26.38, 0.01);
  EXPECT_EQ(eight.protocol, Protocol::ll);
  // Grouped sends launch per GPU too.
  const OpTraits& alltoall = op_by_name("alltoall");
  EXPECT_NEAR(predict(per_node, alltoall, 8).time_us - predict(per_gpu, alltoall, 8).time_us, 7 * 1.422, 1e-9);
  ModelOptions three;
  three.gpus_per_process = 3;
  EXPECT_THROW(model_collectives(graph, ranks, three), InputError);
  three.gpus_per_process = 0;
  EXPECT_THROW(model_collectives(graph, ranks, three), InputError);
}

TEST(NcclReleases, NvlsTreeAt8BytesOnTwoH100NodesFollowsEachReleasesFormula) {
  const Graph graph = build_cluster(h100_node(2));
  const CollectiveModel model = model_collectives(graph, place_ranks(graph, 2, 0));
  const OpTraits& all_reduce = op_by_name("all_reduce");
  const Forced nvls_tree{Algorithm::nvls_tree, std::nullopt};
  const auto time = [&](std::string_view version) {
    return predict(model, all_reduce, 8, nvls_tree, release(version)).time_us;
  };
  // Two network crossings (up and down the tree), each NCCL's figure plus the fabric's own 2.6 us
  // twice (Simple flushes).
  EXPECT_NEAR(model.net_latency_us, 2.6, 0.01);
  // 2.18: a 23 us base, 2(N-1) crossings of 19 us; 2.19-2.20: a 23 us NVLink hop, 2 log2(N) of 14.
  EXPECT_NEAR(time("2.18.5"), 1.422 + 23 + 2 * (19 + 5.2), 0.01);
  EXPECT_NEAR(time("2.20.3"), 1.422 + 23 + 2 * (14 + 5.2), 0.01);
  // 2.21: the NVLink hop 25 us (nccl#1244 ran 2.21.5 and measured 47.5 us); 2.28.9: crossings 20.9 us.
  EXPECT_NEAR(time("2.21.5"), 64.82, 0.01);
  EXPECT_NEAR(time("2.28.7"), 64.82, 0.01);
  EXPECT_NEAR(time("2.28.9"), 78.62, 0.01);
  EXPECT_NEAR(time("2.30"), 78.62, 0.01);
  // No NVLS-tree before 2.18, no NVLS at all before 2.17.
  EXPECT_THROW(time("2.17"), InputError);
  const Graph one_node = build_cluster(h100_node(1));
  const CollectiveModel node = model_collectives(one_node, place_ranks(one_node, 1, 0));
  EXPECT_THROW(predict(node, all_reduce, 8, {Algorithm::nvls, std::nullopt}, release("2.16")), InputError);
  // 2.17's NVLS inside a node: a 40 us base latency.
  EXPECT_NEAR(predict(node, all_reduce, 8, {Algorithm::nvls, std::nullopt}, release("2.17")).time_us, 41.42, 0.01);
}

// NVLS all_reduce in one NVLink domain fills a pipeline of three stages, one loop of nChannels x
// nHeads chunks each, before it runs at its rate (collective_model.cpp, from NCCL's
// src/device/all_reduce.h and calcCollChunking in src/enqueue.cc): two loops more than the bytes.
// It has no figure of its own; the sweeps below its peaks are calibration points
// (published_points.hpp) that test the curve's shape. One GB200 NVL72 rack (72 GPUs: 32 heads, so
// a loop is 24 x 32 x 64 KiB = 48 MiB from 384 MiB to 6 GiB) and 8 H100 (16 x 8 x 128 KiB = 16 MiB
// from 1 GiB). Without the fill the model gave the rack 1.398x, 1.215x, 1.098x, 0.994x and 1.001x
// from 512 MiB to 8 GiB, and 8 H100 0.992 for 1 GiB / 8 GiB.
TEST(Calibration, NvlsPipelineFillShapesTheSweepBelowItsPeak) {
  const auto predicted_busbw = [](const PublishedPoint& point) {
    const Graph graph = build_cluster(point.cluster());
    ModelOptions options;
    options.gpus_per_process = point.gpus_per_process;
    const CollectiveModel model = model_collectives(graph, place_ranks(graph, point.nodes, 0), options);
    const Prediction prediction =
        predict(model, op_by_name(point.op), point.bytes, point.forced, release(point.nccl_version));
    EXPECT_EQ(prediction.algorithm, Algorithm::nvls);
    return prediction.busbw_gbps;
  };
  std::vector<PublishedPoint> rack;
  std::vector<PublishedPoint> h100;
  for (const PublishedPoint& point : published_points()) {
    if (point.source.starts_with("coreweave/nccl-tests#43")) rack.push_back(point);
    if (point.configuration == "8x H100 SXM, 1 node" && point.op == "all_reduce") h100.push_back(point);
  }
  std::ranges::sort(rack, {}, &PublishedPoint::bytes);
  // model/published from 512 MiB to 8 GiB with the shipped constants.
  const std::vector<double> rack_ratio{1.141, 1.074, 1.013, 0.938, 0.944};
  ASSERT_EQ(rack.size(), rack_ratio.size());
  double previous_gbps = 0;
  for (std::size_t i = 0; i < rack.size(); ++i) {
    const double model_gbps = predicted_busbw(rack[i]);
    fmt::print("GB200 NVL72, one rack, all_reduce {}: published {:.2f} GB/s, model {:.2f} GB/s, {:.3f}\n",
               size_text(rack[i].bytes), rack[i].published, model_gbps, model_gbps / rack[i].published);
    EXPECT_NEAR(model_gbps / rack[i].published, rack_ratio[i], 0.0015) << size_text(rack[i].bytes);
    EXPECT_GT(model_gbps, previous_gbps) << size_text(rack[i].bytes);  // the fill's share falls with size
    previous_gbps = model_gbps;
  }
  // 8 H100 (Azure ND H100 v5, NCCL 2.18.5, -g 8): 1 GiB runs at 0.974 of 8 GiB.
  std::ranges::sort(h100, {}, &PublishedPoint::bytes);
  ASSERT_EQ(h100.size(), 2U);
  const double model_shape = predicted_busbw(h100[0]) / predicted_busbw(h100[1]);
  fmt::print("8x H100 all_reduce 1 GiB / 8 GiB busbw: published {:.3f}, model {:.3f}\n",
             h100[0].published / h100[1].published, model_shape);
  EXPECT_NEAR(model_shape, 0.966, 0.0015);
}

// Link rates one flow reaches alone: the pair path the expectation columns use.
TEST(Calibration, PublishedPointToPointRates) {
  struct PairPoint {
    std::string configuration;
    ClusterSpec cluster;
    std::string from;
    std::string to;
    double published_gbps;
    std::string source;
  };
  ClusterSpec roce = h100_node(2);
  roce.node.nic_link = *network_by_rate(LinkType::roce, 400000);
  roce.fabric.switch_link = roce.node.nic_link;
  const std::vector<PairPoint> points{
      {"H100 NVLink pair, copy engine, one direction", h100_node(1), "node00001/GPU0", "node00001/GPU1", 374,
       "NVIDIA/nccl#1264 (371-377 GB/s)"},
      {"400G RoCE ConnectX-7, ib_write_bw 128 KiB", roce, "node00001/mlx5_0", "node00002/mlx5_0", 392.1 / 8,
       "NVIDIA/nccl#2409 (392.1 Gb/s)"},
      {"HDR with GPUDirect (Azure NDv4), ib_write_bw", a100_node(2, 8), "node00001/GPU0", "node00002/GPU0", 194.0 / 8,
       "Azure/azurehpc-health-checks#46 (~194 Gb/s)"},
  };
  for (const PairPoint& point : points) {
    const Graph graph = build_cluster(point.cluster);
    const std::optional<Route> route = find_route(graph, graph.find(point.from), graph.find(point.to));
    ASSERT_TRUE(route) << point.configuration;
    const double ratio = route->bottleneck_gbps / point.published_gbps;
    fmt::print("| {} | point-to-point | {:.2f} GB/s | {:.2f} GB/s | {:.3f} | - | {} |\n", point.configuration,
               point.published_gbps, route->bottleneck_gbps, ratio, point.source);
    EXPECT_NEAR(ratio, 1.0, 0.05) << point.configuration;
  }
}

}  // namespace
}  // namespace fb::topo
