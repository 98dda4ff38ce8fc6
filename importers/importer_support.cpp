#include "importers/importer_support.hpp"

#include "results/results_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

namespace fb {

int row_iterations(std::uint64_t printed, std::string_view where, std::vector<std::string>& assumptions) {
  constexpr auto most = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  if (printed <= most) return static_cast<int>(printed);
  assumptions.push_back(
      fmt::format("{}: {} iterations is more than a results row holds: recorded as {}", where, printed, most));
  return static_cast<int>(most);
}

std::vector<ResultSet> one_run(ResultSet results) {
  std::vector<ResultSet> runs;
  runs.push_back(std::move(results));
  return runs;
}

void number_runs(std::vector<ResultSet>& runs) {
  if (runs.size() < 2) return;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].provenance.run_id += "-run" + std::to_string(i + 1);
    for (ResultRow& row : runs[i].rows) row.run_id = runs[i].provenance.run_id;
  }
}

namespace {

// `run` repeats the test whose first run's rows are the first `rows_per_run` rows of `kept`.
bool same_test(const ResultSet& kept, std::size_t rows_per_run, const ResultSet& run) {
  // A different command or environment (adaptive routing off, then on) is another experiment,
  // however alike its table.
  if (kept.provenance.command_line != run.provenance.command_line ||
      kept.provenance.environment != run.provenance.environment || kept.provenance.nranks != run.provenance.nranks ||
      kept.provenance.rank_hosts != run.provenance.rank_hosts || rows_per_run != run.rows.size()) {
    return false;
  }
  for (std::size_t i = 0; i < rows_per_run; ++i) {
    const ResultRow& x = kept.rows[i];
    const ResultRow& y = run.rows[i];
    if (x.op != y.op || x.bytes != y.bytes || x.dtype != y.dtype || x.redop != y.redop || x.in_place != y.in_place ||
        x.root != y.root) {
      return false;
    }
  }
  return true;
}

}  // namespace

void keep_repetitions_together(std::vector<ResultSet>& runs) {
  std::vector<ResultSet> kept;
  std::vector<int> repetitions;  // per kept set
  std::size_t rows_per_run = 0;  // of the last kept set's first run
  for (ResultSet& run : runs) {
    if (!kept.empty() && same_test(kept.back(), rows_per_run, run)) {
      const int repetition = repetitions.back()++;
      for (ResultRow& row : run.rows) row.repetition = repetition;
      for (std::string& assumption : run.provenance.assumptions) {
        auto& into = kept.back().provenance.assumptions;
        if (std::find(into.begin(), into.end(), assumption) == into.end()) into.push_back(std::move(assumption));
      }
      std::move(run.rows.begin(), run.rows.end(), std::back_inserter(kept.back().rows));
      continue;
    }
    for (ResultRow& row : run.rows) row.repetition = 0;
    rows_per_run = run.rows.size();
    kept.push_back(std::move(run));
    repetitions.push_back(1);
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (repetitions[i] < 2) {
      for (ResultRow& row : kept[i].rows) row.repetition.reset();
      continue;
    }
    kept[i].provenance.assumptions.push_back(fmt::format(
        "{} runs of the same test one after the other in the log: kept as one result set, each row's repetition "
        "(0 to {}) saying which run it is from",
        repetitions[i], repetitions[i] - 1));
  }
  runs = std::move(kept);
}

std::optional<std::uint64_t> whole_number(double value) {
  constexpr double two_to_63 = 9223372036854775808.0;
  if (!(value >= 0) || value >= two_to_63 || value != std::floor(value)) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

double gbps_from(std::uint64_t bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0.0;
}

}  // namespace fb
