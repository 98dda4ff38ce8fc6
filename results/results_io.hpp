#pragma once
// The results files: CSV and JSON carrying the same schema-versioned fields, one row per
// measurement. Written atomically (results/atomic_file.hpp) so a reader, or a run killed
// mid-write, never sees half a file.

#include "results/atomic_file.hpp"
#include "results/incident.hpp"
#include "results/port_counters.hpp"
#include "results/provenance.hpp"
#include "results/result_row.hpp"

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace fb {

struct ResultSet {
  Provenance provenance;
  std::vector<ResultRow> rows;
  std::vector<Incident> incidents;  // JSON only ("incidents"); files without it have none
  // JSON only ("port_counters"), written when the run could read RDMA ports; else absent.
  std::vector<PortCounterChange> port_counters;
};

std::string results_to_csv(const ResultSet& results);
std::string results_to_json(const ResultSet& results);

// Throw InputError naming the file (and line, for CSV) on malformed input or a schema mismatch.
ResultSet read_results_csv(const std::filesystem::path& path);
ResultSet read_results_json(const std::filesystem::path& path);
ResultSet parse_results_json(std::string_view text, const std::string& origin);
ResultSet parse_results_csv(std::string_view text, const std::string& origin);

// Throws std::runtime_error when the filesystem holding `dir` has less than `bytes_needed` free,
// so a run that could not keep its results fails before measuring instead of after hours.
void require_free_space(const std::filesystem::path& dir, std::uint64_t bytes_needed);

// Disk space a results set of `rows` rows needs while being rewritten: both files, each briefly
// twice (the old file and its replacement).
std::uint64_t results_space_needed_bytes(std::size_t rows);

struct ResultsPaths {
  std::filesystem::path csv;
  std::filesystem::path json;
};

// Keeps the results of a run on disk as they are measured. The caller flushes after every size,
// so a crash or a kill loses at most the size in flight; within a long size (the rounds of a
// 1,000-host pairwise run) appends flush on their own, but never more often than ten times the
// last flush took. A flush publishes a new version of each file: the part published before is
// copied inside the kernel and the rows appended since are written (AtomicallyGrowingFile), so a
// version once published never changes; an incident rewrites both files once. Flushes are fsynced unless the last fsync
// ended less than ten times its duration ago (sizes completing within milliseconds), and always the last one.
// For a termination-signal handler (async-signal-safe): false while a ResultsWriter holds rows
// its files do not have yet, because a flush was deferred.
bool results_rows_all_published() noexcept;

class ResultsWriter {
 public:
  // Creates missing directories, checks they have room for `expected_rows`, and writes both files
  // with no rows yet, so a destination that cannot be written fails before anything is measured.
  // Throws UsageError when either file exists already (results are never overwritten, so two runs
  // given one path cannot lose each other's rows) or is `-`, std::runtime_error when both paths
  // name one file.
  ResultsWriter(ResultsPaths paths, Provenance provenance, std::size_t expected_rows = 0);
  // fsyncs the files if the last flush was not.
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  void append(ResultRow row);
  // Publishes both files with every row appended so far, the JSON first, then the CSV, unless
  // that would make publishing the run's main cost (files of a MiB and more, grown by less than a
  // sixteenth since the last publication, within ten times its duration): then the rows wait for
  // the next flush or the destructor, and results_rows_all_published() says so.
  void flush();
  // Adds the incident and rewrites both files at once. Safe to call from another thread than the
  // one that appends (the watchdog's, while the measuring thread is blocked).
  void record_incident(Incident incident);
  // Sets how the job's RDMA ports changed over the run and rewrites both files.
  void record_port_counters(std::vector<PortCounterChange> changes);
  const ResultSet& results() const { return results_; }
  const ResultsPaths& paths() const { return paths_; }

 private:
  using Clock = std::chrono::steady_clock;

  // Both with mutex_ held. `durable`: fsync whatever the schedule says.
  void render_files_anew();
  void write_files(bool durable);

  ResultsPaths paths_;
  ResultSet results_;
  AtomicallyGrowingFile csv_;
  AtomicallyGrowingFile json_;
  Clock::time_point last_flush_end_;
  Clock::duration last_flush_duration_{};
  Clock::time_point last_sync_end_;
  Clock::duration last_sync_duration_{};
  bool synced_ = true;
  std::mutex mutex_;
};

}  // namespace fb
