// The acceptance record as a customer gets it: printed to PDF by the real headless Chromium on A4
// and Letter and read back with poppler (pdftotext for the words and their boxes, pdftoppm for the
// pixels), and laid out by Chromium for the screen. A record whose plot text prints under 8 pt,
// whose pages are not numbered, or whose check has no limit line on its plot fails here.
//
// FB_SCREENSHOT_DIR=docs/img regenerates the pictures docs/acceptance.md shows.

#include "diagnosis/check_verdicts.hpp"
#include "reports/campaign/campaign_record.hpp"
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

// A campaign's record with a check of each verdict: bandwidth that passes, bandwidth that fails at
// its largest size, latency too noisy to decide (on a time plot), and a zero_wrong count.
CampaignRecord sample_record() {
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
  const std::string thresholds_text = R"(checks:
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
  Thresholds thresholds = parse_thresholds(thresholds_text, "thresholds.yaml");
  thresholds.source = "thresholds.yaml";
  CampaignRecord record;
  record.system = "cpu-dev-box";
  record.customer = "Example Customer";
  record.started_at = "2026-11-26T19:00:00Z";
  record.written_at = "2026-11-26T19:04:10Z";
  record.tool_version = "0.1.0";
  record.git_revision = "test";
  record.results_dir = "campaign-cpu-mpi";
  record.plan = {"plans/cpu-mpi.yaml", std::string(64, 'a'), "system: cpu-dev-box\n"};
  record.thresholds = RecordFile{"plans/thresholds/cpu-mpi.yaml", std::string(64, 'b'), thresholds_text};
  record.judgement =
      diagnosis::judge_acceptance({.rows = rows, .thresholds = &thresholds, .confidence = 0.95}, "campaign");
  record.stages = {{"doctor", "doctor", "completed", 1, "2026-11-26T19:00:00Z", "2026-11-26T19:00:01Z", "1 hosts", 0,
                    "stages/doctor/attempt-1"},
                   {"collectives", "collectives", "completed", 2, "2026-11-26T19:01:00Z", "2026-11-26T19:04:00Z", "",
                    rows.size(), "stages/collectives/attempt-2"}};
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

}  // namespace
}  // namespace fb
