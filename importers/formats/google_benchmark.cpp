// Google Benchmark output, JSON (--benchmark_format=json or --benchmark_out) or the console
// table: one row per benchmark run name. The size is the bytes one iteration processed, as set by
// SetBytesProcessed: bytes_per_second x cpu_time, because Google Benchmark divides by CPU time
// unless the benchmark uses real or manual time. The time statistics come from the repetitions
// when there are several, from the mean/median/stddev/cv aggregates when only those were written
// (--benchmark_report_aggregates_only), else there is one time and no spread.

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"
#include "importers/importer_registry.hpp"
#include "importers/importer_support.hpp"
#include "results/streamed_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace fb {
namespace {

using Json = nlohmann::json;

double microseconds_per(std::string_view unit) {
  if (unit == "ns") return 1e-3;
  if (unit == "us") return 1;
  if (unit == "ms") return 1e3;
  if (unit == "s") return 1e6;
  return 0;
}

struct Repetition {
  double real_time_us = 0;
  double cpu_time_us = 0;
  std::optional<double> bytes_per_second;
  std::int64_t iterations = 0;
};

// Everything reported for one run name.
struct Measurements {
  std::vector<Repetition> repetitions;
  std::map<std::string, Repetition> aggregates;  // mean, median, stddev, cv
  bool manual_or_real_time = false;              // the rate is per real second (UseRealTime, UseManualTime)
};

constexpr std::array<std::string_view, 4> aggregate_names{"mean", "median", "stddev", "cv"};

// "BM_Copy/4096_median" -> {"BM_Copy/4096", "median"}; empty aggregate for a repetition.
std::pair<std::string, std::string> split_aggregate(std::string_view name) {
  for (const std::string_view aggregate : aggregate_names)
    if (name.size() > aggregate.size() + 1 && name.ends_with(aggregate) &&
        name[name.size() - aggregate.size() - 1] == '_')
      return {std::string(name.substr(0, name.size() - aggregate.size() - 1)), std::string(aggregate)};
  return {std::string(name), {}};
}

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// Google Benchmark grows the iteration count until a run lasts long enough: a body of a few
// nanoseconds runs more than 2^31 times, which is said rather than cut silently.
int iterations_of(const std::string& name, const Repetition& repetition, Provenance& provenance) {
  return row_iterations(static_cast<std::uint64_t>(std::max<std::int64_t>(repetition.iterations, 0)), name,
                        provenance.assumptions);
}

ResultRow to_row(const std::string& name, const Measurements& m, Provenance& provenance) {
  ResultRow row;
  row.run_id = provenance.run_id;
  row.backend = provenance.backend;
  row.op = name.substr(0, name.find('/'));  // the family: BM_Copy/4096/real_time -> BM_Copy
  row.redop = "none";
  row.nranks = 1;
  row.nodes = 1;
  row.ranks_per_node = 1;
  const Repetition* rate_source = nullptr;
  if (m.repetitions.size() > 1) {
    std::vector<double> times;
    for (const Repetition& r : m.repetitions) times.push_back(r.real_time_us);
    std::sort(times.begin(), times.end());
    double mean = 0;
    for (double t : times) mean += t;
    mean /= static_cast<double>(times.size());
    double variance = 0;
    for (double t : times) variance += (t - mean) * (t - mean);
    row.time_min_us = times.front();
    row.time_max_us = times.back();
    row.time_median_us = median_of_sorted(times);
    // Nearest-rank p99: with few repetitions it is the max.
    row.time_p99_us = times[static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(times.size()))) - 1];
    row.time_cv = mean > 0 ? std::sqrt(variance / static_cast<double>(times.size() - 1)) / mean : 0;
    row.iterations = iterations_of(name, m.repetitions.front(), provenance);
    rate_source = &m.repetitions.front();
  } else if (!m.repetitions.empty()) {
    const Repetition& only = m.repetitions.front();
    row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = only.real_time_us;
    row.unreported_statistics = "time_min_us time_p99_us time_max_us time_cv";
    row.iterations = iterations_of(name, only, provenance);
    rate_source = &only;
  } else {
    // Aggregates only: the median (or the mean) is the time, the cv the spread; no extremes.
    const auto median = m.aggregates.find("median");
    const auto mean = m.aggregates.find("mean");
    rate_source = median != m.aggregates.end() ? &median->second : &mean->second;
    row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = rate_source->real_time_us;
    row.unreported_statistics = "time_min_us time_p99_us time_max_us";
    // The cv aggregate is a fraction of the mean, carried in the time fields.
    if (const auto cv = m.aggregates.find("cv"); cv != m.aggregates.end())
      row.time_cv = cv->second.real_time_us;
    else
      row.unreported_statistics += " time_cv";
    if (median == m.aggregates.end())
      provenance.assumptions.push_back(
          fmt::format("{}: no median aggregate: the mean is recorded as the median", name));
  }
  if (rate_source->bytes_per_second) {
    const double seconds = (m.manual_or_real_time ? rate_source->real_time_us : rate_source->cpu_time_us) * 1e-6;
    row.bytes = static_cast<std::uint64_t>(std::llround(*rate_source->bytes_per_second * seconds));
    row.algbw_gbps = gbps_from(row.bytes, row.time_median_us);
  } else {
    provenance.assumptions.push_back(fmt::format(
        "{}: no bytes_per_second (SetBytesProcessed): the size is unknown and recorded as 0, with no bandwidth", name));
  }
  return row;
}

std::vector<ResultSet> results_of(std::map<std::string, Measurements>& runs, Provenance provenance,
                                  const std::string& file) {
  if (runs.empty()) throw InputError(fmt::format("{}: no benchmark runs in this Google Benchmark output", file));
  ResultSet results;
  for (auto& [name, measurements] : runs) {
    if (measurements.repetitions.empty() && !measurements.aggregates.contains("median") &&
        !measurements.aggregates.contains("mean"))
      throw InputError(fmt::format("{}: {} has neither repetitions nor a mean or median aggregate", file, name));
    results.rows.push_back(to_row(name, measurements, provenance));
  }
  results.provenance = std::move(provenance);
  return one_run(std::move(results));
}

Provenance gbench_provenance(const std::filesystem::path& origin) {
  Provenance provenance;
  provenance.backend = "gbench";
  provenance.run_id = "gbench-" + origin.stem().string();
  provenance.nranks = 1;
  provenance.nodes = 1;
  provenance.ranks_per_node = 1;
  return provenance;
}

// --- JSON ---

// Where the JSON document starts: the first line that opens with '{'. What precedes it is what
// the benchmark printed on stderr into the same file (--benchmark_format=json 2>&1).
std::size_t json_start(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return first;
  const std::size_t line = text.find("\n{");
  return line == std::string_view::npos ? std::string_view::npos : line + 1;
}

bool recognizes_json(std::string_view text) {
  return json_start(text) != std::string_view::npos && text.find("\"benchmarks\"") != std::string_view::npos &&
         text.find("\"context\"") != std::string_view::npos;
}

// The line of `document` (the JSON from `start` of `text`, less the lines already removed, whose
// numbers in `text` are `removed`, sorted) holding the parser's 1-based byte offset.
struct LineAt {
  std::size_t begin = 0;
  std::size_t end = 0;     // its newline, or the end of the document
  std::size_t number = 0;  // in `text`
  std::string_view text;   // trimmed
};

LineAt line_at(const std::string& document, std::size_t byte, std::string_view text, std::size_t start,
               const std::vector<std::size_t>& removed) {
  LineAt line;
  const std::size_t at = std::min<std::size_t>(byte == 0 ? 0 : byte - 1, document.size());
  const std::size_t newline_before = document.rfind('\n', at == 0 ? 0 : at - 1);
  line.begin = newline_before == std::string::npos ? 0 : newline_before + 1;
  line.end = std::min(document.find('\n', line.begin), document.size());
  line.text = trim(std::string_view(document).substr(line.begin, line.end - line.begin));
  line.number = line_number_at(text, start) +
                static_cast<std::size_t>(
                    std::count(document.begin(), document.begin() + static_cast<std::ptrdiff_t>(line.begin), '\n'));
  for (const std::size_t r : removed) line.number += r <= line.number ? 1 : 0;
  return line;
}

// Lines of stderr can land inside the document too (a warning printed while the JSON is being
// written): a line where parsing fails that cannot be JSON is left out, named in a warning, and
// the document parsed again. A few such lines at most; anything else is a broken file.
Json parse_tolerating_stray_lines(std::string_view text, std::size_t start, const std::string& file,
                                  Provenance& provenance) {
  Json json;
  constexpr std::size_t most_stray_lines = 16;
  std::string document(text.substr(start));
  std::vector<std::size_t> stray_lines;  // line numbers in `text`
  for (;;) {
    try {
      json = parse_json_document(document, file);
      break;
    } catch (const Json::parse_error& e) {
      const LineAt line = line_at(document, e.byte, text, start, stray_lines);
      const bool json_like = line.text.empty() || std::string_view("{}[]\",-0123456789tfn").find(line.text.front()) !=
                                                      std::string_view::npos;
      if (json_like || stray_lines.size() >= most_stray_lines) {
        // The parser reports a byte offset; a line is what a person can find.
        throw input_error_at(file, line.number,
                             fmt::format("not valid Google Benchmark JSON (truncated?): {}", e.what()));
      }
      stray_lines.push_back(line.number);
      std::sort(stray_lines.begin(), stray_lines.end());
      document.erase(line.begin, line.end < document.size() ? line.end - line.begin + 1 : line.end - line.begin);
    } catch (const Json::exception& e) {  // a number beyond double, which the parser reports without a place
      throw InputError(fmt::format("{}: not valid Google Benchmark JSON: {}", file, e.what()));
    }
  }
  if (!stray_lines.empty()) {
    provenance.assumptions.push_back(
        fmt::format("{} line(s) inside the JSON document are not JSON (stderr output?) and "
                    "were ignored: line(s) {}",
                    stray_lines.size(), fmt::join(stray_lines, ", ")));
  }
  return json;
}

std::vector<ResultSet> parse_json(std::string_view text, const std::filesystem::path& origin, const ImportOptions&) {
  const std::string file = origin.string();
  Provenance provenance = gbench_provenance(origin);
  const std::size_t start = json_start(text);
  const auto skipped_lines = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n');
  if (skipped_lines > 0)
    provenance.assumptions.push_back(
        fmt::format("{} lines before the JSON document (stderr output?) were ignored", skipped_lines));
  Json json = parse_tolerating_stray_lines(text, start, file, provenance);
  std::map<std::string, Measurements> runs;  // by run name, in name order
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
      if (b.contains("error_occurred") && b.at("error_occurred").get<bool>()) continue;
      const std::string where = fmt::format("{}: benchmarks[{}]", file, i);
      const std::string run_type = b.value("run_type", "iteration");
      const std::string aggregate = b.value("aggregate_name", "");
      const bool wanted_aggregate =
          std::find(aggregate_names.begin(), aggregate_names.end(), aggregate) != aggregate_names.end();
      if (run_type != "iteration" && !(run_type == "aggregate" && wanted_aggregate)) continue;
      const std::string unit = b.at("time_unit").get<std::string>();
      const double us = microseconds_per(unit);
      if (us == 0) throw InputError(fmt::format("{}: unknown time_unit '{}'", where, unit));
      // A float here (1e51) would not fit an integer; converting it anyway is undefined behaviour.
      const Json& iterations = b.at("iterations");
      if (!iterations.is_number_integer())
        throw InputError(fmt::format("{}: iterations must be a whole number, got {}", where, iterations.dump()));
      // The cv aggregate is a fraction of the mean, whatever the time unit says.
      const double scale = aggregate == "cv" ? 1 : us;
      Repetition repetition{b.at("real_time").get<double>() * scale, b.at("cpu_time").get<double>() * scale,
                            std::nullopt, iterations.get<std::int64_t>()};
      if (b.contains("bytes_per_second")) repetition.bytes_per_second = b.at("bytes_per_second").get<double>();
      const std::string name = b.value("run_name", b.at("name").get<std::string>());
      Measurements& m = runs[name];
      // Benchmarks timed by real or manual time say so in their name; their rates are per real second.
      m.manual_or_real_time =
          name.find("/real_time") != std::string::npos || name.find("/manual_time") != std::string::npos;
      if (run_type == "iteration")
        m.repetitions.push_back(repetition);
      else
        m.aggregates[aggregate] = repetition;
    }
  } catch (const Json::exception& e) {
    throw InputError(fmt::format("{}: not a Google Benchmark JSON file: {}", file, e.what()));
  }
  return results_of(runs, std::move(provenance), file);
}

// --- console ---

// The header of the console table: "Benchmark   Time   CPU   Iterations" (units in the cells)
// or the old "Benchmark   Time(ns)   CPU(ns) Iterations".
bool is_console_header(std::string_view line) {
  const std::vector<std::string_view> words = split_whitespace(line);
  return words.size() >= 4 && words[0] == "Benchmark" && words[1].starts_with("Time") && words[2].starts_with("CPU") &&
         words[3] == "Iterations";
}

bool recognizes_console(std::string_view text) {
  for (const NumberedLine& line : split_lines(text.substr(0, 64 * 1024)))
    if (is_console_header(line.text)) return true;
  return false;
}

// "133.097kiB/s" (old: bytes, binary prefixes), "bytes_per_second=1.13369Mi/s" (counters), "4.2GB/s".
std::optional<double> bytes_per_second_of(std::string_view token) {
  const bool counter = token.starts_with("bytes_per_second=");
  if (counter) token.remove_prefix(17);
  if (!token.ends_with("/s")) return std::nullopt;
  token.remove_suffix(2);
  if (!counter) {
    if (!token.ends_with('B')) return std::nullopt;
    token.remove_suffix(1);
  }
  double scale = 1;
  const bool binary = token.ends_with('i');
  if (binary) token.remove_suffix(1);
  const std::string_view prefixes = "kMGTPE";
  if (!token.empty() && prefixes.find(token.back() == 'K' ? 'k' : token.back()) != std::string_view::npos) {
    const auto power = prefixes.find(token.back() == 'K' ? 'k' : token.back()) + 1;
    scale = std::pow(binary ? 1024.0 : 1000.0, static_cast<double>(power));
    token.remove_suffix(1);
  } else if (binary) {
    return std::nullopt;
  }
  const std::optional<double> value = to_double(token);
  if (!value) return std::nullopt;
  return *value * scale;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over Google Benchmark's console table (old and new headers, units, aggregates), each refused at its line
std::vector<ResultSet> parse_console(std::string_view text, const std::filesystem::path& origin, const ImportOptions&) {
  const std::string file = origin.string();
  Provenance provenance = gbench_provenance(origin);
  std::map<std::string, Measurements> runs;
  std::optional<double> header_us;  // the old header's unit: Time(ns)
  bool in_table = false;
  for (const NumberedLine& line : split_lines(text)) {
    const std::vector<std::string_view> words = split_whitespace(line.text);
    if (words.empty()) continue;
    if (is_console_header(line.text)) {
      in_table = true;
      header_us.reset();
      if (const std::size_t open = words[1].find('('); open != std::string_view::npos) {
        header_us = microseconds_per(words[1].substr(open + 1, words[1].size() - open - 2));
        if (*header_us == 0)
          throw input_error_at(file, line.number, fmt::format("unknown time unit in '{}'", words[1]));
      }
      continue;
    }
    if (!in_table || words[0].starts_with("---")) continue;
    // name, time [unit], cpu [unit], iterations, counters...
    std::size_t at = 1;
    const auto time_us = [&]() -> double {
      if (at >= words.size()) throw input_error_at(file, line.number, "a benchmark line cut short (truncated output?)");
      const std::optional<double> value = to_double(words[at++]);
      if (!value) throw input_error_at(file, line.number, fmt::format("'{}' is not a time", words[at - 1]));
      double us = header_us.value_or(0);
      if (!header_us) {
        if (at >= words.size()) throw input_error_at(file, line.number, "a time without its unit");
        us = microseconds_per(words[at++]);
        if (us == 0) throw input_error_at(file, line.number, fmt::format("unknown time unit '{}'", words[at - 1]));
      }
      return *value * us;
    };
    const auto [name, aggregate] = split_aggregate(words[0]);
    Measurements& m = runs[name];
    m.manual_or_real_time =
        name.find("/real_time") != std::string::npos || name.find("/manual_time") != std::string::npos;
    if (aggregate == "cv") {
      // The console prints the cv as "0.10 %": a percentage where the times would be.
      const std::optional<double> percent = words.size() > 1 ? to_double(words[1]) : std::nullopt;
      if (!percent) throw input_error_at(file, line.number, "a cv line without its percentage");
      m.aggregates[aggregate] = {*percent / 100, *percent / 100, std::nullopt, 0};
      continue;
    }
    Repetition repetition;
    repetition.real_time_us = time_us();
    repetition.cpu_time_us = time_us();
    const std::optional<std::int64_t> iterations = at < words.size() ? to_integer(words[at]) : std::nullopt;
    // Aggregate lines print the repetitions, or nothing, where repetitions print their iterations.
    if (!iterations && aggregate.empty())
      throw input_error_at(file, line.number, "a benchmark line without an iteration count");
    repetition.iterations = iterations.value_or(0);
    for (std::size_t i = at; i < words.size(); ++i)
      if (const std::optional<double> rate = bytes_per_second_of(words[i])) repetition.bytes_per_second = rate;
    if (aggregate.empty())
      m.repetitions.push_back(repetition);
    else
      m.aggregates[aggregate] = repetition;
  }
  // Repetitions decide when both are present: the aggregates summarise the same numbers.
  return results_of(runs, std::move(provenance), file);
}

const Registrar<Importer> json_registrar{
    {"gbench", "Google Benchmark JSON (--benchmark_format=json or --benchmark_out)", recognizes_json, parse_json}};
const Registrar<Importer> console_registrar{
    {"gbench-console", "Google Benchmark console table", recognizes_console, parse_console}};

}  // namespace
}  // namespace fb
