#include "results/result_loading.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace fb {
namespace {

LoadedResults load_file(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  ResultSet results;
  if (extension == ".json")
    results = read_results_json(path);
  else if (extension == ".csv")
    results = read_results_csv(path);
  else
    throw InputError(fmt::format("{}: not a results file (expected .json or .csv)", path.string()));
  std::string label = results.provenance.run_id;
  if (label.empty() && !results.rows.empty()) label = results.rows.front().run_id;
  if (label.empty()) label = path.stem().string();
  return {path, std::move(label), std::move(results)};
}

std::vector<std::filesystem::path> results_files_in(const std::filesystem::path& dir) {
  std::set<std::filesystem::path> json_files;
  std::set<std::filesystem::path> csv_files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (!entry.is_regular_file()) continue;
    const std::string extension = entry.path().extension().string();
    if (extension == ".json") json_files.insert(entry.path());
    if (extension == ".csv") csv_files.insert(entry.path());
  }
  if (error) throw InputError(fmt::format("{}: cannot list: {}", dir.string(), error.message()));
  std::vector<std::filesystem::path> files(json_files.begin(), json_files.end());
  for (const auto& csv : csv_files) {
    std::filesystem::path twin = csv;
    if (!json_files.contains(twin.replace_extension(".json"))) files.push_back(csv);
  }
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw InputError(fmt::format("{}: no results files (.json or .csv) in this directory", dir.string()));
  return files;
}

}  // namespace

std::vector<LoadedResults> load_results(const std::vector<std::filesystem::path>& inputs) {
  std::vector<LoadedResults> sets;
  for (const auto& input : inputs) {
    std::error_code error;
    if (std::filesystem::is_directory(input, error)) {
      for (const auto& file : results_files_in(input)) sets.push_back(load_file(file));
    } else if (std::filesystem::exists(input, error)) {
      sets.push_back(load_file(input));
    } else {
      throw InputError(fmt::format("{}: no such file or directory", input.string()));
    }
  }
  return sets;
}

std::vector<ResultRow> all_rows(std::span<const LoadedResults> sets) {
  std::vector<ResultRow> rows;
  for (const auto& set : sets) rows.insert(rows.end(), set.results.rows.begin(), set.results.rows.end());
  return rows;
}

std::vector<Incident> all_incidents(std::span<const LoadedResults> sets) {
  std::vector<Incident> incidents;
  for (const auto& set : sets)
    incidents.insert(incidents.end(), set.results.incidents.begin(), set.results.incidents.end());
  return incidents;
}

}  // namespace fb
