#include "reports/console/console_table.hpp"

#include "common/op_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace fb {
namespace {

// nccl-tests' group per placement (time algbw busbw #wrong), so a script reading busbw by column
// reads it here; the statistics nccl-tests lacks come after every group's #wrong: the p99 and
// spread, then OSU's mean and the iterations behind them (-n auto chooses a count per size).
constexpr std::string_view group_columns = "{:>9} {:>8} {:>8} {:>6}";
constexpr std::size_t group_width = 9 + 1 + 8 + 1 + 8 + 1 + 6;
constexpr std::string_view extra_columns = "{:>9} {:>6} {:>9} {:>7}";
constexpr std::size_t extra_width = 9 + 1 + 6 + 1 + 9 + 1 + 7;
constexpr std::string_view key_columns = "{:>12} {:>12} {:>8} {:>6} {:>5}";
constexpr std::string_view expectation_column = " {:>6}";
constexpr std::size_t expectation_width = 1 + 6;

std::string center(std::string_view text, std::size_t width) {
  const std::size_t pad = width > text.size() ? width - text.size() : 0;
  return std::string(pad / 2, ' ') + std::string(text) + std::string(pad - pad / 2, ' ');
}

}  // namespace

std::string format_adaptive(double value) {
  if (value == 0 || !std::isfinite(value)) return fmt::format("{}", value);
  // nccl-tests' two decimals, and more where two would leave fewer than 3 significant digits: a
  // 40 Mbit/s fabric is 0.00477 GB/s, not 0.00.
  // Below 1e-4 the digits would overflow the column: 8.08e-06.
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  if (magnitude < -4) return fmt::format("{:.2e}", value);
  return fmt::format("{:.{}f}", value, std::max(2, 2 - magnitude));
}

std::string format_busbw_cell(const ResultRow& row) {
  return row.busbw_gbps ? format_adaptive(*row.busbw_gbps) : "n/a";
}

std::string format_wrong_cell(const ResultRow& row) { return row.wrong ? fmt::format("{}", *row.wrong) : "N/A"; }

std::string format_mean_cell(const ResultRow& row) {
  return row.time_mean_us ? format_adaptive(*row.time_mean_us) : "-";
}

std::string format_efficiency_cell(const ResultRow& row) {
  return row.efficiency_pct ? fmt::format("{:.1f}", *row.efficiency_pct) : "-";
}

void print_provenance(std::ostream& out, const Provenance& p) {
  out << fmt::format("# fabricbench {} (git {}), run {} started {}\n", p.tool_version, p.git_revision, p.run_id,
                     p.start_time);
  out << fmt::format("# command: {}\n", p.command_line);
  out << fmt::format("# backend: {}, {} rank{} on {} node{} (at most {} per node)\n", p.backend, p.nranks,
                     p.nranks == 1 ? "" : "s", p.nodes, p.nodes == 1 ? "" : "s", p.ranks_per_node);
  out << fmt::format("# hosts: {}\n", describe_rank_hosts(p.rank_hosts));
  out << fmt::format("# kernel: {}\n", p.kernel);
  if (!p.host_buffer_pages.empty()) out << fmt::format("# host buffers: {}\n", p.host_buffer_pages);
  for (const auto& [library, version] : p.libraries) out << fmt::format("# {}: {}\n", library, version);
  for (const auto& [name, value] : p.environment) out << fmt::format("# env {}={}\n", name, value);
}

ConsoleTable::ConsoleTable(std::ostream& out, std::vector<bool> in_place_groups, bool with_expectation)
    : out_(out), in_place_groups_(std::move(in_place_groups)), with_expectation_(with_expectation) {}

void ConsoleTable::print_header(std::string_view op) const {
  std::string titles = fmt::format("#\n# {:<{}}", op, 12 + 1 + 12 + 1 + 8 + 1 + 6 + 1 + 5 - 2);
  // The key columns are right-aligned and wider than their titles, so '#' takes the first blank.
  std::string names = fmt::format(fmt::runtime(key_columns), "size", "count", "type", "redop", "root");
  std::string units = fmt::format(fmt::runtime(key_columns), "(B)", "(elements)", "", "", "");
  names.front() = '#';
  units.front() = '#';
  for (bool in_place : in_place_groups_) {
    titles += "   " + center(in_place ? "in-place" : "out-of-place", group_width);
    names += "   " + fmt::format(fmt::runtime(group_columns), "time", "algbw", "busbw", "#wrong");
    units += "   " + fmt::format(fmt::runtime(group_columns), "(us)", "(GB/s)", "(GB/s)", "");
  }
  const std::size_t extras_width = extra_width + (with_expectation_ ? expectation_width : 0);
  for (bool in_place : in_place_groups_) {
    titles += "   " + center(in_place ? "in-place" : "out-of-place", extras_width);
    names += "   " + fmt::format(fmt::runtime(extra_columns), "p99", "cv%", "mean", "iters");
    units += "   " + fmt::format(fmt::runtime(extra_columns), "(us)", "", "(us)", "");
    if (with_expectation_) {
      names += fmt::format(fmt::runtime(expectation_column), "%exp");
      units += fmt::format(fmt::runtime(expectation_column), "");
    }
  }
  out_ << titles << '\n' << names << '\n' << units << '\n';
  out_.flush();
}

void ConsoleTable::print_size(std::span<const ResultRow> rows) const {
  if (rows.empty()) return;
  const ResultRow& first = rows.front();
  std::string line = fmt::format(fmt::runtime(key_columns), first.bytes, first.count, first.dtype, first.redop,
                                 first.root ? *first.root : -1);
  std::string extras;
  for (bool in_place : in_place_groups_) {
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const ResultRow& r) { return r.in_place == in_place; });
    if (row == rows.end()) {
      line += "   " + std::string(group_width, ' ');
      extras += "   " + std::string(extra_width + (with_expectation_ ? expectation_width : 0), ' ');
      continue;
    }
    line += "   " + fmt::format(fmt::runtime(group_columns), format_adaptive(row->time_median_us),
                                format_adaptive(row->algbw_gbps), format_busbw_cell(*row), format_wrong_cell(*row));
    extras += "   " + fmt::format(fmt::runtime(extra_columns), format_adaptive(row->time_p99_us),
                                  fmt::format("{:.1f}", row->time_cv * 100), format_mean_cell(*row), row->iterations);
    if (with_expectation_) extras += fmt::format(fmt::runtime(expectation_column), format_efficiency_cell(*row));
  }
  out_ << line << extras << '\n';
  out_.flush();
}

namespace {

std::string endpoint_label(const std::string& host, std::optional<int> rank) {
  return fmt::format("{}:{}", host, rank.value_or(-1));
}

// Device-copy rows name memories ("host", "GPU1"), all on one host; the others name ranks.
std::string src_label(const ResultRow& row) {
  return row.src_device.empty() ? endpoint_label(row.src_host, row.src_rank) : row.src_device;
}
std::string dst_label(const ResultRow& row) {
  return row.dst_device.empty() ? endpoint_label(row.dst_host, row.dst_rank) : row.dst_device;
}

std::string pattern_heading(std::span<const ResultRow> rows) {
  return fmt::format("#\n# {} {} bytes\n", rows.front().op, rows.front().bytes);
}

}  // namespace

void print_pair_matrix(std::ostream& out, std::span<const ResultRow> rows, PairMetric metric) {
  std::map<int, std::string> labels_by_rank;  // rows and columns in rank order
  std::map<std::pair<std::string, std::string>, const ResultRow*> cells;
  for (const ResultRow& row : rows) {
    const std::string src = src_label(row);
    const std::string dst = dst_label(row);
    labels_by_rank[row.src_rank.value_or(-1)] = src;
    labels_by_rank[row.dst_rank.value_or(-1)] = dst;
    cells[{src, dst}] = &row;
  }
  if (rows.empty()) return;
  std::vector<std::string> labels;
  for (const auto& [rank, label] : labels_by_rank) labels.push_back(label);
  std::size_t width = 8;
  for (const std::string& label : labels) width = std::max(width, label.size());
  out << pattern_heading(rows);
  out << fmt::format("# {} (rows send, columns receive)\n",
                     metric == PairMetric::bandwidth ? "algbw GB/s" : "latency us");
  std::string header = fmt::format("# {:>{}}", "", width - 2);
  for (const std::string& label : labels) header += fmt::format(" {:>{}}", label, width);
  out << header << '\n';
  for (const std::string& src : labels) {
    std::string line = fmt::format("{:>{}}", src, width);
    for (const std::string& dst : labels) {
      const auto cell = cells.find({src, dst});
      line += cell == cells.end()
                  ? fmt::format(" {:>{}}", "-", width)
                  : fmt::format(" {:>{}}",
                                format_adaptive(metric == PairMetric::bandwidth ? cell->second->algbw_gbps
                                                                                : cell->second->time_median_us),
                                width);
    }
    out << line << '\n';
  }
}

void print_alone_against_together(std::ostream& out, std::span<const ResultRow> rows) {
  if (rows.empty()) return;
  out << pattern_heading(rows);
  std::map<std::pair<std::string, std::string>, std::pair<const ResultRow*, const ResultRow*>> by_pair;
  std::vector<std::pair<std::string, std::string>> order;
  for (const ResultRow& row : rows) {
    const auto key = std::make_pair(src_label(row), dst_label(row));
    if (!by_pair.contains(key)) order.push_back(key);
    auto& [alone, together] = by_pair[key];
    (row.concurrent_flows.value_or(1) == 1 ? alone : together) = &row;
  }
  out << fmt::format("# {:>24} {:>24} {:>12} {:>12} {:>8}\n", "src", "dst", "alone GB/s", "together GB/s", "ratio");
  for (const auto& key : order) {
    const auto& [alone, together] = by_pair[key];
    if (!alone || !together) continue;
    out << fmt::format("  {:>24} {:>24} {:>12} {:>12} {:>8.3f}\n", key.first, key.second,
                       format_adaptive(alone->algbw_gbps), format_adaptive(together->algbw_gbps),
                       alone->algbw_gbps > 0 ? together->algbw_gbps / alone->algbw_gbps : 0.0);
  }
}

namespace {

// A latency op's bandwidth is a by-product; its answer is the time of the smallest message.
bool is_latency_op(const std::string& op) {
  const OpTraits* traits = find_op(op);
  return traits && reports_latency(*traits);
}

}  // namespace

void RunSummary::add(std::span<const ResultRow> rows) {
  for (const ResultRow& row : rows) {
    auto found = std::find_if(by_op_.begin(), by_op_.end(), [&row](const auto& op) { return op.first == row.op; });
    const bool first = found == by_op_.end();
    if (first) found = by_op_.insert(by_op_.end(), {row.op, OpTotals{}});
    OpTotals& totals = found->second;
    if (first) {
      totals.has_busbw = row.busbw_gbps.has_value();
      totals.best = row;
    }
    totals.checked = totals.checked || row.wrong.has_value();
    totals.wrong += row.wrong.value_or(0);
    totals.busbw_sum += row.busbw_gbps.value_or(0);
    ++totals.rows;
    // The first row of equals stays the op's best.
    const auto bandwidth = [&](const ResultRow& r) {
      return totals.has_busbw ? r.busbw_gbps.value_or(0) : r.algbw_gbps;
    };
    const bool better = is_latency_op(row.op) ? std::tie(row.bytes, row.time_median_us) <
                                                    std::tie(totals.best.bytes, totals.best.time_median_us)
                                              : bandwidth(row) > bandwidth(totals.best);
    if (better) totals.best = row;
  }
}

void RunSummary::print(std::ostream& out) const {
  out << "#\n";
  for (const auto& [op, totals] : by_op_) {
    const std::uint64_t wrong = totals.wrong;
    const std::string wrong_text = totals.checked ? fmt::format("{}{}", wrong, wrong == 0 ? " OK" : " FAILED") : "N/A";
    const std::string wrong_elements = totals.checked ? wrong_text : "not checked";
    const ResultRow& best = totals.best;
    if (is_latency_op(op)) {
      // OSU prints the mean: beside the median, a reader compares with its number as it is.
      const std::string mean =
          best.time_mean_us ? fmt::format(", mean {} us", format_adaptive(*best.time_mean_us)) : std::string();
      const std::string iterations =
          best.iterations > 0 ? fmt::format(" over {} iterations", best.iterations) : std::string();
      out << fmt::format("# {}: median time {} us{}{} at {} bytes (smallest size); wrong elements: {}\n", op,
                         format_adaptive(best.time_median_us), mean, iterations, best.bytes, wrong_elements);
      continue;
    }
    // Peak bandwidth says what the fabric can do; nccl-tests' average over all sizes (its trailer,
    // printed below for scripts that read it) mostly measures how many small sizes were swept.
    out << fmt::format("# {}: peak {} {} GB/s at {} bytes ({}); wrong elements: {}\n", op,
                       totals.has_busbw ? "busbw" : "algbw",
                       format_adaptive(totals.has_busbw ? best.busbw_gbps.value_or(0) : best.algbw_gbps), best.bytes,
                       best.in_place ? "in-place" : "out-of-place", wrong_elements);
    if (!totals.has_busbw) continue;
    out << fmt::format("# Out of bounds values : {}\n", wrong_text);
    out << fmt::format("# Avg bus bandwidth    : {:.4f}\n", totals.busbw_sum / static_cast<double>(totals.rows));
  }
}

void print_summary(std::ostream& out, std::span<const ResultRow> rows) {
  RunSummary summary;
  summary.add(rows);
  summary.print(out);
}

}  // namespace fb
