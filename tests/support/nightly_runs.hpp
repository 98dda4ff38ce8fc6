#pragma once
// A fleet's history with a known answer, for the tests of the run store and of what it feeds:
// thirty nightly pairwise runs among node1..node4 with +-0.5% of alternating noise, where from
// night22 on node3's cable carries 10% less (its pairs are slower, every other pair is not).

#include "results/atomic_file.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace fb::testing {

struct NightlyRuns {
  std::string month = "2026-11";  // night N starts on day N + 1 of this month
  std::string time_of_day = "02:00:00";
  std::uint64_t bytes = 4 << 20;
  double healthy_gbps = 12.5;
};

// Writes nightNN.json (NN from 00 to 29) into `dir`.
inline void write_nightly_runs(const std::filesystem::path& dir, const NightlyRuns& nights = {}) {
  std::filesystem::create_directories(dir);
  for (int run = 0; run < 30; ++run) {
    ResultSet results;
    results.provenance.run_id = fmt::format("night{:02}", run);
    results.provenance.start_time = fmt::format("{}-{:02}T{}Z", nights.month, run + 1, nights.time_of_day);
    results.provenance.command_line = fmt::format("fabricbench run pairwise -b {0} -e {0}", nights.bytes);
    results.provenance.rank_hosts = {"node1", "node2", "node3", "node4"};
    for (int src = 1; src <= 4; ++src)
      for (int dst = 1; dst <= 4; ++dst) {
        if (src == dst) continue;
        ResultRow row;
        row.run_id = results.provenance.run_id;
        row.backend = "mpi";
        row.op = "pairwise";
        row.nranks = 4;
        row.src_host = fmt::format("node{}", src);
        row.dst_host = fmt::format("node{}", dst);
        row.bytes = nights.bytes;
        row.busbw_gbps = row.algbw_gbps =
            nights.healthy_gbps * (run % 2 == 0 ? 1.005 : 0.995) * (run >= 22 && (src == 3 || dst == 3) ? 0.9 : 1.0);
        row.time_median_us = static_cast<double>(row.bytes) / (row.algbw_gbps * 1e3);
        results.rows.push_back(row);
      }
    write_file_atomically(dir / (results.provenance.run_id + ".json"), results_to_json(results));
  }
}

}  // namespace fb::testing
