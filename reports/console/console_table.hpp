#pragma once
// The console view of a run, laid out like nccl-tests' tables so their users read it at once:
// a '#' provenance header, one line per size with a column group per placement, a summary.
// After nccl-tests' groups come, per placement, the p99, the CV, OSU's mean and the iterations.

#include "results/provenance.hpp"
#include "results/result_row.hpp"

#include <cstdint>
#include <utility>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace fb {

void print_provenance(std::ostream& out, const Provenance& provenance);

class ConsoleTable {
 public:
  // One column group per placement, in the order given (false: out-of-place, true: in-place).
  // `with_expectation` adds a %exp column to each group (efficiency against the topology model);
  // without it the layout is nccl-tests' own.
  ConsoleTable(std::ostream& out, std::vector<bool> in_place_groups, bool with_expectation = false);

  void print_header(std::string_view op) const;
  // The rows measured for one size, one per placement group (a missing group prints blank).
  void print_size(std::span<const ResultRow> rows) const;

 private:
  std::ostream& out_;
  std::vector<bool> in_place_groups_;
  bool with_expectation_ = false;
};

enum class PairMetric { bandwidth, latency };

// Pairwise rows of one size as a source x destination matrix.
void print_pair_matrix(std::ostream& out, std::span<const ResultRow> rows, PairMetric metric);

// Concurrent rows of one size: each pair alone (concurrent_flows 1) against all pairs at once.
void print_alone_against_together(std::ostream& out, std::span<const ResultRow> rows);

// Per op: peak bandwidth (latency ops: the smallest size's time in us) and wrong elements; for ops
// with busbw nccl-tests' trailer lines, "# Out of bounds values : N OK" and "# Avg bus bandwidth".
// Ops in the order their first row arrived. Kept as rows arrive, so a run's summary needs no second copy of its rows.
class RunSummary {
 public:
  void add(std::span<const ResultRow> rows);
  void print(std::ostream& out) const;

 private:
  struct OpTotals {
    bool has_busbw = false;  // the op's first row has busbw: its bandwidth is busbw, else algbw
    bool checked = false;
    std::uint64_t wrong = 0;
    ResultRow best;  // the peak bandwidth's row; latency ops: the smallest size's fastest row
    double busbw_sum = 0;
    std::size_t rows = 0;
  };
  // In the order the run measured them: the trailers follow the run, not the alphabet.
  std::vector<std::pair<std::string, OpTotals>> by_op_;
};

void print_summary(std::ostream& out, std::span<const ResultRow> rows);

// The cell texts used by the table, exposed so their rules (n/a, N/A) are tested directly.
std::string format_busbw_cell(const ResultRow& row);
// At least 3 significant digits and nccl-tests' two decimals: never 0.00 for a small nonzero value.
std::string format_adaptive(double value);
std::string format_wrong_cell(const ResultRow& row);
std::string format_efficiency_cell(const ResultRow& row);
// The mean time, or "-" for a row whose source gave none.
std::string format_mean_cell(const ResultRow& row);

}  // namespace fb
