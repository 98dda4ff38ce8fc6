// `fabricbench topo compare` end to end: the real binary on the shipped design pairs (2:1 taper
// against non-blocking; 400G against 800G NICs), its answer in the first lines, its CSV and JSON,
// and its HTML page rendered by a real headless Chromium.

#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "process_runner.hpp"
#include "support/temp_dir.hpp"
#include "support/text_lines.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::lines_of;
using testing::ProcessResult;
using testing::TempDir;

std::string example(const std::string& name) { return std::string(DOCS_EXAMPLES_DIR) + "/" + name; }
std::string test_sample(const std::string& name) { return std::string(TOPOLOGY_SAMPLES_DIR) + "/" + name; }

ProcessResult fabricbench(std::vector<std::string> args) {
  args.insert(args.begin(), FABRICBENCH_BINARY);
  return testing::run_process(args);
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST(TopoCompareCommand, TaperAgainstNonBlockingAnswersFirstWithTheLimitingLinkInWords) {
  TempDir dir;
  const std::string csv = (dir / "c.csv").string();
  const std::string json = (dir / "c.json").string();
  const ProcessResult result =
      fabricbench({"topo", "compare", example("h100-128-taper1.yaml"), example("h100-128-taper2.yaml"), "--op",
                   "all_reduce,alltoall", "-b", "64M", "-e", "1G", "-f", "4", "--csv", csv, "--json", json});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = lines_of(result.out);
  ASSERT_GE(lines.size(), 8u) << result.out;
  EXPECT_EQ(lines[0], "# topo compare: 2 designs (h100-128-taper1, h100-128-taper2), the model's predictions");
  // docs/model.md's procurement table: 354.0 against 312.4 GB/s, 47.1 against 25.7.
  EXPECT_THAT(lines[1], StartsWith("all_reduce at 1G: h100-128-taper1 is 1.13x h100-128-taper2 (354."));
  EXPECT_THAT(lines[2], StartsWith("  h100-128-taper1: the 8x 400G IB NDR NIC ports"));
  EXPECT_THAT(lines[3], HasSubstr("h100-128-taper2: leaf"));
  // The uplink bundle's rate, carrying traffic down from the spines: not the leaf's downlinks.
  EXPECT_THAT(lines[3], HasSubstr("leaf0002's uplinks (997.5 GB/s, traffic coming down from the tier above)"));
  EXPECT_THAT(lines[3], ::testing::Not(HasSubstr("downlinks (997.5")));
  EXPECT_THAT(lines[3], HasSubstr(":1 oversubscribed"));
  EXPECT_THAT(lines[4], StartsWith("alltoall at 1G: h100-128-taper1 is 1.8"));
  // 13% apart on InfiniBand, inside each other's 80% intervals (x/ 1.17 each); alltoall's 1.8x is not.
  EXPECT_THAT(lines[1], HasSubstr("the model cannot tell them apart at this size"));
  EXPECT_THAT(lines[4], ::testing::Not(HasSubstr("cannot tell them apart at this size")));
  EXPECT_THAT(lines[6], HasSubstr("uplinks"));

  const std::vector<std::string> rows = lines_of(read_text_file(csv));
  ASSERT_EQ(rows.size(), 1u + 2 * 3 * 2);  // header, 2 ops x 3 sizes x 2 designs
  EXPECT_EQ(rows[0],
            "op,bytes,design,time_us,busbw_gbps,ratio_to_best,algorithm,protocol,limit,limit_words,cost_per_gbps,"
            "busbw_low_gbps,busbw_high_gbps,cannot_tell_apart");
  EXPECT_THAT(rows[5], StartsWith("all_reduce,1073741824,h100-128-taper1,"));
  const nlohmann::json parsed = nlohmann::json::parse(read_text_file(json));
  EXPECT_EQ(parsed["answer"][0].get<std::string>(), lines[1]);
  EXPECT_EQ(parsed["points"].size(), 12u);
  // Every point carries its interval, which holds its busbw.
  for (const nlohmann::json& point : parsed["points"]) {
    EXPECT_LE(point["busbw_low_gbps"].get<double>(), point["busbw_gbps"].get<double>());
    EXPECT_GE(point["busbw_high_gbps"].get<double>(), point["busbw_gbps"].get<double>());
  }
  EXPECT_EQ(parsed["designs"][1]["name"], "h100-128-taper2");
}

TEST(TopoCompareCommand, EightHundredGigNicsOnPcieGenFiveSayWhatCapsThemAndWhatTheyCost) {
  TempDir dir;
  std::ofstream(dir / "p400.yaml") << "host: 200000\ngpu: 25000\nnic: 1500\nswitch: 30000\ncable: 500\n";
  std::ofstream(dir / "p800.yaml") << "host: 200000\ngpu: 25000\nnic: 2500\nswitch: 45000\ncable: 900\n";
  const ProcessResult result =
      fabricbench({"topo", "compare", example("h100-roce400.yaml"), example("h100-roce800.yaml"), "--nodes", "16",
                   "--op", "all_reduce", "-b", "1G", "-e", "1G", "--prices", (dir / "p400.yaml").string(), "--prices",
                   (dir / "p800.yaml").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = lines_of(result.out);
  ASSERT_GE(lines.size(), 5u) << result.out;
  // docs/model.md: 363.0 against 348.6 GB/s, 4%: inside each other's 80% intervals, and PCIe is why.
  EXPECT_THAT(lines[1], StartsWith("all_reduce at 1G: h100-roce800 is 1.04x h100-roce400 (363.0 vs 348.6 GB/s busbw)"));
  EXPECT_THAT(lines[1], HasSubstr("the model cannot tell them apart at this size"));
  EXPECT_THAT(lines[1], HasSubstr("; the fastest design cannot be told apart from another at 1G (80% intervals "
                                  "overlap)"));
  EXPECT_THAT(lines[2],
              HasSubstr("h100-roce800: PCIe Gen5 x16 between each GPU and its NIC (48.0 GB/s) caps the 8x 800G"));
  // 128 hosts, 1024 GPUs and NICs, 32 leaves and 32 spines, 1024 NIC cables and 32 x 32 leaf uplinks:
  // 128 x 200000 + 1024 x 25000 + 1024 x 1500 + 64 x 30000 + 2048 x 500 with the 400G list.
  EXPECT_THAT(lines[4], StartsWith("  cost per GB/s of busbw: h100-roce800 "));
  EXPECT_THAT(result.out,
              HasSubstr("h100-roce400: 55680000 (128 hosts, 1024 GPUs, 1024 NICs, 64 switches, 2048 cables)"));

  const ProcessResult one_for_three =
      fabricbench({"topo", "compare", example("h100-roce400.yaml"), example("h100-roce800.yaml"),
                   example("h100-128-taper1.yaml"), "--nodes", "2", "-b", "1M", "-e", "1M", "--prices",
                   (dir / "p400.yaml").string(), "--prices", (dir / "p800.yaml").string()});
  EXPECT_EQ(one_for_three.exit_code, static_cast<int>(ExitCode::input)) << one_for_three.err;
  EXPECT_THAT(one_for_three.err, HasSubstr("2 price lists for 3 designs"));
}

// The same 576 GPUs as 8 GB200 NVL72 racks or 72 HGX B200 nodes, 400G NDR per GPU either way:
// NVLS inside a 72-GPU NVLink domain against NVLS-tree over the nodes' NICs (docs/model.md).
TEST(TopoCompareCommand, NvlSeventyTwoRacksAgainstHgxNodesAnswerWithTheNvlinkDomain) {
  TempDir dir;
  const std::string csv = (dir / "c.csv").string();
  const ProcessResult result = fabricbench(
      {"topo", "compare", example("hgx-b200-x72.yaml"), example("gb200-nvl72-x8.yaml"), "-e", "1G", "--csv", csv});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = lines_of(result.out);
  ASSERT_GE(lines.size(), 10u) << result.out;
  EXPECT_THAT(lines[1], StartsWith("all_reduce at 1G: gb200-nvl72-x8 is 2.12x hgx-b200-x72 (755."));
  EXPECT_THAT(lines[2], HasSubstr("gb200-nvl72-x8: NVLink to the NVSwitches (NVLS in-switch reduction): inside the "
                                  "node, not the network (nvls_tree Simple)"));
  EXPECT_THAT(lines[3], HasSubstr("hgx-b200-x72: the 8x 400G IB NDR NIC ports"));
  // 576 ranks move whole floats each: all_gather's and alltoall's 1 GiB is 1,073,740,032 bytes,
  // as nccl-tests rounds it, in both designs; the assumptions say so and name the NVLS limit.
  EXPECT_THAT(lines[4], StartsWith("all_gather at 1073740032: gb200-nvl72-x8 is 1.6"));
  EXPECT_THAT(lines[7], StartsWith("alltoall at 1073740032: gb200-nvl72-x8 is 1.1"));
  EXPECT_THAT(lines[8], HasSubstr("a node's 72x 400G IB NDR NIC ports"));
  EXPECT_THAT(result.out, HasSubstr("# hgx-b200-x72: alltoall on 576 ranks moves whole floats per rank: sizes rounded "
                                    "down to multiples of 2304 bytes, as nccl-tests rounds them (1048576 -> 1048320 "
                                    "bytes)"));
  EXPECT_THAT(result.out, HasSubstr("# gb200-nvl72-x8: assumed: NVLS all_reduce on 72 GPUs of one NVLink domain "
                                    "reaches what it does on 8"));
  const std::vector<std::string> rows = lines_of(read_text_file(csv));
  ASSERT_EQ(rows.size(), 1u + 3 * 6 * 2);  // header, 3 ops x 6 sizes (1M-1G by 4) x 2 designs
  EXPECT_THAT(rows[13], StartsWith("all_gather,1048320,hgx-b200-x72,"));
  EXPECT_THAT(rows[14], StartsWith("all_gather,1048320,gb200-nvl72-x8,"));

  // A prediction resting on the NVLS hold records it in its results file, not only on stderr.
  const std::string predicted = (dir / "p.json").string();
  ASSERT_EQ(fabricbench({"topo", "predict", "--spec", example("gb200-nvl72-x8.yaml"), "--op", "all_reduce", "-b", "1G",
                         "-e", "1G", "--json", predicted})
                .exit_code,
            0);
  const nlohmann::json assumptions = nlohmann::json::parse(read_text_file(predicted))["provenance"]["assumptions"];
  ASSERT_FALSE(assumptions.empty());
  EXPECT_THAT(assumptions[0].get<std::string>(),
              StartsWith("NVLS all_reduce on 72 GPUs of one NVLink domain reaches what it does on 8"));

  const ProcessResult too_small = fabricbench({"topo", "compare", example("hgx-b200-x72.yaml"),
                                               example("gb200-nvl72-x8.yaml"), "--op", "alltoall", "-b", "1K"});
  EXPECT_EQ(too_small.exit_code, static_cast<int>(ExitCode::usage)) << too_small.err;
  EXPECT_THAT(too_small.err, HasSubstr("alltoall of 1024 bytes is under one float per rank: alltoall on 576 ranks "
                                       "moves at least 2304 bytes"));
}

// `topo analyze` of the 800G design alone: the fabric at the ports' line rate, and the line that
// says the GPUs reach those ports at PCIe Gen5's rate (the answer `compare` gives, issue #28).
TEST(TopoCompareCommand, AnalyzeOfEightHundredGigNicsSaysTheGpusReachThemAtPcieRate) {
  TempDir dir;
  const std::string json = (dir / "a.json").string();
  const ProcessResult result = fabricbench({"topo", "analyze", example("h100-roce800.yaml"), "--json", json});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("# bisection bandwidth 51200.0 GB/s per direction (128 hosts)"));
  EXPECT_THAT(result.out,
              HasSubstr("# node00001 (and 127 hosts built alike): its GPUs reach its NICs at 384.0 GB/s of the 736.0 "
                        "its ports carry for collectives (800.0 at line rate): node00001/GPU0 -> node00001/PCIe0 "
                        "(PCIe Gen5 x16, 48.0 GB/s) fills first"));
  const nlohmann::json parsed = nlohmann::json::parse(read_text_file(json));
  ASSERT_EQ(parsed["gpu_injection_shortfalls"].size(), 1u);
  EXPECT_EQ(parsed["gpu_injection_shortfalls"][0]["hosts_alike"], 128);
  EXPECT_DOUBLE_EQ(parsed["gpu_injection_shortfalls"][0]["gpu_reachable_gbps"].get<double>(), 384.0);

  const ProcessResult ndr = fabricbench({"topo", "analyze", example("h100-128-taper1.yaml")});
  ASSERT_EQ(ndr.exit_code, 0) << ndr.err;
  EXPECT_THAT(ndr.out, ::testing::Not(HasSubstr("its GPUs reach its NICs")));
}

TEST(TopoCompareCommand, AnalyzeRefusesToMergeTwoDesignsAndComparingOneIsAUsageError) {
  const ProcessResult merged =
      fabricbench({"topo", "analyze", example("h100-roce400.yaml"), example("h100-roce800.yaml")});
  EXPECT_EQ(merged.exit_code, static_cast<int>(ExitCode::usage)) << merged.err;
  EXPECT_THAT(merged.err, HasSubstr("are two cluster designs, and analyze merges its inputs into one cluster"));
  EXPECT_THAT(merged.err, HasSubstr("fabricbench topo compare"));
  const ProcessResult too_big = fabricbench({"topo", "compare", example("h100-roce400.yaml"),
                                             test_sample("pcie_box.yaml"), "--nodes", "2", "-b", "1M", "-e", "1M"});
  EXPECT_EQ(too_big.exit_code, static_cast<int>(ExitCode::input)) << too_big.err;
  EXPECT_THAT(too_big.err, HasSubstr("design pcie_box: the topology has 1 hosts with GPUs, fewer than the 2 nodes"));
  const ProcessResult alone = fabricbench({"topo", "compare", example("h100-roce400.yaml")});
  EXPECT_EQ(alone.exit_code, static_cast<int>(ExitCode::usage)) << alone.err;
  EXPECT_THAT(alone.err, HasSubstr("give at least 2, got 1"));
}

TEST(TopoCompareCommand, ItsHtmlRendersInChromiumWithAPlotPerOpAndNoConsoleErrors) {
  constexpr const char* chromium = "/usr/bin/chromium";
  if (::access(chromium, X_OK) != 0) GTEST_SKIP() << chromium << " is missing (scripts/setup.sh installs chromium)";
  if (::access("/usr/bin/gnuplot", X_OK) != 0)
    GTEST_SKIP() << "gnuplot is missing (scripts/setup.sh installs gnuplot-nox)";
  TempDir dir;
  const std::string html = (dir / "compare.html").string();
  const ProcessResult result =
      fabricbench({"topo", "compare", example("h100-roce400.yaml"), example("h100-roce800.yaml"), "--nodes", "16",
                   "--op", "all_reduce,all_gather,alltoall", "-b", "1M", "-e", "1G", "-f", "4", "--html", html});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ProcessResult browser =
      testing::run_process({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            "--user-data-dir=" + (dir / "profile").string(), "--enable-logging=stderr", "--v=0",
                            "--dump-dom", "file://" + html});
  ASSERT_EQ(browser.exit_code, 0) << browser.err;
  const std::string& dom = browser.out;
  EXPECT_EQ(count_of(dom, "<svg"), 3u) << "one plot per op";
  EXPECT_EQ(count_of(dom, "<table class=\"designs\""), 3u);
  EXPECT_EQ(count_of(dom, "<tr>"), 3u * (1 + 6 * 2)) << "a header and 6 sizes x 2 designs per op";
  // The DOM is long: report what is missing, not all of it.
  EXPECT_NE(dom.find("<p class=\"answer\">all_reduce at 1G: h100-roce800 is 1.04x h100-roce400"), std::string::npos);
  EXPECT_NE(dom.find("PCIe Gen5 x16 between each GPU and its NIC (48.0 GB/s) caps the 8x 800G"), std::string::npos);
  EXPECT_THAT(browser.err, ::testing::Not(HasSubstr("Uncaught")));
  EXPECT_THAT(browser.err, ::testing::Not(HasSubstr(":CONSOLE(")));
  EXPECT_THAT(browser.err, ::testing::Not(HasSubstr("Refused to")));  // CSP violations
}

}  // namespace
}  // namespace fb
