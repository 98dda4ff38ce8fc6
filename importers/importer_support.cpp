#include "importers/importer_support.hpp"

#include "results/results_io.hpp"

#include <cmath>

namespace fb {

std::string_view without_launcher_tag(std::string_view line) {
  // "[JOBID,RANK]<stdout>:" or "<stderr>:", digits only between the brackets.
  if (!line.starts_with('[')) return line;
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos || line.find_first_not_of("0123456789,", 1) != close) return line;
  for (const std::string_view stream : {"<stdout>:", "<stderr>:"})
    if (line.substr(close + 1).starts_with(stream)) return line.substr(close + 1 + stream.size());
  return line;
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

std::optional<std::uint64_t> whole_number(double value) {
  constexpr double two_to_63 = 9223372036854775808.0;
  if (!(value >= 0) || value >= two_to_63 || value != std::floor(value)) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

double gbps_from(std::uint64_t bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0.0;
}

}  // namespace fb
