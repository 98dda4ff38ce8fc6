// OSU micro-benchmark logs: osu_latency, osu_bw, osu_bibw (point-to-point between ranks 0 and 1)
// and osu_allreduce, osu_allgather (latency only). OSU semantics: latency is already one-way (half
// the round trip); bandwidth is decimal MB/s (1 MB/s = 1e6 B/s) and counts both directions for
// bibw; a collective's size is the per-process message. Real logs also carry a `Validation`
// column (--validation), the buffer placement of the CUDA/ROCm builds ("Send Buffer on DEVICE (D)
// and Receive Buffer on DEVICE (D)"), several tests one after another separated by dashes, and
// the min/max/iterations columns of -f.

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/op_catalog.hpp"
#include "common/text_scan.hpp"
#include "importers/importer_registry.hpp"
#include "importers/importer_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <tuple>
#include <limits>

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

constexpr std::string_view failed_validation =
    "OSU --validation reports Pass or Fail per size: each failed size is recorded as 1 wrong element";

const OsuTest& op_test(std::string_view op) {
  return *std::find_if(osu_tests.begin(), osu_tests.end(), [&](const OsuTest& t) { return t.op == op; });
}

enum class Column { size, value, min_us, max_us, p50_us, p99_us, iterations, validation, other, count };

// The numbers of one row by column; a flat array, as a map per row would allocate for every line.
class RowValues {
 public:
  bool contains(Column column) const { return values_[index(column)].has_value(); }
  double& operator[](Column column) {
    std::optional<double>& value = values_[index(column)];
    if (!value) value = 0;
    return *value;
  }

 private:
  static std::size_t index(Column column) { return static_cast<std::size_t>(column); }
  std::array<std::optional<double>, static_cast<std::size_t>(Column::count)> values_{};
};

Column column_of(std::string_view name) {
  if (name == "Size") return Column::size;
  if (name == "Latency (us)" || name == "Avg Latency(us)" || name == "Bandwidth (MB/s)") return Column::value;
  if (name == "Min Latency(us)") return Column::min_us;
  if (name == "Max Latency(us)") return Column::max_us;
  if (name == "P50 Tail Lat(us)") return Column::p50_us;
  if (name == "P99 Tail Lat(us)") return Column::p99_us;
  if (name == "Iterations") return Column::iterations;
  if (name == "Validation") return Column::validation;
  return Column::other;
}

// OSU separates column names by runs of spaces; a name holds single spaces ("Avg Latency(us)").
std::vector<std::string_view> header_columns(std::string_view header) {
  std::vector<std::string_view> names;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= header.size(); ++i) {
    const bool separator =
        i == header.size() || header[i] == '\t' || (header[i] == ' ' && i + 1 < header.size() && header[i + 1] == ' ');
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

// What a '# Size' header's value column measures: OSU prints a latency or a bandwidth column.
enum class Measures { latency, bandwidth };

std::optional<Measures> measures_of(const std::vector<std::string_view>& names) {
  for (const std::string_view name : names) {
    if (name == "Bandwidth (MB/s)") return Measures::bandwidth;
    if (name == "Latency (us)" || name == "Avg Latency(us)") return Measures::latency;
  }
  return std::nullopt;
}

bool recognizes(std::string_view text) {
  if (text.find("# OSU MPI") != std::string_view::npos) return true;
  // Sections pasted without their banner still carry OSU's column header.
  const std::size_t size = text.find("# Size");
  if (size == std::string_view::npos) return false;
  const std::string_view header = text.substr(size, text.find('\n', size) - size);
  return measures_of(header_columns(header.substr(1))).has_value();
}

// "Send Buffer on DEVICE (D) and Receive Buffer on HOST (H)" -> {"device", "host"}.
std::pair<std::string, std::string> buffer_placement(std::string_view line) {
  const auto place = [&](std::string_view side) {
    const std::size_t at = line.find(side);
    if (at == std::string_view::npos) return std::string();
    const std::vector<std::string_view> words = split_whitespace(line.substr(at + side.size()));
    if (words.empty()) return std::string();
    std::string word(words.front());
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return word;
  };
  return {place("Send Buffer on"), place("Receive Buffer on")};
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over every OSU benchmark's banner, header and row layouts, each refused at its line; a state machine reads best in one place
std::vector<ResultSet> parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions& options) {
  const std::string file = origin.string();
  // A test whose banner comes again starts another run (a script that repeated it into one file).
  std::vector<ResultSet> runs;
  std::set<std::string_view> ops_in_run;
  ResultSet results;
  Provenance& provenance = results.provenance;
  const auto start_run = [&] {
    results = ResultSet{};
    provenance.backend = "osu";
    provenance.run_id = "osu-" + origin.stem().string();
    ops_in_run.clear();
  };
  start_run();
  const OsuTest* test = nullptr;
  std::size_t banner_line = 0;
  // The latest test of each kind a banner named: a section without its banner repeats it.
  std::array<const OsuTest*, 2> latest_of_kind{};
  const auto kind_of = [](const OsuTest& t) { return static_cast<std::size_t>(t.bandwidth ? 1 : 0); };
  // A test begins (a banner, or a header without one): the run so far ends if it already held this test.
  const auto begin_test = [&](const OsuTest& next, std::size_t line_number) {
    if (ops_in_run.contains(next.op) && !results.rows.empty()) {
      provenance.nranks = results.rows.front().nranks;
      runs.push_back(std::move(results));
      start_run();
    }
    ops_in_run.insert(next.op);
    test = &next;
    latest_of_kind[kind_of(next)] = &next;
    banner_line = line_number;
  };
  std::optional<std::string> mpi_datatype;
  std::vector<Column> columns;
  std::pair<std::string, std::string> buffers;
  const std::vector<NumberedLine> lines = split_lines(text);
  // A file that does not end with a newline was cut: its last line may be a row cut mid-number
  // ("256   0" of "256   0.52").
  const std::size_t cut_line = !text.empty() && text.back() != '\n' && !lines.empty() ? lines.back().number : 0;
  // Every row starts with a digit: reserving for those lines avoids holding the rows up to three
  // times while the vector grows.
  results.rows.reserve(static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [](const NumberedLine& line) {
    const std::string_view content = trim(line.text);
    return !content.empty() && content.front() >= '0' && content.front() <= '9';
  })));
  for (const NumberedLine& line : lines) {
    const std::string_view trimmed = trim(line.text);
    if (trimmed.empty()) continue;
    if (trimmed.starts_with("# OSU MPI")) {
      // "# OSU MPI Latency Test v7.3", "# OSU MPI-CUDA Bi-Directional Bandwidth Test v5.9"
      const std::size_t name_start = trimmed.find(' ', 6) + 1;
      const std::size_t test_word = trimmed.find(" Test");
      if (test_word == std::string_view::npos || name_start == 0 || test_word < name_start)
        throw input_error_at(file, line.number, "an OSU banner without '... Test vX.Y'");
      const std::string_view name = trimmed.substr(name_start, test_word - name_start);
      test = nullptr;
      for (const OsuTest& candidate : osu_tests)
        if (name == candidate.banner) test = &candidate;
      if (!test)
        throw input_error_at(file, line.number,
                             fmt::format("OSU test '{}' is not imported (osu_latency, osu_bw, osu_bibw, "
                                         "osu_allreduce, osu_allgather are)",
                                         name));
      begin_test(*test, line.number);
      buffers = {};
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
    if (trimmed.starts_with("# Send Buffer on")) {
      buffers = buffer_placement(trimmed);
      continue;
    }
    if (trimmed.starts_with("# Size")) {
      const std::vector<std::string_view> names = header_columns(trimmed.substr(1));
      columns.clear();
      for (std::string_view name : names) columns.push_back(column_of(name));
      // The header, not the banner before it, says what the numbers are: a section pasted without
      // its banner is never read with another test's units (26.01 us as 0.026 GB/s).
      const std::optional<Measures> measures = measures_of(names);
      if (measures && (!test || test->bandwidth != (*measures == Measures::bandwidth))) {
        const bool bandwidth = *measures == Measures::bandwidth;
        const OsuTest* latest = latest_of_kind[bandwidth ? 1 : 0];
        const OsuTest& typed = latest ? *latest : op_test(bandwidth ? "bw" : "latency");
        begin_test(typed, line.number);
        provenance.assumptions.push_back(fmt::format(
            "line {}: a '# Size' header without its '# OSU MPI ... Test' banner: its {} column is read as {} ({})",
            line.number, bandwidth ? "bandwidth" : "latency", typed.banner,
            latest      ? "the latest test of that kind named in the file"
            : bandwidth ? "osu_bibw prints the same header"
                        : "a collective's latency prints the same header"));
      }
      continue;
    }
    if (trimmed.starts_with("#")) continue;
    const std::vector<std::string_view> tokens = split_whitespace(trimmed);
    if (!to_integer(tokens[0])) continue;  // MPI library warnings between rows
    if (line.number == cut_line) {
      provenance.assumptions.push_back(
          fmt::format("line {} ('{}') ends the file without a newline: cut mid-row, not imported", line.number,
                      trimmed));
      continue;
    }
    if (!test) throw input_error_at(file, line.number, "a measurement row before the '# OSU MPI ... Test' banner");
    if (columns.empty())
      throw input_error_at(file, line.number, "a measurement row before the '# Size ...' column header");
    if (tokens.size() != columns.size())
      throw input_error_at(file, line.number,
                           fmt::format("expected {} columns as in the '# Size' header, found {}{}", columns.size(),
                                       tokens.size(), tokens.size() < columns.size() ? " (truncated log?)" : ""));
    RowValues values;
    std::optional<bool> validated;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (columns[i] == Column::validation) {
        if (tokens[i] != "Pass" && tokens[i] != "Fail")
          throw input_error_at(file, line.number, fmt::format("validation '{}' is neither Pass nor Fail", tokens[i]));
        validated = tokens[i] == "Pass";
        continue;
      }
      const std::optional<double> value = to_double(tokens[i]);
      if (!value)
        throw input_error_at(file, line.number, fmt::format("column {} is '{}', not a number", i + 1, tokens[i]));
      values[columns[i]] = *value;
    }
    if (!values.contains(Column::value))
      throw input_error_at(file, line.number, "the '# Size' header names no latency or bandwidth column");
    // OSU prints two decimals: a zero is no measurement (a cut row, or a rate below 0.005 MB/s).
    if (!(values[Column::value] > 0))
      throw input_error_at(file, line.number,
                           fmt::format("{} {} is not a measurement (a cut line?)",
                                       test->bandwidth ? "bandwidth" : "latency", values[Column::value]));

    const OpTraits& op = op_by_name(test->op);
    const bool collective = op.op_class == OpClass::collective;
    int nranks = 2;
    if (collective) {
      if (!options.nranks)
        throw input_error_at(file, banner_line,
                             fmt::format("OSU {} logs do not say how many processes ran: pass --ranks N",
                                         test->banner));
      nranks = *options.nranks;
    }
    // OSU's defaults: its reductions reduced floats before OSU 7 added '# Datatype'; the rest send bytes.
    const auto [dtype, element_bytes] = dtype_of(mpi_datatype.value_or(op.takes_redop ? "MPI_FLOAT" : "MPI_CHAR"));
    const std::optional<std::uint64_t> size = whole_number(values[Column::size]);
    if (!size)
      throw input_error_at(file, line.number,
                           fmt::format("size {} is not a whole number of bytes", values[Column::size]));
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
    std::tie(row.src_device, row.dst_device) = buffers;
    // --validation: Pass or Fail per size, not a count; a failed size is recorded as 1 wrong element.
    if (validated) row.wrong = *validated ? 0 : 1;
    if (validated == false && std::find(provenance.assumptions.begin(), provenance.assumptions.end(),
                                        std::string(failed_validation)) == provenance.assumptions.end())
      provenance.assumptions.emplace_back(failed_validation);
    if (values.contains(Column::iterations)) {
      const std::optional<std::uint64_t> iterations = whole_number(values[Column::iterations]);
      if (!iterations || *iterations > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw input_error_at(file, line.number,
                             fmt::format("iterations {} is not a count", values[Column::iterations]));
      row.iterations = static_cast<int>(*iterations);
    }
    if (test->bandwidth) {
      const double mbps = values[Column::value];
      row.algbw_gbps = mbps / 1e3;
      // One message's time: bytes moved (both directions for bibw) at the reported rate.
      row.time_median_us = static_cast<double>(message_bytes) * op.algbw_bytes_factor / mbps;
    } else if (values.contains(Column::p50_us)) {
      // OSU 7's percentile columns: the average is the mean, P50 the median the bandwidth uses.
      row.time_mean_us = values[Column::value];
      row.time_median_us = values[Column::p50_us];
      row.algbw_gbps = gbps_from(row.bytes, row.time_median_us);
    } else {
      row.time_median_us = values[Column::value];
      row.algbw_gbps = gbps_from(row.bytes, row.time_median_us);
    }
    // Only what the log says: min and max when printed (-f), p99 when printed; the rest is marked
    // unreported and holds the one value.
    std::string unreported;
    const auto statistic = [&](Column column, std::string_view field) {
      if (values.contains(column)) return values[column];
      unreported += (unreported.empty() ? "" : " ") + std::string(field);
      return row.time_median_us;
    };
    row.time_min_us = statistic(Column::min_us, "time_min_us");
    row.time_p99_us = statistic(Column::p99_us, "time_p99_us");
    row.time_max_us = statistic(Column::max_us, "time_max_us");
    row.unreported_statistics = unreported + (unreported.empty() ? "" : " ") + "time_cv";
    if (const std::optional<double> factor = busbw_factor_for(op, nranks)) row.busbw_gbps = row.algbw_gbps * *factor;
    results.rows.push_back(std::move(row));
  }
  if (!test) throw input_error_at(file, 1, "no '# OSU MPI ... Test' banner");
  if (results.rows.empty())
    throw input_error_at(file, banner_line, "no measurement rows after the OSU banner (truncated log?)");
  provenance.nranks = results.rows.front().nranks;
  runs.push_back(std::move(results));
  number_runs(runs);
  return runs;
}

const Registrar<Importer> registrar{
    {"osu", "OSU micro-benchmark logs (osu_latency, osu_bw, osu_bibw, osu_allreduce, osu_allgather)", recognizes,
     parse}};

}  // namespace
}  // namespace fb
