// perftest output (linux-rdma/perftest: ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat,
// ib_read_lat, ib_send_lat), as point-to-point rows between the two sides (ranks 0 and 1).
// Semantics as perftest prints them: bandwidth in MB/sec of 2^20 bytes, or with --report_gbits
// in Gb/sec of 1.25e8 bytes; latency one-way (half the round trip) in usec, with t_typical the
// median. Each test banner ("RDMA_Write BW Test") starts a run.

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/op_catalog.hpp"
#include "common/text_scan.hpp"
#include "importers/importer_registry.hpp"
#include "importers/importer_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fb {
namespace {

enum class Column { bytes, iterations, bw_peak, bw_average, t_min, t_max, t_typical, t_avg, t_stdev, p99, p999, other };

Column column_of(std::string_view name) {
  if (name == "#bytes") return Column::bytes;
  if (name == "#iterations") return Column::iterations;
  if (name.starts_with("peak[")) return Column::bw_peak;
  if (name.starts_with("average[")) return Column::bw_average;
  if (name == "t_min[usec]") return Column::t_min;
  if (name == "t_max[usec]") return Column::t_max;
  if (name == "t_typical[usec]") return Column::t_typical;
  if (name == "t_avg[usec]") return Column::t_avg;
  if (name == "t_stdev[usec]") return Column::t_stdev;
  if (name == "99%") return Column::p99;
  if (name == "99.9%") return Column::p999;
  return Column::other;
}

// Bytes per second of one unit of the bandwidth columns, from the header's "[MB/sec]".
double bytes_per_second_of_unit(std::string_view name) {
  if (name.ends_with("[MB/sec]")) return 1048576.0;  // perftest's MB is 2^20 bytes
  if (name.ends_with("[Gb/sec]")) return 1.25e8;     // --report_gbits: 10^9 bits
  return 0;
}

struct Header {
  std::vector<Column> columns;
  double bandwidth_unit_bytes_per_second = 0;  // 0: a latency table
};

// " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]" or
// " #bytes #iterations    t_min[usec] ... 99% percentile[usec]   99.9% percentile[usec]": names
// hold spaces, so the words that only qualify a name are dropped.
Header read_header(const std::vector<std::string_view>& words) {
  Header header;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    if (word == "BW" || word == "percentile[usec]") continue;
    if (word == "average" && i > 0 && words[i - 1] == "tps") continue;  // -D latency: "tps average"
    const Column column = column_of(word);
    if (column == Column::bw_average) header.bandwidth_unit_bytes_per_second = bytes_per_second_of_unit(word);
    header.columns.push_back(column);
  }
  return header;
}

bool is_header(const std::vector<std::string_view>& words) {
  return words.size() >= 3 && words[0] == "#bytes" && words[1] == "#iterations";
}

// "RDMA_Write BW Test", "Send Latency Test", "RDMA_Write Bidirectional BW Test".
bool is_banner(std::string_view line) {
  const std::string_view text = trim(line);
  return text.ends_with(" Test") &&
         (text.find(" BW ") != std::string_view::npos || text.find(" Latency ") != std::string_view::npos);
}

std::string tool_of_banner(std::string_view banner) {
  const bool latency = banner.find(" Latency ") != std::string_view::npos;
  std::string verb;
  if (banner.starts_with("RDMA_Write"))
    verb = "write";
  else if (banner.starts_with("RDMA_Read"))
    verb = "read";
  else if (banner.starts_with("Send"))
    verb = "send";
  else if (banner.starts_with("Atomic"))
    verb = "atomic";
  if (verb.empty()) return std::string(trim(banner));
  return fmt::format("ib_{}_{}", verb, latency ? "lat" : "bw");
}

bool recognizes(std::string_view text) {
  return text.find("#bytes") != std::string_view::npos && text.find("#iterations") != std::string_view::npos &&
         (text.find("BW average[") != std::string_view::npos ||
          text.find("t_typical[usec]") != std::string_view::npos || text.find("t_avg[usec]") != std::string_view::npos);
}

struct Run {
  std::string tool;  // ib_write_bw, ...
  bool bidirectional = false;
  std::optional<Header> header;
  bool closed = false;  // the line of dashes after the rows was read
  ResultSet results;
};

// "-------...": perftest draws one above and below each table.
bool is_rule(const std::vector<std::string_view>& words) {
  return words.size() == 1 && words[0].size() >= 3 && words[0].find_first_not_of('-') == std::string_view::npos;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over perftest's banner, header and row layouts (bandwidth and latency, with and without --use_cuda), each refused at its line
std::vector<ResultSet> parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions&) {
  const std::string file = origin.string();
  std::vector<ResultSet> runs;
  Run run;
  // --use_cuda prints which GPU it allocated on before the banner; it holds for the tests after it.
  bool gpu_memory = false;
  const auto finish = [&] {
    if (!run.results.rows.empty()) runs.push_back(std::move(run.results));
    run = Run{};
  };
  std::size_t last_line = 0;
  for (const NumberedLine& line : split_lines(text)) {
    last_line = line.number;
    const std::string_view content = line.text;
    if (is_banner(content)) {
      finish();
      run.tool = tool_of_banner(trim(content));
      run.bidirectional = content.find("Bidirectional") != std::string_view::npos;
      continue;
    }
    if (content.find("CUDA") != std::string_view::npos &&
        (content.find("device") != std::string_view::npos || content.find("Device") != std::string_view::npos))
      gpu_memory = true;
    const std::vector<std::string_view> words = split_whitespace(content);
    if (words.empty()) continue;
    if (is_header(words)) {
      if (run.header && !run.results.rows.empty()) {
        // A second table without a banner: a second run of the same test.
        const std::string tool = run.tool;
        const bool bidirectional = run.bidirectional;
        finish();
        run.tool = tool;
        run.bidirectional = bidirectional;
      }
      run.header = read_header(words);
      continue;
    }
    // The dashes below the rows close the table: what follows until the next header (a shell
    // prompt wrapped onto the next line, the next command) holds no rows.
    if (run.header && !run.results.rows.empty() && is_rule(words)) {
      run.closed = true;
      continue;
    }
    // Rows start with the size; everything else (settings, addresses, dashes, CPU frequency
    // warnings) is context.
    if (!run.header || run.closed || !to_integer(words[0])) continue;
    const Header& header = *run.header;
    if (words.size() != header.columns.size())
      throw input_error_at(file, line.number,
                           fmt::format("expected {} columns as in the '#bytes' header, found {}{}",
                                       header.columns.size(), words.size(),
                                       words.size() < header.columns.size() ? " (truncated log?)" : ""));
    std::map<Column, double> values;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const std::optional<double> value = to_double(words[i]);
      if (!value)
        throw input_error_at(file, line.number, fmt::format("column {} is '{}', not a number", i + 1, words[i]));
      values[header.columns[i]] = *value;
    }
    const std::optional<std::uint64_t> bytes = whole_number(values[Column::bytes]);
    if (!bytes || *bytes == 0)
      throw input_error_at(file, line.number, fmt::format("size '{}' is not a message size", words[0]));
    const bool bandwidth = header.bandwidth_unit_bytes_per_second > 0;
    if (!bandwidth && !values.contains(Column::t_typical) && !values.contains(Column::t_avg))
      throw input_error_at(file, line.number, "a table with neither 'BW average' nor a latency column");

    Provenance& provenance = run.results.provenance;
    if (run.results.rows.empty()) {
      provenance.backend = "perftest";
      provenance.run_id = "perftest-" + origin.stem().string();
      provenance.tool_version = run.tool.empty() ? "perftest" : fmt::format("perftest {}", run.tool);
      provenance.nranks = 2;
      provenance.ranks_per_node = 1;
    }
    ResultRow row;
    row.run_id = provenance.run_id;
    row.backend = provenance.backend;
    row.op = bandwidth ? (run.bidirectional ? "bibw" : "bw") : "latency";
    row.dtype = "int8";
    row.redop = "none";
    row.nranks = 2;
    row.ranks_per_node = 1;
    row.src_rank = 0;
    row.dst_rank = 1;
    // --use_cuda: this side's buffer is in GPU memory; the peer's placement is not in this log.
    if (gpu_memory) row.src_device = "device";
    row.bytes = *bytes;
    row.count = *bytes;
    if (values.contains(Column::iterations)) {
      const std::optional<std::uint64_t> iterations = whole_number(values[Column::iterations]);
      if (!iterations) throw input_error_at(file, line.number, "#iterations is not a count");
      row.iterations = row_iterations(*iterations, fmt::format("line {}", line.number), provenance.assumptions);
    }
    std::string unreported;
    const auto mark_unreported = [&](std::string_view field) {
      unreported += (unreported.empty() ? "" : " ") + std::string(field);
    };
    if (bandwidth) {
      const double average = values[Column::bw_average] * header.bandwidth_unit_bytes_per_second;
      if (!(average > 0))
        throw input_error_at(file, line.number,
                             "BW average is 0: not a measurement (perftest prints 0.00 below its resolution)");
      // Bidirectional rates count both directions, as OSU's bibw: one message's time is twice the bytes at that rate.
      const double factor = run.bidirectional ? 2.0 : 1.0;
      row.algbw_gbps = average / 1e9;
      row.time_median_us = static_cast<double>(*bytes) * factor / average * 1e6;
      row.time_min_us = row.time_p99_us = row.time_max_us = row.time_median_us;
      // The peak rate is the fastest iteration; perftest prints 0.00 when it did not measure one (-D, -N).
      const double peak =
          values.contains(Column::bw_peak) ? values[Column::bw_peak] * header.bandwidth_unit_bytes_per_second : 0;
      if (peak > 0)
        row.time_min_us = static_cast<double>(*bytes) * factor / peak * 1e6;
      else
        mark_unreported("time_min_us");
      mark_unreported("time_p99_us");
      mark_unreported("time_max_us");
      mark_unreported("time_cv");
    } else {
      const bool median_printed = values.contains(Column::t_typical);
      row.time_median_us = median_printed ? values[Column::t_typical] : values[Column::t_avg];
      if (!(row.time_median_us > 0)) throw input_error_at(file, line.number, "latency 0 is not a measurement");
      if (!median_printed)
        provenance.assumptions.push_back(
            fmt::format("line {}: no t_typical (median), the average t_avg is recorded as the median", line.number));
      const auto statistic = [&](Column column, std::string_view field) {
        if (values.contains(column)) return values[column];
        mark_unreported(field);
        return row.time_median_us;
      };
      row.time_min_us = statistic(Column::t_min, "time_min_us");
      row.time_p99_us = statistic(Column::p99, "time_p99_us");
      row.time_max_us = statistic(Column::t_max, "time_max_us");
      if (values.contains(Column::t_stdev) && values.contains(Column::t_avg) && values[Column::t_avg] > 0)
        row.time_cv = values[Column::t_stdev] / values[Column::t_avg];
      else
        mark_unreported("time_cv");
      row.algbw_gbps = gbps_from(row.bytes, row.time_median_us);
    }
    row.unreported_statistics = unreported;
    if (const std::optional<double> factor = busbw_factor_for(op_by_name(row.op), 2))
      row.busbw_gbps = row.algbw_gbps * *factor;
    run.results.rows.push_back(std::move(row));
  }
  finish();
  if (runs.empty())
    throw input_error_at(file, last_line, "no measurement rows under a '#bytes #iterations' header (truncated log?)");
  for (ResultSet& results : runs)
    results.provenance.assumptions.push_back(
        "perftest does not print host names: the two sides are recorded as ranks 0 and 1, with no node count");
  number_runs(runs);
  return runs;
}

const Registrar<Importer> registrar{
    {"perftest", "perftest output (ib_write_bw, ib_read_bw, ib_send_bw and their _lat counterparts)", recognizes,
     parse}};

}  // namespace
}  // namespace fb
