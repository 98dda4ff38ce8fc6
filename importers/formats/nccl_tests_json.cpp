// nccl-tests JSON output (`-J FILE`, JSON_FILE_VERSION 3 of nccl-tests' src/util.cu): the
// command line in "args", the parameters and one device line per process in "config", and per
// size an "out_of_place" and an "in_place" object (time or cpu_time in us, alg_bw, bus_bw,
// nwrong). With per-iteration timing (-R) the "*_per_iter" objects add min, max, p50, p99 and
// the CV, which become the row's statistics.

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/op_catalog.hpp"
#include "common/rank_placement.hpp"
#include "common/text_scan.hpp"
#include "importers/importer_registry.hpp"
#include "importers/importer_support.hpp"
#include "results/streamed_json.hpp"
#include "importers/nccl_tests_common.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace fb {
namespace {

using Json = nlohmann::json;

bool recognizes(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{' &&
         text.find("\"nccl_version\"") != std::string_view::npos && text.find("\"results\"") != std::string_view::npos;
}

// nccl-tests writes a NaN as the string "nan"; anything but a number is refused.
double number_at(const Json& object, const char* key, const std::string& where) {
  const Json& value = object.at(key);
  if (!value.is_number()) throw InputError(fmt::format("{}: {} is {}, not a number", where, key, value.dump()));
  return value.get<double>();
}

int count_at(const Json& object, const char* key, const std::string& where) {
  const Json& value = object.at(key);
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > 4096)
    throw InputError(fmt::format("{}: {} is {}, not a count between 1 and 4096", where, key, value.dump()));
  return static_cast<int>(value.get<std::int64_t>());
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over nccl-tests' JSON with each field's type checked and refused at its line
std::vector<ResultSet> parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions& options) {
  const std::string file = origin.string();
  Json json;
  try {
    json = parse_json_document(text, file);
  } catch (const Json::parse_error& e) {
    throw input_error_at(file, line_number_at(text, e.byte),
                         fmt::format("not valid nccl-tests JSON (truncated?): {}", e.what()));
  } catch (const Json::exception& e) {
    throw InputError(fmt::format("{}: not valid nccl-tests JSON: {}", file, e.what()));
  }
  ResultSet results;
  Provenance& p = results.provenance;
  p.backend = "nccl-tests";
  p.run_id = "nccl-tests-" + origin.stem().string();
  try {
    p.start_time = json.value("start_time", "");
    p.libraries["nccl"] = std::to_string(json.at("nccl_version").get<std::int64_t>());
    std::optional<std::string> op;
    if (json.contains("args") && json.at("args").is_array() && !json.at("args").empty()) {
      for (const Json& arg : json.at("args"))
        p.command_line += (p.command_line.empty() ? "" : " ") + arg.get<std::string>();
      op = op_from_test_program(json.at("args").at(0).get<std::string>());
    }
    if (!op) op = op_from_file_name(origin);
    if (!op)
      throw InputError(fmt::format("{}: cannot tell which collective this is: args[0] is not a known test binary; "
                                   "name the file after the test (e.g. all_reduce_perf.json)",
                                   file));
    const Json& config = json.at("config");
    const std::string config_where = fmt::format("{}: config", file);
    const int per_process = count_at(config, "nthreads", config_where) * count_at(config, "ngpus", config_where);
    const int iterations =
        row_iterations(static_cast<std::uint64_t>(std::max<std::int64_t>(config.value("iterations", 0), 0)),
                       config_where, p.assumptions);
    // One device line per process (the others of a multi-GPU process are not in the file).
    std::vector<std::string> process_hosts;
    if (config.contains("devices"))
      for (const Json& device : config.at("devices")) process_hosts.push_back(device.value("hostname", ""));
    if (process_hosts.empty()) {
      if (!options.nranks) throw InputError(fmt::format("{}: config has no devices: pass --ranks N", file));
      p.nranks = *options.nranks;
      p.rank_hosts.assign(static_cast<std::size_t>(p.nranks), "");
      p.assumptions.push_back("the file lists no devices: hosts and node count unknown (nodes recorded as 0)");
    } else {
      for (const std::string& host : process_hosts)
        p.rank_hosts.insert(p.rank_hosts.end(), static_cast<std::size_t>(per_process), host);
      p.nranks = static_cast<int>(p.rank_hosts.size());
      const NodeCount count = count_nodes(p.rank_hosts);
      p.nodes = count.nodes;
      p.ranks_per_node = count.ranks_per_node;
    }

    const Json& sizes = json.at("results");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const Json& size = sizes.at(i);
      const std::string where = fmt::format("{}: results[{}]", file, i);
      const Json& bytes = size.at("size");
      const Json& count = size.at("count");
      if (!bytes.is_number_unsigned() || !count.is_number_unsigned())
        throw InputError(fmt::format("{}: size and count must be whole numbers", where));
      // The root is written as the table prints it, padded: "    -1".
      const std::optional<std::int64_t> root = to_integer(trim(size.at("root").get<std::string>()));
      if (!root || *root < -1 || *root > 1'000'000)
        throw InputError(fmt::format("{}: root is not -1 or a rank", where));
      for (const bool in_place : {false, true}) {
        const char* key = in_place ? "in_place" : "out_of_place";
        if (!size.contains(key) || size.at(key).is_null()) continue;  // trace replay writes only in-place
        const Json& measured = size.at(key);
        const std::string measured_where = fmt::format("{}.{}", where, key);
        ResultRow row;
        row.run_id = p.run_id;
        row.backend = p.backend;
        row.op = *op;
        row.dtype = size.at("type").get<std::string>();
        row.redop = size.at("redop").get<std::string>();
        if (*root >= 0) row.root = static_cast<int>(*root);
        row.in_place = in_place;
        row.nranks = p.nranks;
        row.nodes = p.nodes;
        row.ranks_per_node = p.ranks_per_node;
        row.bytes = bytes.get<std::uint64_t>();
        row.count = count.get<std::uint64_t>();
        row.iterations = iterations;
        const double time_us = number_at(measured, measured.contains("time") ? "time" : "cpu_time", measured_where);
        row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = time_us;
        const std::string per_iteration_key = std::string(key) + "_per_iter";
        if (size.contains(per_iteration_key)) {
          const Json& stats = size.at(per_iteration_key);
          const std::string stats_where = fmt::format("{}.{}", where, per_iteration_key);
          row.time_min_us = number_at(stats, "min_us", stats_where);
          row.time_median_us = number_at(stats, "p50_us", stats_where);
          row.time_p99_us = number_at(stats, "p99_us", stats_where);
          row.time_max_us = number_at(stats, "max_us", stats_where);
          row.time_cv = number_at(stats, "cv_pct", stats_where) / 100;
        } else {
          row.unreported_statistics = std::string(nccl_tests_unreported_statistics);
        }
        row.algbw_gbps = number_at(measured, "alg_bw", measured_where);
        if (p.nranks > 1) row.busbw_gbps = number_at(measured, "bus_bw", measured_where);
        const Json& wrong = measured.at("nwrong");
        if (!wrong.is_null()) {
          const std::optional<std::uint64_t> whole =
              wrong.is_number() ? whole_number(wrong.get<double>()) : std::nullopt;
          if (!whole) throw InputError(fmt::format("{}: nwrong is {}, not a count", measured_where, wrong.dump()));
          row.wrong = *whole;
        }
        results.rows.push_back(std::move(row));
      }
    }
  } catch (const Json::exception& e) {
    throw InputError(fmt::format("{}: not an nccl-tests JSON file: {}", file, e.what()));
  }
  if (results.rows.empty()) throw InputError(fmt::format("{}: no results in this nccl-tests JSON file", file));
  return one_run(std::move(results));
}

const Registrar<Importer> registrar{{"nccl-tests-json", "nccl-tests JSON output (-J FILE)", recognizes, parse}};

}  // namespace
}  // namespace fb
