// Builds and analyzes DGX H100 clusters on a 3-tier NDR fat-tree (leaves 1:1, spines 2:1) and on a
// 3-tier rail-optimized fabric (DGX SuperPOD units of 32 nodes on rail leaves, the same tiers) from
// 1,000 to 1,000,000 GPUs: YAML spec -> graph -> oversubscription -> all-to-all max-min blocking;
// and `topo predict`'s model of a collective over every GPU, 1,000 to 100,000 GPUs. Phase times
// and the peak resident set are reported as counters.

#include "topology/analysis.hpp"
#include "topology/collective_model.hpp"
#include "topology/format_registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>

namespace {

// Core radix 128 up to 100,000 GPUs; a million need more than 700 pods under the cores, so 1024.
std::string cluster_spec_yaml(int nodes, std::string_view layout = "fat_tree") {
  const int core_radix = nodes > 12'500 ? 1024 : 128;
  return fmt::format(R"(name: scale
node:
  count: {}
  cpus: 2
  gpus: 8
  nvlink: {{generation: 4, links_per_gpu: 18, nvswitches: 4}}
  pcie: {{generation: 5, width: 16, switches: 4}}
  nics: {{count: 8, link: 4xNDR}}
fabric:
  topology: {}{}
  tiers:
    - {{name: leaf, radix: 64, oversubscription: "1:1"}}
    - {{name: spine, radix: 64, oversubscription: "2:1"}}
    - {{name: core, radix: {}}}
)",
                     nodes, layout, layout == "rail_optimized" ? "\n  scalable_unit: 32" : "", core_radix);
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void build_and_analyze(benchmark::State& state, std::string_view layout) {
  const int gpus = static_cast<int>(state.range(0));
  const fb::topo::SourceText source{"scale.yaml", cluster_spec_yaml(gpus / 8, layout)};
  using clock = std::chrono::steady_clock;
  double build_s = 0, oversubscription_s = 0, blocking_s = 0;
  std::size_t links = 0, vertices = 0, findings = 0, classes = 0;
  for (auto _ : state) {
    const auto start = clock::now();
    const fb::topo::Graph graph = fb::topo::parse_topology(source, "cluster-yaml");
    const auto built = clock::now();
    const fb::topo::OversubscriptionReport oversubscription = fb::topo::analyze_oversubscription(graph);
    const auto oversubscribed = clock::now();
    fb::topo::FabricHierarchy fabric(graph);
    const fb::topo::PatternAnalysis analysis = fb::topo::analyze_pattern(fabric, fb::topo::TrafficPattern::all_to_all);
    const auto analyzed = clock::now();
    benchmark::DoNotOptimize(oversubscription);
    build_s += std::chrono::duration<double>(built - start).count();
    oversubscription_s += std::chrono::duration<double>(oversubscribed - built).count();
    blocking_s += std::chrono::duration<double>(analyzed - oversubscribed).count();
    links = graph.link_count();
    vertices = graph.vertex_count();
    findings = analysis.blocking.size();
    classes = analysis.flow_classes;
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["links"] = static_cast<double>(links);
  state.counters["flow_classes"] = static_cast<double>(classes);
  state.counters["blocking_links"] = static_cast<double>(findings);
  state.counters["build_s"] = build_s / iterations;
  state.counters["oversub_s"] = oversubscription_s / iterations;
  state.counters["blocking_s"] = blocking_s / iterations;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void BM_BuildAndAnalyzeFatTree(benchmark::State& state) { build_and_analyze(state, "fat_tree"); }
void BM_BuildAndAnalyzeRailOptimized(benchmark::State& state) { build_and_analyze(state, "rail_optimized"); }

// What `topo predict` does for an all_reduce over every GPU: place the ranks, model what the
// placement carries (rings, trees, the network alone, alltoall, sendrecv: max-min fair flows over
// every link), then NCCL's algorithm and protocol choice at one size. Target: 100,000 GPUs in
// under 2 s; 1.50 s and 372 MiB on the development machine (docs/performance-topology.md).
void BM_PredictFatTree(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  const fb::topo::SourceText source{"scale.yaml", cluster_spec_yaml(gpus / 8)};
  using clock = std::chrono::steady_clock;
  double build_s = 0, model_s = 0;
  double busbw_gbps = 0;
  for (auto _ : state) {
    const auto start = clock::now();
    const fb::topo::Graph graph = fb::topo::parse_topology(source, "cluster-yaml");
    const auto built = clock::now();
    const std::vector<fb::topo::VertexId> ranks = fb::topo::place_ranks(graph, 0, 0);
    const fb::topo::CollectiveModel model = fb::topo::model_collectives(graph, ranks, {});
    const fb::topo::Prediction prediction = fb::topo::predict(model, fb::op_by_name("all_reduce"), 1ull << 30);
    const auto modelled = clock::now();
    build_s += std::chrono::duration<double>(built - start).count();
    model_s += std::chrono::duration<double>(modelled - built).count();
    busbw_gbps = prediction.busbw_gbps;
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["build_s"] = build_s / iterations;
  state.counters["model_s"] = model_s / iterations;
  state.counters["busbw_1G_gbps"] = busbw_gbps;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// One process per size keeps peak_rss_MiB meaningful: run with --benchmark_filter=.../100000.
BENCHMARK(BM_BuildAndAnalyzeFatTree)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BuildAndAnalyzeRailOptimized)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PredictFatTree)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
