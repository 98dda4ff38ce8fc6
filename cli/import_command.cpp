// `fabricbench import LOG... -o DIR`: nccl-tests, OSU, Google Benchmark and perftest output become
// results files, so report, accept and compare work on logs users already have. Whatever an
// importer had to assume is printed as a warning and kept in the provenance.

#include "cli/command.hpp"
#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "importers/importer_registry.hpp"
#include "results/results_io.hpp"
#include "store/run_store.hpp"

#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <map>
#include <memory>

namespace fb::cli {
namespace {

struct ImportCommandOptions {
  std::vector<std::string> logs;
  std::string output_dir = "fabricbench-results";
  std::optional<int> nranks;
  std::string store_url;
};

// The run id is a file name in the output directory and a cell of the CSV: the log's name comes
// into it with what is not a letter, a digit or one of "._+-" made '_' (a newline in a log's
// name would split the CSV's row), cut where the file name would pass NAME_MAX (255 bytes) with
// ".json" and the suffixes below.
std::string run_id_of(std::string_view id_from_log_name) {
  constexpr std::size_t max_run_id_bytes = 200;
  std::string id(id_from_log_name.substr(0, max_run_id_bytes));
  for (char& c : id)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && std::string_view("._+-").find(c) == std::string_view::npos)
      c = '_';
  return id;
}

void set_run_id(ResultSet& results, const std::string& id) {
  results.provenance.run_id = id;
  for (ResultRow& row : results.rows) row.run_id = id;
}

// Logs gathered one directory per node share their names: a log whose id another one took gets
// its directory's name appended (then a number), said in a warning, instead of overwriting the
// other's results.
void give_each_its_own_run_id(std::vector<std::pair<std::filesystem::path, ResultSet>>& imported) {
  std::map<std::string, std::filesystem::path> taken_by;
  for (auto& [log, results] : imported) {
    const std::string id = run_id_of(results.provenance.run_id);
    std::string unique = id;
    const std::string directory = run_id_of(std::filesystem::absolute(log).parent_path().filename().string());
    for (int n = 1; taken_by.contains(unique); ++n)
      unique = n == 1 && !directory.empty() ? fmt::format("{}-{}", id, directory) : fmt::format("{}-{}", id, n);
    if (unique != id)
      std::cerr << fmt::format("warning: {}: run id {} is taken by {}; written as {}\n",
                               escape_control_characters(log.string()), id,
                               escape_control_characters(taken_by.at(id).string()), unique);
    set_run_id(results, unique);
    taken_by.emplace(unique, log);
  }
}

// Results are never overwritten (as `run` refuses an existing --json or --csv): every output is
// checked before the first is written, so a refused import leaves the directory as it was.
void refuse_existing_outputs(const std::vector<std::pair<std::filesystem::path, ResultSet>>& imported,
                             const std::filesystem::path& output_dir) {
  for (const auto& [log, results] : imported)
    for (const char* extension : {".json", ".csv"}) {
      const std::filesystem::path output = output_dir / (results.provenance.run_id + extension);
      if (std::filesystem::exists(std::filesystem::symlink_status(output)))
        throw UsageError(fmt::format("{} exists already: results are never overwritten; remove it or give another "
                                     "--output-dir",
                                     output.string()));
    }
}

int run_import(const ImportCommandOptions& options) {
  if (options.nranks && *options.nranks < 1)
    throw UsageError(fmt::format("--ranks {} must be at least 1", *options.nranks));
  // Parse every log before writing anything: one bad log leaves the output directory untouched.
  std::vector<std::pair<std::filesystem::path, ResultSet>> imported;
  for (const std::string& log : options.logs)
    for (ResultSet& results : import_log(log, {options.nranks})) imported.emplace_back(log, std::move(results));
  give_each_its_own_run_id(imported);
  refuse_existing_outputs(imported, options.output_dir);
  std::filesystem::create_directories(options.output_dir);
  // Opened before anything is written, so a store that cannot be reached leaves no files either.
  std::unique_ptr<store::RunStore> store;
  if (!options.store_url.empty()) store = std::make_unique<store::RunStore>(options.store_url);
  for (const auto& [log, results] : imported) {
    for (const std::string& assumption : results.provenance.assumptions)
      std::cerr << fmt::format("warning: {}: {}: {}\n", escape_control_characters(log.string()),
                               results.provenance.run_id, assumption);
    const std::filesystem::path base = std::filesystem::path(options.output_dir) / results.provenance.run_id;
    write_file_atomically(base.string() + ".json", results_to_json(results));
    write_file_atomically(base.string() + ".csv", results_to_csv(results));
    std::cout << fmt::format("# {}: {} rows ({}) -> {}.json\n", escape_control_characters(log.string()),
                             results.rows.size(), results.provenance.backend, base.string());
    if (store) store->record(results, base.string() + ".json");
  }
  return static_cast<int>(ExitCode::ok);
}

const Registrar<CommandRegistration> registrar{
    {"import", "convert other benchmarks' logs into results files (formats: import --help)",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<ImportCommandOptions>();
       sub.add_option("logs", options->logs,
                      "log files to import, the format detected from the content: " +
                          ImporterRegistry::instance().names())
           ->required();
       sub.add_option("-o,--output-dir", options->output_dir, "directory for RUN_ID.json and RUN_ID.csv")
           ->capture_default_str();
       sub.add_option("--store", options->store_url,
                      "also record the imported runs in this run store (SQLite file or postgresql://...)");
       sub.add_option("--ranks", options->nranks,
                      "process count of OSU collective logs and of nccl-tests tables that do not print it");
       return [options] { return run_import(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
