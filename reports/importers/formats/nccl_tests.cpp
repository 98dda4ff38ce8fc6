// nccl-tests logs (all_reduce_perf and friends): the "#  Rank" lines give hosts, the table gives
// one out-of-place and one in-place measurement per size. Semantics as nccl-tests prints them:
// size in bytes (whole buffer for all_gather etc.), one time in us, algbw and busbw in decimal GB/s.

#include "core/errors.hpp"
#include "core/op_catalog.hpp"
#include "importers/importer_registry.hpp"
#include "importers/text_lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace fb {
namespace {

constexpr std::size_t size_columns = 5;   // size count type redop root
constexpr std::size_t group_columns = 4;  // time algbw busbw #wrong, per placement
constexpr std::size_t table_columns = size_columns + 2 * group_columns;

bool recognizes(std::string_view text) {
  return text.find("# nThread ") != std::string_view::npos && text.find("#wrong") != std::string_view::npos;
}

std::string op_from_test_name(std::string_view name) {
  if (name.ends_with("_perf")) name.remove_suffix(5);
  return std::string(name);
}

// The collective: named by "# Collective test starting: X_perf" (nccl-tests 2.13 and later) or by
// the file name (all_reduce_perf.log). The table itself does not say.
std::optional<std::string> op_from_file_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  std::string best;
  for (const OpTraits& op : all_ops())
    if (name.find(std::string(op.name) + "_perf") != std::string::npos && op.name.size() > best.size())
      best = op.name;
  if (best.empty()) return std::nullopt;
  return best;
}

struct ParsedGroup {
  double time_us;
  double algbw_gbps;
  double busbw_gbps;
  std::optional<std::uint64_t> wrong;
};

ResultSet parse(std::string_view text, const std::filesystem::path& origin, const ImportOptions&) {
  const std::string file = origin.string();
  const auto fail = [&](int line, std::string_view what) -> InputError {
    return InputError(fmt::format("{}:{}: {}", file, line, what));
  };
  ResultSet results;
  Provenance& provenance = results.provenance;
  provenance.backend = "nccl-tests";
  provenance.run_id = "nccl-tests-" + origin.stem().string();
  std::optional<std::string> op;
  int iterations = 0;
  int threads_times_gpus = 1;
  std::map<int, std::string> host_by_rank;
  bool finished = false;
  int last_line = 0;

  struct TableLine {
    int number;
    std::vector<std::string_view> tokens;
  };
  std::vector<TableLine> table;
  for (const TextLine& line : split_lines(text)) {
    last_line = line.number;
    const std::vector<std::string_view> tokens = split_whitespace(line.text);
    if (tokens.empty()) continue;
    if (tokens[0] == "#") {
      if (tokens.size() >= 2 && tokens[1] == "nThread") {
        // "# nThread 1 nGpus 8 minBytes 8 maxBytes ... warmup iters: 5 iters: 20 agg iters: 1 ..."
        for (std::size_t i = 1; i + 1 < tokens.size(); ++i) {
          if (tokens[i] == "iters:" && tokens[i - 1] != "warmup" && tokens[i - 1] != "agg")
            iterations = static_cast<int>(to_integer(tokens[i + 1]).value_or(0));
        }
        const auto after = [&](std::string_view key) {
          const auto it = std::find(tokens.begin(), tokens.end(), key);
          return it != tokens.end() && it + 1 != tokens.end() ? to_integer(*(it + 1)).value_or(1) : 1;
        };
        const std::int64_t threads = after("nThread");
        const std::int64_t gpus = after("nGpus");
        // Bounded before multiplying: the product of two arbitrary integers can overflow.
        constexpr std::int64_t most_per_process = 4096;
        if (threads < 1 || gpus < 1 || threads > most_per_process || gpus > most_per_process)
          throw fail(line.number, fmt::format("nThread {} and nGpus {} must be between 1 and {}", threads, gpus,
                                              most_per_process));
        threads_times_gpus = static_cast<int>(threads * gpus);
      } else if (tokens.size() >= 9 && tokens[1] == "Rank" && tokens[7] == "on") {
        // "#  Rank  3 Group  0 Pid  4242 on node02 device  3 [0x9a] NVIDIA H100 80GB HBM3"
        const std::optional<std::int64_t> rank = to_integer(tokens[2]);
        if (!rank) throw fail(line.number, fmt::format("rank '{}' is not a number", tokens[2]));
        host_by_rank[static_cast<int>(*rank)] = std::string(tokens[8]);
      } else if (tokens.size() >= 4 && tokens[1] == "nccl-tests" && tokens[2] == "version") {
        provenance.tool_version = fmt::format("nccl-tests {}", tokens[3]);
        provenance.libraries["nccl-tests"] = std::string(tokens[3]);
        for (std::size_t i = 4; i < tokens.size(); ++i) {
          const std::size_t equals = tokens[i].find('=');
          if (equals != std::string_view::npos)
            provenance.libraries[std::string(tokens[i].substr(0, equals))] = std::string(tokens[i].substr(equals + 1));
        }
      } else if (line.text.find("Collective test starting:") != std::string_view::npos) {
        op = op_from_test_name(tokens.back());
      } else if (line.text.find("Avg bus bandwidth") != std::string_view::npos) {
        finished = true;
      }
      continue;
    }
    // A table row starts with the size; anything else outside '#' lines is NCCL's own chatter
    // (NCCL_DEBUG=INFO lines begin with "host:pid:tid").
    if (!to_integer(tokens[0])) continue;
    if (tokens.size() != table_columns)
      throw fail(line.number, fmt::format("expected {} columns (size count type redop root, then time algbw busbw "
                                          "#wrong out-of-place and in-place), found {}{}",
                                          table_columns, tokens.size(),
                                          tokens.size() < table_columns ? ": the line is cut short (truncated log?)" : ""));
    table.push_back({line.number, tokens});
  }
  if (!finished)
    throw fail(last_line, "the log ends before '# Avg bus bandwidth': truncated, or the run did not finish");
  if (table.empty()) throw fail(last_line, "no measurement rows in this nccl-tests log");
  if (!op) op = op_from_file_name(origin);
  if (!op)
    throw fail(1, "cannot tell which collective this is: the log has no '# Collective test starting' line; name the "
                  "file after the test (e.g. all_reduce_perf.log)");

  const int nranks = host_by_rank.empty() ? threads_times_gpus : static_cast<int>(host_by_rank.size());
  for (int rank = 0; rank < nranks; ++rank) {
    const auto host = host_by_rank.find(rank);
    if (!host_by_rank.empty() && host == host_by_rank.end())
      throw fail(1, fmt::format("the '#  Rank' lines skip rank {}", rank));
    provenance.rank_hosts.push_back(host == host_by_rank.end() ? std::string() : host->second);
  }
  std::map<std::string, int> ranks_on_host;
  for (const std::string& host : provenance.rank_hosts) ++ranks_on_host[host];
  provenance.nranks = nranks;
  provenance.nodes = host_by_rank.empty() ? 0 : static_cast<int>(ranks_on_host.size());
  for (const auto& [host, count] : ranks_on_host) provenance.ranks_per_node = std::max(provenance.ranks_per_node, count);

  for (const TableLine& line : table) {
    const auto& t = line.tokens;
    const auto number = [&](std::size_t i) {
      const std::optional<double> value = to_double(t[i]);
      if (!value) throw fail(line.number, fmt::format("column {} is '{}', not a number", i + 1, t[i]));
      return *value;
    };
    // Sizes, counts and #wrong: converting a negative or fractional value would be undefined.
    const auto whole_number_column = [&](std::size_t i) {
      if (const std::optional<std::uint64_t> value = whole_number(number(i))) return *value;
      throw fail(line.number, fmt::format("column {} is '{}', not a whole number", i + 1, t[i]));
    };
    const auto group = [&](std::size_t first) {
      ParsedGroup g{number(first), number(first + 1), number(first + 2), std::nullopt};
      if (t[first + 3] != "N/A") g.wrong = whole_number_column(first + 3);
      return g;
    };
    const double root_column = number(4);
    if (root_column < -1 || root_column != std::floor(root_column) || root_column > 1e9)
      throw fail(line.number, fmt::format("root '{}' is neither -1 nor a rank", t[4]));
    const auto root = static_cast<std::int64_t>(root_column);
    for (const bool in_place : {false, true}) {
      const ParsedGroup g = group(size_columns + (in_place ? group_columns : 0));
      ResultRow row;
      row.run_id = provenance.run_id;
      row.backend = provenance.backend;
      row.op = *op;
      row.dtype = std::string(t[2]);
      row.redop = std::string(t[3]);
      if (root >= 0) row.root = static_cast<int>(root);
      row.in_place = in_place;
      row.nranks = nranks;
      row.nodes = provenance.nodes;
      row.ranks_per_node = provenance.ranks_per_node;
      row.bytes = whole_number_column(0);
      row.count = whole_number_column(1);
      row.iterations = iterations;
      // nccl-tests prints one time per size (the mean over iterations, by default): there is no
      // spread to record, so every statistic carries it and the CV is 0.
      row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = g.time_us;
      row.algbw_gbps = g.algbw_gbps;
      // With one rank nothing crosses a bus; nccl-tests prints a number anyway (DESIGN.md).
      if (nranks > 1) row.busbw_gbps = g.busbw_gbps;
      row.wrong = g.wrong;
      results.rows.push_back(std::move(row));
    }
  }
  return results;
}

const ImporterRegistrar registrar{{"nccl-tests", recognizes, parse}};

}  // namespace
}  // namespace fb
