// How fast drift detection (diagnosis/drift.hpp) flags a change, and how often it cries wolf, on
// this machine's own run-to-run noise. Usage: drift_replay RESULTS_DIR OP SIZE [SEED]
//
// RESULTS_DIR holds real stable runs (perf/drift_replay/noise/: 2-rank MPI all_reduce runs recorded
// on the development machine). Each run's value is the median busbw of its rows at SIZE; the
// noise is the log of each value over the median of all. Replayed histories draw that noise in
// blocks of 5 consecutive runs (a moving-block bootstrap: a slow neighbour job spans several runs,
// and drawing runs one by one would hide that), then:
//   - stable: 200 histories of 1,000 runs, no change: every flag is a false alarm;
//   - step: the baseline's runs and 12 more stable ones, then every run 10% lower: runs from the step to the flag, and
//   whether
//     the change is dated to the step's first run;
//   - ramp: the same stable start, then 1% lower per run: the same.
// Optional: BASELINE_RUNS, THRESHOLD, SLACK and CLIP override the defaults (diagnosis::DriftSettings), to
// measure other settings on the same noise. Numbers: docs/fleet-health.md.

#include "common/robust_statistics.hpp"
#include "common/sizes.hpp"
#include "diagnosis/drift.hpp"
#include "results/result_loading.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <random>

namespace {

using fb::diagnosis::detect_drift;
using fb::diagnosis::DriftChange;

constexpr std::size_t block_runs = 5;

class NoiseReplay {
 public:
  NoiseReplay(std::vector<double> log_noise, unsigned seed) : noise_(std::move(log_noise)), random_(seed) {}

  // `runs` values of 100 GB/s times the replayed noise.
  std::vector<double> stable(std::size_t runs) {
    std::uniform_int_distribution<std::size_t> start(0, noise_.size() - block_runs);
    std::vector<double> values;
    while (values.size() < runs)
      for (std::size_t i = start(random_), end = i + block_runs; i < end && values.size() < runs; ++i)
        values.push_back(100 * std::exp(noise_[i]));
    return values;
  }

 private:
  std::vector<double> noise_;
  std::mt19937_64 random_;
};

struct Detection {
  std::vector<double> delays;  // runs from the change's first run to the flag
  int dated_exactly = 0;       // the change was said to begin at its first run
  int dated_within_two = 0;
  int missed = 0;  // not flagged within the replay
  int early = 0;   // flagged before the change (a false alarm, counted apart)
};

Detection replay_change(NoiseReplay& replay, int trials, const fb::diagnosis::DriftSettings& settings,
                        const std::function<double(std::size_t)>& factor) {
  Detection d;
  for (int t = 0; t < trials; ++t) {
    // The change comes 12 runs after the baseline: the sums have been running on noise a while.
    const std::size_t change_at = settings.baseline_runs + 12;
    std::vector<double> values = replay.stable(change_at + 60);
    for (std::size_t i = change_at; i < values.size(); ++i) values[i] *= factor(i - change_at);
    const std::vector<DriftChange> changes = detect_drift(values, settings);
    const auto first =
        std::ranges::find_if(changes, [change_at](const DriftChange& c) { return c.flagged >= change_at; });
    if (std::ranges::any_of(changes, [change_at](const DriftChange& c) { return c.flagged < change_at; })) ++d.early;
    if (first == changes.end() || !first->lower) {
      ++d.missed;
      continue;
    }
    d.delays.push_back(static_cast<double>(first->flagged - change_at));
    if (first->began == change_at) ++d.dated_exactly;
    if (first->began + 2 >= change_at && first->began <= change_at + 2) ++d.dated_within_two;
  }
  return d;
}

void print(const std::string& name, const Detection& d, int trials) {
  std::vector<double> delays = d.delays;
  std::ranges::sort(delays);
  const auto quantile = [&](double q) {
    return delays.empty() ? NAN : delays[static_cast<std::size_t>(q * static_cast<double>(delays.size() - 1))];
  };
  std::cout << fmt::format("{:<6} {:>7} {:>7.0f} {:>7.0f} {:>7.0f} {:>12.1f}% {:>14.1f}% {:>7} {:>7}\n", name, trials,
                           quantile(0.5), quantile(0.9), delays.empty() ? NAN : delays.back(),
                           100.0 * d.dated_exactly / trials, 100.0 * d.dated_within_two / trials, d.missed, d.early);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: drift_replay RESULTS_DIR OP SIZE [SEED [BASELINE_RUNS THRESHOLD [SLACK MIN_CHANGE_RUNS]]]\n";
    return 2;
  }
  const std::string op = argv[2];
  const std::uint64_t bytes = fb::parse_size_bytes(argv[3]);
  const unsigned seed = argc > 4 ? static_cast<unsigned>(std::stoul(argv[4])) : 27;
  fb::diagnosis::DriftSettings settings;
  if (argc > 6) {
    settings.baseline_runs = std::stoul(argv[5]);
    settings.threshold = std::stod(argv[6]);
  }
  if (argc > 8) {
    settings.slack = std::stod(argv[7]);
    settings.min_change_runs = std::stoul(argv[8]);
  }
  std::vector<std::pair<std::string, double>> runs;  // start time, value
  for (const fb::LoadedResults& set : fb::load_results({argv[1]})) {
    std::vector<double> busbw;
    for (const fb::ResultRow& row : set.results.rows)
      if (row.op == op && row.bytes == bytes && row.busbw_gbps) busbw.push_back(*row.busbw_gbps);
    if (!busbw.empty()) runs.emplace_back(set.results.provenance.start_time, fb::median_of(busbw));
  }
  if (runs.size() < 2 * block_runs) {
    std::cerr << fmt::format("drift_replay: {} runs of {} {} in {}: too few\n", runs.size(), op, argv[3], argv[1]);
    return 4;
  }
  std::ranges::sort(runs);
  std::vector<double> values;
  for (const auto& run : runs) values.push_back(run.second);
  const double center = std::log(fb::median_of(values));
  std::vector<double> log_noise;
  for (const double v : values) log_noise.push_back(std::log(v) - center);
  const fb::diagnosis::Baseline all = fb::diagnosis::baseline_of(values);
  std::vector<double> sorted = values;
  std::ranges::sort(sorted);
  std::cout << fmt::format("# {} real runs of {} {}: median {:.4g} GB/s, robust spread {:.2f}%, min {:.4g} ({:+.1f}%), "
                           "max {:.4g} ({:+.1f}%)\n",
                           values.size(), op, argv[3], all.median, 100 * all.log_spread, sorted.front(),
                           100 * (sorted.front() / all.median - 1), sorted.back(),
                           100 * (sorted.back() / all.median - 1));
  std::cout << fmt::format("# settings: baseline {} runs, k {}, h {}, clip {} (a change is at least {} runs)\n",
                           settings.baseline_runs, settings.slack, settings.threshold, settings.clip(),
                           settings.min_change_runs);
  std::cout << fmt::format("# the real sequence itself, in order: {} change(s) flagged\n",
                           detect_drift(values, settings).size());

  NoiseReplay replay(log_noise, seed);
  constexpr int stable_histories = 200;
  constexpr std::size_t stable_runs = 1000;
  std::size_t alarms = 0;
  std::size_t judged = 0;
  for (int h = 0; h < stable_histories; ++h) {
    alarms += detect_drift(replay.stable(stable_runs), settings).size();
    judged += stable_runs - settings.baseline_runs;
  }
  std::cout << fmt::format("# stable: {} histories of {} runs: {} false alarms in {} judged runs = {:.2f} per 1,000\n",
                           stable_histories, stable_runs, alarms, judged,
                           1000.0 * static_cast<double>(alarms) / static_cast<double>(judged));
  constexpr int trials = 2000;
  std::cout << "# change  trials  delay: median     p90     max  dated exactly  dated within 2  missed   early\n";
  print("step", replay_change(replay, trials, settings, [](std::size_t) { return 0.9; }), trials);
  print("ramp",
        replay_change(replay, trials, settings, [](std::size_t i) { return 1 - 0.01 * static_cast<double>(i + 1); }),
        trials);
  return 0;
}
