#include "reports/console/console_table.hpp"
#include "reports/console/round_progress.hpp"
#include "reports/console/run_parameters.hpp"
#include "support/text_lines.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::fields_of;
using testing::lines_of;

ResultRow measured_row(bool in_place) {
  ResultRow row;
  row.op = "all_reduce";
  row.dtype = "float";
  row.redop = "sum";
  row.in_place = in_place;
  row.nranks = 4;
  row.bytes = 1048576;
  row.count = 262144;
  row.time_median_us = 123.456;
  row.time_p99_us = 150;
  row.time_cv = 0.05;
  row.time_mean_us = 125.5;
  row.iterations = 20;
  row.algbw_gbps = 8.49;
  row.busbw_gbps = 12.74;
  row.wrong = 0;
  return row;
}

TEST(ConsoleTable, HeaderNamesBothPlacementsAndEveryColumn) {
  std::ostringstream out;
  ConsoleTable(out, {false, true}).print_header("all_reduce");
  const std::string header = out.str();
  EXPECT_THAT(header, HasSubstr("all_reduce"));
  EXPECT_THAT(header, HasSubstr("out-of-place"));
  EXPECT_THAT(header, HasSubstr("in-place"));
  for (const char* column :
       {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "cv%", "mean", "iters"})
    EXPECT_THAT(header, HasSubstr(column)) << column;
  // Every header line is a comment, so the table can be pasted where nccl-tests output goes.
  for (const std::string& line : lines_of(header)) EXPECT_EQ(line.front(), '#') << line;
}

TEST(ConsoleTable, InPlaceOnlyHeaderHasNoOutOfPlaceGroup) {
  std::ostringstream out;
  ConsoleTable(out, {true}).print_header("broadcast");
  EXPECT_THAT(out.str(), Not(HasSubstr("out-of-place")));
  EXPECT_THAT(out.str(), HasSubstr("in-place"));
}

TEST(ConsoleTable, OneLinePerSizeWithBothGroups) {
  std::ostringstream out;
  const std::vector<ResultRow> rows{measured_row(false), measured_row(true)};
  ConsoleTable(out, {false, true}).print_size(rows);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 1u);
  // nccl-tests' columns in its order (a script reading busbw as field 8 or 12 reads it), then p99,
  // cv%, mean and iterations per placement.
  EXPECT_THAT(fields_of(lines[0]),
              ElementsAre("1048576", "262144", "float", "sum", "-1", "123.46", "8.49", "12.74", "0", "123.46", "8.49",
                          "12.74", "0", "150.00", "5.0", "125.50", "20", "150.00", "5.0", "125.50", "20"));
}

TEST(ConsoleTable, ExpectationAddsAnEfficiencyColumnToEachGroupOnlyWhenAsked) {
  std::ostringstream plain;
  ConsoleTable(plain, {false, true}).print_header("all_reduce");
  EXPECT_THAT(plain.str(), Not(HasSubstr("%exp")));

  std::ostringstream out;
  const ConsoleTable table(out, {false, true}, true);
  table.print_header("all_reduce");
  ResultRow judged = measured_row(false);
  judged.expected_busbw_gbps = 16.0;
  judged.efficiency_pct = 79.625;
  ResultRow in_place = measured_row(true);  // no expectation, and a count -n auto chose
  in_place.iterations = 4117;
  const std::vector<ResultRow> rows{judged, in_place};
  table.print_size(rows);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 5u);  // blank comment, titles, names, units, one size
  const auto names = fields_of(lines[2]);
  EXPECT_EQ(std::count(names.begin(), names.end(), "%exp"), 2);
  EXPECT_THAT(fields_of(lines[4]), ElementsAre("1048576", "262144", "float", "sum", "-1", "123.46", "8.49", "12.74",
                                               "0", "123.46", "8.49", "12.74", "0", "150.00", "5.0", "125.50", "20",
                                               "79.6", "150.00", "5.0", "125.50", "4117", "-"));
  // The data columns stay under their names: each line is as wide as the names line.
  EXPECT_EQ(lines[4].size(), lines[2].size());
}

TEST(ConsoleTable, SingleRankBusbwIsNotApplicable) {
  ResultRow row = measured_row(false);
  row.nranks = 1;
  row.busbw_gbps.reset();
  EXPECT_EQ(format_busbw_cell(row), "n/a");
  EXPECT_EQ(format_busbw_cell(measured_row(false)), "12.74");
  std::ostringstream out;
  ConsoleTable(out, {false}).print_size(std::vector<ResultRow>{row});
  // size count type redop root | time algbw busbw #wrong | p99 cv% mean iters
  EXPECT_EQ(fields_of(out.str()).at(7), "n/a") << out.str();
}

TEST(ConsoleTable, UncheckedRowsSayNotAvailableForWrong) {
  ResultRow row = measured_row(false);
  row.wrong.reset();
  EXPECT_EQ(format_wrong_cell(row), "N/A");
  row.wrong = 3;
  EXPECT_EQ(format_wrong_cell(row), "3");
}

TEST(ConsoleSummary, SaysFailedWhenAnyElementIsWrong) {
  std::vector<ResultRow> rows{measured_row(false), measured_row(true)};
  std::ostringstream ok;
  print_summary(ok, rows);
  EXPECT_THAT(ok.str(), HasSubstr("wrong elements: 0 OK"));
  rows[1].wrong = 2;
  std::ostringstream failed;
  print_summary(failed, rows);
  EXPECT_THAT(failed.str(), HasSubstr("wrong elements: 2 FAILED"));
}

TEST(ConsoleTable, SmallRatesKeepThreeSignificantDigits) {
  EXPECT_EQ(format_adaptive(0.00477), "0.00477");  // a 40 Mbit/s fabric in GB/s
  EXPECT_EQ(format_adaptive(0.0512), "0.0512");
  EXPECT_EQ(format_adaptive(3.2), "3.20");
  EXPECT_EQ(format_adaptive(344.561), "344.56");  // never fewer decimals than nccl-tests
  EXPECT_EQ(format_adaptive(0), "0");
  EXPECT_EQ(format_adaptive(0.00000808), "8.08e-06");  // fits the column
  ResultRow slow = measured_row(false);
  slow.algbw_gbps = 0.00238;
  slow.busbw_gbps = 0.00477;
  std::ostringstream out;
  ConsoleTable(out, {false}).print_size(std::vector<ResultRow>{slow});
  EXPECT_EQ(fields_of(out.str()).at(6), "0.00238");
  EXPECT_EQ(fields_of(out.str()).at(7), "0.00477");
}

TEST(ConsoleSummary, EndsWithNcclTestsTrailerLines) {
  std::vector<ResultRow> rows{measured_row(false), measured_row(true)};
  rows[1].busbw_gbps = 13.26;
  std::ostringstream out;
  print_summary(out, rows);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 4u) << out.str();
  EXPECT_EQ(lines[1], "# all_reduce: peak busbw 13.26 GB/s at 1048576 bytes (in-place); wrong elements: 0 OK");
  EXPECT_EQ(lines[2], "# Out of bounds values : 0 OK");
  EXPECT_EQ(lines[3], "# Avg bus bandwidth    : 13.0000");
}

// `run` adds each size's rows as they are measured; the summary is the one of all the rows, the
// first of equal peaks named, ops in the order the run measured them.
TEST(ConsoleSummary, RowsAddedSizeBySizeSumUpAsAllAtOnce) {
  ResultRow out_of_place = measured_row(false), in_place = measured_row(true), later = measured_row(false);
  later.bytes = 2097152;
  later.busbw_gbps = in_place.busbw_gbps = 13.26;
  later.wrong = 5;
  ResultRow bw = measured_row(false);
  bw.op = "bw";
  bw.busbw_gbps.reset();
  RunSummary summary;
  summary.add(std::vector<ResultRow>{out_of_place, in_place});
  summary.add(std::vector<ResultRow>{bw});
  summary.add(std::vector<ResultRow>{later});
  std::ostringstream added;
  summary.print(added);
  std::ostringstream all;
  print_summary(all, std::vector<ResultRow>{out_of_place, in_place, bw, later});
  EXPECT_EQ(added.str(), all.str());
  const auto lines = lines_of(added.str());
  ASSERT_EQ(lines.size(), 5u) << added.str();
  EXPECT_EQ(lines[1], "# all_reduce: peak busbw 13.26 GB/s at 1048576 bytes (in-place); wrong elements: 5 FAILED");
  EXPECT_EQ(lines[3], "# Avg bus bandwidth    : 13.0867");
  EXPECT_EQ(lines[4], "# bw: peak algbw 8.49 GB/s at 1048576 bytes (out-of-place); wrong elements: 0 OK");
}

// A run of reduce_scatter then all_gather ends with reduce_scatter's trailer first: the summary
// follows the run, as the table above it did, not the alphabet.
TEST(ConsoleSummary, TrailersFollowTheOrderTheOpsRan) {
  ResultRow reduce_scatter = measured_row(false), all_gather = measured_row(false);
  reduce_scatter.op = "reduce_scatter";
  reduce_scatter.busbw_gbps = 11.75;
  all_gather.op = "all_gather";
  all_gather.busbw_gbps = 7.25;
  std::ostringstream out;
  print_summary(out, std::vector<ResultRow>{reduce_scatter, all_gather});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 7u) << out.str();
  EXPECT_EQ(lines[1], "# reduce_scatter: peak busbw 11.75 GB/s at 1048576 bytes (out-of-place); wrong elements: 0 OK");
  EXPECT_EQ(lines[3], "# Avg bus bandwidth    : 11.7500");
  EXPECT_EQ(lines[4], "# all_gather: peak busbw 7.25 GB/s at 1048576 bytes (out-of-place); wrong elements: 0 OK");
  EXPECT_EQ(lines[6], "# Avg bus bandwidth    : 7.2500");
}

TEST(ConsoleSummary, LatencyOpsSayTheirTimeInMicroseconds) {
  ResultRow small = measured_row(false), large = measured_row(false);
  small.op = large.op = "latency";
  small.bytes = 8;
  small.time_median_us = 1.87;
  small.time_mean_us = 2.34;
  small.iterations = 51234;
  small.busbw_gbps = large.busbw_gbps = std::nullopt;
  small.algbw_gbps = 0.0043;
  std::ostringstream out;
  print_summary(out, std::vector<ResultRow>{large, small});
  // OSU's number (the mean) beside the median, and how many iterations -n auto ran.
  EXPECT_EQ(lines_of(out.str()).at(1), "# latency: median time 1.87 us, mean 2.34 us over 51234 iterations at 8 bytes "
                                       "(smallest size); wrong elements: 0 OK");
  EXPECT_THAT(out.str(), Not(HasSubstr("GB/s")));
  // An imported row knows neither: nothing is made up.
  small.time_mean_us.reset();
  small.iterations = 0;
  std::ostringstream imported;
  print_summary(imported, std::vector<ResultRow>{small});
  EXPECT_EQ(lines_of(imported.str()).at(1),
            "# latency: median time 1.87 us at 8 bytes (smallest size); wrong elements: 0 OK");
}

TEST(ConsoleTable, RowWithoutAMeanSaysSo) {
  ResultRow row = measured_row(false);
  row.time_mean_us.reset();
  EXPECT_EQ(format_mean_cell(row), "-");
  EXPECT_EQ(format_mean_cell(measured_row(false)), "125.50");
}

TEST(RoundProgress, SaysTheRoundTheElapsedTimeAndTheEta) {
  EXPECT_EQ(describe_round_progress("pairwise 4194304 bytes", 3, 14, 12.0),
            "# pairwise 4194304 bytes: round 3 of 14, 12.0 s elapsed, ETA 44.0 s");
  EXPECT_EQ(describe_round_progress("pairwise 8 bytes", 14, 14, 50.25),
            "# pairwise 8 bytes: round 14 of 14, 50.2 s elapsed");
  std::ostringstream log;
  {
    RoundProgress progress(log, false, "concurrent 64 bytes", 2);
    progress.round_done(1);
    progress.round_done(2);
  }
  const auto lines = lines_of(log.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], ::testing::StartsWith("# concurrent 64 bytes: round 1 of 2, "));
  EXPECT_THAT(lines[0], HasSubstr(" s elapsed, ETA "));
}

// A sweep's sizes cost their latency when small and their bytes when large: the ETA follows a line
// through the sizes' times. Sizes done: 1 KiB in 1 s, 2 KiB in 1.5 s, 4 KiB in 2.5 s, which lie on
// t = 0.5 s + 0.5 s per KiB; left: 8 KiB (4.5 s) and 16 KiB (8.5 s): 13 s. An average per size
// (1.67 s) would say 3.3 s.
TEST(SweepProgress, TheEtaFollowsALineThroughTheSizesTimes) {
  const std::vector<std::uint64_t> done{1024, 2048, 4096};
  const std::vector<double> seconds{1.0, 1.5, 2.5};
  const std::vector<std::uint64_t> left{8192, 16384};
  ASSERT_TRUE(sweep_eta_s(done, seconds, left));
  EXPECT_NEAR(*sweep_eta_s(done, seconds, left), 13.0, 1e-9);
  // One size done: the others cost as much.
  EXPECT_NEAR(*sweep_eta_s(std::vector<std::uint64_t>{8}, std::vector<double>{0.25}, left), 0.5, 1e-12);
  // Nothing done: no estimate. A line falling below zero costs nothing, never less.
  EXPECT_FALSE(sweep_eta_s({}, {}, left));
  EXPECT_NEAR(*sweep_eta_s(std::vector<std::uint64_t>{1, 2}, std::vector<double>{2.0, 1.0},
                           std::vector<std::uint64_t>{100}),
              0.0, 1e-12);
  EXPECT_EQ(describe_sweep_progress("all_reduce", 7, 28, 65536, 3.21, 41.0),
            "# all_reduce: size 7 of 28 (64K) done, 3.2 s elapsed, ETA 41.0 s");
  EXPECT_EQ(describe_sweep_progress("all_reduce", 28, 28, 1 << 30, 60.0, 0.0),
            "# all_reduce: size 28 of 28 (1G) done, 60.0 s elapsed");
  std::ostringstream log;
  {
    SweepProgress progress(log, false, "all_gather", {8, 16, 32});
    for (int size = 0; size < 3; ++size) progress.size_done();
  }
  const auto lines = lines_of(log.str());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], ::testing::StartsWith("# all_gather: size 1 of 3 (8) done, "));
  EXPECT_THAT(lines[1], HasSubstr(", ETA "));
  EXPECT_THAT(lines[2], ::testing::Not(HasSubstr("ETA")));
}

ResultRow copy_row(int src, int dst, double algbw_gbps) {
  ResultRow row;
  row.op = "d2d_ce";
  row.bytes = 1 << 20;
  row.src_rank = src;
  row.dst_rank = dst;
  row.src_host = row.dst_host = "gpuhost";
  row.src_device = src < 0 ? "host" : "GPU" + std::to_string(src);
  row.dst_device = dst < 0 ? "host" : "GPU" + std::to_string(dst);
  row.algbw_gbps = algbw_gbps;
  return row;
}

// A GPU x GPU matrix reads like nvbandwidth's: memories, not host:rank, name the rows and columns,
// and a route that was not measured (no peer access) shows as "-", never as 0.
TEST(PairMatrix, DeviceCopiesAreLabelledByMemory) {
  const std::vector<ResultRow> rows{copy_row(0, 1, 400.5), copy_row(1, 0, 401.25), copy_row(2, 0, 55.0)};
  std::ostringstream out;
  print_pair_matrix(out, rows, PairMetric::bandwidth);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("d2d_ce 1048576 bytes"));
  EXPECT_THAT(text, Not(HasSubstr("gpuhost:")));
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_THAT(lines[lines.size() - 4], HasSubstr("GPU0"));
  EXPECT_THAT(lines[lines.size() - 3], ::testing::MatchesRegex(" *GPU0 +- +400.50 +- *"));
  EXPECT_THAT(lines[lines.size() - 2], ::testing::MatchesRegex(" *GPU1 +401.25 +- +- *"));
  EXPECT_THAT(lines[lines.size() - 1], ::testing::MatchesRegex(" *GPU2 +55.00 +- +- *"));
}

OpParameters all_reduce_parameters() {
  OpParameters p;
  p.op = "all_reduce";
  p.nranks = 4;
  p.min_bytes = 8;
  p.max_bytes = 33554432;
  p.warmup_iterations = 5;
  p.iterations = 20;
  p.dtype = "float";
  p.redop = "sum";
  p.placements = {"out-of-place", "in-place"};
  return p;
}

TEST(RunParameters, OneOpReadsLikeNcclTestsParameterLine) {
  std::ostringstream out;
  print_run_parameters(out, std::vector<OpParameters>{all_reduce_parameters()});
  EXPECT_THAT(lines_of(out.str()),
              ElementsAre("# nRanks 4 minBytes 8 maxBytes 33554432 step: 2(factor) warmup iters: 5 iters: 20 "
                          "validation: 1 graph: 0",
                          "# ops: all_reduce datatype: float redop: sum placement: out-of-place,in-place"));
}

TEST(RunParameters, ValuesTheOpsDoNotShareAreGivenPerOp) {
  OpParameters gather = all_reduce_parameters();
  gather.op = "all_gather";
  gather.min_bytes = 16;  // a whole-buffer op's first size on 4 ranks of floats
  gather.redop.reset();
  OpParameters latency = all_reduce_parameters();
  latency.op = "latency";
  latency.automatic = AutoIterations{.min_time_s = 0.25, .max_iterations = 100000};
  latency.redop.reset();
  latency.placements = {"out-of-place"};
  latency.src_rank = 0;
  latency.dst_rank = 3;
  latency.check = false;
  OpParameters rooted = all_reduce_parameters();
  rooted.op = "reduce";
  rooted.root = 2;
  rooted.step_bytes = 1024;
  std::ostringstream out;
  print_run_parameters(out, std::vector<OpParameters>{all_reduce_parameters(), gather, latency, rooted});
  EXPECT_THAT(lines_of(out.str()),
              ElementsAre("# nRanks 4 minBytes 8(all_reduce,latency,reduce) 16(all_gather) maxBytes 33554432 "
                          "step: 2(factor)(all_reduce,all_gather,latency) 1024(bytes)(reduce) warmup iters: 5 "
                          "iters: 20(all_reduce,all_gather,reduce) auto(0.25s,20..100000)(latency) "
                          "validation: 1(all_reduce,all_gather,reduce) 0(latency) graph: 0",
                          // redop and root only over the ops that take them; src and dst only for latency
                          "# ops: all_reduce,all_gather,latency,reduce datatype: float redop: sum root: 2 "
                          "placement: out-of-place,in-place(all_reduce,all_gather,reduce) out-of-place(latency) "
                          "src: 0 dst: 3"));
}

TEST(RunParameters, AutomaticIterationsAreOneToken) {
  OpParameters p = all_reduce_parameters();
  EXPECT_EQ(describe_iterations(p), "20");
  p.automatic = AutoIterations{.min_time_s = 0.1, .max_iterations = 5000};
  EXPECT_EQ(describe_iterations(p), "auto(0.1s,20..5000)");
}

}  // namespace
}  // namespace fb
