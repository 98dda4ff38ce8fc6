#pragma once
// The results files: CSV and JSON carrying the same schema-versioned fields, one row per
// measurement. Written atomically (temporary file, fsync, rename) so a reader, or a run killed
// mid-write, never sees half a file.

#include "results/provenance.hpp"
#include "results/result_row.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace fb {

struct ResultSet {
  Provenance provenance;
  std::vector<ResultRow> rows;
};

std::string results_to_csv(const ResultSet& results);
std::string results_to_json(const ResultSet& results);

// Throw InputError naming the file (and line, for CSV) on malformed input or a schema mismatch.
ResultSet read_results_csv(const std::filesystem::path& path);
ResultSet read_results_json(const std::filesystem::path& path);
ResultSet parse_results_json(std::string_view text, const std::string& origin);

// Replaces `path` with `contents` so that at every instant the file holds either the old or the
// new contents in full. Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

struct ResultsPaths {
  std::filesystem::path csv;
  std::filesystem::path json;
};

// Keeps the results of a run on disk as they are measured: every append rewrites both files, so
// a crash or a kill loses at most the measurement in flight.
class ResultsWriter {
 public:
  // Creates missing directories and writes both files with no rows yet, so a destination that
  // cannot be written fails before anything is measured.
  ResultsWriter(ResultsPaths paths, Provenance provenance);

  void append(ResultRow row);
  const ResultSet& results() const { return results_; }
  const ResultsPaths& paths() const { return paths_; }

 private:
  void flush() const;

  ResultsPaths paths_;
  ResultSet results_;
};

}  // namespace fb
