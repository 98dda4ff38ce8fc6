// The acceptance record as a customer gets it: printed to PDF by the real headless Chromium on A4
// and Letter and read back with poppler (pdftotext for the words and their boxes, pdftoppm for the
// pixels), and laid out by Chromium for the screen. A record whose plot text prints under 8 pt,
// whose pages are not numbered, or whose check has no limit line on its plot fails here.
//
// FB_SCREENSHOT_DIR=docs/img regenerates the pictures docs/acceptance.md shows.

#include "diagnosis/check_verdicts.hpp"
#include "reports/campaign/campaign_record.hpp"
#include "reports/campaign/record_measured.hpp"
#include "reports/html/svg_program.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

namespace fb {

using diagnosis::CheckVerdict;

using diagnosis::Thresholds;
using diagnosis::parse_thresholds;
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs a program (no shell) and returns its standard output; throws when it fails.
std::string run(std::vector<std::string> args, const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "program.out";
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen("/dev/null", "w", stderr)) ::_exit(126);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(args[0].c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(args[0] + " failed");
  return read_file(out);
}

bool tools_present() {
  for (const char* tool : {"/usr/bin/chromium", "/usr/bin/gnuplot", "/usr/bin/pdftoppm", "/usr/bin/pdftotext"})
    if (::access(tool, X_OK) != 0) return false;
  return true;
}

ResultRow collective_row(const std::string& op, std::uint64_t bytes, int repetition, double busbw, double time_us) {
  ResultRow row;
  row.run_id = "r1";
  row.backend = "mpi";
  row.op = op;
  row.dtype = "float";
  row.redop = "sum";
  row.nranks = 4;
  row.nodes = 1;
  row.ranks_per_node = 4;
  row.bytes = bytes;
  row.count = bytes / 4;
  row.iterations = 20;
  row.repetition = repetition;
  row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = time_us;
  row.busbw_gbps = busbw;
  row.algbw_gbps = busbw / 1.5;
  row.wrong = 0;
  return row;
}

// A pair's row of a pairwise or concurrent stage: ranks of one host, `flows` pairs in flight.
ResultRow pair_result(const std::string& op, int src, int dst, std::uint64_t bytes, int repetition, int flows,
                      double gbps) {
  ResultRow row = collective_row(op, bytes, repetition, gbps, static_cast<double>(bytes) / (gbps * 1e3));
  row.redop = "none";
  row.src_rank = src;
  row.dst_rank = dst;
  row.src_host = row.dst_host = "node01";
  row.concurrent_flows = flows;
  row.algbw_gbps = gbps;
  return row;
}

// The pairwise stage: the 12 ordered pairs of 4 ranks at 64K and 1M, 10 repetitions, pair 3 -> 1 at
// half the others' 6 GB/s; the concurrent stage: the same pairs at 1M alone and 2 at once (at 60%).
std::vector<ResultRow> pair_rows(const std::string& op, std::mt19937_64& rng) {
  std::lognormal_distribution<double> quiet(0, 0.02);
  std::vector<ResultRow> rows;
  for (int rep = 0; rep < 10; ++rep)
    for (int src = 0; src < 4; ++src)
      for (int dst = 0; dst < 4; ++dst) {
        if (src == dst) continue;
        const double gbps = src == 3 && dst == 1 ? 3.0 : 6.0;
        if (op == "pairwise") {
          rows.push_back(pair_result(op, src, dst, 64 << 10, rep, 1, gbps / 2 * quiet(rng)));
          rows.push_back(pair_result(op, src, dst, 1 << 20, rep, 1, gbps * quiet(rng)));
        } else {
          rows.push_back(pair_result(op, src, dst, 1 << 20, rep, 1, gbps * quiet(rng)));
          rows.push_back(pair_result(op, src, dst, 1 << 20, rep, 2, 0.6 * gbps * quiet(rng)));
        }
      }
  return rows;
}

constexpr std::string_view sample_thresholds = R"(checks:
  - name: all_reduce busbw at >= 8M
    kind: min_bandwidth
    op: all_reduce
    min_bytes: 8M
    metric: busbw_gbps
    at_least_gbps: 8
  - name: all_gather busbw at >= 8M
    kind: min_bandwidth
    op: all_gather
    min_bytes: 8M
    metric: busbw_gbps
    at_least_gbps: 8
  - name: all_reduce latency at 8 B
    kind: max_latency
    op: all_reduce
    bytes: 8
    statistic: median
    at_most_us: 25
  - name: no wrong element
    kind: zero_wrong
)";

// A campaign's record with a check of each verdict: bandwidth that passes, bandwidth that fails at
// its largest size, latency too noisy to decide (on a time plot), and a zero_wrong count; and the
// pairwise and concurrent stages' rows, which no check of these thresholds looks at.
CampaignRecord sample_record(std::string_view thresholds_text = sample_thresholds) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> quiet(0, 0.02), noisy(0, 0.8);
  std::vector<ResultRow> rows;
  for (int rep = 0; rep < 10; ++rep)
    for (const std::uint64_t bytes : {8ULL, 1ULL << 10, 64ULL << 10, 1ULL << 20, 8ULL << 20, 64ULL << 20}) {
      const double plateau = bytes >= (8ULL << 20) ? 9.5 : 9.5 * static_cast<double>(bytes) / (8 << 20);
      rows.push_back(collective_row("all_reduce", bytes, rep, plateau * quiet(rng), 20 * noisy(rng)));
      rows.push_back(collective_row("all_gather", bytes, rep, (bytes == (64ULL << 20) ? 3 : plateau) * quiet(rng),
                                    15 * quiet(rng)));
    }
  const std::vector<ResultRow> pairwise = pair_rows("pairwise", rng);
  const std::vector<ResultRow> concurrent = pair_rows("concurrent", rng);
  std::vector<ResultRow> judged = rows;
  judged.insert(judged.end(), pairwise.begin(), pairwise.end());
  judged.insert(judged.end(), concurrent.begin(), concurrent.end());
  Thresholds thresholds = parse_thresholds(std::string(thresholds_text), "thresholds.yaml");
  thresholds.source = "thresholds.yaml";
  CampaignRecord record;
  record.system = "cpu-dev-box";
  record.customer = "Example Customer";
  record.started_at = "2026-11-26T19:00:00Z";
  record.written_at = "2026-11-26T19:04:10Z";
  record.tool_version = "0.1.0";
  record.git_revision = "test";
  record.results_dir = "campaign-cpu-mpi";
  record.record_id = "3f2a9c1b7e4d";
  record.plan = {"plans/cpu-mpi.yaml", std::string(64, 'a'), "system: cpu-dev-box\n"};
  record.thresholds = RecordFile{"plans/thresholds/cpu-mpi.yaml", std::string(64, 'b'), std::string(thresholds_text)};
  record.judgement =
      diagnosis::judge_acceptance({.rows = judged, .thresholds = &thresholds, .confidence = 0.95}, "campaign");
  record.stages = {{"doctor", "doctor", "completed", 1, "2026-11-26T19:00:00Z", "2026-11-26T19:00:01Z", "1 hosts", 0,
                    "stages/doctor/attempt-1"},
                   {"pairwise",
                    "pairwise",
                    "completed",
                    1,
                    "2026-11-26T19:00:01Z",
                    "2026-11-26T19:00:30Z",
                    "",
                    pairwise.size(),
                    "stages/pairwise/attempt-1",
                    {},
                    pairwise},
                   {"concurrent",
                    "concurrent",
                    "completed",
                    1,
                    "2026-11-26T19:00:30Z",
                    "2026-11-26T19:01:00Z",
                    "",
                    concurrent.size(),
                    "stages/concurrent/attempt-1",
                    {},
                    concurrent},
                   {"collectives",
                    "collectives",
                    "completed",
                    2,
                    "2026-11-26T19:01:00Z",
                    "2026-11-26T19:04:00Z",
                    "",
                    rows.size(),
                    "stages/collectives/attempt-2",
                    {},
                    rows}};
  record.hosts = {{"node01", {{"GPUs", "none"}, {"NICs", "1 x Ethernet 8086:100e"}, {"kernel", "6.1.0"}}}};
  return record;
}

// One word of pdftotext -bbox: its page, box in points, text.
struct Word {
  int page = 0;
  double x_min = 0, y_min = 0, x_max = 0, y_max = 0;
  std::string text;
};

struct PdfText {
  double page_width_pt = 0;
  double page_height_pt = 0;
  std::vector<Word> words;
  int pages = 0;
};

PdfText words_of(const std::filesystem::path& pdf, const std::filesystem::path& scratch) {
  const std::string xhtml = run({"/usr/bin/pdftotext", "-bbox", pdf.string(), "-"}, scratch);
  PdfText text;
  const std::regex page_re(R"re(<page width="([0-9.]+)" height="([0-9.]+)">)re");
  const std::regex word_re(
      R"re(<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>)re");
  std::istringstream lines(xhtml);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, page_re)) {
      ++text.pages;
      text.page_width_pt = std::stod(m[1]);
      text.page_height_pt = std::stod(m[2]);
    } else if (std::regex_search(line, m, word_re)) {
      text.words.push_back({text.pages, std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), m[5]});
    }
  }
  return text;
}

// Pixels of the limit line's red (#c00000) in a region of a page rendered at 72 dpi (1 px = 1 pt).
int red_pixels(const std::filesystem::path& pdf, int page, double y_from_pt, double y_to_pt, double width_pt,
               const std::filesystem::path& scratch) {
  const std::string ppm =
      run({"/usr/bin/pdftoppm", "-r", "72", "-f", std::to_string(page), "-l", std::to_string(page), "-x", "0", "-y",
           std::to_string(static_cast<int>(y_from_pt)), "-W", std::to_string(static_cast<int>(width_pt)), "-H",
           std::to_string(static_cast<int>(y_to_pt - y_from_pt)), pdf.string()},
          scratch);
  // P6 header: magic, width, height, maxval, then RGB bytes.
  std::istringstream header(ppm);
  std::string magic;
  int width = 0, height = 0, maxval = 0;
  header >> magic >> width >> height >> maxval;
  const std::size_t start = static_cast<std::size_t>(header.tellg()) + 1;
  int red = 0;
  for (std::size_t i = start; i + 2 < ppm.size(); i += 3) {
    const auto r = static_cast<unsigned char>(ppm[i]), g = static_cast<unsigned char>(ppm[i + 1]),
               b = static_cast<unsigned char>(ppm[i + 2]);
    red += r >= 170 && r <= 215 && g < 40 && b < 40;
  }
  return red;
}

// "page K of N" at the foot of page K.
bool has_page_number(const PdfText& text, int page) {
  for (std::size_t i = 0; i + 3 < text.words.size(); ++i) {
    const Word& w = text.words[i];
    if (w.page == page && w.text == "page" && text.words[i + 1].text == std::to_string(page) &&
        text.words[i + 2].text == "of" && text.words[i + 3].text == std::to_string(text.pages) &&
        w.y_min > text.page_height_pt - 60)
      return true;
  }
  return false;
}

class RecordPdf : public ::testing::TestWithParam<Paper> {};

TEST_P(RecordPdf, PlotTextAtLeast8PtPageNumbersAndEveryCheckLineOnItsPlot) {
  if (!tools_present()) GTEST_SKIP() << "needs chromium, gnuplot and poppler-utils (scripts/setup.sh)";
  const testing::TempDir scratch;
  const CampaignRecord record = sample_record();
  ASSERT_EQ(record_plot_count(record), 3u);
  const std::filesystem::path pdf = scratch.path() / "record.pdf";
  std::ofstream(pdf, std::ios::binary) << print_html_to_pdf(render_record_html(record, GetParam()));
  const PdfText text = words_of(pdf, scratch.path());
  // A4 is 595 x 842 pt, Letter 612 x 792 pt.
  if (GetParam() == Paper::a4) {
    EXPECT_NEAR(text.page_width_pt, 595.3, 1.5);
    EXPECT_NEAR(text.page_height_pt, 841.9, 1.5);
  } else {
    EXPECT_NEAR(text.page_width_pt, 612, 1.5);
    EXPECT_NEAR(text.page_height_pt, 792, 1.5);
  }
  ASSERT_GE(text.pages, 3);

  for (int page = 1; page <= text.pages; ++page) {
    EXPECT_TRUE(has_page_number(text, page))
        << "page " << page << " has no 'page " << page << " of " << text.pages << "' at its foot";
  }

  // Plot text: the legend's "limit:" entries and the axis label "(bytes)" exist only in plots.
  // The box height of a word is its font's ascent plus descent, 1.16 em in DejaVu Sans: at least
  // 8 pt of font is a box of at least 9.3 pt.
  int plot_words = 0;
  for (const Word& w : text.words) {
    if (w.text != "limit:" && w.text != "(bytes)") continue;
    ++plot_words;
    EXPECT_GE((w.y_max - w.y_min) / 1.16, 8.0)
        << w.text << " on page " << w.page << " prints at " << (w.y_max - w.y_min) / 1.16 << " pt";
  }
  EXPECT_GE(plot_words, 3 + 2);  // three legends, two size axes (the latency plot's too: 3)

  // Each plotted check: its legend names it, and above the legend (its plot) the limit is drawn red.
  for (const CheckVerdict& check : record.judgement.checks) {
    if (check.measurements.empty()) continue;
    const std::string first_word = check.check.name.substr(0, check.check.name.find(' '));
    const Word* legend = nullptr;
    for (std::size_t i = 0; i + 1 < text.words.size() && !legend; ++i)
      if (text.words[i].text == "limit:" && text.words[i + 1].text == first_word &&
          (i + 2 >= text.words.size() || check.check.name.find(text.words[i + 2].text) != std::string::npos))
        legend = &text.words[i];
    ASSERT_NE(legend, nullptr) << "no legend entry 'limit: " << check.check.name << "'";
    // The legend sits over its plot, under 300 pt tall at the text width (420 / 720 of 510 pt); the legend's
    // own sample of the line is left out (from 4 pt under the entry).
    const double plot_bottom = std::min(text.page_height_pt, legend->y_max + 290);
    EXPECT_GE(red_pixels(pdf, legend->page, legend->y_max + 4, plot_bottom, text.page_width_pt, scratch.path()), 40)
        << check.check.name << ": no limit line on its plot";
  }
  if (const char* dir = std::getenv("FB_SCREENSHOT_DIR")) {
    const std::string stem =
        (std::filesystem::path(dir) / (GetParam() == Paper::a4 ? "record-a4" : "record-letter")).string();
    run({"/usr/bin/pdftoppm", "-r", "60", "-png", "-f", "1", "-l", "3", pdf.string(), stem}, scratch.path());
  }
}

INSTANTIATE_TEST_SUITE_P(Papers, RecordPdf, ::testing::Values(Paper::a4, Paper::letter),
                         [](const auto& paper) { return paper.param == Paper::a4 ? "A4" : "Letter"; });

// The same checks for the screen: laid out by Chromium, measured by a script in a copy.
constexpr std::string_view measuring_script = R"(<script>
(function () {
  const out = [];
  const plots = [...document.querySelectorAll('.plot svg')];
  out.push('plots=' + plots.length);
  let smallest = 1e9, lines = 0;
  for (const svg of plots) {
    for (const t of svg.querySelectorAll('text'))
      if (t.textContent.trim() !== '') smallest = Math.min(smallest, t.getBoundingClientRect().height);
    const section = svg.closest('section.check');
    const name = section.querySelector('h3').textContent.replace(/^[0-9]+\. /, '').replace(/: [A-Z]+$/, '')
                   .replace('at >=', 'from').replace('>=', 'at least').replace('<=', 'at most');
    const legend = [...svg.querySelectorAll('text')].some(t => t.textContent === 'limit: ' + name);
    const drawn = [...svg.querySelectorAll('path')].some(p => (p.getAttribute('stroke') || '').replace(/ /g, '') === 'rgb(192,0,0)');
    if (legend && drawn) ++lines;
  }
  out.push('smallest_plot_text_px=' + Math.round(smallest));
  out.push('checks_with_limit_line=' + lines);
  out.push('failing_rows=' + document.querySelectorAll('table.measurements tr.fail').length);
  out.push('inconclusive_rows=' + document.querySelectorAll('table.measurements tr.inconclusive').length);
  out.push('limit_columns=' + [...document.querySelectorAll('table.measurements th')].filter(t => t.textContent.startsWith('limit')).length);
  out.push('signoff=' + document.querySelectorAll('.signoff .field').length);
  const pre = document.createElement('pre');
  pre.id = 'measurements';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
})();
</script>)";

TEST(RecordHtml, ChromiumShowsEveryCheckWithItsNamedLimitLineAndMarksFailingSizes) {
  if (!tools_present()) GTEST_SKIP() << "needs chromium and gnuplot (scripts/setup.sh)";
  const testing::TempDir scratch;
  const CampaignRecord record = sample_record();
  std::string html = render_record_html(record, Paper::screen);
  if (const char* dir = std::getenv("FB_SCREENSHOT_DIR")) {
    const std::filesystem::path page = scratch.path() / "record.html";
    std::ofstream(page) << html;
    run({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         "--user-data-dir=" + (scratch.path() / "profile").string(), "--window-size=1200,2400",
         "--screenshot=" + (std::filesystem::path(dir) / "record-html.png").string(), "file://" + page.string()},
        scratch.path());
  }
  html.erase(html.find("<meta http-equiv=\"Content-Security-Policy\""),
             html.find('>', html.find("<meta http-equiv=\"Content-Security-Policy\"")) + 1 -
                 html.find("<meta http-equiv=\"Content-Security-Policy\""));
  html.insert(html.rfind("</body>"), measuring_script);
  const std::filesystem::path page = scratch.path() / "measured.html";
  std::ofstream(page) << html;
  const std::string dom = run({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               "--user-data-dir=" + (scratch.path() / "profile").string(), "--window-size=1200,1000",
                               "--dump-dom", "file://" + page.string()},
                              scratch.path());
  const std::size_t begin = dom.find("<pre id=\"measurements\">");
  ASSERT_NE(begin, std::string::npos) << "the measuring script did not run";
  std::map<std::string, std::string> m;
  std::istringstream lines(dom.substr(begin, dom.find("</pre>", begin) - begin));
  for (std::string line; std::getline(lines, line);)
    if (const std::size_t eq = line.find('='); eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
  EXPECT_EQ(m["plots"], "3");
  EXPECT_EQ(m["checks_with_limit_line"], "3");
  EXPECT_GE(std::stoi(m["smallest_plot_text_px"]), 10);
  // all_gather's 64 MiB breaks its limit: one failing row; the noisy latency: one undecided row.
  EXPECT_EQ(m["failing_rows"], "1");
  EXPECT_EQ(m["inconclusive_rows"], "1");
  EXPECT_EQ(m["limit_columns"], "3");
  EXPECT_EQ(m["signoff"], "6");
}

// The sign-off's words follow the verdict: a customer never signs "accept" under a FAIL or an
// INCONCLUSIVE record.
TEST(RecordHtml, SignOffAcceptsOnlyAPass) {
  if (::access("/usr/bin/gnuplot", X_OK) != 0) GTEST_SKIP() << "gnuplot is not installed (scripts/setup.sh)";
  CampaignRecord record = sample_record();
  const std::string accepts = "The undersigned accept the system as recorded above";
  for (const auto& [decision, words] :
       std::vector<std::pair<diagnosis::Decision, std::string>>{{diagnosis::Decision::pass, accepts},
                                                                {diagnosis::Decision::fail, "The system did not pass"},
                                                                {diagnosis::Decision::inconclusive,
                                                                 "The system is not yet accepted"}}) {
    record.judgement.decision = decision;
    const std::string html = render_record_html(record, Paper::screen);
    EXPECT_THAT(html, ::testing::HasSubstr(words)) << diagnosis::name_of(decision);
    if (decision != diagnosis::Decision::pass) { EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr(accepts))); }
  }
}

// Names as long as customers write them, so that each table and plot legend has to make room; the
// same verdicts as sample_thresholds (PASS, FAIL at 64M, INCONCLUSIVE latency), and a pair check.
constexpr std::string_view long_named_thresholds = R"(checks:
  - name: all_reduce bus bandwidth of every out-of-place size at >= 8M on all four ranks of the node, as the contract states it
    kind: min_bandwidth
    op: all_reduce
    min_bytes: 8M
    metric: busbw_gbps
    at_least_gbps: 8
  - name: all_gather bus bandwidth of every out-of-place size at >= 8M on all four ranks of the node, as the contract states it
    kind: min_bandwidth
    op: all_gather
    min_bytes: 8M
    metric: busbw_gbps
    at_least_gbps: 8
  - name: all_reduce median latency at 8 B on four ranks, the small-message path that every training step waits on
    kind: max_latency
    op: all_reduce
    bytes: 8
    statistic: median
    at_most_us: 25
  - name: pairwise bandwidth of every ordered pair of ranks over the shared-memory transport against the expected rate
    kind: pairwise_bandwidth
    op: pairwise
    expected_gbps: 6
    min_fraction: 0.3
  - name: no wrong element in any result of any stage of the campaign, validated on every rank
    kind: zero_wrong
)";

// The words of every table header and verdict mark in `html`, 4 characters or longer: the words a
// printed table must never break across lines.
std::set<std::string> unbreakable_words(const std::string& html) {
  std::set<std::string> words;
  const std::regex cell_re(R"re(<th[^>]*>([^<]*)</th>|<td class="mark">([^<]*)</td>)re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell_re); it != std::sregex_iterator(); ++it) {
    std::istringstream text((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    for (std::string word; text >> word;)
      if (word.size() >= 4 && word.find('&') == std::string::npos) words.insert(word);
  }
  return words;
}

// One page of the PDF rendered at 72 dpi (1 px = 1 pt), as RGB bytes.
struct PagePixels {
  int width = 0;
  int height = 0;
  std::string rgb;
  bool dark(int x, int y) const {
    const std::size_t at =
        3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x));
    return static_cast<unsigned char>(rgb[at]) < 160 || static_cast<unsigned char>(rgb[at + 1]) < 160 ||
           static_cast<unsigned char>(rgb[at + 2]) < 160;
  }
};

PagePixels page_pixels(const std::filesystem::path& pdf, int page, const std::filesystem::path& scratch) {
  const std::string ppm =
      run({"/usr/bin/pdftoppm", "-r", "72", "-f", std::to_string(page), "-l", std::to_string(page), pdf.string()},
          scratch);
  std::istringstream header(ppm);
  std::string magic;
  PagePixels pixels;
  int maxval = 0;
  header >> magic >> pixels.width >> pixels.height >> maxval;
  pixels.rgb = ppm.substr(static_cast<std::size_t>(header.tellg()) + 1);
  return pixels;
}

// No word of `vocabulary` printed as a head on one line and its tail starting at the same left edge
// on the next.
void expect_no_word_split(const PdfText& text, const std::set<std::string>& vocabulary) {
  for (const Word& head : text.words)
    for (const std::string& whole : vocabulary) {
      if (head.text.size() < 2 || head.text.size() >= whole.size() ||
          whole.compare(0, head.text.size(), head.text) != 0)
        continue;
      const std::string tail = whole.substr(head.text.size());
      for (const Word& next : text.words)
        EXPECT_FALSE(next.page == head.page && next.text == tail && next.y_min > head.y_min + 2 &&
                     next.y_min < head.y_max + 2 * (head.y_max - head.y_min) && std::abs(next.x_min - head.x_min) < 4)
            << "'" << whole << "' split into '" << head.text << "|" << tail << "' on page " << head.page;
    }
}

// No dark pixel of page `page`, rendered at 72 dpi, in either side margin.
void expect_no_ink_in_side_margins(const std::filesystem::path& pdf, int page, const PdfText& text, double margin_pt,
                                   const std::filesystem::path& scratch) {
  const PagePixels pixels = page_pixels(pdf, page, scratch);
  ASSERT_NEAR(pixels.width, text.page_width_pt, 1.5);
  int left = 0, right = 0;
  for (int y = 0; y < pixels.height; ++y) {
    for (int x = 0; x < static_cast<int>(margin_pt) - 2; ++x) left += pixels.dark(x, y);
    for (int x = static_cast<int>(text.page_width_pt - margin_pt) + 3; x < pixels.width; ++x)
      right += pixels.dark(x, y);
  }
  EXPECT_EQ(left, 0) << "ink in the left margin of page " << page;
  EXPECT_EQ(right, 0) << "ink in the right margin of page " << page;
}

// The record's printed layout with long check names, measured in the PDF: no header word or
// verdict split across lines (a word's head on one line and its tail starting at the same left
// edge on the next), every word inside the 15 mm margins, no ink of a cell border (or anything
// else) in the side margins, and the sign-off whole on the last page.
TEST_P(RecordPdf, LongNamesBreakNoHeaderWordAndEveryCellStaysInsideThePage) {
  if (!tools_present()) GTEST_SKIP() << "needs chromium, gnuplot and poppler-utils (scripts/setup.sh)";
  const testing::TempDir scratch;
  const CampaignRecord record = sample_record(long_named_thresholds);
  const std::string html = render_record_html(record, GetParam());
  const std::filesystem::path pdf = scratch.path() / "record.pdf";
  std::ofstream(pdf, std::ios::binary) << print_html_to_pdf(html);
  const PdfText text = words_of(pdf, scratch.path());
  ASSERT_GE(text.pages, 4);

  const std::set<std::string> vocabulary = unbreakable_words(html);
  for (const char* word : {"INCONCLUSIVE", "repetitions", "measurement", "statement", "attempts", "finished"})
    ASSERT_TRUE(vocabulary.count(word)) << word << " is not among the record's header words";
  // Each INCONCLUSIVE mark of a table prints as one word.
  const std::regex mark_re(R"re(<td class="mark">INCONCLUSIVE)re");
  const auto marks = std::distance(std::sregex_iterator(html.begin(), html.end(), mark_re), std::sregex_iterator());
  ASSERT_GE(marks, 2);  // the latency check in the checks table and its undecided size
  EXPECT_GE(std::count_if(text.words.begin(), text.words.end(), [](const Word& w) { return w.text == "INCONCLUSIVE"; }),
            marks);
  expect_no_word_split(text, vocabulary);

  // A word's box is its glyphs' advance widths: text set flush against the margin (the page
  // head's record ID) ends up to a point past it; a cell that runs off ends many points past.
  const double margin_pt = 15 / 25.4 * 72;
  for (const Word& w : text.words) {
    EXPECT_GE(w.x_min, margin_pt - 2) << "'" << w.text << "' on page " << w.page << " starts in the left margin";
    EXPECT_LE(w.x_max, text.page_width_pt - margin_pt + 2)
        << "'" << w.text << "' on page " << w.page << " runs into the right margin, to " << w.x_max << " of "
        << text.page_width_pt << " pt";
    EXPECT_LE(w.y_max, text.page_height_pt);
  }
  for (int page = 1; page <= text.pages; ++page)
    expect_no_ink_in_side_margins(pdf, page, text, margin_pt, scratch.path());
  // The sign-off is one block: its heading and both parties' signature and date fields on one page.
  std::set<int> signoff_pages;
  int signoff_words = 0;
  for (const Word& w : text.words)
    if (w.text == "Sign-off" || w.text == "signature" || w.text == "date") {
      signoff_pages.insert(w.page);
      ++signoff_words;
    }
  EXPECT_EQ(signoff_words, 1 + 2 + 2);
  EXPECT_EQ(signoff_pages.size(), 1u) << "the sign-off spans pages";
  EXPECT_EQ(signoff_pages.count(text.pages), 1u) << "the sign-off is not on the last page";
  if (const char* dir = std::getenv("FB_SCREENSHOT_DIR"); dir && GetParam() == Paper::a4)
    run({"/usr/bin/pdftoppm", "-r", "60", "-png", "-f", "1", "-l", "2", pdf.string(),
         (std::filesystem::path(dir) / "record-long-a4").string()},
        scratch.path());
}

// Every plot's text in Chromium, check plots and stage plots alike: inside its SVG (a legend or
// title that runs past the canvas is clipped), and no '?' where gnuplot met a character outside its
// safe set (the mojibake "table?s order").
constexpr std::string_view plot_text_script = R"(<script>
(function () {
  const out = [];
  const svgs = [...document.querySelectorAll('.plot svg, .stage-plot svg')];
  let clipped = 0, questioned = 0, texts = 0, wrapped_legend_lines = 0;
  const examples = [];
  for (const svg of svgs) {
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const s = t.textContent.trim();
      if (s === '') continue;
      ++texts;
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        ++clipped;
        examples.push(s);
      }
      if (s.includes('?') || s.includes('\uFFFD')) { ++questioned; examples.push(s); }
    }
  }
  out.push('check_plots=' + document.querySelectorAll('.plot svg').length);
  out.push('stage_plots=' + document.querySelectorAll('.stage-plot svg').length);
  out.push('plot_texts=' + texts);
  out.push('clipped_texts=' + clipped);
  out.push('question_marks=' + questioned);
  out.push('examples=' + examples.slice(0, 3).join(' | '));
  out.push('findings=' + document.querySelectorAll('ul.findings li').length);
  out.push('findings_text=' + [...document.querySelectorAll('ul.findings li')].map(li => li.textContent).join(' | '));
  const pre = document.createElement('pre');
  pre.id = 'measurements';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
})();
</script>)";

std::map<std::string, std::string> measured_in_chromium(std::string html, std::string_view script,
                                                        const std::filesystem::path& scratch) {
  const std::size_t csp = html.find("<meta http-equiv=\"Content-Security-Policy\"");
  html.erase(csp, html.find('>', csp) + 1 - csp);
  html.insert(html.rfind("</body>"), script);
  const std::filesystem::path page = scratch / "measured.html";
  std::ofstream(page) << html;
  const std::string dom = run({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               "--user-data-dir=" + (scratch / "profile").string(), "--window-size=1200,1000",
                               "--dump-dom", "file://" + page.string()},
                              scratch);
  std::map<std::string, std::string> m;
  const std::size_t begin = dom.find("<pre id=\"measurements\">");
  if (begin == std::string::npos) return m;
  std::istringstream lines(dom.substr(begin, dom.find("</pre>", begin) - begin));
  for (std::string line; std::getline(lines, line);)
    if (const std::size_t eq = line.find('='); eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
  return m;
}

// A thresholds file with a long name, as the checks table's narrow "from" column, the identity
// table and the inputs' heading show it. Its segments are capitals no other word of the record
// holds, so every printed word taken from it is a piece of it.
constexpr std::string_view long_file_name = "QXZJKVWQXZJKVWQXZ_JJQZXKWVQZJJQZ_QQXXZZJJKKVVWWQQ.yaml";

bool is_path_separator(char c) { return c == '/' || c == '_' || c == '-' || c == '.' || c == ':'; }

// Every printed word that is a piece of one of `paths` (two characters or more, not a plain
// lower-case word of the surrounding text) starts where that path starts or after a separator, and
// ends where it ends or with a separator: a path breaks across lines only at its separators.
void expect_paths_break_only_at_separators(const PdfText& text, const std::vector<std::string>& paths) {
  for (const Word& w : text.words) {
    if (w.text.size() < 2 || std::all_of(w.text.begin(), w.text.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
      continue;
    bool piece = false;
    bool at_separators = false;
    for (const std::string& path : paths)
      for (std::size_t at = path.find(w.text); at != std::string::npos; at = path.find(w.text, at + 1)) {
        piece = true;
        const std::size_t end = at + w.text.size();
        at_separators = at_separators || ((at == 0 || is_path_separator(path[at - 1])) &&
                                          (end == path.size() || is_path_separator(path[end - 1])));
      }
    EXPECT_TRUE(!piece || at_separators) << "a file name broken inside a word: '" << w.text << "' on page " << w.page;
  }
}

TEST_P(RecordPdf, ALongFileNameBreaksOnlyAtItsSeparators) {
  if (!tools_present()) GTEST_SKIP() << "needs chromium, gnuplot and poppler-utils (scripts/setup.sh)";
  const testing::TempDir scratch;
  CampaignRecord record = sample_record(long_named_thresholds);
  const std::string path = "plans/thresholds/" + std::string(long_file_name);
  record.thresholds->path = path;
  for (CheckVerdict& check : record.judgement.checks)
    check.origin = std::string(long_file_name) + check.origin.substr(check.origin.find(':'));
  const std::filesystem::path pdf = scratch.path() / "record.pdf";
  std::ofstream(pdf, std::ios::binary) << print_html_to_pdf(render_record_html(record, GetParam()));
  const PdfText text = words_of(pdf, scratch.path());
  // Its five checks' "from" cells, the identity row and the inputs' heading hold the name.
  const auto pieces = std::count_if(text.words.begin(), text.words.end(),
                                    [](const Word& w) { return w.text.find("QXZJKVW") != std::string::npos; });
  EXPECT_GE(pieces, 5 + 2);
  std::vector<std::string> paths{path};
  for (const CheckVerdict& check : record.judgement.checks) paths.push_back(check.origin);
  expect_paths_break_only_at_separators(text, paths);
  // Nothing of it runs into the right margin: where a piece cannot break it widens its column.
  const double margin_pt = 15 / 25.4 * 72;
  for (const Word& w : text.words)
    EXPECT_LE(w.x_max, text.page_width_pt - margin_pt + 2) << "'" << w.text << "' on page " << w.page;
}

TEST(RecordHtml, ChromiumFindsNoClippedLegendAndNoQuestionMarkInAnyPlotWithLongNames) {
  if (!tools_present()) GTEST_SKIP() << "needs chromium and gnuplot (scripts/setup.sh)";
  const testing::TempDir scratch;
  const CampaignRecord record = sample_record(long_named_thresholds);
  std::map<std::string, std::string> m =
      measured_in_chromium(render_record_html(record, Paper::screen), plot_text_script, scratch.path());
  ASSERT_FALSE(m.empty()) << "the measuring script did not run";
  // Three limit checks and the pair check have plots; the pairwise stage (two sizes), the
  // concurrent stage (one size: every pair, alone and two at once) and the collectives stage one each.
  EXPECT_EQ(m["check_plots"], "4");
  EXPECT_EQ(m["stage_plots"], "3");
  EXPECT_GE(std::stoi(m["plot_texts"]), 7 * 10);
  EXPECT_EQ(m["clipped_texts"], "0") << m["examples"];
  EXPECT_EQ(m["question_marks"], "0") << m["examples"];
}

// The findings add what the checks table does not: each stage's numbers (the collective peak, the
// slowest pair and its share of the median pair, the cost of pairs at once) and the widest and
// narrowest margins the verdicts rest on, as the rows give them.
TEST(RecordHtml, FindingsStateEachStagesNumbersAndTheMarginsTheVerdictsRestOn) {
  const CampaignRecord record = sample_record();
  const std::vector<std::string> findings = record_findings(record);
  const auto has = [&](const std::string& pattern) {
    const std::regex re(pattern);
    return std::any_of(findings.begin(), findings.end(),
                       [&](const std::string& f) { return std::regex_search(f, re); });
  };
  std::string all;
  for (const std::string& f : findings) all += f + "\n";
  // all_reduce's plateau is 9.5 GB/s from 8M on (2% noise); all_gather's 9.5 GB/s at 8M, 3 at 64M.
  EXPECT_TRUE(has(R"(^stage collectives: all_reduce, 4 ranks peaks at 9\.[4-6]\d* GB/s busbw at (8|64)M)")) << all;
  EXPECT_TRUE(has(R"(^stage collectives: all_gather, 4 ranks peaks at 9\.[4-6]\d* GB/s busbw at 8M)")) << all;
  // Pair 3 -> 1 runs at half the others' 6 GB/s at 1M.
  EXPECT_TRUE(has(R"(^stage pairwise: pairwise at 1M, each pair alone: the median pair reaches [56]\.?\d* GB/s, the )"
                  R"(slowest \(rank 3 -> rank 1\) [23]\.?\d* GB/s, (4[89]|5[0-2])% of the median pair$)"))
      << all;
  // Two pairs at once get 60% of what each gets alone.
  EXPECT_TRUE(has(R"(^stage concurrent: concurrent at 1M: with 2 pairs at once the median pair gets 3\.[5-7]\d* GB/s, )"
                  R"((5[89]|6[0-2])% of its [56]\.?\d* GB/s alone$)"))
      << all;
  EXPECT_TRUE(has(R"(^the widest interval a verdict rests on: all_reduce latency at 8 B, all_reduce 8)")) << all;
  EXPECT_TRUE(has(R"(^the narrowest pass: all_(reduce|gather) busbw at >= 8M, all_(reduce|gather) )")) << all;
}

// Each stage of the record has its own plot: the pairwise stage per size, the concurrent stage
// every pair alone and two at once, the collectives stage busbw per size; the doctor none.
TEST(RecordHtml, EveryMeasuringStageHasItsOwnPlotOfItsRows) {
  const CampaignRecord record = sample_record();
  ASSERT_EQ(record.stages.size(), 4u);
  EXPECT_TRUE(stage_plots(record.stages[0]).empty());
  const std::vector<LogLogPlot> pairwise = stage_plots(record.stages[1]);
  ASSERT_EQ(pairwise.size(), 1u);
  ASSERT_EQ(pairwise[0].series.size(), 2u);  // median pair, slowest pair
  EXPECT_EQ(pairwise[0].series[1].title, "pairwise, each pair alone: slowest pair");
  ASSERT_EQ(pairwise[0].series[1].points.size(), 2u);
  EXPECT_EQ(pairwise[0].series[1].points[1].first, 1 << 20);
  EXPECT_NEAR(pairwise[0].series[1].points[1].second, 3.0, 0.15);  // 3 -> 1 at half of 6 GB/s
  const std::vector<LogLogPlot> concurrent = stage_plots(record.stages[2]);
  ASSERT_EQ(concurrent.size(), 1u);
  ASSERT_EQ(concurrent[0].series.size(), 2u);
  EXPECT_EQ(concurrent[0].series[0].title, "concurrent, each pair alone: median of repetitions");
  EXPECT_EQ(concurrent[0].series[1].title, "concurrent, 2 pairs at once: median of repetitions");
  ASSERT_EQ(concurrent[0].series[1].points.size(), 12u);
  EXPECT_NEAR(concurrent[0].series[1].points[0].second, 0.6 * 6, 0.2);
  const std::vector<LogLogPlot> collectives = stage_plots(record.stages[3]);
  ASSERT_EQ(collectives.size(), 1u);
  ASSERT_EQ(collectives[0].series.size(), 2u);
  EXPECT_EQ(collectives[0].series[1].title, "all_gather, 4 ranks: median of 10 repetitions");
  ASSERT_EQ(collectives[0].series[1].points.size(), 6u);
  EXPECT_NEAR(collectives[0].series[1].points[5].second, 3.0, 0.15);  // all_gather at 64M
}

// A check over three sizes fails each at alpha/3: its plot names the 99.2% bound it used, not 97.5%.
TEST(RecordHtml, BoundsAreLabelledWithTheConfidenceTheVerdictUsed) {
  if (::access("/usr/bin/gnuplot", X_OK) != 0) GTEST_SKIP() << "gnuplot is not installed (scripts/setup.sh)";
  const std::string html = render_record_html(sample_record(), Paper::screen);
  // all_reduce busbw from 8M: 8M and 64M, two measurements: its upper (failing) bound at 98.7%.
  EXPECT_THAT(html, ::testing::HasSubstr("all_reduce, 4 ranks: upper 98.7% bound"));
  EXPECT_THAT(html, ::testing::HasSubstr("all_reduce, 4 ranks: lower 97.5% bound"));
  EXPECT_THAT(html, ::testing::HasSubstr("<th>lower 97.5% bound</th><th>upper 98.7% bound</th>"));
}

}  // namespace
}  // namespace fb
