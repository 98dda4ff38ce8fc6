#pragma once
// Finds and reads the result sets named on a command line: results files, or directories of them
// (what `fabricbench run -D DIR` and `fabricbench import -o DIR` write).

#include "results/results_io.hpp"

#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace fb {

struct LoadedResults {
  std::filesystem::path source;  // the file it was read from
  std::string label;             // the run id, or the file name when the file has none
  ResultSet results;
};

// A directory contributes every RUN.json in it, and every RUN.csv without a RUN.json beside it
// (both hold the same rows; the JSON also holds the provenance). Files are read by extension.
// Throws InputError naming the path when a file is malformed or a directory holds no results.
std::vector<LoadedResults> load_results(const std::vector<std::filesystem::path>& inputs);

// Every row of every set, in load order.
std::vector<ResultRow> all_rows(std::span<const LoadedResults> sets);

// Every incident of every set, in load order.
std::vector<Incident> all_incidents(std::span<const LoadedResults> sets);

}  // namespace fb
