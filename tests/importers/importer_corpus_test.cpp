// Every real log in tests/corpus/logs/ read with the numbers its SOURCES.md says a correct reader
// extracts: ranks, nodes, op, sizes, bandwidth at a size, statistics, runs, and what was assumed.

#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "importers/importer_registry.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fb {
namespace {

using ::testing::HasSubstr;

std::filesystem::path corpus(const char* name) { return std::filesystem::path(FB_CORPUS_LOGS_DIR) / name; }

ResultSet import_one(const char* name, ImportOptions options = {}) {
  std::vector<ResultSet> runs = import_log(corpus(name), options);
  EXPECT_EQ(runs.size(), 1u) << name;
  return runs.front();
}

const ResultRow& row_at(const ResultSet& results, std::uint64_t bytes, bool in_place = false) {
  const auto row = std::find_if(results.rows.begin(), results.rows.end(),
                                [&](const ResultRow& r) { return r.bytes == bytes && r.in_place == in_place; });
  if (row == results.rows.end()) throw std::runtime_error("no row of that size");
  return *row;
}

std::string all_assumptions(const ResultSet& results) {
  std::string text;
  for (const std::string& assumption : results.provenance.assumptions) text += assumption + "\n";
  return text;
}

// --- nccl-tests and rccl-tests text logs ---

TEST(NcclTestsCorpus, OldRcclHeaderAndErrorColumn) {
  const ResultSet r = import_one("all_reduce_perf_rccltests_2x7900xtx_nThreads_header.log");
  EXPECT_EQ(r.provenance.nranks, 2);
  EXPECT_EQ(r.provenance.nodes, 1);
  EXPECT_EQ(r.provenance.rank_hosts, (std::vector<std::string>{"astrali-SuperServer", "astrali-SuperServer"}));
  EXPECT_EQ(r.provenance.gpus_per_process, 2);  // "nThreads: 1 nGpus: 2"
  ASSERT_EQ(r.rows.size(), 10u);
  EXPECT_EQ(r.rows[0].op, "all_reduce");
  EXPECT_FALSE(r.rows[0].root.has_value());  // the old table has no root column
  EXPECT_EQ(r.rows[0].iterations, 20);
  EXPECT_DOUBLE_EQ(*row_at(r, 134217728).busbw_gbps, 20.84);
  EXPECT_DOUBLE_EQ(*row_at(r, 134217728, true).busbw_gbps, 24.21);
  EXPECT_EQ(row_at(r, 134217728).wrong, 0u);  // error 0e+00: validated, nothing beyond tolerance
  EXPECT_TRUE(r.provenance.assumptions.empty()) << all_assumptions(r);
}

TEST(NcclTestsCorpus, OldFormatWithoutValidationAndWithoutCollectiveName) {
  const ResultSet r = import_one("wiki_3node_t4_validation0_oldformat.log");
  EXPECT_EQ(r.provenance.nranks, 3);
  EXPECT_EQ(r.provenance.nodes, 3);
  EXPECT_EQ(r.provenance.rank_hosts, (std::vector<std::string>{"gpu01", "gpu02", "gpu03"}));
  ASSERT_EQ(r.rows.size(), 22u);  // 11 sizes
  EXPECT_EQ(r.rows[0].op, "all_reduce");
  EXPECT_DOUBLE_EQ(*row_at(r, 115343360).busbw_gbps, 0.50);
  EXPECT_DOUBLE_EQ(*row_at(r, 115343360, true).busbw_gbps, 0.50);
  EXPECT_FALSE(row_at(r, 115343360).wrong.has_value());  // N/A: not validated
  // The log names no collective: the busbw/algbw ratio of 3 ranks says all_reduce, and that is recorded.
  EXPECT_THAT(all_assumptions(r), HasSubstr("all_reduce is the only one whose busbw/algbw fits"));
}

TEST(NcclTestsCorpus, MpiBinaryWithThreeRunsInOneFileIsOneSetOfRepetitions) {
  const std::vector<ResultSet> runs = import_log(corpus("all_gather_perf_mpi_3reps_one_file_rtx5090.log"), {});
  ASSERT_EQ(runs.size(), 1u);
  const ResultSet& run = runs.front();
  EXPECT_EQ(run.provenance.run_id, "nccl-tests-all_gather_perf_mpi_3reps_one_file_rtx5090");
  EXPECT_EQ(run.provenance.nranks, 2);
  EXPECT_EQ(run.provenance.nodes, 1);
  EXPECT_EQ(run.provenance.gpus_per_process, 1);  // the MPI binary: one process per GPU
  ASSERT_EQ(run.rows.size(), 48u);                // 3 runs x 8 sizes x out-of-place and in-place
  EXPECT_THAT(all_assumptions(run), HasSubstr("3 runs of the same test one after the other in the log: kept as one "
                                              "result set, each row's repetition (0 to 2)"));
  const std::vector<std::pair<double, double>> busbw_at_128_mib{{1.04, 1.10}, {1.06, 1.06}, {2.30, 2.30}};
  for (int repetition = 0; repetition < 3; ++repetition) {
    std::vector<const ResultRow*> at_128_mib;
    for (const ResultRow& row : run.rows) {
      EXPECT_EQ(row.op, "all_gather");  // not all_gather_perf_mpi
      EXPECT_EQ(row.run_id, run.provenance.run_id);
      ASSERT_TRUE(row.repetition);
      if (*row.repetition == repetition && row.bytes == 134217728) at_128_mib.push_back(&row);
    }
    ASSERT_EQ(at_128_mib.size(), 2u);
    const auto& [out_of_place, in_place] = busbw_at_128_mib[static_cast<std::size_t>(repetition)];
    EXPECT_DOUBLE_EQ(*at_128_mib[at_128_mib[0]->in_place ? 1 : 0]->busbw_gbps, out_of_place);
    EXPECT_DOUBLE_EQ(*at_128_mib[at_128_mib[0]->in_place ? 0 : 1]->busbw_gbps, in_place);
  }
}

// A wrapper script's log: no test name in the file name, no launcher line. The redop column (sum)
// and busbw/algbw = 2(n-1)/n at the 16 ranks listed leave all_reduce only.
TEST(NcclTestsCorpus, WrapperLogIsReadByItsContent) {
  const ResultSet r = import_one("slurm-5217_a3mega_wrapper_script_no_test_name_derived.out");
  EXPECT_EQ(r.rows.front().op, "all_reduce");
  EXPECT_THAT(all_assumptions(r), HasSubstr("the log does not name its collective: all_reduce is the only one whose "
                                            "busbw/algbw fits the table"));
  EXPECT_EQ(r.provenance.nranks, 16);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_EQ(r.provenance.ranks_per_node, 8);
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592).busbw_gbps, 338.82);
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592, true).busbw_gbps, 337.35);
}

// Without its test name, an all_gather table of 2 ranks fits every collective of redop 'none' and
// busbw factor (n-1)/n: refused naming each, never one picked.
TEST(NcclTestsCorpus, AnAmbiguousWrapperLogNamesEveryCollectiveThatFits) {
  std::string text = read_text_file(corpus("all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log"));
  for (const std::string line :
       {"# Collective test starting: all_gather_perf\n", "# Collective test concluded: all_gather_perf\n"}) {
    const std::size_t at = text.find(line);
    ASSERT_NE(at, std::string::npos) << line;
    text.erase(at, line.size());
  }
  try {
    import_log_text(text, "slurm-77.out", {});
    FAIL() << "an ambiguous log was given one collective";
  } catch (const InputError& error) {
    EXPECT_THAT(error.what(), HasSubstr("cannot tell which collective this is"));
    EXPECT_THAT(error.what(),
                HasSubstr("(all_gather, alltoall, gather, scatter, allgatherv, alltoallv all fit its redop "
                          "column and busbw/algbw)"));
  }
}

// Two different tests in one log are two result sets, and a single run has no repetition.
TEST(NcclTestsCorpus, DifferentTestsInOneLogStayApart) {
  const std::string text = read_text_file(corpus("all_reduce_perf_rccltests_mi300x_vf_8gpu.log")) + "\n" +
                           read_text_file(corpus("all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log"));
  const std::vector<ResultSet> runs = import_log_text(text, "two_tests.log", {});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].rows.front().op, "all_reduce");
  EXPECT_EQ(runs[1].rows.front().op, "all_gather");
  for (const ResultSet& run : runs) {
    for (const ResultRow& row : run.rows) EXPECT_FALSE(row.repetition);
  }
}

TEST(NcclTestsCorpus, RcclRankLinesWithoutGroup) {
  const ResultSet r = import_one("all_reduce_perf_rccltests_mi300x_vf_8gpu.log");
  EXPECT_EQ(r.provenance.nranks, 8);
  EXPECT_EQ(r.provenance.nodes, 1);
  EXPECT_EQ(r.provenance.ranks_per_node, 8);
  EXPECT_EQ(r.provenance.rank_hosts.at(7), "c42f4555f685");
  EXPECT_EQ(r.provenance.gpus_per_process, 8);  // "nThread 1 nGpus 8": one thread launches all 8
  EXPECT_EQ(r.rows.size(), 50u);
  EXPECT_DOUBLE_EQ(*row_at(r, 134217728).busbw_gbps, 293.07);
  EXPECT_DOUBLE_EQ(*row_at(r, 134217728, true).busbw_gbps, 289.60);
}

TEST(NcclTestsCorpus, DgxSparkSwitchAndDegradedDirectCable) {
  const ResultSet normal = import_one("all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log");
  const ResultSet degraded = import_one("all_gather_perf_2x_gb10_spark_directcable_nofec_degraded.log");
  for (const ResultSet* r : {&normal, &degraded}) {
    EXPECT_EQ(r->provenance.nranks, 2);
    EXPECT_EQ(r->provenance.nodes, 2);
    EXPECT_EQ(r->rows.at(0).op, "all_gather");
    EXPECT_EQ(r->rows.at(0).iterations, 50);
    EXPECT_EQ(r->provenance.libraries.at("nccl-tests"), "2.18.3");
  }
  EXPECT_DOUBLE_EQ(*row_at(normal, 4294967296).busbw_gbps, 22.14);
  EXPECT_DOUBLE_EQ(*row_at(normal, 4294967296, true).busbw_gbps, 22.46);
  EXPECT_DOUBLE_EQ(*row_at(degraded, 4294967296).busbw_gbps, 2.82);
  EXPECT_DOUBLE_EQ(*row_at(degraded, 4294967296, true).busbw_gbps, 2.83);
}

TEST(NcclTestsCorpus, MpirunTagOutputPrefixes) {
  const ResultSet tagged = import_one("all_gather_perf_2x_gb10_spark_mpirun_tag_output.log");
  const ResultSet plain = import_one("all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log");
  ASSERT_EQ(tagged.rows.size(), plain.rows.size());
  for (std::size_t i = 0; i < plain.rows.size(); ++i) {
    EXPECT_EQ(tagged.rows[i].bytes, plain.rows[i].bytes);
    EXPECT_EQ(tagged.rows[i].busbw_gbps, plain.rows[i].busbw_gbps);
  }
  EXPECT_EQ(tagged.provenance.rank_hosts, plain.provenance.rank_hosts);
}

TEST(NcclTestsCorpus, WhitespaceCollapsedByAWebPage) {
  const ResultSet r = import_one("all_gather_perf_gcp_a4xmax_gb300_2node_collapsed_spaces.log");
  EXPECT_EQ(r.provenance.nranks, 8);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_EQ(r.provenance.ranks_per_node, 4);
  EXPECT_EQ(r.rows.size(), 46u);  // 23 sizes, 4 KiB to 16 GiB
  EXPECT_DOUBLE_EQ(*row_at(r, 17179869184).busbw_gbps, 357.13);
  EXPECT_DOUBLE_EQ(*row_at(r, 17179869184, true).busbw_gbps, 373.54);
}

TEST(NcclTestsCorpus, MarkdownNoteWithAContinuedMpirunCommand) {
  const ResultSet r = import_one("nccl_test_result_a3mega_h100_2node_np16.md");
  EXPECT_EQ(r.rows.at(0).op, "all_reduce");  // from the launcher command: the log has no "Collective test" line
  EXPECT_EQ(r.provenance.nranks, 16);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_EQ(r.provenance.ranks_per_node, 8);
  EXPECT_EQ(r.rows.size(), 62u);
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592).busbw_gbps, 338.82);
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592, true).busbw_gbps, 337.35);
  EXPECT_THAT(r.provenance.command_line, HasSubstr("-np 16 -npernode 8"));
  EXPECT_TRUE(r.provenance.assumptions.empty()) << all_assumptions(r);
}

TEST(NcclTestsCorpus, TablePastedUnderItsMpirunLineTakesTheRankCountFromIt) {
  const ResultSet r = import_one("nccl_test_result_a3mega_pasted_table_only.log");
  EXPECT_EQ(r.provenance.nranks, 16);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592).busbw_gbps, 338.82);
  const std::string assumed = all_assumptions(r);
  EXPECT_THAT(assumed, HasSubstr("16 ranks from the launcher line"));
  EXPECT_THAT(assumed, HasSubstr("2 nodes of 8 ranks each, from the launcher line"));
}

TEST(NcclTestsCorpus, ElidedRankLinesKeepTheRankCount) {
  const ResultSet r = import_one("nccl_test_result_a3mega_ranks_elided.log");
  EXPECT_EQ(r.provenance.nranks, 16);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_EQ(r.provenance.rank_hosts.at(0), "ztan-mig-235z");
  EXPECT_EQ(r.provenance.rank_hosts.at(5), "");  // elided: not invented
  EXPECT_EQ(r.provenance.rank_hosts.at(15), "ztan-mig-gq73");
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592).busbw_gbps, 338.82);
  EXPECT_THAT(all_assumptions(r), HasSubstr("16 ranks: the rank lines are elided"));
}

TEST(NcclTestsCorpus, NoRankLinesAndNoLauncherInfersTheRanksFromBusbw) {
  const ResultSet r = import_one("all_gather_perf_gcp_a4xmax_no_rank_lines.log");
  EXPECT_EQ(r.provenance.nranks, 8);  // not the 1 of "nThread 1 nGpus 1"
  EXPECT_EQ(r.provenance.nodes, 0);   // unknown, and said so
  EXPECT_DOUBLE_EQ(*row_at(r, 17179869184).busbw_gbps, 357.13);
  const std::string assumed = all_assumptions(r);
  EXPECT_THAT(assumed, HasSubstr("8 ranks inferred from busbw/algbw"));
  EXPECT_THAT(assumed, HasSubstr("the node count is not in the log"));
}

TEST(NcclTestsCorpus, ImportedTimesReportNoSpread) {
  const ResultSet r = import_one("all_reduce_perf_rccltests_mi300x_vf_8gpu.log");
  for (const char* statistic : {"time_min_us", "time_p99_us", "time_max_us", "time_cv"})
    EXPECT_FALSE(reports_statistic(r.rows.at(0), statistic)) << statistic;
  EXPECT_TRUE(reports_statistic(r.rows.at(0), "time_median_us"));
}

TEST(NcclTestsCorpus, JsonOutputWithPerIterationStatistics) {
  const ResultSet r = import_one("all_gather_perf_gb10_spark_json_output_constructed.json");
  EXPECT_EQ(r.provenance.backend, "nccl-tests");
  EXPECT_EQ(r.provenance.nranks, 2);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_EQ(r.provenance.rank_hosts, (std::vector<std::string>{"spark-fb97", "spark-4440"}));
  ASSERT_EQ(r.rows.size(), 4u);
  const ResultRow& timed = row_at(r, 1073741824);
  EXPECT_EQ(timed.op, "all_gather");
  EXPECT_EQ(timed.iterations, 50);
  EXPECT_FALSE(timed.root.has_value());
  EXPECT_DOUBLE_EQ(timed.time_min_us, 26890.5);
  EXPECT_DOUBLE_EQ(timed.time_median_us, 27150.75);
  EXPECT_DOUBLE_EQ(timed.time_p99_us, 28301.5);
  EXPECT_DOUBLE_EQ(timed.time_max_us, 28410.25);
  EXPECT_NEAR(timed.time_cv, 0.011069, 1e-12);
  EXPECT_TRUE(timed.unreported_statistics.empty());
  EXPECT_DOUBLE_EQ(*row_at(r, 4294967296).busbw_gbps, 22.14);
  EXPECT_EQ(row_at(r, 4294967296).wrong, 0u);
  EXPECT_FALSE(row_at(r, 4294967296, true).wrong.has_value());  // nwrong null: not validated
  EXPECT_FALSE(reports_statistic(row_at(r, 4294967296), "time_p99_us"));
}

// --- OSU ---

TEST(OsuCorpus, ValidationColumn) {
  const ResultSet latency = import_one("osu7.5_latency_validation_host_alps_cxi.txt");
  ASSERT_EQ(latency.rows.size(), 23u);
  EXPECT_DOUBLE_EQ(row_at(latency, 1).time_median_us, 3.34);
  EXPECT_DOUBLE_EQ(row_at(latency, 4194304).time_median_us, 182.39);
  EXPECT_EQ(row_at(latency, 4194304).wrong, 0u);  // Pass
  const ResultSet bandwidth = import_one("osu7.5_bw_validation_host_alps_no_cxi_degraded.txt");
  EXPECT_DOUBLE_EQ(row_at(bandwidth, 4194304).algbw_gbps, 3.12142);
  EXPECT_FALSE(reports_statistic(row_at(bandwidth, 4194304), "time_p99_us"));
}

TEST(OsuCorpus, CudaDeviceBuffersAndTwoTestsSeparatedByDashes) {
  const ResultSet r = import_one("osu5.6.3_cuda_latency_and_bibw_DD_separator.txt");
  std::vector<ResultRow> latency, bibw;
  for (const ResultRow& row : r.rows) (row.op == "latency" ? latency : bibw).push_back(row);
  ASSERT_EQ(latency.size(), 24u);
  ASSERT_EQ(bibw.size(), 23u);
  EXPECT_EQ(latency[0].bytes, 0u);
  EXPECT_DOUBLE_EQ(latency[0].time_median_us, 0.95);
  EXPECT_DOUBLE_EQ(latency[1].time_median_us, 21.07);
  EXPECT_DOUBLE_EQ(latency.back().time_median_us, 220.10);
  EXPECT_EQ(bibw.back().bytes, 4194304u);
  EXPECT_DOUBLE_EQ(bibw.back().algbw_gbps, 26.55562);
  EXPECT_EQ(latency[0].src_device, "device");
  EXPECT_EQ(latency[0].dst_device, "device");
}

TEST(OsuCorpus, FullOutputMinMaxIterations) {
  const ResultSet r = import_one("osu6.2_allreduce_full_minmax_iters_200nodes.txt", {.nranks = 200});
  ASSERT_EQ(r.rows.size(), 6u);
  const ResultRow& row = row_at(r, 3200000);
  EXPECT_EQ(row.nranks, 200);
  EXPECT_DOUBLE_EQ(row.time_median_us, 9006.89);
  EXPECT_DOUBLE_EQ(row.time_min_us, 8725.43);
  EXPECT_DOUBLE_EQ(row.time_max_us, 9220.24);
  EXPECT_EQ(row.iterations, 100);
  EXPECT_TRUE(reports_statistic(row, "time_min_us"));
  EXPECT_FALSE(reports_statistic(row, "time_p99_us"));  // -f prints no tail latency
}

TEST(OsuCorpus, ALogCutMidRowImportsNoZeroRow) {
  // The latency log cut after "256" and the first digit of its time, as a copy stopped mid-line.
  std::string text = read_text_file(corpus("osu7.5_latency_validation_host_alps_cxi.txt"));
  text = text.substr(0, text.find("256                     4.36")) + "256                     4";
  const ResultSet r = import_log_text(text, "cut.txt", {}).front();
  ASSERT_EQ(r.rows.size(), 8u);  // 1 .. 128 B
  EXPECT_EQ(r.rows.back().bytes, 128u);
  EXPECT_THAT(all_assumptions(r), HasSubstr("ends the file without a newline: cut mid-row, not imported"));
  // A zero where a time belongs, with the newline kept, is refused naming the line.
  const std::string zero = text.substr(0, text.rfind('\n') + 1) + "256                     0.00              Pass\n";
  try {
    import_log_text(zero, "zero.txt", {});
    ADD_FAILURE() << "a 0 us row was imported";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("zero.txt:"));
    EXPECT_THAT(e.what(), HasSubstr("latency 0 is not a measurement"));
  }
}

// --- Google Benchmark ---

TEST(GoogleBenchmarkCorpus, BytesPerIterationUseCpuTime) {
  const ResultSet r = import_one("gbench_docs_user_guide_json_example.json");
  ASSERT_EQ(r.rows.size(), 3u);
  std::vector<std::uint64_t> bytes;
  for (const ResultRow& row : r.rows) bytes.push_back(row.bytes);
  std::sort(bytes.begin(), bytes.end());
  EXPECT_EQ(bytes, (std::vector<std::uint64_t>{4, 32, 40}));  // 1199226 B/s x 33355 ns of CPU = 40, not 39
  EXPECT_EQ(r.rows[0].op, "BM_SetInsert");
}

// A stderr warning landed inside the document: left out, named in a warning, and the runs read
// as from the clean file.
TEST(GoogleBenchmarkCorpus, StrayStderrLineInsideTheJsonIsSkippedAndNamed) {
  const ResultSet r = import_one("gbench_docs_user_guide_json_stray_stderr_line_inside_derived.json");
  ASSERT_EQ(r.rows.size(), 3u);
  std::vector<std::uint64_t> bytes;
  for (const ResultRow& row : r.rows) bytes.push_back(row.bytes);
  std::sort(bytes.begin(), bytes.end());
  EXPECT_EQ(bytes, (std::vector<std::uint64_t>{4, 32, 40}));
  EXPECT_NE(std::find(r.provenance.assumptions.begin(), r.provenance.assumptions.end(),
                      "1 line(s) inside the JSON document are not JSON (stderr output?) and were ignored: line(s) 22"),
            r.provenance.assumptions.end());
  // A broken document is still refused, at its line.
  std::string text = fb::read_text_file(corpus("gbench_docs_user_guide_json_example.json"));
  text.replace(text.find("\"iterations\": 94877"), 19, "\"iterations\": 94877 94877");
  try {
    import_log_text(text, "broken.json", {});
    FAIL() << "a broken JSON document accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("broken.json:26: not valid Google Benchmark JSON"), std::string::npos)
        << error.what();
  }
}

// Both JSON importers read through one single-pass reader (results/streamed_json.hpp): a document
// nested 100,000 deep is refused while it is parsed, with the results reader's own message, before
// anything recursive walks it.
TEST(JsonImporters, NestingDeeperThan64LevelsIsRefusedWhileParsing) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const std::pair<const char*, const char*> files[] = {{"gbench_docs_user_guide_json_example.json",
                                                        "\"iterations\": 94877"},
                                                       {"all_gather_perf_gb10_spark_json_output_constructed.json",
                                                        "\"iterations\":50"}};
  for (const auto& [name, member] : files) {
    std::string text = fb::read_text_file(corpus(name));
    const std::string key = std::string(member).substr(0, std::string(member).find(':') + 1);
    text.replace(text.find(member), std::string(member).size(), key + deep);
    try {
      import_log_text(text, "deep.json", {});
      ADD_FAILURE() << name << ": a document nested 100,000 deep accepted";
    } catch (const InputError& error) {
      EXPECT_STREQ(error.what(), "deep.json: JSON nested deeper than 64 levels") << name;
    }
  }
}

// A key twice in one object keeps its last value, as nlohmann's own parse kept it: config's
// "iterations" written as 7 and then 50 gives rows of 50 iterations.
TEST(JsonImporters, AKeyTwiceKeepsItsLastValue) {
  std::string text = fb::read_text_file(corpus("all_gather_perf_gb10_spark_json_output_constructed.json"));
  text.replace(text.find("\"config\":{"), 10, "\"config\":{\"iterations\":7,");
  const ResultSet r = import_log_text(text, "twice.json", {}).front();
  ASSERT_FALSE(r.rows.empty());
  EXPECT_EQ(r.rows.front().iterations, 50);
}

TEST(GoogleBenchmarkCorpus, ConsoleTable) {
  const ResultSet r = import_one("gbench_docs_user_guide_console_example.txt");
  ASSERT_EQ(r.rows.size(), 3u);
  std::vector<std::pair<double, std::uint64_t>> time_and_bytes;
  for (const ResultRow& row : r.rows) time_and_bytes.emplace_back(row.time_median_us, row.bytes);
  std::sort(time_and_bytes.begin(), time_and_bytes.end());
  // Time(ns) 28928, 32065, 33157; 133.097kiB/s x CPU 29349 ns = 4 bytes, then 32 and 40.
  EXPECT_NEAR(time_and_bytes[0].first, 28.928, 1e-9);
  EXPECT_EQ(time_and_bytes[0].second, 4u);
  EXPECT_NEAR(time_and_bytes[1].first, 32.065, 1e-9);
  EXPECT_EQ(time_and_bytes[1].second, 32u);
  EXPECT_NEAR(time_and_bytes[2].first, 33.157, 1e-9);
  EXPECT_EQ(time_and_bytes[2].second, 40u);
  EXPECT_EQ(r.rows[0].iterations, 23853);  // BM_SetInsert/1024/1 sorts first
}

TEST(GoogleBenchmarkCorpus, AggregatesOnly) {
  const ResultSet r = import_one("gbench_v1.9.4_aggregates_only_benchmark_out.json");
  ASSERT_EQ(r.rows.size(), 1u);
  const ResultRow& row = r.rows[0];
  EXPECT_EQ(row.op, "BM_SampleTest");
  EXPECT_NEAR(row.time_median_us, 35011.679849776556, 1e-6);  // the median aggregate, ms -> us
  EXPECT_NEAR(row.time_cv, 1.0002370210843256e-03, 1e-15);
  EXPECT_TRUE(reports_statistic(row, "time_cv"));
  EXPECT_FALSE(reports_statistic(row, "time_p99_us"));
  EXPECT_EQ(row.bytes, 0u);
  EXPECT_THAT(all_assumptions(r), HasSubstr("no bytes_per_second"));
}

// --- perftest ---

TEST(PerftestCorpus, ReportGbitsIsDecimalBits) {
  const ResultSet r = import_one("perftest_ib_write_bw_report_gbits_issue273.txt");
  ASSERT_EQ(r.rows.size(), 1u);
  const ResultRow& row = r.rows[0];
  EXPECT_EQ(r.provenance.tool_version, "perftest ib_write_bw");
  EXPECT_EQ(row.op, "bw");
  EXPECT_EQ(row.bytes, 8u);
  EXPECT_EQ(row.iterations, 224958464);
  EXPECT_DOUBLE_EQ(row.algbw_gbps, 0.48 * 1.25e8 / 1e9);  // 0.48 Gb/s = 0.06 GB/s
  EXPECT_EQ(row.src_rank, 0);
  EXPECT_EQ(row.dst_rank, 1);
  EXPECT_FALSE(reports_statistic(row, "time_min_us"));  // BW peak printed as 0.00
}

TEST(PerftestCorpus, MegabytesAreBinaryAndCudaBuffersAreMarked) {
  const ResultSet r = import_one("perftest_ib_write_bw_use_cuda_mbs_constructed.txt");
  ASSERT_EQ(r.rows.size(), 3u);
  const ResultRow& row = row_at(r, 8388608);
  EXPECT_DOUBLE_EQ(row.algbw_gbps, 46880.90 * 1048576 / 1e9);
  EXPECT_NEAR(row.time_median_us, 8388608 / (46880.90 * 1048576) * 1e6, 1e-9);
  EXPECT_NEAR(row.time_min_us, 8388608 / (46881.25 * 1048576) * 1e6, 1e-9);  // from BW peak
  EXPECT_EQ(row.src_device, "device");
}

TEST(PerftestCorpus, LatencyStatistics) {
  const ResultSet r = import_one("perftest_ib_read_lat_mlx4_conflicting_cpu_freq.txt");
  ASSERT_EQ(r.rows.size(), 1u);
  const ResultRow& row = r.rows[0];
  EXPECT_EQ(r.provenance.tool_version, "perftest ib_read_lat");
  EXPECT_EQ(row.op, "latency");
  EXPECT_EQ(row.bytes, 2u);
  EXPECT_EQ(row.iterations, 1000);
  EXPECT_DOUBLE_EQ(row.time_min_us, 1.76);
  EXPECT_DOUBLE_EQ(row.time_median_us, 1.79);  // t_typical
  EXPECT_DOUBLE_EQ(row.time_p99_us, 1.88);
  EXPECT_DOUBLE_EQ(row.time_max_us, 6.12);
  EXPECT_NEAR(row.time_cv, 0.06 / 1.80, 1e-12);
  EXPECT_TRUE(row.unreported_statistics.empty());
}

TEST(ImporterCorpus, EveryFileInTheCorpusImports) {
  for (const auto& entry : std::filesystem::directory_iterator(FB_CORPUS_LOGS_DIR)) {
    if (entry.path().filename() == "SOURCES.md") continue;
    // A run that failed before its table is refused by design, naming the failure
    // (WrappedLogCorpus.AFailedRunIsRefusedNamingTheFailureAndItsLine).
    if (entry.path().filename().string().find("failed_run") != std::string::npos) {
      EXPECT_THROW(import_log(entry.path(), {}), InputError) << entry.path();
      continue;
    }
    const ImportOptions options{.nranks = entry.path().filename().string().starts_with("osu6.2") ? std::optional(200)
                                                                                                 : std::nullopt};
    EXPECT_NO_THROW(import_log(entry.path(), options)) << entry.path();
  }
}

}  // namespace
}  // namespace fb

namespace fb {
namespace {

// The log as it arrives when pasted from a Windows editor or a web page: CRLF line ends, and a
// no-break space (U+00A0) starting every run of spaces between columns.
std::string as_pasted(const std::string& text) {
  std::string pasted;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      pasted += "\r\n";
    } else if (text[i] == ' ' && i + 1 < text.size() && text[i + 1] == ' ' && (i == 0 || text[i - 1] != ' ')) {
      pasted += "\xc2\xa0";
    } else {
      pasted += text[i];
    }
  }
  return pasted;
}

class PastedCorpusLog : public ::testing::TestWithParam<const char*> {};

TEST_P(PastedCorpusLog, ReadsTheSameNumbersAsTheOriginal) {
  std::ifstream in(corpus(GetParam()), std::ios::binary);
  std::ostringstream original;
  original << in.rdbuf();
  const testing::TempDir dir;
  std::ofstream(dir / GetParam(), std::ios::binary) << as_pasted(original.str());
  const std::vector<ResultSet> expected = import_log(corpus(GetParam()), {});
  const std::vector<ResultSet> pasted = import_log(dir / GetParam(), {});
  ASSERT_EQ(pasted.size(), expected.size());
  for (std::size_t run = 0; run < expected.size(); ++run) {
    EXPECT_EQ(pasted[run].provenance.nranks, expected[run].provenance.nranks);
    EXPECT_EQ(pasted[run].provenance.rank_hosts, expected[run].provenance.rank_hosts);
    ASSERT_EQ(pasted[run].rows.size(), expected[run].rows.size());
    for (std::size_t i = 0; i < expected[run].rows.size(); ++i) {
      const ResultRow& want = expected[run].rows[i];
      const ResultRow& got = pasted[run].rows[i];
      EXPECT_EQ(got.op, want.op);
      EXPECT_EQ(got.bytes, want.bytes);
      EXPECT_EQ(got.in_place, want.in_place);
      EXPECT_EQ(got.iterations, want.iterations);
      EXPECT_EQ(got.time_median_us, want.time_median_us) << GetParam() << " row " << i;
      EXPECT_EQ(got.time_min_us, want.time_min_us);
      EXPECT_EQ(got.time_max_us, want.time_max_us);
      EXPECT_EQ(got.algbw_gbps, want.algbw_gbps);
      EXPECT_EQ(got.busbw_gbps, want.busbw_gbps);
      EXPECT_EQ(got.wrong, want.wrong);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TextFormats, PastedCorpusLog,
                         ::testing::Values("all_reduce_perf_rccltests_2x7900xtx_nThreads_header.log",
                                           "all_gather_perf_mpi_3reps_one_file_rtx5090.log",
                                           "osu7.5_latency_validation_host_alps_cxi.txt",
                                           "osu7.5_bw_validation_host_alps_no_cxi_degraded.txt",
                                           "perftest_ib_read_lat_mlx4_conflicting_cpu_freq.txt",
                                           "perftest_ib_write_bw_report_gbits_issue273.txt",
                                           "gbench_docs_user_guide_console_example.txt"));

}  // namespace
}  // namespace fb
