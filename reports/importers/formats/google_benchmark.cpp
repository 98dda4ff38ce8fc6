// Google Benchmark JSON (--benchmark_format=json or --benchmark_out): one row per benchmark run
// name. The size is the bytes one iteration processed (bytes_per_second x time, as set by
// SetBytesProcessed); the time statistics come from the repetitions when there are several.

#include "core/errors.hpp"
#include "importers/importer_registry.hpp"
#include "importers/text_lines.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace fb {
namespace {

using Json = nlohmann::json;

bool recognizes(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{' &&
         text.find("\"benchmarks\"") != std::string_view::npos && text.find("\"context\"") != std::string_view::npos;
}

double microseconds_per(std::string_view unit, const std::string& where) {
  if (unit == "ns") return 1e-3;
  if (unit == "us") return 1;
  if (unit == "ms") return 1e3;
  if (unit == "s") return 1e6;
  throw InputError(fmt::format("{}: unknown time_unit '{}'", where, unit));
}

struct Repetition {
  double time_us;
  double bytes_per_second;
  std::int64_t iterations;
};

ResultSet parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions&) {
  const std::string file = origin.string();
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // The parser reports a byte offset; a line is what a person can find.
    const std::size_t offset = std::min<std::size_t>(e.byte, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
    throw InputError(fmt::format("{}:{}: not valid Google Benchmark JSON (truncated?): {}", file, line, e.what()));
  } catch (const Json::exception& e) {  // a number beyond double, which the parser reports without a place
    throw InputError(fmt::format("{}: not valid Google Benchmark JSON: {}", file, e.what()));
  }
  ResultSet results;
  Provenance& provenance = results.provenance;
  provenance.backend = "gbench";
  provenance.run_id = "gbench-" + origin.stem().string();
  provenance.nranks = 1;
  provenance.nodes = 1;
  provenance.ranks_per_node = 1;
  std::map<std::string, std::vector<Repetition>> runs;  // by run name, in name order
  try {
    const Json& context = json.at("context");
    provenance.start_time = context.value("date", "");
    provenance.command_line = context.value("executable", "");
    if (context.contains("host_name")) provenance.rank_hosts = {context.at("host_name").get<std::string>()};
    if (context.contains("library_version"))
      provenance.libraries["google-benchmark"] = context.at("library_version").get<std::string>();
    const Json& benchmarks = json.at("benchmarks");
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      const Json& b = benchmarks.at(i);
      // Aggregates (mean, median, stddev, cv) are recomputed from the repetitions themselves.
      if (b.value("run_type", "iteration") != "iteration") continue;
      if (b.contains("error_occurred") && b.at("error_occurred").get<bool>()) continue;
      const std::string where = fmt::format("{}: benchmarks[{}]", file, i);
      const double time_us = b.at("real_time").get<double>() * microseconds_per(b.at("time_unit").get<std::string>(), where);
      // A float here (1e51) would not fit an integer; converting it anyway is undefined behaviour.
      const Json& iterations = b.at("iterations");
      if (!iterations.is_number_integer())
        throw InputError(fmt::format("{}: iterations must be a whole number, got {}", where, iterations.dump()));
      runs[b.value("run_name", b.at("name").get<std::string>())].push_back(
          {time_us, b.value("bytes_per_second", 0.0), iterations.get<std::int64_t>()});
    }
  } catch (const Json::exception& e) {
    throw InputError(fmt::format("{}: not a Google Benchmark JSON file: {}", file, e.what()));
  }
  if (runs.empty()) throw InputError(fmt::format("{}: no benchmark runs in this Google Benchmark file", file));
  for (auto& [name, repetitions] : runs) {
    std::vector<double> times;
    for (const Repetition& r : repetitions) times.push_back(r.time_us);
    std::sort(times.begin(), times.end());
    double mean = 0;
    for (double t : times) mean += t;
    mean /= static_cast<double>(times.size());
    double variance = 0;
    for (double t : times) variance += (t - mean) * (t - mean);
    ResultRow row;
    row.run_id = provenance.run_id;
    row.backend = provenance.backend;
    row.op = name.substr(0, name.find('/'));  // the family: BM_Copy/4096/real_time -> BM_Copy
    row.redop = "none";
    row.nranks = 1;
    row.nodes = 1;
    row.ranks_per_node = 1;
    row.time_min_us = times.front();
    row.time_max_us = times.back();
    row.time_median_us = times.size() % 2 ? times[times.size() / 2]
                                          : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
    // Nearest-rank p99: with few repetitions it is the max.
    row.time_p99_us = times[static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(times.size()))) - 1];
    row.time_cv = times.size() > 1 && mean > 0 ? std::sqrt(variance / static_cast<double>(times.size() - 1)) / mean : 0;
    row.iterations = static_cast<int>(repetitions.front().iterations);
    const Repetition& first = repetitions.front();
    row.bytes = static_cast<std::uint64_t>(std::llround(first.bytes_per_second * first.time_us * 1e-6));
    row.algbw_gbps = gbps_from(row.bytes, row.time_median_us);
    results.rows.push_back(std::move(row));
  }
  return results;
}

const ImporterRegistrar registrar{{"gbench", recognizes, parse}};

}  // namespace
}  // namespace fb
