// The HTML report opened in a real headless browser (Debian's chromium): every plot renders, the
// console stays clean, and a hostile host name shows as text rather than becoming an element.

#include "diagnosis/acceptance.hpp"
#include "common/text_file.hpp"
#include "reports/html/fabric_drawing.hpp"
#include "importers/importer_registry.hpp"
#include "report_fixture.hpp"
#include "support/temp_dir.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace fb {

using diagnosis::parse_thresholds;
namespace {

constexpr const char* chromium = "/usr/bin/chromium";

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST(Browser, ReportRendersEveryPlotWithoutConsoleErrorsAndShowsHostileNamesAsText) {
  if (::access(chromium, X_OK) != 0) GTEST_SKIP() << chromium << " is missing (scripts/setup.sh installs chromium)";
  if (::access("/usr/bin/gnuplot", X_OK) != 0 || ::access("/usr/bin/dot", X_OK) != 0)
    GTEST_SKIP() << "gnuplot or dot is missing (scripts/setup.sh installs gnuplot-nox and graphviz)";
  const testing::TempDir scratch;
  const ReportInput input = testing::hostile_report_input();
  const std::filesystem::path report = scratch.path() / "report.html";
  std::ofstream(report) << render_html_report(input);
  const std::filesystem::path dom = scratch.path() / "dom.html";
  const std::filesystem::path log = scratch.path() / "chromium.log";
  const std::filesystem::path profile = scratch.path() / "profile";

  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child only redirects and execs: the flags keep chromium off the network and quiet.
    std::FILE* out = std::freopen(dom.c_str(), "w", stdout);
    std::FILE* err = std::freopen(log.c_str(), "w", stderr);
    if (!out || !err) ::_exit(126);
    const std::string profile_flag = "--user-data-dir=" + profile.string();
    const std::string url = "file://" + report.string();
    ::execl(chromium, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", profile_flag.c_str(),
            "--enable-logging=stderr", "--v=0", "--dump-dom", url.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string browser_log = read_text_file(log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << browser_log;

  const std::string rendered = read_text_file(dom);
  EXPECT_EQ(count_of(rendered, "<svg"), expected_plot_count(input)) << "every plot must be in the rendered DOM";
  EXPECT_EQ(count_of(rendered, "<img"), 0u) << "an input string became an element";
  EXPECT_THAT(rendered, ::testing::HasSubstr("&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_THAT(browser_log, ::testing::Not(::testing::HasSubstr("Uncaught")));
  EXPECT_THAT(browser_log, ::testing::Not(::testing::HasSubstr(":CONSOLE(")));
  EXPECT_THAT(browser_log, ::testing::Not(::testing::HasSubstr("Refused to")));  // CSP violations
}

// What the browser laid out, measured by a script added to a copy of the report (the report itself
// forbids scripts): one "key=value" per line.
constexpr std::string_view measuring_script = R"(<script>
(function () {
  const out = [];
  const plots = [...document.querySelectorAll('.plot svg')];
  out.push('plots=' + plots.length);
  out.push('min_plot_width_px=' + Math.round(Math.min(...plots.map(s => s.getBoundingClientRect().width))));
  let overlaps = 0, smallest = 1e9, thresholds = 0, example = '';
  for (const svg of plots) {
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
    const boxes = texts.map(t => t.getBoundingClientRect());
    for (let i = 0; i < boxes.length; ++i) {
      smallest = Math.min(smallest, boxes[i].height);
      for (let j = i + 1; j < boxes.length; ++j) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
          ++overlaps;
          example = texts[i].textContent + ' / ' + texts[j].textContent;
        }
      }
    }
    const legend = [...svg.querySelectorAll('text')].some(t => t.textContent.startsWith('threshold'));
    const drawn = [...svg.querySelectorAll('path')].some(p => (p.getAttribute('stroke') || '').replace(/ /g, '') === 'rgb(192,0,0)');
    if (legend && drawn) ++thresholds;
  }
  out.push('overlapping_plot_texts=' + overlaps);
  out.push('overlap_example=' + example);
  out.push('smallest_plot_text_px=' + Math.round(smallest));
  out.push('threshold_lines=' + thresholds);
  out.push('size_tables=' + document.querySelectorAll('table.sizes').length);
  out.push('size_table_rows=' + document.querySelectorAll('table.sizes tr').length);
  out.push('full_heatmaps=' + document.querySelectorAll('table.heatmap').length);
  out.push('endpoint_summaries=' + document.querySelectorAll('table.endpoints').length);
  out.push('page_width_px=' + document.documentElement.scrollWidth);
  const drawing = [...document.querySelectorAll('.topology svg text')].map(t => t.getBoundingClientRect());
  out.push('topology_texts=' + drawing.length);
  out.push('smallest_topology_text_px=' + Math.round(Math.min(...drawing.map(r => r.height))));
  const topology = document.querySelector('.topology svg');
  out.push('topology_width_px=' + (topology ? Math.round(topology.getBoundingClientRect().width) : 0));
  out.push('verdict=' + document.querySelector('p.verdict').textContent);
  const pre = document.createElement('pre');
  pre.id = 'measurements';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
})();
</script>)";

// Runs headless chromium on `page` and returns what it printed on stdout; `extra` flags decide
// what that is (--dump-dom, --screenshot=FILE).
std::string run_chromium(const std::filesystem::path& scratch, const std::filesystem::path& page,
                         std::vector<std::string> extra) {
  const std::filesystem::path out_path = scratch / "chromium.out", log = scratch / "chromium.err";
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    std::FILE* out = std::freopen(out_path.c_str(), "w", stdout);
    std::FILE* err = std::freopen(log.c_str(), "w", stderr);
    if (!out || !err) ::_exit(126);
    std::vector<std::string> args{chromium,
                                  "--headless",
                                  "--no-sandbox",
                                  "--disable-gpu",
                                  "--disable-quic",
                                  "--no-first-run",
                                  "--disable-background-networking",
                                  "--disable-component-update",
                                  "--disable-sync",
                                  "--hide-scrollbars",
                                  "--window-size=1400,1300",
                                  "--user-data-dir=" + (scratch / "profile").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("file://" + page.string());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(chromium, argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("chromium failed: " + read_text_file(log));
  return read_text_file(out_path);
}

using Measurements = std::map<std::string, std::string>;

// Renders the report, measures its layout, and (with FB_SCREENSHOT_DIR set, as docs/reports.md
// says) saves a screenshot of it named `name`.png there.
Measurements measure_report(const ReportInput& input, const std::string& name) {
  const testing::TempDir scratch;
  std::string html = render_html_report(input);
  const std::size_t csp = html.find("<meta http-equiv=\"Content-Security-Policy\"");
  if (csp == std::string::npos) throw std::runtime_error("the report has no Content-Security-Policy");
  const std::string original = html;
  html.erase(csp, html.find('>', csp) + 1 - csp);
  html.insert(html.rfind("</body>"), measuring_script);
  const std::filesystem::path page = scratch.path() / "measured.html";
  std::ofstream(page) << html;
  const std::string dom = run_chromium(scratch.path(), page, {"--dump-dom"});
  const std::size_t begin = dom.find("<pre id=\"measurements\">");
  if (begin == std::string::npos) throw std::runtime_error("the measuring script did not run");
  Measurements measurements;
  std::istringstream lines(dom.substr(begin, dom.find("</pre>", begin) - begin));
  for (std::string line; std::getline(lines, line);)
    if (const std::size_t eq = line.find('='); eq != std::string::npos)
      measurements[line.substr(0, eq)] = line.substr(eq + 1);
  if (const char* dir = std::getenv("FB_SCREENSHOT_DIR")) {
    const std::filesystem::path report = scratch.path() / "report.html";
    std::ofstream(report) << original;
    run_chromium(scratch.path(), report, {"--screenshot=" + (std::filesystem::path(dir) / (name + ".png")).string()});
  }
  return measurements;
}

double number(const Measurements& m, const std::string& key) {
  const auto found = m.find(key);
  if (found == m.end()) throw std::runtime_error("no measurement " + key);
  return std::stod(found->second);
}

bool browser_and_drawing_programs() {
  return ::access(chromium, X_OK) == 0 && ::access("/usr/bin/gnuplot", X_OK) == 0 &&
         ::access("/usr/bin/dot", X_OK) == 0;
}

ReportInput input_of(std::vector<ResultSet> sets, const std::string& label) {
  ReportInput input;
  for (ResultSet& set : sets) input.sets.push_back({label, label, std::move(set)});
  testing::judge(input);
  return input;
}

// The readability rules every report must meet at 100% zoom.
void expect_readable_plots(const Measurements& m) {
  EXPECT_GE(number(m, "plots"), 2);
  EXPECT_GE(number(m, "min_plot_width_px"), 900);
  EXPECT_EQ(number(m, "overlapping_plot_texts"), 0) << "texts overlap, as " << m.at("overlap_example");
  EXPECT_GE(number(m, "smallest_plot_text_px"), 10);
  EXPECT_GE(number(m, "size_tables"), 1);
}

TEST(BrowserLayout, MpiSweepHasItsNumbersAndReadablePlots) {
  if (!browser_and_drawing_programs()) GTEST_SKIP() << "chromium, gnuplot or dot is missing (scripts/setup.sh)";
  const ResultSet sweep =
      read_results_json(std::filesystem::path(FB_REPORTS_SAMPLES_DIR) / "mpi_all_reduce_4ranks.json");
  const Measurements m = measure_report(input_of({sweep}, "mpi all_reduce"), "report-mpi-sweep");
  expect_readable_plots(m);
  EXPECT_EQ(number(m, "size_table_rows"), 2 + 21);  // two header rows, 8 B to 8 MiB
  EXPECT_THAT(m.at("verdict"), ::testing::StartsWith("NOT JUDGED"));
}

TEST(BrowserLayout, ImportedNcclTestsLogWithThresholdsDrawsTheThreshold) {
  if (!browser_and_drawing_programs()) GTEST_SKIP() << "chromium, gnuplot or dot is missing (scripts/setup.sh)";
  ReportInput input =
      input_of(import_log(std::filesystem::path(FB_CORPUS_LOGS_DIR) / "nccl_test_result_a3mega_h100_2node_np16.md", {}),
               "a3mega 2 nodes");
  const diagnosis::Thresholds thresholds =
      parse_thresholds("checks:\n  - {kind: min_bandwidth, op: all_reduce, min_bytes: 1G, at_least_gbps: 300}\n",
                       "a3mega.yaml");
  testing::judge(input, &thresholds);
  const Measurements m = measure_report(input, "report-nccl-tests-thresholds");
  expect_readable_plots(m);
  EXPECT_EQ(number(m, "threshold_lines"), 1);
  EXPECT_EQ(number(m, "size_table_rows"), 2 + 31);  // 8 B to 8 GiB
  // 297.9 and 298.8 GB/s at 1 GiB are under 300, but a log holds one time per size: one sample
  // bounds no median, so the check is undecided, as `accept` and `campaign` judge it.
  EXPECT_EQ(m.at("verdict"), "INCONCLUSIVE: 1 of 1 checks could not be decided");
}

TEST(BrowserLayout, PairwiseOf1024HostsStaysOnTheScreenAndNamesTheSlowHost) {
  if (!browser_and_drawing_programs()) GTEST_SKIP() << "chromium, gnuplot or dot is missing (scripts/setup.sh)";
  // Simulated: every host with its next three in a ring, at 64 MiB; h00700's link at 40%.
  ResultSet set;
  for (int s = 0; s < 1024; ++s)
    for (int step = 1; step <= 3; ++step) {
      const int d = (s + step) % 1024;
      ResultRow row = testing::pair_row(s, d, fmt::format("h{:05}", s), fmt::format("h{:05}", d),
                                        s == 700 || d == 700 ? 4.0 : 10.0 + 0.05 * ((s * 7 + d) % 5));
      row.op = "pairwise";
      set.rows.push_back(std::move(row));
    }
  const Measurements m = measure_report(input_of({set}, "simulated 1024 hosts"), "report-pairwise-1024");
  expect_readable_plots(m);
  EXPECT_EQ(number(m, "full_heatmaps"), 0);
  EXPECT_EQ(number(m, "endpoint_summaries"), 1);
  EXPECT_LE(number(m, "page_width_px"), 1400);  // the window: nothing overflows it
  EXPECT_EQ(m.at("verdict"), "FAIL: 1 finding (no thresholds given)");
}

TEST(BrowserLayout, ThirtyTwoNodeTopologyIsDrawnByTierWithLegibleText) {
  if (!browser_and_drawing_programs()) GTEST_SKIP() << "chromium, gnuplot or dot is missing (scripts/setup.sh)";
  // 4 leaves of 8 hosts (one NIC each, 8 GPUs) under 2 spines; h00011's cable is the finding.
  topo::Graph graph;
  const topo::LinkSpec cable{topo::LinkType::infiniband, "NDR", 1, 50.0, 1.0};
  std::vector<topo::VertexId> spines;
  for (int s = 1; s <= 2; ++s) {
    spines.push_back(graph.add_vertex(topo::VertexKind::fabric_switch, fmt::format("spine{:04}", s)));
    graph.set_tier(spines.back(), topo::SwitchTier::spine);
  }
  std::vector<topo::LinkId> flagged;
  ResultSet set;
  for (int l = 1; l <= 4; ++l) {
    const topo::VertexId leaf = graph.add_vertex(topo::VertexKind::fabric_switch, fmt::format("leaf{:04}", l));
    graph.set_tier(leaf, topo::SwitchTier::leaf);
    for (const topo::VertexId spine : spines)
      for (int uplink = 0; uplink < 4; ++uplink) graph.add_link(leaf, spine, cable);
    for (int h = 1; h <= 8; ++h) {
      const std::string name = fmt::format("h{:05}", (l - 1) * 8 + h);
      const topo::VertexId host = graph.add_vertex(topo::VertexKind::host, name);
      for (int gpu = 0; gpu < 8; ++gpu)
        graph.add_vertex(topo::VertexKind::gpu, fmt::format("{}/GPU{}", name, gpu), host, gpu);
      const topo::VertexId nic = graph.add_vertex(topo::VertexKind::nic, name + "/ib0", host, 0);
      const topo::LinkId link = graph.add_link(nic, leaf, cable);
      if (name == "h00011") flagged.push_back(link);
    }
  }
  const std::vector<std::string> subjects{"h00011/ib0 <-> leaf0002"};
  const std::string dot = fabric_overview_dot(graph, flagged, subjects);
  // Every leaf with its hosts as one box, but h00011 drawn on its own.
  EXPECT_THAT(dot, ::testing::HasSubstr("label=\"8 hosts\""));
  EXPECT_THAT(dot, ::testing::HasSubstr("label=\"7 hosts\""));
  EXPECT_THAT(dot, ::testing::HasSubstr("\"h00011\" [label=\"h00011\", color="));
  EXPECT_THAT(dot, ::testing::Not(::testing::HasSubstr("h00012")));
  EXPECT_THAT(dot, ::testing::HasSubstr("\"spine0001\" -- \"leaf0001\" [label=\"4 x 50 GB/s\"]"));

  ReportInput input = input_of({set}, "32 nodes");
  input.topology_dot = dot;
  input.judged.verdict.findings.push_back({.kind = "degraded_link",
                                           .subject = subjects[0],
                                           .expected = 50.0,
                                           .measured = 12.5,
                                           .unit = "GB/s",
                                           .evidence = {"every pair through h00011 at a quarter of its peers"}});
  const Measurements m = measure_report(input, "report-topology-32");
  EXPECT_GE(number(m, "topology_texts"), 10);
  EXPECT_GE(number(m, "smallest_topology_text_px"), 10);
  EXPECT_LE(number(m, "topology_width_px"), 1400);
}

}  // namespace
}  // namespace fb
