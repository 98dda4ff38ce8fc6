#pragma once
// Finds and reads the result sets named on a command line: results files, or directories of them
// (what `fabricbench run -D DIR` and `fabricbench import -o DIR` write).

#include "results/results_io.hpp"

#include <filesystem>
#include <functional>
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
// The files are parsed on every core (each on its own); the first error in load order is thrown.
std::vector<LoadedResults> load_results(const std::vector<std::filesystem::path>& inputs);

// The same sets handed to `use` one at a time, in load order, while the files after them are read
// on the other cores (a bounded number ahead): `history ingest` records each run as it arrives.
// A malformed file throws when its turn comes, after `use` has had every set before it.
void for_each_result_set(const std::vector<std::filesystem::path>& inputs,
                         const std::function<void(LoadedResults&&)>& use);

// Every row of every set, in load order.
std::vector<ResultRow> all_rows(std::span<const LoadedResults> sets);

// Every incident of every set, in load order.
std::vector<Incident> all_incidents(std::span<const LoadedResults> sets);

}  // namespace fb
