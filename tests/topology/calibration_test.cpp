// The collective model against published results. Every row is one public measurement with its
// source; the test prints the model's ratio for each (docs/model.md carries the table) and fails
// when a ratio leaves its bound, so a model change that breaks calibration does not pass.
//
// Bounds (issue 13): large-message bus bandwidth (>= 128 MiB) within 10% geometric-mean error and
// no point off by more than 25%; 8 B to 64 KiB times within 1.5x each; point-to-point link rates
// within 5%; vendor acceptance floors at or below the prediction. A point the model's mechanisms do
// not explain says why (known_miss) and is held to a looser bound (1.6x), so it still cannot drift.

#include "common/errors.hpp"
#include "topology/cluster_spec.hpp"
#include "topology/collective_model.hpp"
#include "topology/nccl_tuning.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {
namespace {

// Cluster specs as the sources describe the machines.
ClusterSpec h100_node(int nodes) {
  ClusterSpec spec;  // defaults: 8 H100 SXM, 18 NVLink4 over 4 NVSwitches, PCIe Gen5, 8 NICs
  spec.node.count = nodes;
  spec.node.nic_link = *infiniband(4, "NDR");
  if (nodes > 1) {
    spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}};
    spec.fabric.switch_link = *infiniband(4, "NDR");
  }
  return spec;
}

ClusterSpec a100_node(int nodes, int nics) {
  ClusterSpec spec;
  spec.node.count = nodes;
  spec.node.cpu_vendor = "AuthenticAMD";
  spec.node.nvlink_generation = 3;
  spec.node.nvlinks_per_gpu = 12;
  spec.node.nvswitches = 6;
  spec.node.pcie_generation = 4;
  spec.node.nics = nics;
  spec.node.nic_link = *infiniband(4, "HDR");
  if (nodes > 1) {
    spec.fabric.tiers = {{SwitchTier::leaf, 40, 1.0}, {SwitchTier::spine, 40, 1.0}};
    spec.fabric.switch_link = *infiniband(4, "HDR");
  }
  return spec;
}

// AWS p5: 8 H100 and 32 EFA ports of 100 Gb/s, four behind each GPU's PCIe switch pair.
ClusterSpec p5(int nodes) {
  ClusterSpec spec;
  spec.node.count = nodes;
  spec.node.nics = 32;
  spec.node.nic_name_prefix = "efa";
  spec.node.nic_link = *network_by_rate(LinkType::efa, 100000);
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}};
  spec.fabric.switch_link = *network_by_rate(LinkType::efa, 100000);
  return spec;
}

// GCP A3 Ultra: 8 H200 (NVLink4 like H100) and 8 ConnectX-7 400G RoCE ports.
ClusterSpec a3_ultra(int nodes) {
  ClusterSpec spec = h100_node(nodes);
  spec.node.nic_link = *network_by_rate(LinkType::roce, 400000);
  spec.fabric.switch_link = spec.node.nic_link;
  return spec;
}

// H800: H100 with 8 of its 18 NVLink4 lanes (200 GB/s a direction).
ClusterSpec h800_node() {
  ClusterSpec spec = h100_node(1);
  spec.node.nvlinks_per_gpu = 8;
  return spec;
}

// HGX B200: 18 NVLink5 lanes per GPU.
ClusterSpec b200_node() {
  ClusterSpec spec = h100_node(1);
  spec.node.nvlink_generation = 5;
  return spec;
}

enum class Metric { busbw_gbps, time_us, floor_busbw_gbps };

struct PublishedPoint {
  std::string configuration;
  std::function<ClusterSpec()> cluster;
  int nodes = 1;
  int gpus_per_node = 0;
  std::string_view op = "all_reduce";
  std::uint64_t bytes = 0;
  Forced forced;
  Metric metric = Metric::busbw_gbps;
  double published = 0;
  std::string source;
  std::string known_miss;    // why the model misses this point; empty when it should not
  std::string nccl_version;  // the NCCL the source ran; empty when it does not say (the newest figures)
  int gpus_per_process = 1;  // nccl-tests -g: GPUs one thread drives
};

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = 1024 * KiB;
constexpr std::uint64_t GiB = 1024 * MiB;

std::vector<PublishedPoint> published_points() {
  const auto h100 = [](int n) { return [n] { return h100_node(n); }; };
  const auto aws = [](int n) { return [n] { return p5(n); }; };
  const Forced ring{Algorithm::ring, std::nullopt};
  const Forced nvls{Algorithm::nvls, std::nullopt};
  // nccl-tests' all_reduce busbw is algbw x 2(n-1)/n.
  const auto time_of_8_rank_all_reduce_us = [](std::uint64_t bytes, double busbw_gbps) {
    return static_cast<double>(bytes) / (busbw_gbps / (2.0 * 7 / 8) * 1e3);
  };
  const std::string azure_h100 = "Azure/AI-benchmarking-guide ND_H100_v5_results.md";
  const std::string azure_a100 = "Azure/AI-benchmarking-guide ND_A100_v4_results.md";
  const std::string p5_source = "crazyguitar/aws-gpu-communication-benchmark data/nccl_all_reduce.csv";
  std::vector<PublishedPoint> points{
      // The Azure sweeps ran all_reduce_perf -g 8 (see the held-out rows below).
      {"8x H100 SXM, 1 node",
       h100(1),
       1,
       0,
       "all_reduce",
       1 * GiB,
       {},
       Metric::busbw_gbps,
       466.35,
       azure_h100,
       "",
       "2.18.5",
       8},
      {"8x H100 SXM, 1 node",
       h100(1),
       1,
       0,
       "all_reduce",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       478.87,
       azure_h100,
       "",
       "2.18.5",
       8},
      {"8x H100, 1 node, NCCL_ALGO=Ring", h100(1), 1, 0, "all_reduce", 8 * GiB, ring, Metric::busbw_gbps, 370,
       "NVIDIA/nccl-tests#212 (maintainer: ~370)", "", "", 1},
      {"8x H100, 1 node",
       h100(1),
       1,
       0,
       "all_gather",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       370,
       "NVIDIA/nccl-tests#212 (maintainer: non-all_reduce ops ~370)",
       "",
       "",
       1},
      {"8x A100 SXM4, 1 node",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       1 * GiB,
       {},
       Metric::busbw_gbps,
       228.10,
       azure_a100,
       "",
       "2.18.5",
       1},
      {"8x A100 SXM4, 1 node",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       231.58,
       azure_a100,
       "",
       "2.18.5",
       1},
      {"8x H100, 1 node",
       h100(1),
       1,
       0,
       "all_gather",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       350,
       "NVIDIA/nccl#1281 (all_gather ~350, size not stated: peak taken at 8 GiB)",
       "",
       "",
       1},
      {"8x H100, 1 node",
       h100(1),
       1,
       0,
       "reduce_scatter",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       360,
       "NVIDIA/nccl#1281 (reduce_scatter ~360, size not stated: peak taken at 8 GiB)",
       "",
       "",
       1},
      // Held out: added after the model's constants were set, and matched without changing them.
      {"8x H800, 1 node (8 NVLink4 lanes)",
       h800_node,
       1,
       0,
       "all_reduce",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       215,
       "NVIDIA/nccl#1374 (H800 all_reduce ~215 GB/s, size not stated: peak taken at 8 GiB)",
       "",
       "",
       1},
      {"8x H200, 1 node",
       h100(1),
       1,
       0,
       "all_reduce",
       4 * GiB,
       {},
       Metric::busbw_gbps,
       475,
       "NVIDIA/nccl-tests#272 (peak at -e 4G)",
       "",
       "2.20.3",
       1},
      {"8x B200, 1 node",
       b200_node,
       1,
       0,
       "all_reduce",
       8 * GiB,
       {},
       Metric::busbw_gbps,
       830,
       "NVIDIA/nccl#1807 (\"830+\", size not stated: peak taken at 8 GiB)",
       "",
       "2.27.1",
       1},
      {"8x A100, 1 node",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       4 * GiB,
       {},
       Metric::busbw_gbps,
       232.54,
       "NVIDIA/nccl#1048",
       "",
       "",
       1},
      {"8x A100, 4x 200G HDR, 2 nodes",
       [] { return a100_node(2, 4); },
       2,
       0,
       "all_reduce",
       4 * GiB,
       {},
       Metric::busbw_gbps,
       86,
       "NVIDIA/nccl#1048 (~86 GB/s, -e 4G)",
       "",
       "",
       1},
      {"8x H100, 2 nodes, 8x 400G NDR, NCCL_ALGO=Ring", h100(2), 2, 0, "all_reduce", 8 * GiB, ring, Metric::busbw_gbps,
       8 * 47.0, "NVIDIA/nccl-tests#290 (maintainer: 46-48 GB/s per NDR NIC)", "", "", 1},
      {"8x A100, 4x 200G HDR, 3 nodes",
       [] { return a100_node(3, 4); },
       3,
       0,
       "all_reduce",
       128 * MiB,
       {},
       Metric::busbw_gbps,
       96,
       "NVIDIA/nccl-tests#119 (peak ~96 GB/s)",
       "",
       "",
       1},
      {"DGX A100, 8 GPUs, ring, LL",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       8,
       {Algorithm::ring, Protocol::ll},
       Metric::time_us,
       21,
       "NVIDIA/nccl-tests#123",
       "",
       "",
       1},
      {"DGX A100, 8 GPUs, ring, LL128",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       8,
       {Algorithm::ring, Protocol::ll128},
       Metric::time_us,
       32,
       "NVIDIA/nccl-tests#123",
       "",
       "",
       1},
      {"DGX A100, 8 GPUs, ring, Simple",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       8,
       {Algorithm::ring, Protocol::simple},
       Metric::time_us,
       84,
       "NVIDIA/nccl-tests#123",
       "",
       "",
       1},
      // The first table: NCCL_ALGO=Ring NCCL_MAX_NCHANNELS=1, protocol left to NCCL, and -g 8: one
      // host thread launches all 8 GPUs' kernels in turn (the maintainer's answer there), 7 launches more
      // than the forced-LL row above, which ran one thread per GPU (-t).
      {"DGX A100, 8 GPUs, NCCL_ALGO=Ring, -g 8 (one thread drives all 8 GPUs)", [] { return a100_node(1, 8); }, 1, 0,
       "all_reduce", 8, ring, Metric::time_us, 33.7, "NVIDIA/nccl-tests#123", "", "", 8},
      {"DGX H100, 2 GPUs",
       h100(1),
       1,
       2,
       "all_reduce",
       8,
       {},
       Metric::time_us,
       7.5,
       "NVIDIA/nccl-tests#123 (maintainer: ~7.5 us per call)",
       "",
       "",
       1},
      {"8x H20, 1 node",
       h100(1),
       1,
       0,
       "all_reduce",
       8,
       {},
       Metric::time_us,
       12.49,
       "deepseek-ai/DeepEP#303",
       "",
       "",
       1},
      {"8x H20, 1 node",
       h100(1),
       1,
       0,
       "all_reduce",
       4 * KiB,
       {},
       Metric::time_us,
       16.69,
       "deepseek-ai/DeepEP#303",
       "",
       "",
       1},
      {"8x H20, 8x 400G NDR, 2 nodes, NCCL_ALGO=NVLSTree",
       h100(2),
       2,
       0,
       "all_reduce",
       8,
       {Algorithm::nvls_tree, std::nullopt},
       Metric::time_us,
       47.5,
       "NVIDIA/nccl#1244",
       "",
       "2.21.5",
       1},
      // Held out: small sizes of the Azure sweeps above (NCCL_ALGO=NVLS all_reduce_perf -b 8 -e 8G -f 2
      // -g 8 -n 40, in-place busbw), added after the version tables and not tuned to.
      {"8x H100 SXM, 1 node, NCCL_ALGO=NVLS, -g 8", h100(1), 1, 0, "all_reduce", 4 * KiB, nvls, Metric::time_us,
       time_of_8_rank_all_reduce_us(4 * KiB, 0.27), azure_h100 + " (busbw 0.27 GB/s)", "", "2.18.5", 8},
      {"8x H100 SXM, 1 node, NCCL_ALGO=NVLS, -g 8", h100(1), 1, 0, "all_reduce", 64 * KiB, nvls, Metric::time_us,
       time_of_8_rank_all_reduce_us(64 * KiB, 2.72), azure_h100 + " (busbw 2.72 GB/s)", "", "2.18.5", 8},
      {"8x H200, 1 node, NCCL_ALGO=NVLS, -g 8", h100(1), 1, 0, "all_reduce", 64 * KiB, nvls, Metric::time_us,
       time_of_8_rank_all_reduce_us(64 * KiB, 3.72),
       "Azure/AI-benchmarking-guide ND_H200_v5_results.md (busbw 3.72 GB/s)", "", "2.20.5", 8},
      {"Azure ND H100 v5 acceptance",
       h100(1),
       1,
       0,
       "all_reduce",
       16 * GiB,
       {},
       Metric::floor_busbw_gbps,
       460,
       "Azure/azurehpc-health-checks",
       "",
       "",
       1},
      {"Azure ND A100 v4 acceptance",
       [] { return a100_node(1, 8); },
       1,
       0,
       "all_reduce",
       8 * GiB,
       {},
       Metric::floor_busbw_gbps,
       228,
       "Azure/azurehpc-health-checks",
       "",
       "",
       1},
      {"GCP A3 Ultra node pair acceptance",
       [] { return a3_ultra(2); },
       2,
       0,
       "all_gather",
       8 * GiB,
       {},
       Metric::floor_busbw_gbps,
       250,
       "GoogleCloudPlatform/cluster-health-scanner",
       "",
       "",
       1},
  };
  const std::vector<std::tuple<int, double, double>> p5_results{
      {2, 435.14, 477.71}, {4, 280.30, 356.99}, {8, 274.47, 355.36}, {16, 269.23, 356.27}, {32, 220.08, 321.10}};
  for (const auto& [nodes, at_1g, at_8g] : p5_results) {
    const std::string name = fmt::format("AWS p5, 32x 100G EFA, {} nodes", nodes);
    // From 4 nodes on, p5's 1 GiB busbw sits far below its 8 GiB busbw: a fixed cost of 1.8-3.4 ms per
    // call that grows with the node count and that no algorithm latency explains (EFA's transport).
    points.push_back({name,
                      aws(nodes),
                      nodes,
                      0,
                      "all_reduce",
                      1 * GiB,
                      {},
                      Metric::busbw_gbps,
                      at_1g,
                      p5_source,
                      nodes >= 32 ? "a per-call fixed cost of ~3.4 ms over EFA at 32 nodes (from the 1 and 8 GiB "
                                    "times) that the model has no mechanism for"
                                  : "",
                      "",
                      1});
    points.push_back(
        {name, aws(nodes), nodes, 0, "all_reduce", 8 * GiB, {}, Metric::busbw_gbps, at_8g, p5_source, "", "", 1});
  }
  return points;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes >= GiB) return fmt::format("{} GiB", bytes / GiB);
  if (bytes >= MiB) return fmt::format("{} MiB", bytes / MiB);
  if (bytes >= KiB) return fmt::format("{} KiB", bytes / KiB);
  return fmt::format("{} B", bytes);
}

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
  // 14 ring steps after a base latency, and 1.5 us to launch: published (nccl-tests#123, -t 8)
  // LL 21, LL128 32, Simple 84 us. Before 2.18: base 3.6 / 10 / 8.4 us, NVLink hops .47 / 1.9 / 3.4.
  const auto time = [&](std::string_view version, Protocol protocol) {
    return predict(model, all_reduce, 8, {Algorithm::ring, protocol}, release(version)).time_us;
  };
  EXPECT_NEAR(time("2.16", Protocol::ll), 11.68, 0.01);
  EXPECT_NEAR(time("2.16", Protocol::ll128), 38.10, 0.01);
  EXPECT_NEAR(time("2.16", Protocol::simple), 57.50, 0.01);
  // From 2.18: base 6.6 / 14 / 8.4 us, NVLink hops .6 / 1.9 / 3.4.
  EXPECT_NEAR(time("2.18", Protocol::ll), 16.50, 0.01);
  EXPECT_NEAR(time("2.18", Protocol::ll128), 42.10, 0.01);
  EXPECT_NEAR(time("2.30", Protocol::ll), 16.50, 0.01);
}

TEST(Calibration, OneThreadDrivingEightGpusAddsSevenLaunches) {
  const Graph graph = build_cluster(a100_node(1, 8));
  const std::vector<VertexId> ranks = place_ranks(graph, 1, 0);
  ModelOptions one_thread_for_all;
  one_thread_for_all.gpus_per_process = 8;
  const CollectiveModel per_gpu = model_collectives(graph, ranks);
  const CollectiveModel per_node = model_collectives(graph, ranks, one_thread_for_all);
  EXPECT_DOUBLE_EQ(serial_launch_us(per_gpu), 0.0);
  EXPECT_DOUBLE_EQ(serial_launch_us(per_node), 10.5);
  // nccl-tests#123 on DGX A100 at 8 B: ring LL 21 us with -t 8, 33.7 us with -g 8.
  const Forced ring{Algorithm::ring, std::nullopt};
  const Prediction one = predict(per_gpu, op_by_name("all_reduce"), 8, ring);
  const Prediction eight = predict(per_node, op_by_name("all_reduce"), 8, ring);
  EXPECT_NEAR(one.time_us, 16.5, 0.01);
  EXPECT_NEAR(eight.time_us, 27.0, 0.01);
  EXPECT_EQ(eight.protocol, Protocol::ll);
  // Grouped sends launch per GPU too.
  const OpTraits& alltoall = op_by_name("alltoall");
  EXPECT_NEAR(predict(per_node, alltoall, 8).time_us - predict(per_gpu, alltoall, 8).time_us, 10.5, 1e-9);
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
  EXPECT_NEAR(time("2.18.5"), 1.5 + 23 + 2 * (19 + 5.2), 0.01);
  EXPECT_NEAR(time("2.20.3"), 1.5 + 23 + 2 * (14 + 5.2), 0.01);
  // 2.21: the NVLink hop 25 us (nccl#1244 ran 2.21.5 and measured 47.5 us); 2.28.9: crossings 20.9 us.
  EXPECT_NEAR(time("2.21.5"), 64.9, 0.01);
  EXPECT_NEAR(time("2.28.7"), 64.9, 0.01);
  EXPECT_NEAR(time("2.28.9"), 78.7, 0.01);
  EXPECT_NEAR(time("2.30"), 78.7, 0.01);
  // No NVLS-tree before 2.18, no NVLS at all before 2.17.
  EXPECT_THROW(time("2.17"), InputError);
  const Graph one_node = build_cluster(h100_node(1));
  const CollectiveModel node = model_collectives(one_node, place_ranks(one_node, 1, 0));
  EXPECT_THROW(predict(node, all_reduce, 8, {Algorithm::nvls, std::nullopt}, release("2.16")), InputError);
  // 2.17's NVLS inside a node: a 40 us base latency.
  EXPECT_NEAR(predict(node, all_reduce, 8, {Algorithm::nvls, std::nullopt}, release("2.17")).time_us, 41.5, 0.01);
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
