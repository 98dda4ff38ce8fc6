#include "results/result_loading.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

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

// The files named by `inputs`, in load order; a missing input is an InputError before any is read.
std::vector<std::filesystem::path> files_of(const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> files;
  for (const auto& input : inputs) {
    std::error_code error;
    if (std::filesystem::is_directory(input, error)) {
      const std::vector<std::filesystem::path> in_dir = results_files_in(input);
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::exists(input, error)) {
      files.push_back(input);
    } else {
      throw InputError(fmt::format("{}: no such file or directory", input.string()));
    }
  }
  return files;
}

// Files read on worker threads, handed over in order. A worker takes the next file in order only
// while fewer than `read_ahead` read sets wait to be handed over (a results file can be a gigabyte),
// and none after a failure: every file before a failed one has then been taken, so the handing-over
// meets the first failure in order, as reading the files in turn would.
class ParallelReader {
 public:
  explicit ParallelReader(std::vector<std::filesystem::path> files) : files_(std::move(files)), slots_(files_.size()) {
    const std::size_t threads = std::min<std::size_t>(files_.size(), std::max(1U, std::thread::hardware_concurrency()));
    read_ahead_ = 4 * threads;
    for (std::size_t t = 0; t < threads; ++t) workers_.emplace_back([this] { work(); });
  }
  ~ParallelReader() {
    // Also on an exception from the consumer: no worker waits for room that will never come.
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    room_.notify_all();
    workers_.clear();  // joins
  }
  ParallelReader(const ParallelReader&) = delete;
  ParallelReader& operator=(const ParallelReader&) = delete;

  std::size_t size() const { return files_.size(); }

  // The i-th set, once read (i from 0 up, each once); rethrows its reading's error.
  LoadedResults take(std::size_t i) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return slots_[i].done; });
    Slot slot = std::move(slots_[i]);
    handed_over_ = i + 1;
    lock.unlock();
    room_.notify_all();
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(*slot.set);
  }

 private:
  struct Slot {
    std::optional<LoadedResults> set;
    std::exception_ptr error;
    bool done = false;
  };

  void work() {
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return stop_ || next_ >= files_.size() || next_ < handed_over_ + read_ahead_; });
        if (stop_ || next_ >= files_.size()) return;
        i = next_++;
      }
      Slot slot;
      try {
        slot.set = load_file(files_[i]);
      } catch (...) { slot.error = std::current_exception(); }
      slot.done = true;
      {
        const std::lock_guard lock(mutex_);
        stop_ = stop_ || slot.error != nullptr;
        slots_[i] = std::move(slot);
      }
      ready_.notify_all();
    }
  }

  std::vector<std::filesystem::path> files_;
  std::vector<Slot> slots_;
  std::size_t read_ahead_ = 1;
  std::mutex mutex_;
  std::condition_variable ready_;  // a slot is done
  std::condition_variable room_;   // a set was handed over, or the reading stops
  std::size_t next_ = 0;           // the next file to take
  std::size_t handed_over_ = 0;
  bool stop_ = false;
  std::vector<std::jthread> workers_;  // last: joined before the state they use goes
};

}  // namespace

void for_each_result_set(const std::vector<std::filesystem::path>& inputs,
                         const std::function<void(LoadedResults&&)>& use) {
  ParallelReader reader(files_of(inputs));
  for (std::size_t i = 0; i < reader.size(); ++i) use(reader.take(i));
}

std::vector<LoadedResults> load_results(const std::vector<std::filesystem::path>& inputs) {
  std::vector<LoadedResults> sets;
  for_each_result_set(inputs, [&](LoadedResults&& set) { sets.push_back(std::move(set)); });
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
