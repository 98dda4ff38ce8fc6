#pragma once
// The fleet's memory: every run recorded in one database (SQLite by default, PostgreSQL for a
// shared server), so a run can be judged against the cluster's own history. One schema for both,
// created and upgraded by numbered migrations (store/schema.cpp). A run is stored whole: its
// provenance, incidents and port counters, and every row with every field of the results format,
// so the rows read back equal the rows of the results files.

#include "results/results_io.hpp"
#include "store/database.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::store {

enum class RecordOutcome {
  added,      // a run the store did not have
  updated,    // the same run (same start, command and hosts) with more rows or incidents since
  unchanged,  // exactly what the store holds already
};

struct StoredRun {
  std::string run_id;
  std::string start_time;
  std::string backend;
  int nranks = 0;
  int nodes = 0;
  std::string hosts;         // "node01 (ranks 0-3), node02 (ranks 4-7)"
  std::string slurm_job_id;  // empty outside Slurm
  std::size_t rows = 0;
  std::string source;  // the file it was ingested from, or "run" when recorded while measuring
};

// One series of the history: an op and size, narrowed to one host's or one pair's rows.
struct SeriesQuery {
  // Default member initialisers: a query names only what it narrows ({.host = "node3"}).
  std::string op{};                      // empty with a host or pair: the op with the most such rows
  std::optional<std::uint64_t> bytes{};  // empty: the largest size the op has (on that host or pair)
  std::optional<int> nranks{};           // collectives: empty means the rank count most runs used
  std::string host{};                    // rows between this host and another one
  std::string peer{};                    // with host: rows between the two, in either direction
  bool within_host = false;              // with host: its rows inside the host instead (GPUs of one node)
};

// One run's value in a series: the median over the run's matching rows (placements, pairs,
// repetitions).
struct TrendPoint {
  std::string run_id;
  std::string start_time;
  std::size_t rows = 0;
  std::optional<double> bandwidth_gbps;  // busbw where the rows have it, else algbw
  double time_us = 0;                    // median of the rows' median times
  std::optional<double> efficiency_pct;  // median of the rows' measured / expected, where the model had one
};

struct Trend {
  SeriesQuery query;               // resolved: op, bytes and (collectives) nranks filled in
  bool busbw = false;              // the bandwidth is busbw (else algbw)
  bool latency = false;            // the op reports a latency: time_us is the value that matters
  std::vector<TrendPoint> points;  // oldest run first (start time, then run id)
};

// The series the store can draw: every host and pair with pair rows, every collective op, size and
// rank count; what drift detection scans.
struct SeriesCatalog {
  std::vector<SeriesQuery> collectives;
  std::vector<SeriesQuery> hosts;
  std::vector<SeriesQuery> pairs;
  std::vector<SeriesQuery> within_hosts;  // one per host and op measured inside one host (latency, bw)
};

class RunStore {
 public:
  // See open_database for `url`. Creates the schema or brings it up to the newest version.
  explicit RunStore(const StoreUrl& url);
  // What the user typed: UsageError for a URL fabricbench does not read (nothing is created).
  explicit RunStore(const std::string& url);
  explicit RunStore(std::unique_ptr<Database> database);

  // Records a run in one transaction. A run id the store holds with a different start, command
  // line or hosts is another run: std::runtime_error naming both, and nothing is written.
  RecordOutcome record(const ResultSet& results, const std::string& source);
  // Records many runs in one transaction (`history ingest`): `produce` hands each run to the
  // recorder it is given, as it has them (read while the runs before them are recorded). All or
  // none: an exception from `produce` (a file that does not parse) or a refused run rolls every run
  // back, and a process killed before the end leaves the store as it was. Each index page a run
  // touches is written to the log once per batch instead of once per run. Outcomes in order.
  using Recorder = std::function<RecordOutcome(const ResultSet& results, const std::string& source)>;
  std::vector<RecordOutcome> record_all(const std::function<void(const Recorder&)>& produce);

  std::vector<StoredRun> runs();
  // The run as recorded; std::nullopt when the store does not have it.
  std::optional<ResultSet> run(const std::string& run_id);
  // Throws InputError when the store has no rows for the series.
  Trend trend(const SeriesQuery& query);
  SeriesCatalog catalog();
  // Run ids, newest first (start time, then run id). `accepted_only`: the runs with a recorded
  // verdict of "pass" and no other verdict (record_verdict), the baseline a cluster accepted.
  std::vector<std::string> recent_run_ids(bool accepted_only);
  // What `judged_by` ("accept", "campaign") decided about a recorded run: "pass", "fail" or
  // "inconclusive", replacing its earlier verdict. A run the store does not hold: InputError.
  void record_verdict(const std::string& run_id, const std::string& judged_by, const std::string& decision,
                      const std::string& statement);
  // Every verdict of a run: (judged_by, decision), by judged_by.
  std::vector<std::pair<std::string, std::string>> verdicts(const std::string& run_id);
  int schema_version();
  std::string_view kind() const { return database_->kind(); }
  // The store as messages name it: the path, or the URL with its password as *** (StoreUrl).
  const std::string& name() const { return name_; }

 private:
  // record() without its transaction.
  RecordOutcome record_within(const ResultSet& results, const std::string& source);
  std::unique_ptr<Database> database_;
  std::string name_;
};

}  // namespace fb::store
