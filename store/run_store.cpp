#include "store/run_store.hpp"

#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/robust_statistics.hpp"
#include "store/schema.hpp"

#include <openssl/evp.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>
#include <stdexcept>

namespace fb::store {
namespace {

// ---- values as text, both ways ----

template <class T>
T parse_text(const std::string& text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size())
    throw std::runtime_error(fmt::format("run store: '{}' is not a number", text));
  return value;
}

template <class T>
struct ColumnCodec {
  static Value to_value(const T& value) {
    if constexpr (std::is_same_v<T, std::string>)
      return value;
    else if constexpr (std::is_same_v<T, bool>)
      return value ? "1" : "0";
    else
      return fmt::format("{}", value);  // shortest text that reads back to the same number
  }
  static T from_value(const Value& value) {
    if (!value) throw std::runtime_error("run store: NULL in a NOT NULL column");
    if constexpr (std::is_same_v<T, std::string>)
      return *value;
    else if constexpr (std::is_same_v<T, bool>)
      return *value == "1";
    else
      return parse_text<T>(*value);
  }
};

template <class T>
struct ColumnCodec<std::optional<T>> {
  static Value to_value(const std::optional<T>& value) { return value ? ColumnCodec<T>::to_value(*value) : Value(); }
  static std::optional<T> from_value(const Value& value) {
    if (!value) return std::nullopt;
    return ColumnCodec<T>::from_value(value);
  }
};

struct Column {
  std::string_view name;
  Value (*get)(const ResultRow&);
  void (*set)(ResultRow&, const Value&);
};

template <auto Member>
constexpr Column column(std::string_view name) {
  using T = std::remove_cvref_t<decltype(std::declval<ResultRow&>().*Member)>;
  return {name, [](const ResultRow& row) { return ColumnCodec<T>::to_value(row.*Member); },
          [](ResultRow& row, const Value& value) { row.*Member = ColumnCodec<T>::from_value(value); }};
}

// Every field of ResultRow (results/result_row.hpp) but run_id, which is the key. A field added to
// the results format needs its column here and a migration adding it (schema.cpp);
// tests/store/run_store_test.cpp fills every field and fails until both exist.
constexpr std::array row_columns{
    column<&ResultRow::backend>("backend"),
    column<&ResultRow::op>("op"),
    column<&ResultRow::dtype>("dtype"),
    column<&ResultRow::redop>("redop"),
    column<&ResultRow::root>("root"),
    column<&ResultRow::in_place>("in_place"),
    column<&ResultRow::nranks>("nranks"),
    column<&ResultRow::nodes>("nodes"),
    column<&ResultRow::ranks_per_node>("ranks_per_node"),
    column<&ResultRow::src_rank>("src_rank"),
    column<&ResultRow::dst_rank>("dst_rank"),
    column<&ResultRow::src_host>("src_host"),
    column<&ResultRow::dst_host>("dst_host"),
    column<&ResultRow::src_device>("src_device"),
    column<&ResultRow::dst_device>("dst_device"),
    column<&ResultRow::round>("round"),
    column<&ResultRow::concurrent_flows>("concurrent_flows"),
    column<&ResultRow::repetition>("repetition"),
    column<&ResultRow::bytes>("bytes"),
    column<&ResultRow::count>("count"),
    column<&ResultRow::iterations>("iterations"),
    column<&ResultRow::time_min_us>("time_min_us"),
    column<&ResultRow::time_median_us>("time_median_us"),
    column<&ResultRow::time_p99_us>("time_p99_us"),
    column<&ResultRow::time_max_us>("time_max_us"),
    column<&ResultRow::time_cv>("time_cv"),
    column<&ResultRow::unreported_statistics>("unreported_statistics"),
    column<&ResultRow::algbw_gbps>("algbw_gbps"),
    column<&ResultRow::busbw_gbps>("busbw_gbps"),
    column<&ResultRow::wrong>("wrong"),
    column<&ResultRow::timestamp>("timestamp"),
    column<&ResultRow::expected_busbw_gbps>("expected_busbw_gbps"),
    column<&ResultRow::expected_time_us>("expected_time_us"),
    column<&ResultRow::efficiency_pct>("efficiency_pct"),
    column<&ResultRow::model_algorithm>("model_algorithm"),
    column<&ResultRow::model_protocol>("model_protocol"),
    column<&ResultRow::model_channels>("model_channels"),
    column<&ResultRow::model_limit>("model_limit"),
    column<&ResultRow::time_mean_us>("time_mean_us"),  // schema version 2
};

std::string row_column_list() {
  std::string list;
  for (const Column& c : row_columns) list += fmt::format(", {}", c.name);
  return list;
}

const std::string& insert_row_sql() {
  static const std::string sql = [] {
    std::string placeholders = "?, ?";
    for (std::size_t i = 0; i < row_columns.size(); ++i) placeholders += ", ?";
    return fmt::format("INSERT INTO result_rows (run_id, row_index{}) VALUES ({})", row_column_list(), placeholders);
  }();
  return sql;
}

// SHA-256 of the run as stored: its document and every row's column values, each value ended by a
// byte no text holds (0x1f) and NULL by another (0x1e), so that no two different runs hash alike
// by moving text between fields. Hashing what is inserted costs no second serialisation.
std::string content_sha256(const std::string& document, const std::vector<Values>& rows) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  bool ok = context && EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) == 1 &&
            EVP_DigestUpdate(context.get(), document.data(), document.size()) == 1;
  constexpr char value_end = 0x1f;
  constexpr char null_value = 0x1e;
  for (const Values& row : rows)
    for (const Value& value : row) {
      if (value) ok = ok && EVP_DigestUpdate(context.get(), value->data(), value->size()) == 1;
      ok = ok && EVP_DigestUpdate(context.get(), value ? &value_end : &null_value, 1) == 1;
    }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (!ok || EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1)
    throw std::runtime_error("run store: SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

// What tells two runs apart when their ids agree: a run that grew since it was ingested (a soak run
// still measuring) keeps these.
bool same_run(const Provenance& a, const Provenance& b) {
  return a.start_time == b.start_time && a.command_line == b.command_line && a.rank_hosts == b.rank_hosts;
}

Values run_values(const ResultSet& results, const std::string& source, const std::string& digest,
                  const std::string& document) {
  const Provenance& p = results.provenance;
  const auto slurm = p.environment.find("SLURM_JOB_ID");
  return {p.run_id,
          p.start_time,
          p.backend,
          p.tool_version,
          p.git_revision,
          p.command_line,
          std::to_string(p.nranks),
          std::to_string(p.nodes),
          std::to_string(p.ranks_per_node),
          describe_rank_hosts(p.rank_hosts),
          slurm == p.environment.end() ? Value() : Value(slurm->second),
          std::to_string(results.rows.size()),
          source,
          digest,
          utc_now(),
          document};
}

std::string text_of(const Value& value) { return value.value_or(""); }

}  // namespace

RunStore::RunStore(const StoreUrl& url) : RunStore(open_database(url)) { name_ = url.printable(); }

RunStore::RunStore(const std::string& url) : RunStore(StoreUrl::parse(url)) {}

RunStore::RunStore(std::unique_ptr<Database> database) : database_(std::move(database)), name_(database_->kind()) {
  migrate(*database_);
}

int RunStore::schema_version() { return store::schema_version(*database_); }

RecordOutcome RunStore::record_within(const ResultSet& given, const std::string& source) {
  // A command line that named a store URL (a results file written before its password was kept out
  // of them, or by hand) is stored with the password as ***: no table holds it.
  const std::string redacted_line = redact_store_urls(given.provenance.command_line);
  std::optional<ResultSet> redacted_copy;
  if (redacted_line != given.provenance.command_line) {
    redacted_copy.emplace(given);
    redacted_copy->provenance.command_line = redacted_line;
  }
  const ResultSet& results = redacted_copy ? *redacted_copy : given;
  const std::string& run_id = results.provenance.run_id;
  if (run_id.empty()) throw InputError(fmt::format("{}: the results have no run id: not recorded", source));
  // The run's provenance, incidents and port counters, in the results format's own JSON.
  const std::string document =
      results_to_json(ResultSet{results.provenance, {}, results.incidents, results.port_counters});
  std::vector<Values> rows;
  rows.reserve(results.rows.size());
  for (std::size_t i = 0; i < results.rows.size(); ++i) {
    const ResultRow& row = results.rows[i];
    if (row.run_id != run_id)
      throw InputError(
          fmt::format("{}: row {} has run id {}, the run {}: not recorded", source, i + 1, row.run_id, run_id));
    Values values{run_id, std::to_string(i)};
    values.reserve(row_columns.size() + 2);
    for (const Column& c : row_columns) values.push_back(c.get(row));
    rows.push_back(std::move(values));
  }
  const std::string digest = content_sha256(document, rows);
  const std::vector<Values> existing =
      database_->query("SELECT content_sha256, source, document FROM runs WHERE run_id = ?", {run_id});
  RecordOutcome outcome = RecordOutcome::added;
  if (!existing.empty()) {
    if (text_of(existing[0][0]) == digest) return RecordOutcome::unchanged;
    const ResultSet stored = parse_results_json(text_of(existing[0][2]), "run store");
    if (!same_run(stored.provenance, results.provenance))
      throw std::runtime_error(fmt::format("{}: run id {} is taken in the store by another run (from {}, started {}): "
                                           "not recorded",
                                           source, run_id, text_of(existing[0][1]), stored.provenance.start_time));
    database_->query("DELETE FROM result_rows WHERE run_id = ?", {run_id});
    database_->query("DELETE FROM runs WHERE run_id = ?", {run_id});
    outcome = RecordOutcome::updated;
  }
  database_->query(
      "INSERT INTO runs (run_id, start_time, backend, tool_version, git_revision, command_line, nranks, nodes, "
      "ranks_per_node, hosts, slurm_job_id, row_count, source, content_sha256, ingested_at, document) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      run_values(results, source, digest, document));
  database_->execute_many(insert_row_sql(), rows);
  return outcome;
}

RecordOutcome RunStore::record(const ResultSet& results, const std::string& source) {
  Transaction transaction(*database_);
  const RecordOutcome outcome = record_within(results, source);
  transaction.commit();
  return outcome;
}

std::vector<RecordOutcome> RunStore::record_all(const std::function<void(const Recorder&)>& produce) {
  std::vector<RecordOutcome> outcomes;
  Transaction transaction(*database_);
  produce([&](const ResultSet& results, const std::string& source) {
    outcomes.push_back(record_within(results, source));
    return outcomes.back();
  });
  transaction.commit();
  return outcomes;
}

std::vector<StoredRun> RunStore::runs() {
  std::vector<StoredRun> runs;
  for (const Values& r : database_->query("SELECT run_id, start_time, backend, nranks, nodes, hosts, slurm_job_id, "
                                          "row_count, source FROM runs ORDER BY start_time, run_id"))
    runs.push_back({.run_id = text_of(r[0]),
                    .start_time = text_of(r[1]),
                    .backend = text_of(r[2]),
                    .nranks = parse_text<int>(text_of(r[3])),
                    .nodes = parse_text<int>(text_of(r[4])),
                    .hosts = text_of(r[5]),
                    .slurm_job_id = text_of(r[6]),
                    .rows = parse_text<std::size_t>(text_of(r[7])),
                    .source = text_of(r[8])});
  return runs;
}

std::optional<ResultSet> RunStore::run(const std::string& run_id) {
  const std::vector<Values> found = database_->query("SELECT document FROM runs WHERE run_id = ?", {run_id});
  if (found.empty()) return std::nullopt;
  ResultSet results = parse_results_json(text_of(found[0][0]), "run store");
  for (const Values& values :
       database_->query(fmt::format("SELECT run_id{} FROM result_rows WHERE run_id = ? ORDER BY row_index",
                                    row_column_list()),
                        {run_id})) {
    ResultRow row;
    row.run_id = text_of(values[0]);
    for (std::size_t c = 0; c < row_columns.size(); ++c) row_columns[c].set(row, values[c + 1]);
    results.rows.push_back(std::move(row));
  }
  return results;
}

namespace {

// The statement reading `columns` of the rows of a series where `condition` holds, with its
// parameters: a host's rows are those it sends and those it receives (never both: the rows inside it
// are its within-host series), a pair's those of either direction, each branch read through one
// covering index (schema.cpp). An OR of the two made SQLite look every row up in the table.
std::pair<std::string, Values> subject_rows(const SeriesQuery& query, std::string_view columns,
                                            std::string_view condition, const Values& condition_values) {
  std::vector<std::pair<std::string_view, Values>> branches;
  if (query.host.empty())
    branches.push_back({"", {}});
  else if (query.within_host || query.peer == query.host)
    branches.push_back({" AND src_host = ? AND dst_host = ?", {query.host, query.host}});
  else if (query.peer.empty())
    branches = {{" AND src_host = ? AND dst_host <> ?", {query.host, query.host}},
                {" AND dst_host = ? AND src_host <> ?", {query.host, query.host}}};
  else
    branches = {{" AND src_host = ? AND dst_host = ?", {query.host, query.peer}},
                {" AND src_host = ? AND dst_host = ?", {query.peer, query.host}}};
  std::string sql;
  Values values;
  for (const auto& [filter, filter_values] : branches) {
    if (!sql.empty()) sql += " UNION ALL ";
    sql += fmt::format("SELECT {} FROM result_rows WHERE {}{}", columns, condition, filter);
    values.insert(values.end(), condition_values.begin(), condition_values.end());
    values.insert(values.end(), filter_values.begin(), filter_values.end());
  }
  return {sql, values};
}

std::string describe_subject(const SeriesQuery& query) {
  if (query.host.empty()) return fmt::format("op {}", query.op);
  if (query.within_host) return fmt::format("host {} (within it)", query.host);
  if (query.peer.empty()) return fmt::format("host {}", query.host);
  return fmt::format("pair {} <-> {}", query.host, query.peer);
}

// Rows (run_id, busbw, algbw, time, efficiency) in any order; `runs` (run_id, start_time) in the
// series' order: one point per run that has rows, the medians of its rows. The order comes from
// one walk of runs_by_start instead of a join that looked every row's run up and sorted them all.
std::vector<TrendPoint> points_by_run(const std::vector<Values>& rows, const std::vector<Values>& runs, bool busbw) {
  std::unordered_map<std::string_view, std::size_t> position;
  position.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) position.emplace(*runs[i][0], i);
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (the run's position, the row)
  order.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (const auto found = position.find(*rows[i][0]); found != position.end()) order.emplace_back(found->second, i);
  std::sort(order.begin(), order.end());
  std::vector<TrendPoint> points;
  std::vector<double> bandwidths;
  std::vector<double> times;
  std::vector<double> efficiencies;
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first;
    bandwidths.clear();
    times.clear();
    efficiencies.clear();
    for (; last < order.size() && order[last].first == order[first].first; ++last) {
      const Values& row = rows[order[last].second];
      bandwidths.push_back(parse_text<double>(text_of(row[busbw ? 1 : 2])));
      times.push_back(parse_text<double>(text_of(row[3])));
      if (row[4]) efficiencies.push_back(parse_text<double>(*row[4]));
    }
    const Values& run = runs[order[first].first];
    points.push_back({.run_id = text_of(run[0]),
                      .start_time = text_of(run[1]),
                      .rows = last - first,
                      .bandwidth_gbps = median_of(bandwidths),
                      .time_us = median_of(times),
                      .efficiency_pct = efficiencies.empty() ? std::nullopt : std::optional(median_of(efficiencies))});
    first = last;
  }
  return points;
}

// The catalog's traits of an op, or none for an importer's op the catalog does not know (a gbench
// name): a bandwidth series like any other.
const OpTraits* catalog_op(const std::string& name) {
  try {
    return &op_by_name(name);
  } catch (const UsageError&) { return nullptr; }
}

}  // namespace

Trend RunStore::trend(const SeriesQuery& asked) {
  SeriesQuery query = asked;
  if (query.op.empty()) {
    if (query.host.empty()) throw UsageError("history: name an op (--op), a host (--host) or a pair (--pair)");
    const auto [rows_sql, rows_values] = subject_rows(query, "op", "1 = 1", {});
    const std::vector<Values> ops =
        database_->query("SELECT op, COUNT(*) AS n FROM (" + rows_sql + ") AS w GROUP BY op ORDER BY n DESC, op",
                         rows_values);
    if (ops.empty()) throw InputError(fmt::format("the run store has no rows of {}", describe_subject(query)));
    query.op = text_of(ops[0][0]);
  }
  Values values{query.op};
  if (!query.bytes) {
    const auto [rows_sql, rows_values] = subject_rows(query, "bytes", "op = ?", values);
    const std::vector<Values> largest = database_->query("SELECT MAX(bytes) FROM (" + rows_sql + ") AS w", rows_values);
    if (largest.empty() || !largest[0][0])
      throw InputError(fmt::format("the run store has no {} rows of {}", query.op, describe_subject(query)));
    query.bytes = parse_text<std::uint64_t>(*largest[0][0]);
  }
  values.push_back(std::to_string(*query.bytes));
  const OpTraits* traits = catalog_op(query.op);
  std::string condition = "op = ? AND bytes = ?";
  if (query.host.empty() && (!traits || !is_pair_op(*traits))) {
    // Collectives of different rank counts are different series: 2-rank and 64-rank busbw differ.
    if (!query.nranks) {
      const std::vector<Values> counts = database_->query(
          "SELECT nranks, COUNT(DISTINCT run_id) AS n FROM result_rows WHERE op = ? AND bytes = ? GROUP BY nranks "
          "ORDER BY n DESC, nranks DESC",
          values);
      if (!counts.empty()) query.nranks = parse_text<int>(text_of(counts[0][0]));
    }
    if (query.nranks) {
      condition += " AND nranks = ?";
      values.push_back(std::to_string(*query.nranks));
    }
  }
  const auto [rows_sql, rows_values] =
      subject_rows(query, "run_id, busbw_gbps, algbw_gbps, time_median_us, efficiency_pct", condition, values);
  const std::vector<Values> rows = database_->query(rows_sql, rows_values);
  if (rows.empty())
    throw InputError(fmt::format("the run store has no {} rows of {} bytes for {}", query.op, *query.bytes,
                                 describe_subject(query)));
  Trend trend{.query = query, .busbw = true, .latency = traits && reports_latency(*traits), .points = {}};
  for (const Values& row : rows)
    if (!row[1]) trend.busbw = false;
  trend.points =
      points_by_run(rows, database_->query("SELECT run_id, start_time FROM runs ORDER BY start_time, run_id"),
                    trend.busbw);
  return trend;
}

std::vector<std::string> RunStore::recent_run_ids(bool accepted_only) {
  const std::string sql =
      accepted_only ? "SELECT r.run_id FROM runs r WHERE EXISTS (SELECT 1 FROM verdicts v WHERE v.run_id = r.run_id "
                      "AND v.decision = 'pass') AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run_id = r.run_id AND "
                      "v.decision <> 'pass') ORDER BY r.start_time DESC, r.run_id DESC"
                    : "SELECT run_id FROM runs ORDER BY start_time DESC, run_id DESC";
  std::vector<std::string> ids;
  for (const Values& r : database_->query(sql)) ids.push_back(text_of(r[0]));
  return ids;
}

void RunStore::record_verdict(const std::string& run_id, const std::string& judged_by, const std::string& decision,
                              const std::string& statement) {
  Transaction transaction(*database_);
  if (database_->query("SELECT 1 FROM runs WHERE run_id = ?", {run_id}).empty())
    throw InputError(fmt::format("the run store has no run {}: its verdict is not recorded", run_id));
  database_->query("DELETE FROM verdicts WHERE run_id = ? AND judged_by = ?", {run_id, judged_by});
  database_->query("INSERT INTO verdicts (run_id, judged_by, decision, statement, judged_at) VALUES (?, ?, ?, ?, ?)",
                   {run_id, judged_by, decision, statement, utc_now()});
  transaction.commit();
}

std::vector<std::pair<std::string, std::string>> RunStore::verdicts(const std::string& run_id) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const Values& r :
       database_->query("SELECT judged_by, decision FROM verdicts WHERE run_id = ? ORDER BY judged_by", {run_id}))
    found.emplace_back(text_of(r[0]), text_of(r[1]));
  return found;
}

SeriesCatalog RunStore::catalog() {
  SeriesCatalog catalog;
  std::set<std::string> hosts;
  std::set<std::pair<std::string, std::string>> pairs;
  for (const Values& r : database_->query("SELECT DISTINCT op, bytes, nranks FROM result_rows WHERE src_host = '' "
                                          "ORDER BY op, bytes, nranks"))
    catalog.collectives.push_back({.op = text_of(r[0]),
                                   .bytes = parse_text<std::uint64_t>(text_of(r[1])),
                                   .nranks = parse_text<int>(text_of(r[2])),
                                   .host = "",
                                   .peer = ""});
  for (const Values& r :
       database_->query("SELECT DISTINCT src_host, dst_host FROM result_rows WHERE src_host <> '' AND dst_host <> '' "
                        "AND src_host <> dst_host")) {
    const std::string a = std::min(text_of(r[0]), text_of(r[1]));
    const std::string b = std::max(text_of(r[0]), text_of(r[1]));
    hosts.insert(a);
    hosts.insert(b);
    pairs.emplace(a, b);
  }
  for (const std::string& host : hosts) catalog.hosts.push_back({.host = host});
  for (const auto& [a, b] : pairs) catalog.pairs.push_back({.host = a, .peer = b});
  // Runs inside one host (two GPUs of a node, latency and bw between them) are series of that host
  // as well, one per op: a node's NVLink or PCIe that slows is the host's fault like its cable.
  for (const Values& r : database_->query("SELECT DISTINCT src_host, op FROM result_rows WHERE src_host <> '' AND "
                                          "src_host = dst_host ORDER BY src_host, op"))
    catalog.within_hosts.push_back({.op = text_of(r[1]), .host = text_of(r[0]), .within_host = true});
  return catalog;
}

}  // namespace fb::store
