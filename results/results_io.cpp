#include "results/results_io.hpp"

#include "common/errors.hpp"
#include "common/termination_signals.hpp"
#include "common/text_file.hpp"
#include "results/incident_json.hpp"
#include "results/port_counters.hpp"
#include "results/csv_field.hpp"
#include "results/json_fields.hpp"
#include "results/streamed_json.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <istream>
#include <streambuf>
#include <fmt/format.h>
#include "results/fccp_csv.hpp"
#include <nlohmann/json.hpp>

namespace fb {
namespace {

using Json = nlohmann::ordered_json;

// Strings from inputs (host names, environment values) need not be valid UTF-8; JSON text must be.
// Invalid bytes become U+FFFD rather than an exception halfway through writing a results file.
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Conversions between a field's C++ type, its JSON value and its CSV cell text.
template <class T>
struct FieldCodec;

// Text fields are printed by every command (op names, hosts, devices): control characters in a
// file (an ESC sequence that rewrites the terminal, a newline that forges a line) are dropped as
// the file is read.
std::string without_control_characters(std::string_view text) {
  std::string kept;
  kept.reserve(text.size());
  for (const char c : text)
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) kept += c;
  return kept;
}

template <>
struct FieldCodec<std::string> {
  static Json to_json(const std::string& value) { return value; }
  static std::string from_json(const Json& json) { return without_control_characters(json.get<std::string>()); }
  static Json parse_cell(std::string_view cell) { return without_control_characters(cell); }
};

template <>
struct FieldCodec<bool> {
  static Json to_json(bool value) { return value; }
  static bool from_json(const Json& json) { return json.get<bool>(); }
  static Json parse_cell(std::string_view cell) {
    if (cell == "true") return true;
    if (cell == "false") return false;
    throw std::invalid_argument(fmt::format("expected true or false, got '{}'", cell));
  }
};

template <class Number>
Number parse_number(std::string_view cell) {
  Number value{};
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (ec != std::errc{} || end != cell.data() + cell.size() || cell.empty())
    throw std::invalid_argument(fmt::format("expected a number, got '{}'", cell));
  return value;
}

template <class Number>
requires std::is_arithmetic_v<Number>
struct FieldCodec<Number> {
  static Json to_json(Number value) { return value; }
  static Number from_json(const Json& json) {
    if (!json.is_number()) throw std::invalid_argument(fmt::format("expected a number, got {}", json_text(json)));
    if constexpr (std::is_integral_v<Number>) {
      if (const std::optional<Number> whole = json_whole_number<Number>(json)) return *whole;
      throw std::invalid_argument(fmt::format("expected a whole number in range, got {}", json_text(json)));
    }
    return json.get<Number>();
  }
  static Json parse_cell(std::string_view cell) { return parse_number<Number>(cell); }
};

template <class T>
struct FieldCodec<std::optional<T>> {
  static Json to_json(const std::optional<T>& value) { return value ? FieldCodec<T>::to_json(*value) : Json(nullptr); }
  static std::optional<T> from_json(const Json& json) {
    if (json.is_null()) return std::nullopt;
    return FieldCodec<T>::from_json(json);
  }
  static Json parse_cell(std::string_view cell) {
    return cell.empty() ? Json(nullptr) : FieldCodec<T>::parse_cell(cell);
  }
};

struct Field {
  std::string_view name;
  Json (*get)(const ResultRow&);
  void (*set)(ResultRow&, const Json&);
  Json (*parse_cell)(std::string_view);
  // Columns added to the schema after files without them were written: such a file still reads,
  // with the field empty. Only optional fields can be absent.
  bool may_be_absent = false;
};

template <auto Member>
constexpr Field field(std::string_view name) {
  using T = std::remove_cvref_t<decltype(std::declval<ResultRow&>().*Member)>;
  return {name, [](const ResultRow& row) { return FieldCodec<T>::to_json(row.*Member); },
          [](ResultRow& row, const Json& json) { row.*Member = FieldCodec<T>::from_json(json); },
          &FieldCodec<T>::parse_cell};
}

template <auto Member>
constexpr Field added_field(std::string_view name) {
  Field added = field<Member>(name);
  added.may_be_absent = true;
  return added;
}

// The results schema, in column order. "schema" itself precedes these in every row.
constexpr std::array fields{
    field<&ResultRow::run_id>("run_id"),
    field<&ResultRow::backend>("backend"),
    field<&ResultRow::op>("op"),
    field<&ResultRow::dtype>("dtype"),
    field<&ResultRow::redop>("redop"),
    field<&ResultRow::root>("root"),
    field<&ResultRow::in_place>("in_place"),
    field<&ResultRow::nranks>("nranks"),
    field<&ResultRow::nodes>("nodes"),
    field<&ResultRow::ranks_per_node>("ranks_per_node"),
    field<&ResultRow::src_rank>("src_rank"),
    field<&ResultRow::dst_rank>("dst_rank"),
    field<&ResultRow::src_host>("src_host"),
    field<&ResultRow::dst_host>("dst_host"),
    field<&ResultRow::round>("round"),
    field<&ResultRow::concurrent_flows>("concurrent_flows"),
    field<&ResultRow::bytes>("bytes"),
    field<&ResultRow::count>("count"),
    field<&ResultRow::iterations>("iterations"),
    field<&ResultRow::time_min_us>("time_min_us"),
    field<&ResultRow::time_median_us>("time_median_us"),
    field<&ResultRow::time_p99_us>("time_p99_us"),
    field<&ResultRow::time_max_us>("time_max_us"),
    field<&ResultRow::time_cv>("time_cv"),
    field<&ResultRow::algbw_gbps>("algbw_gbps"),
    field<&ResultRow::busbw_gbps>("busbw_gbps"),
    field<&ResultRow::wrong>("wrong"),
    field<&ResultRow::timestamp>("timestamp"),
    added_field<&ResultRow::expected_busbw_gbps>("expected_busbw_gbps"),
    added_field<&ResultRow::expected_time_us>("expected_time_us"),
    added_field<&ResultRow::efficiency_pct>("efficiency_pct"),
    added_field<&ResultRow::src_device>("src_device"),
    added_field<&ResultRow::dst_device>("dst_device"),
    added_field<&ResultRow::unreported_statistics>("unreported_statistics"),
    added_field<&ResultRow::model_algorithm>("model_algorithm"),
    added_field<&ResultRow::model_protocol>("model_protocol"),
    added_field<&ResultRow::model_channels>("model_channels"),
    added_field<&ResultRow::model_limit>("model_limit"),
    added_field<&ResultRow::repetition>("repetition"),
    added_field<&ResultRow::time_mean_us>("time_mean_us"),
    added_field<&ResultRow::busbw_low_gbps>("busbw_low_gbps"),
    added_field<&ResultRow::busbw_high_gbps>("busbw_high_gbps"),
    added_field<&ResultRow::time_low_us>("time_low_us"),
    added_field<&ResultRow::time_high_us>("time_high_us"),
};
constexpr std::size_t column_count = fields.size() + 1;  // + schema

Json row_to_json(const ResultRow& row) {
  Json json;
  json["schema"] = results_schema;
  for (const Field& f : fields) json[std::string(f.name)] = f.get(row);
  return json;
}

// Times, bandwidths and their expectations are finite and not negative in any real measurement:
// an infinity or a negative time passes no threshold honestly and breaks every plot. Nor is any
// of them subnormal (5e-324 µs): its reciprocal, a bandwidth, overflows to infinity. A row counts
// something (an op, at least one rank, no negative number of iterations).
void require_plausible_measurements(const ResultRow& row, const std::string& where) {
  if (row.op.empty()) throw InputError(fmt::format("{}: op is empty", where));
  if (row.nranks < 1) throw InputError(fmt::format("{}: nranks is {}, expected at least 1", where, row.nranks));
  if (row.iterations < 0)
    throw InputError(fmt::format("{}: iterations is {}, expected a count >= 0", where, row.iterations));
  const auto check = [&](std::string_view name, std::optional<double> value) {
    if (value && !(std::isfinite(*value) && *value >= 0))
      throw InputError(fmt::format("{}: {} is {}, expected a finite number >= 0", where, name, *value));
    if (value && *value != 0 && !std::isnormal(*value))
      throw InputError(fmt::format("{}: {} is {}, too small to be a measurement", where, name, *value));
  };
  check("time_min_us", row.time_min_us);
  check("time_median_us", row.time_median_us);
  check("time_p99_us", row.time_p99_us);
  check("time_max_us", row.time_max_us);
  check("time_cv", row.time_cv);
  check("time_mean_us", row.time_mean_us);
  check("algbw_gbps", row.algbw_gbps);
  check("busbw_gbps", row.busbw_gbps);
  check("expected_busbw_gbps", row.expected_busbw_gbps);
  check("expected_time_us", row.expected_time_us);
  check("efficiency_pct", row.efficiency_pct);
  check("busbw_low_gbps", row.busbw_low_gbps);
  check("busbw_high_gbps", row.busbw_high_gbps);
  check("time_low_us", row.time_low_us);
  check("time_high_us", row.time_high_us);
}

void require_schema(const Json& schema, const std::string& where) {
  if (!schema.is_string() || schema.get<std::string>() != results_schema)
    throw InputError(fmt::format("{}: schema is {}, expected \"{}\"", where, json_text(schema), results_schema));
}

Json provenance_to_json(const Provenance& p) {
  return Json{{"run_id", p.run_id},
              {"tool_version", p.tool_version},
              {"git_revision", p.git_revision},
              {"start_time", p.start_time},
              {"command_line", p.command_line},
              {"backend", p.backend},
              {"nranks", p.nranks},
              {"nodes", p.nodes},
              {"ranks_per_node", p.ranks_per_node},
              {"rank_hosts", p.rank_hosts},
              {"kernel", p.kernel},
              {"libraries", p.libraries},
              {"environment", p.environment},
              {"assumptions", p.assumptions},
              {"host_buffer_pages", p.host_buffer_pages.empty() ? Json() : Json(p.host_buffer_pages)},
              {"gpus_per_process", p.gpus_per_process ? Json(*p.gpus_per_process) : Json()}};
}

Provenance provenance_from_json(const Json& json) {
  Provenance p;
  p.run_id = json.at("run_id").get<std::string>();
  p.tool_version = json.at("tool_version").get<std::string>();
  p.git_revision = json.at("git_revision").get<std::string>();
  p.start_time = json.at("start_time").get<std::string>();
  p.command_line = json.at("command_line").get<std::string>();
  p.backend = json.at("backend").get<std::string>();
  p.nranks = json.at("nranks").get<int>();
  p.nodes = json.at("nodes").get<int>();
  p.ranks_per_node = json.at("ranks_per_node").get<int>();
  p.rank_hosts = json.at("rank_hosts").get<std::vector<std::string>>();
  p.kernel = json.at("kernel").get<std::string>();
  p.libraries = json.at("libraries").get<std::map<std::string, std::string>>();
  p.environment = json.at("environment").get<std::map<std::string, std::string>>();
  // Files written before importers recorded assumptions have none.
  p.assumptions = json.value("assumptions", std::vector<std::string>{});
  // Files written before runs recorded their host pages, and runs on device memory, have none.
  if (const auto pages = json.find("host_buffer_pages"); pages != json.end() && !pages->is_null())
    p.host_buffer_pages = pages->get<std::string>();
  // Files written before runs recorded it, and imports whose log does not say it, have none.
  if (const auto gpus = json.find("gpus_per_process"); gpus != json.end() && !gpus->is_null()) {
    p.gpus_per_process = gpus->get<int>();
    if (*p.gpus_per_process < 1)
      throw InputError(fmt::format("gpus_per_process is {}, expected at least 1", *p.gpus_per_process));
  }
  return p;
}

std::string csv_cell(const Json& value) {
  if (value.is_null()) return {};
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) return json_text(value);
  return csv_field(value.get<std::string>());
}

// Comment values must stay on their comment line.
std::string single_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

// Both renderers are a head (everything but the rows), one piece per row and a tail, so that the
// results writer can append a size's rows to the files instead of writing them again.
std::string csv_head(const ResultSet& results) {
  std::string csv = fmt::format("# fabricbench results, schema {}\n", results_schema);
  const Json provenance = provenance_to_json(results.provenance);
  for (const auto& [key, value] : provenance.items())
    csv += fmt::format("# {}: {}\n", key, single_line(value.is_string() ? value.get<std::string>() : json_text(value)));
  // The full record of an incident is in the JSON file; here it is a line for a person.
  for (const Incident& incident : results.incidents)
    csv += fmt::format("# incident: {}\n", single_line(describe_incident(incident)));
  for (const PortCounterChange& change : results.port_counters)
    // Beside rows whose repetition field counts from 0, the line names the field value it means too.
    if (change.degraded())
      csv += fmt::format("# port degraded: {}{}\n", single_line(describe_port_change(change)),
                         change.repetition ? fmt::format(", the rows' repetition {}", *change.repetition) : "");
  csv += "schema";
  for (const Field& f : fields) csv += fmt::format(",{}", f.name);
  csv += '\n';
  return csv;
}

std::string csv_row(const ResultRow& row) {
  std::string csv(results_schema);
  for (const Field& f : fields) csv += "," + csv_cell(f.get(row));
  csv += '\n';
  return csv;
}

// The rows come last, so that the file grows at its end.
std::string json_head(const ResultSet& results) {
  Json json;
  json["schema"] = results_schema;
  json["provenance"] = provenance_to_json(results.provenance);
  json["incidents"] = Json::array();
  for (const Incident& incident : results.incidents) json["incidents"].push_back(incident_to_json(incident));
  if (!results.port_counters.empty()) {
    json["port_counters"] = Json::array();
    for (const PortCounterChange& change : results.port_counters)
      json["port_counters"].push_back(port_counter_change_to_json(change));
  }
  std::string text = json_text(json, 1);
  text.resize(text.size() - 2);  // the closing "\n}"
  return text + ",\n \"rows\": [";
}

// Indented as a whole-document dump would indent it (JSON text holds no raw newline in strings).
std::string json_row(const ResultRow& row, bool first) {
  std::string text(first ? "\n  " : ",\n  ");
  for (char c : json_text(row_to_json(row), 1)) c == '\n' ? text += "\n  " : text += c;
  return text;
}

constexpr std::string_view json_tail = "\n ]\n}\n";

}  // namespace

std::string results_to_csv(const ResultSet& results) {
  std::string csv = csv_head(results);
  for (const ResultRow& row : results.rows) csv += csv_row(row);
  return csv;
}

std::string results_to_json(const ResultSet& results) {
  std::string json = json_head(results);
  for (std::size_t i = 0; i < results.rows.size(); ++i) json += json_row(results.rows[i], i == 0);
  return json += json_tail;
}

namespace {

// The member `key` of `object` in place, or `fallback` when it has none.
const Json& member_or(const Json& object, const char* key, const Json& fallback) {
  const auto found = object.find(key);
  return found == object.end() ? fallback : *found;
}

ResultRow row_from_json(const Json& object, const std::string& where) {
  if (!object.is_object()) throw InputError(fmt::format("{}: expected an object", where));
  require_schema(member_or(object, "schema", Json()), where);
  ResultRow row;
  // Files written by fabricbench hold the fields in this order: the next key is tried first, and
  // only a file in another order pays a search per field.
  auto next = object.begin();
  for (const Field& f : fields) {
    const auto found = next != object.end() && next.key() == f.name ? next : object.find(f.name);
    if (found == object.end()) {
      if (f.may_be_absent) continue;
      throw InputError(fmt::format("{}: missing field {}", where, f.name));
    }
    next = std::next(found);
    try {
      f.set(row, *found);
    } catch (const std::exception& e) { throw InputError(fmt::format("{}: field {}: {}", where, f.name, e.what())); }
  }
  require_plausible_measurements(row, where);
  return row;
}

// The file's parts other than the rows, refused in the order they are checked here.
void read_head(const StreamedJson& document, const std::string& origin, ResultSet& results) {
  if (document.duplicate_key)
    throw InputError(fmt::format("{}: key \"{}\" appears twice in one object", origin, *document.duplicate_key));
  const Json& json = document.head;
  if (!json.is_object())
    throw InputError(fmt::format("{}: expected a JSON object with schema, provenance, rows", origin));
  require_schema(member_or(json, "schema", Json()), origin);
  try {
    results.provenance = provenance_from_json(json.at("provenance"));
  } catch (const Json::exception& e) {
    throw InputError(fmt::format("{}: provenance: {}", origin, e.what()));
  } catch (const InputError& e) { throw InputError(fmt::format("{}: provenance: {}", origin, e.what())); }
  if (!document.streamed) throw InputError(fmt::format("{}: expected an array \"rows\"", origin));
}

void read_tail(const Json& json, const std::string& origin, ResultSet& results) {
  static const Json empty_array = Json::array();
  const Json& incidents = member_or(json, "incidents", empty_array);
  if (!incidents.is_array()) throw InputError(fmt::format("{}: expected an array \"incidents\"", origin));
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    try {
      results.incidents.push_back(incident_from_json(incidents[i]));
    } catch (const std::exception& e) { throw InputError(fmt::format("{}: incidents[{}]: {}", origin, i, e.what())); }
  }
  const Json& port_counters = member_or(json, "port_counters", empty_array);
  if (!port_counters.is_array()) throw InputError(fmt::format("{}: expected an array \"port_counters\"", origin));
  for (std::size_t i = 0; i < port_counters.size(); ++i) {
    try {
      results.port_counters.push_back(port_counter_change_from_json(port_counters[i]));
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: port_counters[{}]: {}", origin, i, e.what()));
    }
  }
}

// Text in memory as a stream, so that it is read by the same code as a file, and so that either
// can say how far the parser has read (tellg).
class TextStream : public std::streambuf {
 public:
  explicit TextStream(std::string_view text) {
    // The get area is only read; std::streambuf spells it char*.
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }

 protected:
  pos_type seekoff(off_type offset, std::ios_base::seekdir way, std::ios_base::openmode /*which*/) override {
    if (offset != 0 || way != std::ios_base::cur) return {off_type{-1}};
    return {gptr() - eback()};
  }
};

// Grows the rows' vector to the rows the rest of the text likely holds (the bytes left at the
// length of the rows after the first so far, so that the file's head does not count, plus a
// fifth, since rows differ in length) instead of doubling it: a vector that has just doubled
// holds its old rows and room for twice as many at once, 2x the file at 2^17 + 1 rows of a file
// fabricbench wrote and over 3x for one written without indentation. Never by less than an
// eighth, so that a file whose later rows are shorter still costs few reallocations.
class RowsGrowth {
 public:
  RowsGrowth(std::istream& input, std::size_t total_bytes) : input_(input), total_bytes_(total_bytes) {}

  // Called with each row read, before it is appended.
  void make_room(std::vector<ResultRow>& rows) {
    if (rows.size() < rows.capacity()) return;
    const std::streamoff read = input_.tellg();
    if (rows.empty()) first_row_end_ = read;
    std::size_t expected = rows.size() * 2;
    if (rows.size() > 1 && first_row_end_ > 0 && read > first_row_end_ &&
        total_bytes_ > static_cast<std::size_t>(read)) {
      const double rows_per_byte = static_cast<double>(rows.size() - 1) / static_cast<double>(read - first_row_end_);
      const double bytes_left = static_cast<double>(total_bytes_ - static_cast<std::size_t>(read));
      expected = rows.size() + 1 + static_cast<std::size_t>(bytes_left * rows_per_byte * 1.2);
    }
    constexpr std::size_t min_rows = 64;
    rows.reserve(std::max({expected, rows.size() + rows.size() / 8, min_rows}));
  }

 private:
  std::istream& input_;
  std::size_t total_bytes_;
  std::streamoff first_row_end_ = -1;  // where the parser was when the first row closed
};

// The one JSON reader, from text in memory or from a file. The rows are converted as the parser
// reaches each (streamed_json.hpp), so the file's rows are never held as JSON values all at once. A
// bad row is remembered and thrown after the parse, so that a malformed document, a duplicate key
// or a bad head is reported first, wherever in the file it is.
ResultSet parse_results(std::istream& input, std::size_t total_bytes, const std::string& origin) {
  ResultSet results;
  RowsGrowth growth(input, total_bytes);
  std::exception_ptr bad_row;
  const StreamedJson document = parse_streamed_json(input, origin, "rows", [&](std::size_t index, Json&& element) {
    if (bad_row) return;
    try {
      ResultRow row = row_from_json(element, fmt::format("{}: rows[{}]", origin, index));
      growth.make_room(results.rows);
      results.rows.push_back(std::move(row));
    } catch (const InputError&) { bad_row = std::current_exception(); }
  });
  read_head(document, origin, results);
  if (bad_row) std::rethrow_exception(bad_row);
  read_tail(document.head, origin, results);
  return results;
}

}  // namespace

ResultSet parse_results_json(std::string_view text, const std::string& origin) {
  TextStream buffer(text);
  std::istream input(&buffer);
  return parse_results(input, text.size(), origin);
}

ResultSet read_results_json(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  std::error_code no_size;  // a FIFO: the rows' vector grows by doubling
  const std::uintmax_t bytes = std::filesystem::file_size(path, no_size);
  return parse_results(file, no_size ? 0 : static_cast<std::size_t>(bytes), path.string());
}

ResultSet read_results_csv(const std::filesystem::path& path) {
  return parse_results_csv(read_text_file(path), path.string());
}

ResultSet parse_results_csv(std::string_view text, const std::string& origin) {
  ResultSet results;
  std::array<std::string, column_count> names;
  names[0] = "schema";
  for (std::size_t i = 0; i < fields.size(); ++i) names[i + 1] = std::string(fields[i].name);
  std::array<std::string, column_count> cells;
  try {
    io::CSVReader<column_count, io::trim_chars<>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        reader(origin, text.data(), text.data() + text.size());
    std::apply([&](auto&... name) { reader.read_header(io::ignore_extra_column | io::ignore_missing_column, name...); },
               names);
    if (!reader.has_column(names[0])) throw InputError(fmt::format("{}: the header has no column schema", origin));
    for (const Field& f : fields)
      if (!f.may_be_absent && !reader.has_column(std::string(f.name)))
        throw InputError(fmt::format("{}: the header has no column {}", origin, f.name));
    while (std::apply([&](auto&... cell) { return reader.read_row(cell...); }, cells)) {
      const std::string where = fmt::format("{}:{}", origin, reader.get_file_line());
      require_schema(Json(cells[0]), where);
      ResultRow row;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        try {
          fields[i].set(row, fields[i].parse_cell(cells[i + 1]));
        } catch (const std::exception& e) {
          throw InputError(fmt::format("{}: column {}: {}", where, fields[i].name, e.what()));
        }
      }
      require_plausible_measurements(row, where);
      results.rows.push_back(std::move(row));
    }
  } catch (const io::error::base& e) { throw InputError(fmt::format("{}: {}", origin, e.what())); }
  return results;
}

void require_free_space(const std::filesystem::path& dir, std::uint64_t bytes_needed) {
  struct statvfs filesystem {};
  if (::statvfs(dir.c_str(), &filesystem) != 0)
    throw std::runtime_error(fmt::format("cannot check free space in {}: {}", dir.string(), std::strerror(errno)));
  const std::uint64_t free_bytes = std::uint64_t{filesystem.f_bavail} * filesystem.f_frsize;
  if (free_bytes < bytes_needed)
    throw std::runtime_error(fmt::format("results directory {} has {} bytes free, the results need about {}",
                                         dir.string(), free_bytes, bytes_needed));
}

std::uint64_t results_space_needed_bytes(std::size_t rows) {
  constexpr std::uint64_t bytes_per_row_upper_bound = 1024;  // CSV rows are ~300 B, JSON ~700 B
  constexpr std::uint64_t provenance_bytes = 64 * 1024;
  return 2 * 2 * (provenance_bytes + rows * bytes_per_row_upper_bound);
}

ResultsWriter::ResultsWriter(ResultsPaths paths, Provenance provenance, std::size_t expected_rows)
    : paths_(std::move(paths)), csv_(paths_.csv), json_(paths_.json) {
  results_.provenance = std::move(provenance);
  for (const auto& file : {paths_.csv, paths_.json}) {
    require_results_file_path(file);
    const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    require_no_foreign_link(dir);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error)
      throw std::runtime_error(fmt::format("cannot create results directory {}: {}", dir.string(), error.message()));
    require_free_space(dir, results_space_needed_bytes(expected_rows));
  }
  if (std::filesystem::weakly_canonical(paths_.csv) == std::filesystem::weakly_canonical(paths_.json))
    throw std::runtime_error(fmt::format("the CSV and the JSON results would both be {}", paths_.csv.string()));
  // Results are never overwritten: both files are new, so a second run given the same paths (at
  // once or later) is refused before it measures instead of replacing the first one's rows.
  const std::lock_guard lock(mutex_);
  render_files_anew();
  json_.publish_new(json_tail);
  try {
    csv_.publish_new({});
  } catch (const std::runtime_error&) {
    ::unlink(paths_.json.c_str());
    throw;
  }
}

void ResultsWriter::append(ResultRow row) {
  const std::lock_guard lock(mutex_);
  json_.append(json_row(row, results_.rows.empty()));
  csv_.append(csv_row(row));
  results_.rows.push_back(std::move(row));
  constexpr auto min_interval = std::chrono::seconds(1);
  if (Clock::now() - last_flush_end_ >= std::max<Clock::duration>(min_interval, 10 * last_flush_duration_))
    write_files(false);
}

namespace {
// Cleared while a ResultsWriter holds rows its files do not have yet (a deferred flush).
volatile std::sig_atomic_t every_row_published = 1;
}  // namespace

bool results_rows_all_published() noexcept { return every_row_published != 0; }

void ResultsWriter::flush() {
  const std::lock_guard lock(mutex_);
  // Every publication writes the whole file anew (a version once published never changes), so
  // publishing after each of many fast sizes would make a sweep quadratic in its rows. Small files,
  // a sixteenth or more appended since the last publication, or a pause of ten times the last
  // publication publish now; otherwise the rows wait for the next flush (or the destructor), and
  // the cost of publishing stays linear in the rows and within a tenth of the run.
  constexpr std::size_t always_published_bytes = 1 << 20;
  const std::size_t body_bytes = json_.body_bytes();
  const bool publish = body_bytes < always_published_bytes ||
                       body_bytes - json_.published_body_bytes() >= body_bytes / 16 ||
                       Clock::now() - last_flush_end_ >= 10 * last_flush_duration_;
  if (publish) write_files(false);
  every_row_published = publish ? 1 : 0;
}

void ResultsWriter::record_incident(Incident incident) {
  const std::lock_guard lock(mutex_);
  results_.incidents.push_back(std::move(incident));
  render_files_anew();
  write_files(true);
}

void ResultsWriter::render_files_anew() {
  std::string json = json_head(results_);
  std::string csv = csv_head(results_);
  for (std::size_t i = 0; i < results_.rows.size(); ++i) {
    json += json_row(results_.rows[i], i == 0);
    csv += csv_row(results_.rows[i]);
  }
  json_.reset(std::move(json));
  csv_.reset(std::move(csv));
}

ResultsWriter::~ResultsWriter() {
  try {
    if (!results_rows_all_published()) write_files(true);
    if (!synced_) {
      json_.sync();
      csv_.sync();
    }
  } catch (const std::runtime_error&) {  // the files hold every size up to the last publication
  }
  every_row_published = 1;
}

void ResultsWriter::record_port_counters(std::vector<PortCounterChange> changes) {
  const std::lock_guard lock(mutex_);
  results_.port_counters = std::move(changes);
  render_files_anew();
  write_files(true);
}

void ResultsWriter::write_files(bool durable) {
  every_row_published = 1;
  const auto start = Clock::now();
  // An fsync costs milliseconds: sizes that complete faster than that are published as they
  // complete but fsynced no more often than would take a tenth of the time.
  durable = durable || start - last_sync_end_ >= 10 * last_sync_duration_;
  {
    // The JSON is the record and goes first; a termination signal waits until the CSV has the
    // same rows, so only a kill -9 or a power loss between the two renames leaves the CSV a size
    // behind the JSON (never ahead of it).
    const TerminationSignalsHeld signals_held;
    json_.publish(json_tail, durable);
    csv_.publish({}, durable);
  }
  last_flush_end_ = Clock::now();
  last_flush_duration_ = last_flush_end_ - start;
  synced_ = durable;
  if (durable) {
    last_sync_end_ = last_flush_end_;
    last_sync_duration_ = last_flush_duration_;
  }
}

}  // namespace fb
