#include "store/schema.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <string_view>

namespace fb::store {
namespace {

struct Migration {
  int version;
  std::string_view description;
  std::string_view sql;  // statements separated by ';', portable between SQLite and PostgreSQL
};

// A trend reads its rows from result_rows_by_op alone (it covers every column the query needs), so
// a series of 10,000 runs costs no lookups into the table.
// Types both databases take: TEXT, INTEGER (32-bit in PostgreSQL), BIGINT for byte and element
// counts, DOUBLE PRECISION for times and bandwidths. No auto-increment: keys are run ids.
constexpr std::array migrations{
    Migration{1, "runs with their provenance, and every row of the results format",
              R"sql(
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  start_time TEXT NOT NULL,
  backend TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  git_revision TEXT NOT NULL,
  command_line TEXT NOT NULL,
  nranks INTEGER NOT NULL,
  nodes INTEGER NOT NULL,
  ranks_per_node INTEGER NOT NULL,
  hosts TEXT NOT NULL,
  slurm_job_id TEXT,
  row_count INTEGER NOT NULL,
  source TEXT NOT NULL,
  content_sha256 TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  document TEXT NOT NULL
);
CREATE INDEX runs_by_start ON runs (start_time, run_id);
CREATE TABLE result_rows (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  backend TEXT NOT NULL,
  op TEXT NOT NULL,
  dtype TEXT NOT NULL,
  redop TEXT NOT NULL,
  root INTEGER,
  in_place INTEGER NOT NULL,
  nranks INTEGER NOT NULL,
  nodes INTEGER NOT NULL,
  ranks_per_node INTEGER NOT NULL,
  src_rank INTEGER,
  dst_rank INTEGER,
  src_host TEXT NOT NULL,
  dst_host TEXT NOT NULL,
  src_device TEXT NOT NULL,
  dst_device TEXT NOT NULL,
  round INTEGER,
  concurrent_flows INTEGER,
  repetition INTEGER,
  bytes BIGINT NOT NULL,
  count BIGINT NOT NULL,
  iterations INTEGER NOT NULL,
  time_min_us DOUBLE PRECISION NOT NULL,
  time_median_us DOUBLE PRECISION NOT NULL,
  time_p99_us DOUBLE PRECISION NOT NULL,
  time_max_us DOUBLE PRECISION NOT NULL,
  time_cv DOUBLE PRECISION NOT NULL,
  unreported_statistics TEXT NOT NULL,
  algbw_gbps DOUBLE PRECISION NOT NULL,
  busbw_gbps DOUBLE PRECISION,
  wrong BIGINT,
  timestamp TEXT NOT NULL,
  expected_busbw_gbps DOUBLE PRECISION,
  expected_time_us DOUBLE PRECISION,
  efficiency_pct DOUBLE PRECISION,
  model_algorithm TEXT NOT NULL,
  model_protocol TEXT NOT NULL,
  model_channels INTEGER,
  model_limit TEXT NOT NULL,
  PRIMARY KEY (run_id, row_index)
);
CREATE INDEX result_rows_by_op ON result_rows (op, bytes, nranks, run_id, busbw_gbps, algbw_gbps, time_median_us,
                                               efficiency_pct);
CREATE INDEX result_rows_by_src_host ON result_rows (src_host, op, bytes);
CREATE INDEX result_rows_by_dst_host ON result_rows (dst_host, op, bytes)
)sql"},
    Migration{2, "result_rows.time_mean_us: the mean of the slowest rank's iteration times (results format)",
              "ALTER TABLE result_rows ADD COLUMN time_mean_us DOUBLE PRECISION"},
    Migration{3, "verdicts: what accept and campaign decided about a run, so baselines can take accepted runs",
              R"sql(
CREATE TABLE verdicts (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  judged_by TEXT NOT NULL,
  decision TEXT NOT NULL,
  statement TEXT NOT NULL,
  judged_at TEXT NOT NULL,
  PRIMARY KEY (run_id, judged_by)
)
)sql"},
    // `history drift` at 10,000 runs spent its time looking rows up in the table: the host indexes
    // held neither the other host nor the values, and a trend's run came from the wide runs table.
    // Indexes that cover every column a host, pair or within-host trend and the catalog read, and a
    // run's start time by its id, make each of them a walk of one index (docs/fleet-health.md, Scale).
    Migration{4, "covering indexes for host and pair series, and runs by id with their start",
              R"sql(
DROP INDEX result_rows_by_src_host;
DROP INDEX result_rows_by_dst_host;
CREATE INDEX result_rows_by_src_host ON result_rows (src_host, op, bytes, dst_host, nranks, run_id, busbw_gbps,
                                                     algbw_gbps, time_median_us, efficiency_pct);
CREATE INDEX result_rows_by_dst_host ON result_rows (dst_host, op, bytes, src_host, nranks, run_id, busbw_gbps,
                                                     algbw_gbps, time_median_us, efficiency_pct);
CREATE INDEX runs_by_id ON runs (run_id, start_time)
)sql"},
};

}  // namespace

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

int newest_schema_version() { return migrations.back().version; }

int schema_version(Database& database) {
  // Read without creating anything: two processes opening a new PostgreSQL store at once must not
  // both create the table outside the lock (one fails on pg_type's unique index).
  if (!database.has_table("schema_migrations")) return 0;
  const std::vector<Values> rows = database.query("SELECT MAX(version) FROM schema_migrations");
  return rows.empty() || !rows.front().front() ? 0 : std::stoi(*rows.front().front());
}

void migrate(Database& database) {
  // Cheap when up to date: no write lock is taken.
  if (schema_version(database) == newest_schema_version()) return;
  // Every creation and migration holds the store's write lock (SQLite's BEGIN IMMEDIATE,
  // PostgreSQL's advisory lock): concurrent first users take turns, and the later ones find the
  // schema made.
  Transaction transaction(database);
  database.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
      "applied_at TEXT NOT NULL)");
  const int version = schema_version(database);
  if (version > newest_schema_version())
    throw std::runtime_error(fmt::format("run store is at schema version {}, newer than this fabricbench knows ({}): "
                                         "use a newer fabricbench",
                                         version, newest_schema_version()));
  for (const Migration& migration : migrations) {
    if (migration.version <= version) continue;
    database.execute(migration.sql);
    database.query("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
                   {std::to_string(migration.version), std::string(migration.description), utc_now()});
  }
  transaction.commit();
}

}  // namespace fb::store
