#pragma once
// Small hand-made result rows with known answers, for the tests of every stage.

#include "results/result_row.hpp"

#include <string>

namespace fb::testing {

// A collective row whose busbw, algbw and time agree with each other.
inline ResultRow collective_row(std::string op, std::uint64_t bytes, double time_us, int nranks = 8) {
  ResultRow row;
  row.run_id = "run-a";
  row.backend = "mpi";
  row.op = std::move(op);
  row.dtype = "float";
  row.redop = "sum";
  row.nranks = nranks;
  row.nodes = 1;
  row.ranks_per_node = nranks;
  row.bytes = bytes;
  row.count = bytes / 4;
  row.iterations = 20;
  row.time_min_us = time_us;
  row.time_median_us = time_us;
  row.time_p99_us = time_us;
  row.time_max_us = time_us;
  row.algbw_gbps = static_cast<double>(bytes) / (time_us * 1e3);
  row.busbw_gbps = row.algbw_gbps * 2.0 * (nranks - 1) / nranks;
  row.wrong = 0;
  return row;
}

// A pairwise bw row between two hosts with the given bandwidth.
inline ResultRow pair_row(int src, int dst, std::string src_host, std::string dst_host, double algbw_gbps,
                          std::uint64_t bytes = 64ull << 20) {
  ResultRow row = collective_row("bw", bytes, static_cast<double>(bytes) / (algbw_gbps * 1e3), 2);
  row.redop = "none";
  row.src_rank = src;
  row.dst_rank = dst;
  row.src_host = std::move(src_host);
  row.dst_host = std::move(dst_host);
  row.busbw_gbps = row.algbw_gbps;
  return row;
}

// `row` with a recorded run-to-run spread: the CV, and a p99 `tail` above the median.
inline ResultRow noisy(ResultRow row, double cv, double tail) {
  row.time_cv = cv;
  row.time_min_us = row.time_median_us * 0.95;
  row.time_p99_us = row.time_median_us * (1 + tail);
  row.time_max_us = row.time_p99_us;
  return row;
}

}  // namespace fb::testing
