// nccl-tests and rccl-tests text logs (all_reduce_perf and friends). Per run: the "#  Rank" lines
// give hosts, the table one out-of-place and one in-place measurement per size. Semantics as
// nccl-tests prints them: size in bytes (whole buffer for all_gather etc.), the mean time in us,
// algbw and busbw in decimal GB/s.
//
// Real logs vary: old versions print an `error` column (largest deviation) instead of `#wrong`
// and no `root` column, rccl-tests drops `Group` from the rank lines and once printed
// "# nThreads: 1 nGpus: 2 nRanks: 1", long rank lists end in "...", web pages collapse the
// alignment (what wraps a log, launcher tags and the like, is peeled before this reader sees it:
// common/text_framing.hpp), several runs follow one another in one
// file, and tables are pasted without the header above them. What the log then does not say (the
// rank count, the nodes) is inferred from the launcher line or from busbw/algbw and recorded as an
// assumption.

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/op_catalog.hpp"
#include "common/rank_placement.hpp"
#include "common/text_scan.hpp"
#include "importers/importer_registry.hpp"
#include "importers/importer_support.hpp"
#include "importers/nccl_tests_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace fb {
namespace {

// Where the numbers of a row are, from the column header ("# size count type redop root time
// algbw busbw #wrong time ...") or, without one, from the number of columns.
struct TableLayout {
  bool has_root = true;
  std::size_t leading_columns = 5;               // size count type redop [root]
  std::size_t group_columns = 4;                 // time algbw busbw #wrong|error [#bitdiff] [i_min i_max i_p99 i_cv%]
  bool error_column = false;                     // old format: the largest error, not a count of wrong elements
  std::optional<std::size_t> per_iteration_min;  // offset of i_min within a group
  bool timestamp = false;                        // -T: a date and a time after the in-place group

  std::size_t row_columns() const { return leading_columns + 2 * group_columns + (timestamp ? 2 : 0); }
};

std::optional<TableLayout> layout_from_header(const std::vector<std::string_view>& names) {
  // names without the leading "#"
  if (names.size() < 6 || names[0] != "size" || names[1] != "count") return std::nullopt;
  const auto is_time = [](std::string_view n) { return n == "time" || n == "cputime"; };
  const auto first_time = std::find_if(names.begin(), names.end(), is_time);
  if (first_time == names.end()) return std::nullopt;
  const auto second_time = std::find_if(first_time + 1, names.end(), is_time);
  if (second_time == names.end()) return std::nullopt;
  TableLayout layout;
  layout.leading_columns = static_cast<std::size_t>(first_time - names.begin());
  layout.has_root = std::find(names.begin(), first_time, "root") != first_time;
  layout.group_columns = static_cast<std::size_t>(second_time - first_time);
  layout.error_column = std::find(first_time, second_time, "error") != second_time;
  if (const auto i_min = std::find(first_time, second_time, "i_min"); i_min != second_time)
    layout.per_iteration_min = static_cast<std::size_t>(i_min - first_time);
  // The rows are read by position: size count type redop [root], then time algbw busbw #wrong
  // [i_min i_max i_p99 i_cv%] per group. A header that does not hold those is not one to read by.
  const bool root_in_place = !layout.has_root || (layout.leading_columns >= 5 && names[4] == "root");
  const bool statistics_fit = !layout.per_iteration_min || *layout.per_iteration_min + 4 <= layout.group_columns;
  if (layout.leading_columns < 4 || !root_in_place || layout.group_columns < 4 || !statistics_fit) return std::nullopt;
  layout.timestamp = names.back() == "timestamp";
  return layout;
}

// A table without its header: 13 columns are the current format, 12 the old one without root.
std::optional<TableLayout> layout_from_columns(std::size_t columns) {
  if (columns == 13) return TableLayout{};
  if (columns != 12) return std::nullopt;
  TableLayout old_format;
  old_format.has_root = false;
  old_format.leading_columns = 4;
  old_format.error_column = true;
  return old_format;
}

struct TableLine {
  std::size_t number;
  std::vector<std::string_view> tokens;
};

// The launcher line above a pasted table: "mpirun -np 16 -N 8 ... ./build/all_reduce_perf -g 1",
// or the test's own command as a wrapper script echoes it ("COMMAND: ./all_reduce_perf -b 8").
struct LauncherLine {
  std::optional<int> processes;
  std::optional<int> processes_per_node;
  std::optional<int> hosts;  // -H a,b,c
  std::optional<std::string> op;
  int gpus_per_process = 1;  // the test's -g and -t
  std::string text;
  std::map<std::string, std::string> environment;  // mpirun's -x NAME=VALUE
};

// The libraries whose variables change what a run measures; a wrapper script prints them.
bool is_run_environment_name(std::string_view name) {
  constexpr std::array<std::string_view, 14> prefixes{"NCCL_",  "RCCL_",  "UCX_",  "UCC_",  "OMPI_MCA_",
                                                      "FI_",    "CUDA_",  "HSA_",  "HIP_",  "NVSHMEM_",
                                                      "SHARP_", "HCOLL_", "MLX5_", "I_MPI_"};
  const bool known =
      std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
  return known && name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string_view::npos;
}

// "NCCL_IB_ADAPTIVE_ROUTING=1", "export NCCL_ALGO=Ring", "+ export NCCL_ALGO=Ring" (set -x),
// "declare -x NCCL_ALGO="Ring"": one variable of the run's environment as a script prints it.
std::optional<std::pair<std::string, std::string>> environment_assignment(std::string_view line) {
  std::string_view text = trim(line);
  for (const std::string_view prefix : {"+ ", "export ", "declare -x "})
    if (text.starts_with(prefix)) text = trim(text.substr(prefix.size()));
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || !is_run_environment_name(text.substr(0, equals))) return std::nullopt;
  std::string_view value = text.substr(equals + 1);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  else if (value.find_first_of(" \t") != std::string_view::npos)
    return std::nullopt;  // a sentence that mentions a variable, not an assignment
  return std::pair{std::string(text.substr(0, equals)), std::string(value)};
}

// NCCL_DEBUG=INFO's "NCCL INFO NCCL_IB_HCA set by environment to mlx5_0".
std::optional<std::pair<std::string, std::string>> environment_reported_by_nccl(std::string_view line) {
  constexpr std::string_view set_by = " set by environment to ";
  const std::size_t at = line.find(set_by);
  if (at == std::string_view::npos) return std::nullopt;
  const std::vector<std::string_view> before = split_whitespace(line.substr(0, at));
  const std::vector<std::string_view> after = split_whitespace(line.substr(at + set_by.size()));
  if (before.empty() || after.empty() || !is_run_environment_name(before.back())) return std::nullopt;
  return std::pair{std::string(before.back()), std::string(after.front())};
}

// What nccl-tests prints when a call fails: "node01: Test CUDA failure common.cu:892 'all
// CUDA-capable devices are busy or unavailable'", "... Test NCCL failure ...", rccl-tests' "Test
// HIP failure", and " .. node01 pid 42: Test failure common.cu:1009" on each level it passes up
// (not `specific`: it names no cause).
struct TestFailure {
  std::size_t line = 0;
  std::string text;
  bool specific = false;
};

std::optional<TestFailure> test_failure(std::size_t number, std::string_view line) {
  const std::size_t at = line.find("Test ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + 5);
  const std::size_t word = std::min(rest.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), rest.size());
  if (word > 0) {
    if (word >= rest.size() || rest[word] != ' ') return std::nullopt;
    rest.remove_prefix(word + 1);
  }
  if (!rest.starts_with("failure ")) return std::nullopt;
  return TestFailure{number, std::string(trim(line)), word > 0};
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): reads mpirun, mpiexec and srun option spellings for the process count and hosts
std::optional<LauncherLine> read_launcher_line(std::string_view line) {
  const std::vector<std::string_view> tokens = split_whitespace(line);
  auto launcher = std::find_if(tokens.begin(), tokens.end(), [](std::string_view t) {
    for (const std::string_view name : {"mpirun", "mpiexec", "srun"})
      if (t == name || t.ends_with(fmt::format("/{}", name))) return true;
    return false;
  });
  // Without a launcher, the test program itself ("COMMAND: ./build/all_reduce_perf -b 8 -e 8G").
  if (launcher == tokens.end())
    launcher = std::find_if(tokens.begin(), tokens.end(), [](std::string_view t) { return op_from_test_program(t); });
  if (launcher == tokens.end()) return std::nullopt;
  LauncherLine parsed;
  for (auto t = launcher; t != tokens.end(); ++t)
    if (*t != "\\" && *t != ">") parsed.text += (parsed.text.empty() ? "" : " ") + std::string(*t);
  const auto count_after = [&](std::size_t i) -> std::optional<int> {
    if (i + 1 >= tokens.size()) return std::nullopt;
    const std::optional<std::int64_t> value = to_integer(tokens[i + 1]);
    if (!value || *value < 1 || *value > 1'000'000) return std::nullopt;
    return static_cast<int>(*value);
  };
  bool in_test = false;
  int threads = 1;
  // srun's -N is the node count; Open MPI's is the processes per node.
  const bool slurm = launcher->ends_with("srun");
  if (const std::optional<std::string> op = op_from_test_program(*launcher)) {
    parsed.op = op;
    in_test = true;
  }
  for (std::size_t i = static_cast<std::size_t>(launcher - tokens.begin()) + 1; i < tokens.size(); ++i) {
    const std::string_view t = tokens[i];
    if (!in_test) {
      if (const std::optional<std::string> op = op_from_test_program(t)) {
        parsed.op = op;
        in_test = true;
      } else if (t == "-np" || t == "-n" || t == "--np" || t == "--ntasks") {
        parsed.processes = count_after(i);
      } else if (t.starts_with("--ntasks=")) {
        const std::optional<std::int64_t> value = to_integer(t.substr(9));
        if (value && *value >= 1 && *value <= 1'000'000) parsed.processes = static_cast<int>(*value);
      } else if (slurm && (t == "-N" || t == "--nodes")) {
        parsed.hosts = count_after(i);
      } else if (t == "-N" || t == "-npernode" || t == "--npernode" || t == "--ntasks-per-node") {
        parsed.processes_per_node = count_after(i);
      } else if (t == "-x" && i + 1 < tokens.size()) {
        if (const std::optional<std::pair<std::string, std::string>> variable = environment_assignment(tokens[i + 1]))
          parsed.environment.insert(*variable);
      } else if ((t == "-H" || t == "-host" || t == "--host") && i + 1 < tokens.size()) {
        parsed.hosts = static_cast<int>(std::count(tokens[i + 1].begin(), tokens[i + 1].end(), ',') + 1);
      }
    } else if (t == "-g" || t == "--ngpus") {
      parsed.gpus_per_process = count_after(i).value_or(1);
    } else if (t == "-t" || t == "--nthreads") {
      threads = count_after(i).value_or(1);
    }
  }
  parsed.gpus_per_process *= threads;
  return parsed;
}

struct Run {
  std::size_t first_line = 0;
  Provenance provenance;
  std::optional<std::string> op;
  int iterations = 0;
  std::optional<int> ranks_in_header;  // nThread x nGpus (x nRanks of old rccl-tests)
  std::map<int, std::string> host_by_rank;
  bool ranks_elided = false;
  std::optional<TableLayout> layout;
  std::vector<TableLine> table;
  bool finished = false;
  std::optional<LauncherLine> launcher;
  std::optional<TestFailure> failure;  // the first failure the run printed, the most specific one

  bool started() const { return !table.empty() || finished; }
};

constexpr std::string_view nccl_version_prefix = "NCCL version ";
constexpr std::array<std::string_view, 4> failure_kinds{"Test CUDA failure", "Test NCCL failure", "Test HIP failure",
                                                        "Test failure"};

class LogReader {
 public:
  LogReader(const std::filesystem::path& origin, const ImportOptions& options)
      : file_(origin.string()), origin_(origin), options_(options) {}

  std::vector<ResultSet> read(std::string_view text) {
    std::size_t last_line = 0;
    for (const NumberedLine& raw : split_lines(text)) {
      last_line = raw.number;
      read_line(raw.number, raw.text);
    }
    if (run_.started() || run_.ranks_in_header || run_.failure) finish_run(last_line);
    if (runs_.empty()) throw input_error_at(file_, last_line, "no measurement rows in this nccl-tests log");
    keep_repetitions_together(runs_);
    number_runs(runs_);
    return std::move(runs_);
  }

 private:
  // A header line of a new run while the current one already has rows: the next run begins.
  void begin_run_at(std::size_t line) {
    if (run_.started()) finish_run(line - 1);
    if (run_.first_line == 0) run_.first_line = line;
  }

  // NOLINTNEXTLINE(readability-function-cognitive-complexity): dispatches each nccl-tests line kind (launcher, header, device, row, summary) to its reader
  void read_line(std::size_t number, std::string_view line) {
    const std::vector<std::string_view> tokens = split_whitespace(line);
    if (tokens.empty()) return;
    if (tokens[0] != "#") {
      read_plain_line(number, line, tokens);
      return;
    }
    const std::vector<std::string_view> names(tokens.begin() + 1, tokens.end());
    if (names.empty()) return;
    if (names[0] == "nThread" || names[0] == "nThreads:") {
      begin_run_at(number);
      read_parameters(number, names);
    } else if (names.size() >= 3 && names[0] == "nccl-tests" && names[1] == "version") {
      begin_run_at(number);
      run_.provenance.tool_version = fmt::format("nccl-tests {}", names[2]);
      run_.provenance.libraries["nccl-tests"] = std::string(names[2]);
      for (std::size_t i = 3; i < names.size(); ++i) {
        const std::size_t equals = names[i].find('=');
        if (equals != std::string_view::npos)
          run_.provenance.libraries[std::string(names[i].substr(0, equals))] = std::string(names[i].substr(equals + 1));
      }
    } else if (line.find("Collective test starting:") != std::string_view::npos) {
      begin_run_at(number);
      run_.op = op_from_test_program(names.back());
      if (!run_.op)
        throw input_error_at(file_, number, fmt::format("'{}' is not a test of a known collective", names.back()));
    } else if (names[0] == "Rank" && names.size() >= 2) {
      read_rank(number, names);
    } else if (!run_.host_by_rank.empty() && run_.table.empty() && names.back().ends_with("...")) {
      // nccl-tests cuts a process's rank lines at 2 KiB with "..."; people elide long lists the same way.
      run_.ranks_elided = true;
    } else if (std::optional<TableLayout> layout = layout_from_header(names)) {
      begin_run_at(number);
      run_.layout = layout;
    } else if (line.find("Avg bus bandwidth") != std::string_view::npos) {
      run_.finished = true;
    }
  }

  // A line that does not start with '#': a row, a command, the environment, a failure, or chatter.
  // NOLINTNEXTLINE(readability-function-cognitive-complexity): dispatches each kind of line outside nccl-tests' '#' lines, each a few statements
  void read_plain_line(std::size_t number, std::string_view line, const std::vector<std::string_view>& tokens) {
    // A launcher command continued over lines ending in '\' (often quoted with "> ").
    const bool continues = trim(line).ends_with('\\');
    if (command_continues_) {
      command_text_ += ' ' + std::string(line);
      command_continues_ = continues;
      if (!continues) read_command(number, command_text_);
    } else if (to_integer(tokens[0])) {
      read_row(number, tokens);
    } else if (std::optional<TestFailure> failure = test_failure(number, line)) {
      if (!run_.failure || (failure->specific && !run_.failure->specific)) run_.failure = std::move(failure);
      if (run_.first_line == 0) run_.first_line = number;
    } else if (const auto reported = environment_reported_by_nccl(line)) {
      run_.provenance.environment.insert_or_assign(reported->first, reported->second);
    } else if (const auto variable = environment_assignment(line)) {
      // An environment block after a run's table is the next run's.
      if (run_.started()) finish_run(number - 1);
      environment_.insert_or_assign(variable->first, variable->second);
    } else if (tokens.size() == 1 && is_ellipsis(tokens[0]) && !run_.host_by_rank.empty() && run_.table.empty()) {
      // Rank lines elided by hand with a bare "..." line.
      run_.ranks_elided = true;
    } else if (read_launcher_line(line)) {
      command_text_ = std::string(line);
      command_continues_ = continues;
      if (!continues) read_command(number, command_text_);
    } else if (const std::size_t at = line.find(nccl_version_prefix); at != std::string_view::npos) {
      // The NCCL library the run loaded: nccl-tests prints "NCCL version 2.20.3+cuda12.3" before
      // its table, NCCL_DEBUG=INFO "... NCCL INFO NCCL version 2.29.7+cuda12.9"; the first counts.
      const std::vector<std::string_view> words = split_whitespace(line.substr(at + nccl_version_prefix.size()));
      if (!words.empty()) run_.provenance.libraries.try_emplace("nccl", words.front());
    }
    // Anything else is chatter: NCCL_DEBUG lines ("host:pid:tid"), banners, stderr of the launcher.
  }

  static bool is_ellipsis(std::string_view token) {
    return token == "..." || token == "\xe2\x80\xa6" || token == "[...]" || token == "(...)";
  }

  void read_command(std::size_t number, std::string_view text) {
    // A new command: the run before it, if any, is over (and must have finished).
    if (run_.started()) finish_run(number - 1);
    launcher_ = read_launcher_line(text);
    if (launcher_)
      for (const auto& [name, value] : launcher_->environment) environment_.insert_or_assign(name, value);
  }

  void read_parameters(std::size_t number, const std::vector<std::string_view>& names) {
    // "nThread 1 nGpus 8 minBytes 8 ... warmup iters: 5 iters: 20 agg iters: 1 ..." and the old
    // rccl-tests "nThreads: 1 nGpus: 2 nRanks: 1 ... warmupIters: 5 iters: 20 validation: 1".
    std::map<std::string, std::int64_t> values;
    for (std::size_t i = 0; i + 1 < names.size(); ++i) {
      std::string key(names[i]);
      if (key.ends_with(':')) key.pop_back();
      if ((key == "iters") && i > 0 && (names[i - 1] == "warmup" || names[i - 1] == "agg")) continue;
      if (const std::optional<std::int64_t> value = to_integer(names[i + 1])) values.emplace(key, *value);
    }
    if (values.contains("iters")) {
      const std::int64_t iterations = values["iters"];
      if (iterations < 0) throw input_error_at(file_, number, fmt::format("iters: {} is not a count", iterations));
      run_.iterations = row_iterations(static_cast<std::uint64_t>(iterations), fmt::format("line {}", number),
                                       run_.provenance.assumptions);
    }
    // Bounded before multiplying: the product of arbitrary integers can overflow.
    constexpr std::int64_t most_per_process = 4096;
    const std::int64_t threads = values.contains("nThread")    ? values["nThread"]
                                 : values.contains("nThreads") ? values["nThreads"]
                                                               : 1;
    const std::int64_t gpus = values.contains("nGpus") ? values["nGpus"] : 1;
    const std::int64_t processes = values.contains("nRanks") ? values["nRanks"] : 1;
    for (const std::int64_t v : {threads, gpus, processes})
      if (v < 1 || v > most_per_process)
        throw input_error_at(file_, number,
                             fmt::format("nThread {}, nGpus {} and nRanks {} must be between 1 and {}", threads, gpus,
                                         processes, most_per_process));
    run_.ranks_in_header = static_cast<int>(threads * gpus * processes);
    // Each of the nThread threads launches its nGpus GPUs' kernels in turn.
    if (values.contains("nGpus")) run_.provenance.gpus_per_process = static_cast<int>(gpus);
  }

  void read_rank(std::size_t number, const std::vector<std::string_view>& names) {
    // "Rank  3 Group  0 Pid  4242 on node02 device  3 [0x9a] NVIDIA H100"; rccl-tests and old
    // nccl-tests have no "Group".
    const std::optional<std::int64_t> rank = to_integer(names[1]);
    if (!rank || *rank < 0 || *rank > 1'000'000)
      throw input_error_at(file_, number, fmt::format("rank '{}' is not a rank", names[1]));
    const auto on = std::find(names.begin() + 2, names.end(), "on");
    if (on == names.end() || on + 1 == names.end())
      throw input_error_at(file_, number, "a rank line without 'on HOST'");
    run_.host_by_rank[static_cast<int>(*rank)] = std::string(*(on + 1));
  }

  void read_row(std::size_t number, const std::vector<std::string_view>& tokens) {
    if (!run_.layout) {
      run_.layout = layout_from_columns(tokens.size());
      if (!run_.layout)
        throw input_error_at(file_, number,
                             fmt::format("a table row of {} columns without the '# size count type ...' header above "
                                         "it (13 columns, or 12 in the old format, are read without one)",
                                         tokens.size()));
    }
    if (run_.finished) {
      // Rows after "Avg bus bandwidth" of the same header: a second run pasted without its header.
      const TableLayout layout = *run_.layout;
      finish_run(number - 1);
      run_.first_line = number;
      run_.layout = layout;
    }
    const std::size_t expected = run_.layout->row_columns();
    if (tokens.size() != expected)
      throw input_error_at(file_, number,
                           fmt::format("expected {} columns as in the column header, found {}{}", expected,
                                       tokens.size(),
                                       tokens.size() < expected ? ": the line is cut short (truncated log?)" : ""));
    run_.table.push_back({number, tokens});
  }

  void assume(Run& run, std::string what) { run.provenance.assumptions.push_back(std::move(what)); }

  void finish_run(std::size_t last_line) {
    Run run = std::move(run_);
    run_ = Run{};
    if (run.failure && !run.finished) {
      // nccl-tests stopped: what it printed names the cause, and nothing of the run is imported.
      throw input_error_at(file_, run.failure->line,
                           fmt::format("the nccl-tests run failed {}: {}; nothing imported",
                                       run.table.empty() ? std::string("before measuring")
                                                         : fmt::format("after {} size{}", run.table.size(),
                                                                       run.table.size() == 1 ? "" : "s"),
                                       run.failure->text));
    }
    if (run.table.empty()) throw input_error_at(file_, last_line, "no measurement rows in this nccl-tests run");
    if (!run.finished)
      throw input_error_at(file_, last_line,
                           "the log ends before '# Avg bus bandwidth': truncated, or the run did not finish");
    if (run.failure)
      run.provenance.assumptions.push_back(fmt::format("line {}: a failure printed after the table (at teardown?): {}",
                                                       run.failure->line, run.failure->text));
    run.launcher = launcher_;
    // NCCL's own report of a variable wins over what the script printed.
    for (const auto& [name, value] : environment_) run.provenance.environment.try_emplace(name, value);
    if (!run.op && run.launcher) run.op = run.launcher->op;
    if (!run.op) run.op = op_from_file_name(origin_);
    std::vector<std::string> candidates;
    if (!run.op) run.op = op_from_bus_ratio(run, candidates);
    if (!run.op) {
      // Several collectives fit the table (all_gather, alltoall, gather, scatter share redop 'none'
      // and busbw factor (n-1)/n): every one is named rather than one picked.
      const std::string fitting = candidates.empty() ? std::string()
                                                     : fmt::format(" ({} all fit its redop column and busbw/algbw)",
                                                                   fmt::join(candidates, ", "));
      throw input_error_at(file_, run.first_line,
                           fmt::format("cannot tell which collective this is: the log has no '# Collective test "
                                       "starting' line or launcher command{}; name the file after the test (e.g. "
                                       "all_reduce_perf.log)",
                                       fitting));
    }
    runs_.push_back(to_results(run));
  }

  // The one collective whose busbw factor turns every printed algbw into its busbw at a rank
  // count that agrees with the rank lines, and whose reduction column fits ("none" for data movement).
  // `fitting` receives every collective that fits, when more than one does.
  std::optional<std::string> op_from_bus_ratio(Run& run, std::vector<std::string>& fitting) const {
    const std::vector<PrintedBandwidth> sizes = printed_bandwidths(run);
    const bool reduces = run.table.front().tokens[3] != "none";
    // 0: the rank lines do not say.
    const int listed = run.host_by_rank.empty() || run.ranks_elided ? 0 : run.host_by_rank.rbegin()->first + 1;
    std::vector<std::string> found;
    for (const OpTraits& op : all_ops()) {
      if (op.op_class != OpClass::collective || op.takes_redop != reduces) continue;
      const std::optional<int> ranks = ranks_from_bus_ratio(op.name, sizes);
      if (!ranks || (listed > 0 && *ranks != listed)) continue;
      found.emplace_back(op.name);
    }
    if (found.size() > 1) {
      fitting = std::move(found);
      return std::nullopt;
    }
    if (found.empty()) return std::nullopt;
    run.provenance.assumptions.push_back(
        fmt::format("the log does not name its collective: {} is the only one whose busbw/algbw fits the table",
                    found.front()));
    return found.front();
  }

  std::vector<PrintedBandwidth> printed_bandwidths(const Run& run) const {
    std::vector<PrintedBandwidth> sizes;
    const std::size_t out_of_place = run.layout->leading_columns;
    for (const TableLine& line : run.table) {
      const std::optional<double> algbw = to_double(line.tokens[out_of_place + 1]);
      const std::optional<double> busbw = to_double(line.tokens[out_of_place + 2]);
      if (algbw && busbw)
        sizes.push_back({*algbw, *busbw,
                         std::max(printed_rounding(line.tokens[out_of_place + 1]),
                                  printed_rounding(line.tokens[out_of_place + 2]))});
    }
    return sizes;
  }

  // The rank count and the host of every rank, from the best source the log has.
  // NOLINTNEXTLINE(readability-function-cognitive-complexity): chooses the best of the log's sources for the rank count and hosts, in order of trust, and says which it used
  void place_ranks(Run& run) {
    Provenance& p = run.provenance;
    const std::vector<PrintedBandwidth> bandwidths = printed_bandwidths(run);
    // Scanning every rank count is the costly path: only where the log leaves the count open.
    const bool count_open = run.ranks_elided || (run.host_by_rank.empty() && !options_.nranks &&
                                                 !(run.launcher && run.launcher->processes));
    const std::optional<int> from_ratio = count_open ? ranks_from_bus_ratio(*run.op, bandwidths) : std::nullopt;
    int nranks = 0;
    if (!run.host_by_rank.empty()) {
      const int listed = run.host_by_rank.rbegin()->first + 1;
      const bool gaps = static_cast<int>(run.host_by_rank.size()) != listed;
      if (gaps && !run.ranks_elided)
        throw input_error_at(file_, run.first_line,
                             fmt::format("the '#  Rank' lines skip ranks (last one {}) without '...'", listed - 1));
      nranks = listed;
      if (run.ranks_elided) {
        if (from_ratio && *from_ratio >= listed) nranks = *from_ratio;
        assume(run, fmt::format("{} ranks: the rank lines are elided ('...'); the count is {}", nranks,
                                from_ratio && *from_ratio >= listed ? "what busbw/algbw implies"
                                                                    : "one past the last rank listed"));
      }
    } else if (options_.nranks) {
      nranks = *options_.nranks;
    } else if (run.launcher && run.launcher->processes) {
      nranks = *run.launcher->processes * run.launcher->gpus_per_process;
      assume(run,
             fmt::format("{} ranks from the launcher line '{}' (the log lists no ranks)", nranks, run.launcher->text));
    } else if (from_ratio) {
      nranks = *from_ratio;
      assume(run, fmt::format("{} ranks inferred from busbw/algbw (the log lists no ranks)", nranks));
    } else if (run.ranks_in_header) {
      nranks = *run.ranks_in_header;
      assume(run, fmt::format("{} ranks from the nThread x nGpus header, as for a single process (the log lists no "
                              "ranks)",
                              nranks));
    } else {
      throw input_error_at(file_, run.first_line,
                           "the log says neither how many ranks ran (no '#  Rank' lines, no launcher line) nor "
                           "lets busbw/algbw tell: pass --ranks N");
    }
    if (!bus_ratio_fits(*run.op, nranks, bandwidths)) {
      const std::optional<int> implied = from_ratio ? from_ratio : ranks_from_bus_ratio(*run.op, bandwidths);
      assume(run, fmt::format("busbw/algbw does not fit {} ranks{}: the log may be edited or mislabelled", nranks,
                              implied ? fmt::format(" (it implies {})", *implied) : std::string()));
    }
    p.nranks = nranks;
    for (int rank = 0; rank < nranks; ++rank) {
      const auto host = run.host_by_rank.find(rank);
      p.rank_hosts.push_back(host == run.host_by_rank.end() ? std::string() : host->second);
    }

    const NodeCount named = count_nodes(p.rank_hosts);
    const bool every_host_known = !run.host_by_rank.empty() && static_cast<int>(run.host_by_rank.size()) == nranks;
    if (every_host_known) {
      p.nodes = named.nodes;
      p.ranks_per_node = named.ranks_per_node;
      return;
    }
    // Hosts partly or not at all known: the launcher's placement, in equal blocks per node.
    std::optional<int> per_node;
    if (run.launcher && run.launcher->processes_per_node)
      per_node = *run.launcher->processes_per_node * run.launcher->gpus_per_process;
    else if (run.launcher && run.launcher->hosts && nranks % *run.launcher->hosts == 0)
      per_node = nranks / *run.launcher->hosts;
    if (per_node && *per_node > 0 && nranks % *per_node == 0) {
      p.ranks_per_node = *per_node;
      p.nodes = nranks / *per_node;
      assume(run, fmt::format("{} nodes of {} ranks each, from the launcher line: the log does not name every "
                              "rank's host",
                              p.nodes, *per_node));
    } else {
      assume(run, fmt::format("the node count is not in the log{}: recorded as 0 (unknown)",
                              named.nodes == 0 ? std::string()
                                               : fmt::format(" (at least {}: the hosts named)", named.nodes)));
    }
  }

  // NOLINTNEXTLINE(readability-function-cognitive-complexity): maps every column layout nccl-tests versions print (in-place, out-of-place, #wrong, N/A) to one row each
  ResultSet to_results(Run& run) {
    ResultSet results;
    run.provenance.backend = "nccl-tests";
    run.provenance.run_id = "nccl-tests-" + origin_.stem().string();
    if (run.launcher) run.provenance.command_line = run.launcher->text;
    place_ranks(run);
    results.provenance = run.provenance;
    const Provenance& p = results.provenance;
    const TableLayout& layout = *run.layout;
    // Exactly two rows per table line: growing the vector instead would hold up to three times them.
    results.rows.reserve(2 * run.table.size());
    bool counted_error_as_wrong = false;
    for (const TableLine& line : run.table) {
      const auto& t = line.tokens;
      const auto number = [&](std::size_t i) {
        const std::optional<double> value = to_double(t[i]);
        if (!value)
          throw input_error_at(file_, line.number, fmt::format("column {} is '{}', not a number", i + 1, t[i]));
        return *value;
      };
      // Sizes, counts and #wrong: converting a negative or fractional value would be undefined.
      const auto whole_number_column = [&](std::size_t i) {
        if (const std::optional<std::uint64_t> value = whole_number(number(i))) return *value;
        throw input_error_at(file_, line.number, fmt::format("column {} is '{}', not a whole number", i + 1, t[i]));
      };
      std::optional<int> root;
      if (layout.has_root) {
        const double root_column = number(4);
        if (root_column < -1 || root_column != std::floor(root_column) || root_column > 1e9)
          throw input_error_at(file_, line.number, fmt::format("root '{}' is neither -1 nor a rank", t[4]));
        if (root_column >= 0) root = static_cast<int>(root_column);
      }
      for (const bool in_place : {false, true}) {
        const std::size_t first = layout.leading_columns + (in_place ? layout.group_columns : 0);
        ResultRow row;
        row.run_id = p.run_id;
        row.backend = p.backend;
        row.op = *run.op;
        row.dtype = std::string(t[2]);
        row.redop = std::string(t[3]);
        row.root = root;
        row.in_place = in_place;
        row.nranks = p.nranks;
        row.nodes = p.nodes;
        row.ranks_per_node = p.ranks_per_node;
        row.bytes = whole_number_column(0);
        row.count = whole_number_column(1);
        row.iterations = run.iterations;
        const double time_us = number(first);
        row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = time_us;
        if (layout.per_iteration_min) {
          // -R: the minimum, maximum, p99 and CV (%) over the iterations follow the group's columns.
          const std::size_t i = first + *layout.per_iteration_min;
          row.time_min_us = number(i);
          row.time_max_us = number(i + 1);
          row.time_p99_us = number(i + 2);
          row.time_cv = number(i + 3) / 100;
        } else {
          row.unreported_statistics = std::string(nccl_tests_unreported_statistics);
        }
        row.algbw_gbps = number(first + 1);
        // With one rank nothing crosses a bus; nccl-tests prints a number anyway (DESIGN.md).
        if (p.nranks > 1) row.busbw_gbps = number(first + 2);
        std::string_view check = t[first + 3];
        if (check == "N/A") {
          row.wrong.reset();
        } else if (layout.error_column) {
          // The old column is the largest deviation found; rccl-tests marks one beyond its
          // tolerance with '*'. Within the tolerance the size passed validation.
          const bool beyond_tolerance = check.ends_with('*');
          if (beyond_tolerance) check.remove_suffix(1);
          if (!to_double(check))
            throw input_error_at(file_, line.number, fmt::format("error column '{}' is not a number", t[first + 3]));
          row.wrong = beyond_tolerance ? 1 : 0;
          counted_error_as_wrong |= beyond_tolerance;
        } else {
          row.wrong = whole_number_column(first + 3);
        }
        results.rows.push_back(std::move(row));
      }
    }
    if (counted_error_as_wrong)
      results.provenance.assumptions.push_back(
          "the old 'error' column marks sizes beyond tolerance with '*' but does not count them: each is recorded as "
          "1 wrong element");
    return results;
  }

  std::string file_;
  std::filesystem::path origin_;
  ImportOptions options_;
  std::optional<LauncherLine> launcher_;
  // The variables the script printed or the launcher set (-x), for every run after them until a
  // later block or command sets them again.
  std::map<std::string, std::string> environment_;
  std::string command_text_;
  bool command_continues_ = false;
  Run run_;
  std::vector<ResultSet> runs_;
};

bool recognizes(std::string_view text) {
  // The parameter line of either generation, or a column header with either validation column.
  const bool parameters =
      text.find("# nThread ") != std::string_view::npos || text.find("# nThreads: ") != std::string_view::npos;
  const bool header = text.find("#wrong") != std::string_view::npos ||
                      (text.find("busbw") != std::string_view::npos && text.find("error") != std::string_view::npos);
  // A run that failed before its table has the parameter line and the failure only.
  const bool failed = text.find(" failure ") != std::string_view::npos &&
                      std::any_of(std::begin(failure_kinds), std::end(failure_kinds),
                                  [&](std::string_view kind) { return text.find(kind) != std::string_view::npos; });
  return ((parameters || text.find("algbw") != std::string_view::npos) && header) || (parameters && failed);
}

std::vector<ResultSet> parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions& options) {
  return LogReader(origin, options).read(text);
}

const Registrar<Importer> registrar{{"nccl-tests",
                                     "nccl-tests and rccl-tests text logs (all_reduce_perf and the other *_perf tools)",
                                     recognizes, parse}};

}  // namespace
}  // namespace fb
