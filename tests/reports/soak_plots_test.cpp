#include "reports/html/gnuplot.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/soak_plots.hpp"
#include "support/result_rows.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

// Three repetitions a minute apart of a pairwise bw sweep at two sizes over three pairs; the pair
// h1 -> h2 runs at a quarter of its bandwidth in the second repetition only.
std::vector<ResultRow> soak_rows(bool with_timestamps) {
  std::vector<ResultRow> rows;
  const std::vector<std::pair<std::string, std::string>> pairs{{"h1", "h2"}, {"h2", "h3"}, {"h3", "h1"}};
  for (int repetition = 0; repetition < 3; ++repetition)
    for (const std::uint64_t bytes : {1ull << 20, 64ull << 20})
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        const bool dip = repetition == 1 && p == 0 && bytes == (64ull << 20);
        ResultRow row = testing::pair_row(static_cast<int>(p), static_cast<int>((p + 1) % 3), pairs[p].first,
                                          pairs[p].second, dip ? 10.0 : 40.0 + static_cast<double>(p), bytes);
        row.repetition = repetition;
        row.timestamp = with_timestamps ? fmt::format("2026-11-23T10:{:02}:{:02}Z", 5 + repetition, 10 + p) : "";
        rows.push_back(row);
      }
  return rows;
}

std::vector<double> xs(const PlotSeries& series) {
  std::vector<double> values;
  for (const auto& point : series.points) values.push_back(point.first);
  return values;
}

TEST(SoakPlots, BandwidthPerSizeAgainstMinutesAndTheDippingPairFirst) {
  const std::vector<ResultRow> rows = soak_rows(true);
  const std::vector<LogLogPlot> plots = bandwidth_over_time_plots(rows, "");
  ASSERT_EQ(plots.size(), 2u);

  const LogLogPlot& by_size = plots[0];
  EXPECT_EQ(by_size.title, "bw bandwidth over time");
  EXPECT_EQ(by_size.x_label, "minutes since the first repetition");
  EXPECT_FALSE(by_size.x_log);
  ASSERT_EQ(by_size.series.size(), 2u);
  EXPECT_EQ(by_size.series[0].title, "1M");
  EXPECT_EQ(by_size.series[1].title, "64M");
  // The earliest row of each repetition: 10:05:10, 10:06:10, 10:07:10.
  EXPECT_THAT(xs(by_size.series[1]), ElementsAre(0.0, 1.0, 2.0));
  // The median over the three pairs: 41 GB/s, except in the dip (10, 41, 42 -> 41 still), so the
  // folded line hides the dip that the per-pair plot shows.
  EXPECT_NEAR(by_size.series[1].points[1].second, 41.0, 1e-9);

  const LogLogPlot& by_pair = plots[1];
  EXPECT_EQ(by_pair.title, "bw at 64M per pair");
  ASSERT_EQ(by_pair.series.size(), 3u);
  EXPECT_EQ(by_pair.series[0].title, "h1 -> h2");
  ASSERT_EQ(by_pair.series[0].points.size(), 3u);
  EXPECT_NEAR(by_pair.series[0].points[0].second, 40.0, 1e-9);
  EXPECT_NEAR(by_pair.series[0].points[1].second, 10.0, 1e-9);
  EXPECT_NEAR(by_pair.series[0].points[2].second, 40.0, 1e-9);
}

TEST(SoakPlots, RowsWithoutTimestampsArePlacedByRepetition) {
  const std::vector<ResultRow> rows = soak_rows(false);
  const std::vector<LogLogPlot> plots = bandwidth_over_time_plots(rows, "run-b");
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[0].title, "run-b: bw bandwidth over time");
  EXPECT_EQ(plots[0].x_label, "repetition");
  // The repetition fields 0, 1, 2 drawn as a person counts them, as the findings name them.
  EXPECT_THAT(xs(plots[0].series[0]), ElementsAre(1.0, 2.0, 3.0));
}

TEST(SoakPlots, OneRepetitionOrNoneDrawsNothing) {
  std::vector<ResultRow> rows = soak_rows(true);
  std::erase_if(rows, [](const ResultRow& row) { return *row.repetition != 0; });
  EXPECT_TRUE(bandwidth_over_time_plots(rows, "").empty());
  for (ResultRow& row : rows) row.repetition.reset();
  EXPECT_TRUE(bandwidth_over_time_plots(rows, "").empty());
}

TEST(SoakPlots, ManyPairsKeepTheLeastSteadyAndSaySo) {
  std::vector<ResultRow> rows;
  for (int repetition = 0; repetition < 2; ++repetition)
    for (int src = 0; src < 12; ++src) {
      const bool dip = repetition == 1 && src == 7;
      ResultRow row = testing::pair_row(src, (src + 1) % 12, fmt::format("n{:02}", src),
                                        fmt::format("n{:02}", (src + 1) % 12), dip ? 5.0 : 50.0);
      row.repetition = repetition;
      row.timestamp = fmt::format("2026-11-23T10:0{}:00Z", repetition);
      rows.push_back(row);
    }
  const std::vector<LogLogPlot> plots = bandwidth_over_time_plots(rows, "");
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[1].title, fmt::format("bw at 64M per pair (the {} least steady of 12)", soak_plot_max_pairs));
  ASSERT_EQ(plots[1].series.size(), soak_plot_max_pairs);
  EXPECT_EQ(plots[1].series[0].title, "n07 -> n08");
}

TEST(SoakPlots, LinearTimeAxisKeepsTheFirstRepetitionAtZero) {
  const std::vector<ResultRow> rows = soak_rows(true);
  const std::string script = gnuplot_script(bandwidth_over_time_plots(rows, "")[0]);
  EXPECT_THAT(script, HasSubstr("set xrange [0:*]"));
  EXPECT_THAT(script, Not(HasSubstr("set logscale x")));
  EXPECT_THAT(script, HasSubstr("\n0 41\n"));
}

TEST(SoakPlots, TheReportDrawsThemInTheirOwnSection) {
  for (const char* program : {"/usr/bin/gnuplot", "/usr/bin/dot"})
    if (::access(program, X_OK) != 0) GTEST_SKIP() << program << " is not installed (scripts/setup.sh installs it)";
  ReportInput input;
  LoadedResults set;
  set.label = "soak";
  set.results.rows = soak_rows(true);
  input.sets.push_back(std::move(set));
  input.judged = diagnosis::judge_report({.fabric = {.sets = input.sets}});
  const std::string html = render_html_report(input);
  // bw: bandwidth and time per size, then over time per size and per pair.
  EXPECT_EQ(expected_plot_count(input), 4u);
  EXPECT_THAT(html, HasSubstr("<section id=\"over-time\"><h2>Bandwidth over time</h2>"));
  std::size_t svgs = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 4u);
}

}  // namespace
}  // namespace fb
