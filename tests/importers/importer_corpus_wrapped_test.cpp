// The corpus files of the readers' fourth pass (tests/corpus/logs/SOURCES.md): logs wrapped the
// ways real output gets wrapped, runs that differ by their command and environment, a run that
// failed, OSU sections without their banner, and iteration counts past 2^30, each read with the
// numbers its notes say a correct reader gives.

#include "common/errors.hpp"
#include "common/text_framing.hpp"
#include "importers/importer_registry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace fb {
namespace {

using ::testing::HasSubstr;

std::filesystem::path corpus(const char* name) { return std::filesystem::path(FB_CORPUS_LOGS_DIR) / name; }

ResultSet import_one(const char* name) {
  std::vector<ResultSet> runs = import_log(corpus(name), {});
  EXPECT_EQ(runs.size(), 1u) << name;
  return runs.front();
}

const ResultRow& row_at(const ResultSet& results, std::uint64_t bytes, bool in_place = false,
                        std::optional<int> repetition = std::nullopt) {
  const auto row = std::find_if(results.rows.begin(), results.rows.end(), [&](const ResultRow& r) {
    return r.bytes == bytes && r.in_place == in_place && (!repetition || r.repetition == repetition);
  });
  if (row == results.rows.end()) throw std::runtime_error("no row of that size");
  return *row;
}

std::string all_assumptions(const ResultSet& results) {
  std::string text;
  for (const std::string& assumption : results.provenance.assumptions) text += assumption + "\n";
  return text;
}

// Every line carries Open MPI's --tag-output prefix behind a two-space indent: before the framing
// layer, "no measurement rows".
TEST(WrappedLogCorpus, TagOutputBehindAnIndentReadsAsTheUnwrappedLog) {
  const ResultSet wrapped = import_one("all_reduce_perf_rccltests_mi300x_vf_8gpu_tag_output_indented_derived.log");
  const ResultSet plain = import_one("all_reduce_perf_rccltests_mi300x_vf_8gpu.log");
  ASSERT_EQ(wrapped.rows.size(), plain.rows.size());
  for (std::size_t i = 0; i < plain.rows.size(); ++i) {
    ResultRow row = wrapped.rows[i];
    row.run_id = plain.rows[i].run_id;  // named after the file
    EXPECT_TRUE(row == plain.rows[i]) << "row " << i;
  }
  EXPECT_EQ(wrapped.provenance.nranks, 8);
  EXPECT_EQ(wrapped.provenance.rank_hosts, plain.provenance.rank_hosts);
  EXPECT_DOUBLE_EQ(*row_at(wrapped, 134217728).busbw_gbps, 293.07);
  EXPECT_DOUBLE_EQ(*row_at(wrapped, 134217728, true).busbw_gbps, 289.60);
  // Said once: what was peeled, and nothing else the plain log does not say.
  ASSERT_EQ(wrapped.provenance.assumptions.size(), plain.provenance.assumptions.size() + 1);
  EXPECT_THAT(wrapped.provenance.assumptions.back(),
              HasSubstr("Open MPI --tag-output prefixes ('[1,0]<stdout>:', 44 lines)"));
  EXPECT_THAT(wrapped.provenance.assumptions.back(), HasSubstr("an indentation of '  ' on every line"));
}

// Rank lines 2-13 elided by hand with a bare "..." line (not "#  ..."): before, refused for
// skipping ranks.
TEST(WrappedLogCorpus, RankLinesElidedWithABareEllipsis) {
  const ResultSet r = import_one("nccl_test_result_a3mega_ranks_elided_bare_ellipsis_derived.log");
  EXPECT_EQ(r.provenance.nranks, 16);
  EXPECT_EQ(r.provenance.nodes, 2);
  EXPECT_EQ(r.provenance.ranks_per_node, 8);
  EXPECT_EQ(r.provenance.rank_hosts.at(1), "ztan-mig-235z");
  EXPECT_EQ(r.provenance.rank_hosts.at(7), "");  // elided
  EXPECT_EQ(r.provenance.rank_hosts.at(15), "ztan-mig-gq73");
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592).busbw_gbps, 338.82);
  EXPECT_DOUBLE_EQ(*row_at(r, 8589934592, true).busbw_gbps, 337.35);
  EXPECT_THAT(all_assumptions(r), HasSubstr("16 ranks: the rank lines are elided ('...')"));
}

// Quoted for e-mail under an unquoted "... wrote:" line: before, "truncated log?".
TEST(WrappedLogCorpus, ALogQuotedForEmail) {
  const ResultSet r = import_one("wiki_3node_t4_validation0_oldformat_email_quoted_derived.txt");
  EXPECT_EQ(r.provenance.nranks, 3);
  EXPECT_EQ(r.provenance.rank_hosts, (std::vector<std::string>{"gpu01", "gpu02", "gpu03"}));
  ASSERT_EQ(r.rows.size(), 22u);
  EXPECT_EQ(r.rows[0].op, "all_reduce");
  EXPECT_DOUBLE_EQ(*row_at(r, 115343360).busbw_gbps, 0.50);
  EXPECT_THAT(all_assumptions(r), HasSubstr("e-mail quoting ('> ', 23 lines)"));
}

// A terminal session: the next prompt and command wrapped at 80 columns after the table, its
// second half "8 192.168.10.2" starting with a number: before, refused at that line.
TEST(WrappedLogCorpus, PerftestSessionWhosePromptWrappedAfterTheTable) {
  const ResultSet r = import_one("perftest_ib_write_bw_report_gbits_session_prompt_wrapped_derived.txt");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].op, "bw");
  EXPECT_EQ(r.rows[0].bytes, 8u);
  EXPECT_EQ(r.rows[0].iterations, 224958464);
  EXPECT_DOUBLE_EQ(r.rows[0].algbw_gbps, 0.48 * 1.25e8 / 1e9);
  EXPECT_THAT(all_assumptions(r), HasSubstr("shell prompts ('[admin@gpu-node-017 ~]$ ', 3 lines)"));
}

// Three runs, each under its own COMMAND: line and environment block: adaptive routing off, then
// on twice with the same command. The first stands alone; only the last two are repetitions.
TEST(WrappedLogCorpus, RunsUnderDifferentCommandsAreNotRepetitionsOfOneAnother) {
  const std::vector<ResultSet> runs =
      import_log(corpus("all_gather_perf_mpi_rtx5090_three_commands_adaptive_routing_derived.log"), {});
  ASSERT_EQ(runs.size(), 2u);
  const ResultSet& off = runs[0];
  const ResultSet& on = runs[1];
  EXPECT_EQ(off.provenance.run_id,
            "nccl-tests-all_gather_perf_mpi_rtx5090_three_commands_adaptive_routing_derived-run1");
  EXPECT_EQ(on.provenance.run_id,
            "nccl-tests-all_gather_perf_mpi_rtx5090_three_commands_adaptive_routing_derived-run2");
  EXPECT_EQ(off.provenance.command_line,
            "mpirun -np 2 -x NCCL_IB_ADAPTIVE_ROUTING=0 ./build/all_gather_perf_mpi -b 1M -e 128M -f 2 -n 50 -w 10");
  EXPECT_EQ(on.provenance.command_line,
            "mpirun -np 2 -x NCCL_IB_ADAPTIVE_ROUTING=1 ./build/all_gather_perf_mpi -b 1M -e 128M -f 2 -n 50 -w 10");
  EXPECT_EQ(off.provenance.environment,
            (std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}, {"NCCL_IB_ADAPTIVE_ROUTING", "0"}}));
  EXPECT_EQ(on.provenance.environment,
            (std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}, {"NCCL_IB_ADAPTIVE_ROUTING", "1"}}));
  ASSERT_EQ(off.rows.size(), 16u);
  EXPECT_FALSE(off.rows[0].repetition);
  EXPECT_DOUBLE_EQ(*row_at(off, 134217728).busbw_gbps, 1.04);
  EXPECT_DOUBLE_EQ(*row_at(off, 134217728, true).busbw_gbps, 1.10);
  ASSERT_EQ(on.rows.size(), 32u);
  EXPECT_DOUBLE_EQ(*row_at(on, 134217728, false, 0).busbw_gbps, 1.06);
  EXPECT_DOUBLE_EQ(*row_at(on, 134217728, false, 1).busbw_gbps, 2.30);
  EXPECT_DOUBLE_EQ(*row_at(on, 134217728, true, 1).busbw_gbps, 2.30);
  EXPECT_THAT(all_assumptions(on), HasSubstr("2 runs of the same test one after the other in the log"));
  EXPECT_THAT(all_assumptions(off), ::testing::Not(HasSubstr("runs of the same test")));
}

// "Test CUDA failure ... busy or unavailable" and no table: refused naming the failure and its
// line (an InputError, which the CLI maps to exit code 4), nothing imported.
TEST(WrappedLogCorpus, AFailedRunIsRefusedNamingTheFailureAndItsLine) {
  const std::filesystem::path path = corpus("all_reduce_perf_gb200_cuda_busy_failed_run_constructed.log");
  try {
    import_log(path, {});
    FAIL() << "a failed run was imported";
  } catch (const InputError& error) {
    EXPECT_EQ(
        std::string(error.what()),
        path.string() +
            ":10: the nccl-tests run failed before measuring: gb200-tray07: Test CUDA failure common.cu:1254 'all "
            "CUDA-capable devices are busy or unavailable'; nothing imported");
  }
  EXPECT_EQ(static_cast<int>(ExitCode::input), 4);
}

// osu_bw, then osu_latency's section pasted without its banner: the header's "Avg Latency(us)"
// types the section; before, 26.01 us would have become 0.026 GB/s.
TEST(WrappedLogCorpus, AnOsuSectionWithoutItsBannerIsTypedByItsHeader) {
  const ResultSet r = import_one("osu7.5_bw_then_latency_without_banner_derived.txt");
  ASSERT_EQ(r.rows.size(), 46u);
  const auto of_op = [&](std::string_view op, std::uint64_t bytes) {
    const auto found = std::find_if(r.rows.begin(), r.rows.end(),
                                    [&](const ResultRow& row) { return row.op == op && row.bytes == bytes; });
    if (found == r.rows.end()) throw std::runtime_error("no such row");
    return *found;
  };
  EXPECT_DOUBLE_EQ(of_op("bw", 4194304).algbw_gbps, 3.12142);
  EXPECT_DOUBLE_EQ(of_op("latency", 1).time_median_us, 3.34);
  EXPECT_DOUBLE_EQ(of_op("latency", 4194304).time_median_us, 182.39);
  EXPECT_THAT(all_assumptions(r), HasSubstr("line 32: a '# Size' header without its '# OSU MPI ... Test' banner: its "
                                            "latency column is read as Latency"));
}

// Iterations past 2^30 are kept exactly; past the largest int a row holds, said aloud.
TEST(WrappedLogCorpus, GoogleBenchmarkIterationsPastTwoToThe30AreNotClampedSilently) {
  const ResultSet r = import_one("gbench_memcpy_iterations_above_2_31_constructed.json");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(row_at(r, 64).iterations, 1500000000);
  EXPECT_EQ(row_at(r, 8).iterations, std::numeric_limits<int>::max());
  EXPECT_DOUBLE_EQ(row_at(r, 8).algbw_gbps, 12.8);
  EXPECT_THAT(all_assumptions(r), HasSubstr("BM_memcpy/8/iterations:3000000000: 3000000000 iterations is more than a "
                                            "results row holds: recorded as 2147483647"));
}

}  // namespace
}  // namespace fb
