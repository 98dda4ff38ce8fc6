#pragma once
// A fleet's history with a known answer, for the tests of the run store and of what it feeds:
// thirty nightly pairwise runs among node1..node4 with +-0.5% of alternating noise, where from
// night22 on node3's cable carries 10% less (its pairs are slower, every other pair is not); a
// history that goes on past the repair of that cable sets `nights` and `repaired_night`.

#include "results/atomic_file.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace fb::testing {

struct NightlyRuns {
  std::string month = "2026-11";  // night N starts on day N + 1 of this month
  std::string time_of_day = "02:00:00";
  std::uint64_t bytes = 4 << 20;
  double healthy_gbps = 12.5;
  int nights = 30;
  int degraded_night = 22;   // the first night node3's cable carries 10% less
  int repaired_night = 100;  // the first night it is whole again (after the history by default)
};

// The date of night `night` (0: the 1st) of a history that begins in `month` (YYYY-MM), as YYYY-MM-DD:
// a history longer than its month goes on into the next.
inline std::string night_date(const std::string& month, int night) {
  const std::chrono::year_month_day date{
      std::chrono::sys_days{std::chrono::year{std::stoi(month.substr(0, 4))} /
                            std::chrono::month{static_cast<unsigned>(std::stoi(month.substr(5, 2)))} / 1} +
      std::chrono::days{night}};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                     static_cast<unsigned>(date.day()));
}

// Writes nightNN.json (NN from 00 to nights - 1) into `dir`.
inline void write_nightly_runs(const std::filesystem::path& dir, const NightlyRuns& nights = {}) {
  std::filesystem::create_directories(dir);
  const auto degraded = [&](int run) { return run >= nights.degraded_night && run < nights.repaired_night; };
  for (int run = 0; run < nights.nights; ++run) {
    ResultSet results;
    results.provenance.run_id = fmt::format("night{:02}", run);
    results.provenance.start_time = fmt::format("{}T{}Z", night_date(nights.month, run), nights.time_of_day);
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
        row.busbw_gbps = row.algbw_gbps = nights.healthy_gbps * (run % 2 == 0 ? 1.005 : 0.995) *
                                          (degraded(run) && (src == 3 || dst == 3) ? 0.9 : 1.0);
        row.time_median_us = static_cast<double>(row.bytes) / (row.algbw_gbps * 1e3);
        results.rows.push_back(row);
      }
    write_file_atomically(dir / (results.provenance.run_id + ".json"), results_to_json(results));
  }
}

}  // namespace fb::testing
