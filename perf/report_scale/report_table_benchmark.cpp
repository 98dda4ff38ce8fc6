// The report's per-size table (size_table, beside each op's plots) for 10^3, 10^4 and 10^5
// distinct sizes of two series (out-of-place and in-place), as a linear -i sweep gives them.
// Linear means the time per size stays flat as the sizes grow; the issue that asked for it (#44)
// measured 28.5 s for 100,000 sizes with a scan of every point per cell.

#include "reports/html/html_report.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

std::vector<fb::PlotSeries> series_of(std::size_t sizes, double scale) {
  std::vector<fb::PlotSeries> all;
  for (const std::string title : {"out-of-place", "in-place"}) {
    fb::PlotSeries series{title, {}, {}};
    series.points.reserve(sizes);
    for (std::size_t i = 1; i <= sizes; ++i)
      series.points.emplace_back(static_cast<double>(4 * i), scale * static_cast<double>(i % 1000 + 1));
    all.push_back(std::move(series));
  }
  return all;
}

void BM_SizeTable(benchmark::State& state) {
  const auto sizes = static_cast<std::size_t>(state.range(0));
  const std::vector<fb::PlotSeries> bandwidth = series_of(sizes, 0.01);
  const std::vector<fb::PlotSeries> time = series_of(sizes, 3.0);
  const std::vector<fb::PlotSeries> p99 = series_of(sizes, 4.0);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string html = fb::size_table(bandwidth, time, p99, true);
    bytes = html.size();
    benchmark::DoNotOptimize(html.data());
  }
  state.counters["html_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["us_per_size"] =
      benchmark::Counter(static_cast<double>(sizes),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_SizeTable)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond)->Complexity();

}  // namespace

BENCHMARK_MAIN();
