// OSU micro-benchmark logs: osu_latency, osu_bw, osu_bibw (point-to-point between ranks 0 and 1)
// and osu_allreduce, osu_allgather (latency only). OSU semantics: latency is already one-way (half
// the round trip); bandwidth is decimal MB/s (1 MB/s = 1e6 B/s) and counts both directions for
// bibw; a collective's size is the per-process message.

#include "core/errors.hpp"
#include "core/op_catalog.hpp"
#include "importers/importer_registry.hpp"
#include "importers/text_lines.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <map>

namespace fb {
namespace {

struct OsuTest {
  std::string_view banner;  // what follows "# OSU MPI[-CUDA|-ROCM] " up to " Test"
  std::string_view op;      // fabricbench op name
  bool bandwidth;           // the value column is MB/s, not us
};

// Longest banners first: "Bi-Directional Bandwidth" before "Bandwidth".
constexpr std::array<OsuTest, 5> osu_tests{{
    {"Bi-Directional Bandwidth", "bibw", true},
    {"Bandwidth", "bw", true},
    {"Allreduce Latency", "all_reduce", false},
    {"Allgather Latency", "all_gather", false},
    {"Latency", "latency", false},
}};

enum class Column { size, value, min_us, max_us, p99_us, iterations, other };

Column column_of(std::string_view name) {
  if (name == "Size") return Column::size;
  if (name == "Latency (us)" || name == "Avg Latency(us)" || name == "Bandwidth (MB/s)") return Column::value;
  if (name == "Min Latency(us)") return Column::min_us;
  if (name == "Max Latency(us)") return Column::max_us;
  if (name == "P99 Tail Lat(us)") return Column::p99_us;
  if (name == "Iterations") return Column::iterations;
  return Column::other;
}

// OSU separates column names by runs of spaces; a name holds single spaces ("Avg Latency(us)").
std::vector<std::string_view> header_columns(std::string_view header) {
  std::vector<std::string_view> names;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= header.size(); ++i) {
    const bool separator = i == header.size() || header[i] == '\t' ||
                           (header[i] == ' ' && i + 1 < header.size() && header[i + 1] == ' ');
    if (!separator) continue;
    if (const std::string_view name = trim(header.substr(start, i - start)); !name.empty()) names.push_back(name);
    start = i + 1;
  }
  return names;
}

std::pair<std::string, std::size_t> dtype_of(std::string_view mpi_type) {
  if (mpi_type == "MPI_CHAR" || mpi_type == "MPI_BYTE" || mpi_type == "MPI_SIGNED_CHAR") return {"int8", 1};
  if (mpi_type == "MPI_INT") return {"int32", 4};
  if (mpi_type == "MPI_FLOAT") return {"float", 4};
  if (mpi_type == "MPI_DOUBLE") return {"double", 8};
  return {std::string(mpi_type), 1};
}

bool recognizes(std::string_view text) { return text.starts_with("# OSU MPI") || text.find("\n# OSU MPI") != std::string_view::npos; }

ResultSet parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions& options) {
  const std::string file = origin.string();
  const auto fail = [&](int line, std::string_view what) {
    return InputError(fmt::format("{}:{}: {}", file, line, what));
  };
  ResultSet results;
  Provenance& provenance = results.provenance;
  provenance.backend = "osu";
  provenance.run_id = "osu-" + origin.stem().string();
  const OsuTest* test = nullptr;
  int banner_line = 0;
  std::optional<std::string> mpi_datatype;
  std::vector<Column> columns;
  for (const TextLine& line : split_lines(text)) {
    const std::string_view trimmed = trim(line.text);
    if (trimmed.empty()) continue;
    if (trimmed.starts_with("# OSU MPI")) {
      // "# OSU MPI Latency Test v7.3", "# OSU MPI-CUDA Bi-Directional Bandwidth Test v5.9"
      const std::size_t name_start = trimmed.find(' ', 6) + 1;
      const std::size_t test_word = trimmed.find(" Test");
      if (test_word == std::string_view::npos || name_start == 0 || test_word < name_start)
        throw fail(line.number, "an OSU banner without '... Test vX.Y'");
      const std::string_view name = trimmed.substr(name_start, test_word - name_start);
      for (const OsuTest& candidate : osu_tests)
        if (name == candidate.banner) test = &candidate;
      if (!test)
        throw fail(line.number, fmt::format("OSU test '{}' is not imported (osu_latency, osu_bw, osu_bibw, "
                                            "osu_allreduce, osu_allgather are)", name));
      banner_line = line.number;
      const std::vector<std::string_view> tokens = split_whitespace(trimmed);
      provenance.tool_version = fmt::format("OSU Micro-Benchmarks {}", tokens.back());
      provenance.libraries["osu-micro-benchmarks"] = std::string(tokens.back());
      continue;
    }
    if (trimmed.starts_with("# Datatype:")) {
      std::string_view type = trim(trimmed.substr(11));
      if (type.ends_with('.')) type.remove_suffix(1);
      mpi_datatype = std::string(type);
      continue;
    }
    if (trimmed.starts_with("# Size")) {
      columns.clear();
      for (std::string_view name : header_columns(trimmed.substr(1))) columns.push_back(column_of(name));
      continue;
    }
    if (trimmed.starts_with("#")) continue;
    const std::vector<std::string_view> tokens = split_whitespace(trimmed);
    if (!to_integer(tokens[0])) continue;  // MPI library warnings between rows
    if (!test) throw fail(line.number, "a measurement row before the '# OSU MPI ... Test' banner");
    if (columns.empty()) throw fail(line.number, "a measurement row before the '# Size ...' column header");
    if (tokens.size() != columns.size())
      throw fail(line.number, fmt::format("expected {} columns as in the '# Size' header, found {}{}", columns.size(),
                                          tokens.size(), tokens.size() < columns.size() ? " (truncated log?)" : ""));
    std::map<Column, double> values;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const std::optional<double> value = to_double(tokens[i]);
      if (!value) throw fail(line.number, fmt::format("column {} is '{}', not a number", i + 1, tokens[i]));
      values[columns[i]] = *value;
    }
    if (!values.contains(Column::value))
      throw fail(line.number, "the '# Size' header names no latency or bandwidth column");

    const OpTraits& op = op_by_name(test->op);
    const bool collective = op.op_class == OpClass::collective;
    int nranks = 2;
    if (collective) {
      if (!options.nranks)
        throw fail(banner_line, fmt::format("OSU {} logs do not say how many processes ran: pass --ranks N",
                                            test->banner));
      nranks = *options.nranks;
    }
    // OSU's defaults: osu_allreduce reduced floats before OSU 7 added '# Datatype'; the rest send bytes.
    const auto [dtype, element_bytes] =
        dtype_of(mpi_datatype.value_or(test->op == "all_reduce" ? "MPI_FLOAT" : "MPI_CHAR"));
    const std::optional<std::uint64_t> size = whole_number(values[Column::size]);
    if (!size) throw fail(line.number, fmt::format("size {} is not a whole number of bytes", values[Column::size]));
    const std::uint64_t message_bytes = *size;

    ResultRow row;
    row.run_id = provenance.run_id;
    row.backend = provenance.backend;
    row.op = std::string(test->op);
    row.dtype = dtype;
    row.redop = op.takes_redop ? "sum" : "none";
    row.nranks = nranks;
    // nccl-tests size semantics: the whole buffer for all_gather, OSU's size is one process's part.
    row.bytes = op.size_is_whole_buffer ? message_bytes * static_cast<std::uint64_t>(nranks) : message_bytes;
    row.count = message_bytes / element_bytes;
    if (!collective) {
      row.src_rank = 0;
      row.dst_rank = 1;
    }
    if (values.contains(Column::iterations)) {
      const std::optional<std::uint64_t> iterations = whole_number(values[Column::iterations]);
      if (!iterations || *iterations > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw fail(line.number, fmt::format("iterations {} is not a count", values[Column::iterations]));
      row.iterations = static_cast<int>(*iterations);
    }
    if (test->bandwidth) {
      const double mbps = values[Column::value];
      row.algbw_gbps = mbps / 1e3;
      // One message's time: bytes moved (both directions for bibw) at the reported rate.
      row.time_median_us = mbps > 0 ? static_cast<double>(message_bytes) * op.algbw_bytes_factor / mbps : 0;
    } else {
      row.time_median_us = values[Column::value];
      row.algbw_gbps = gbps_from(row.bytes, row.time_median_us);
    }
    // Only what the log says: min and max when printed (-f), else the one value. The p99 is bounded
    // by the max when OSU printed no tail latency.
    row.time_min_us = values.contains(Column::min_us) ? values[Column::min_us] : row.time_median_us;
    row.time_max_us = values.contains(Column::max_us) ? values[Column::max_us] : row.time_median_us;
    row.time_p99_us = values.contains(Column::p99_us) ? values[Column::p99_us] : row.time_max_us;
    if (const std::optional<double> factor = busbw_factor_for(op, nranks)) row.busbw_gbps = row.algbw_gbps * *factor;
    results.rows.push_back(std::move(row));
  }
  if (!test) throw fail(1, "no '# OSU MPI ... Test' banner");
  if (results.rows.empty()) throw fail(banner_line, "no measurement rows after the OSU banner (truncated log?)");
  provenance.nranks = results.rows.front().nranks;
  return results;
}

const ImporterRegistrar registrar{{"osu", recognizes, parse}};

}  // namespace
}  // namespace fb
