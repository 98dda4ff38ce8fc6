#include "reports/html/gnuplot.hpp"
#include "reports/html/html_escape.hpp"
#include "reports/html/pairwise_matrix.hpp"
#include "report_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

namespace fb {

using diagnosis::compare_results;
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The report draws with gnuplot and Graphviz.
bool drawing_programs_installed() {
  for (const char* program : {"gnuplot", "dot"}) {
    bool found = false;
    for (const char* dir : {"/usr/bin", "/usr/local/bin"})
      found = found || ::access((std::string(dir) + "/" + program).c_str(), X_OK) == 0;
    if (!found) return false;
  }
  return true;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST(HtmlEscape, MarkupCharactersAndControlBytes) {
  EXPECT_EQ(escape_markup("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(escape_markup(std::string("a\x01"
                                      "b")),
            "a\xef\xbf\xbd"
            "b");
}

TEST(HtmlEscape, APathBreaksOnlyAfterItsSeparatorsAndStaysEscaped) {
  EXPECT_EQ(path_markup("/tmp/run-1/a<b>.json"),
            "<span class=\"path\">/<wbr>tmp/<wbr>run-<wbr>1/<wbr>a&lt;b&gt;.<wbr>json</span>");
  EXPECT_EQ(path_markup("results"), "<span class=\"path\">results</span>");
}

TEST(Gnuplot, LabelsCannotBreakOutOfTheirQuotesOrCarryMarkup) {
  EXPECT_EQ(gnuplot_safe_text("it's <b>x</b> & \"y\""), "it?s ?b?x?/b? ? ?y?");
  const std::string script =
      gnuplot_script({"a'b", "x", "y", true, {{"node'1 <i>", {{8, 1.0}, {16, 0.0}}, {}}}, true, {}});
  EXPECT_THAT(script, HasSubstr("set title 'a?b'"));
  EXPECT_THAT(script, HasSubstr("title 'node?1 ?i?'"));
  EXPECT_THAT(script, Not(HasSubstr("16 0")));  // a zero cannot sit on a log axis
}

TEST(Gnuplot, SizeAxisTicksAtPowersOf1024AndThresholdDrawnOverItsSizes) {
  PlotSeries sweep{"run", {}, {}};
  for (double bytes = 8; bytes <= 8.0 * (1ull << 30); bytes *= 2) {
    sweep.points.emplace_back(bytes, 300.0);
    sweep.band_edge.push_back(280.0);
  }
  const std::string script = gnuplot_script(
      {"busbw", "size", "GB/s", true, {sweep}, false, {{"threshold 300 GB/s", 1 << 30, 8.0 * (1ull << 30), 300}}});
  EXPECT_THAT(script, HasSubstr("set xtics ('1K' 1024, '1M' 1048576, '1G' 1073741824)\n"));
  EXPECT_THAT(script, HasSubstr("set yrange [0:*]"));  // bandwidth on a linear axis
  EXPECT_THAT(script, Not(HasSubstr("set logscale y")));
  EXPECT_THAT(script, HasSubstr("$reference0 << EOD\n1073741824 300\n8589934592 300\nEOD"));
  EXPECT_THAT(script, HasSubstr("with filledcurves"));  // the p99 band
  EXPECT_THAT(script, HasSubstr("8 280 300\n"));
}

TEST(PairwiseMatrix, SlowCellsAgainstTheMatrixMedian) {
  const std::vector<PairwiseMatrix> matrices =
      build_pairwise_matrices(testing::hostile_report_input().sets[0].results.rows);
  ASSERT_EQ(matrices.size(), 1u);
  const PairwiseMatrix& m = matrices[0];
  EXPECT_EQ(m.op, "bw");
  ASSERT_EQ(m.endpoints.size(), 3u);
  EXPECT_EQ(m.endpoints[1], "1 (node-2)");
  EXPECT_FALSE(m.values[0][0].has_value());
  EXPECT_EQ(m.unit(), "GB/s");
  EXPECT_DOUBLE_EQ(m.median, 48.0);
  EXPECT_TRUE(m.is_slow(*m.values[2][0]));
  EXPECT_FALSE(m.is_slow(*m.values[0][2]));
}

TEST(HtmlReport, SelfContainedWithEveryPlotAndEveryInputStringEscaped) {
  if (!drawing_programs_installed())
    GTEST_SKIP() << "gnuplot or dot is not installed (scripts/setup.sh installs gnuplot-nox and graphviz)";
  const ReportInput input = testing::hostile_report_input();
  const std::string html = render_html_report(input);
  // all_gather, all_reduce, bw: bandwidth and time each; and the topology.
  EXPECT_EQ(expected_plot_count(input), 7u);
  EXPECT_EQ(count_of(html, "<svg"), expected_plot_count(input));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("http://www.w3.org/1999/xlink\" href=\"http")));
  EXPECT_THAT(html, HasSubstr("&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(2)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("<span class=\"path\">results/<wbr>&lt;b&gt;bold&lt;/<wbr>b&gt;.<wbr>json</span>"));
  EXPECT_THAT(html, HasSubstr("<th>assumed</th><td><code>8 ranks inferred from busbw/algbw (the log lists no "
                              "&lt;ranks&gt;)</code>"));
  EXPECT_THAT(html, HasSubstr("<p class=\"verdict fail\">"));
  EXPECT_THAT(html, HasSubstr("<td>wrong_result</td>"));
  EXPECT_EQ(count_of(html, "class=\"num slow\""), 1u);
  EXPECT_THAT(html, HasSubstr("<section id=\"topology\">"));
  EXPECT_THAT(html, HasSubstr("stroke=\"red\""));  // the flagged link
}

TEST(HtmlReport, RowsWithTheModelsExpectationGetATableOfEfficiency) {
  if (!drawing_programs_installed())
    GTEST_SKIP() << "gnuplot or dot is not installed (scripts/setup.sh installs gnuplot-nox and graphviz)";
  ReportInput input = testing::hostile_report_input();
  EXPECT_THAT(render_html_report(input), Not(HasSubstr("<section id=\"expectation\">")));
  for (ResultRow& row : input.sets[0].results.rows) {
    if (row.op != "bw") continue;
    row.expected_busbw_gbps = 50.0;
    row.efficiency_pct = 100 * row.algbw_gbps / 50.0;
  }
  testing::judge(input);
  const std::string html = render_html_report(input);
  EXPECT_THAT(html, HasSubstr("<section id=\"expectation\">"));
  // Six pairs: five at 48 GB/s (96%), the slow one from the hostile host's peer at 12 (24%).
  EXPECT_THAT(html, HasSubstr("<td class=\"num\">96.0</td><td class=\"num\">24.0</td>"));
  EXPECT_THAT(html, HasSubstr("rank 2 (node-3) -&gt; rank 0 (&lt;img src=x onerror=alert(1)&gt;)"));
}

TEST(HtmlReport, ComparisonAddsOneOverlaidPlotPerComparedOp) {
  if (!drawing_programs_installed())
    GTEST_SKIP() << "gnuplot or dot is not installed (scripts/setup.sh installs gnuplot-nox and graphviz)";
  ReportInput input = testing::hostile_report_input();
  const std::vector<ResultRow>& rows = input.sets[0].results.rows;
  input.judged.comparison = compare_results(rows, rows);
  input.label_a = "A";
  input.label_b = "B";
  const std::string html = render_html_report(input);
  EXPECT_EQ(expected_plot_count(input), 7u + 3u);
  EXPECT_EQ(count_of(html, "<svg"), expected_plot_count(input));
  EXPECT_THAT(html, HasSubstr("geometric mean time ratio B/A 1.000"));
}

}  // namespace
}  // namespace fb
