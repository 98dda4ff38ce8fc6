// The GPU backends as a user meets them: on a machine without a GPU (CI) they end with one
// "skipped" line and exit code 8 before touching the results directory; on a GPU machine
// (scripts/gpu-check.sh) the same tests check the rows they write.

#include "common/errors.hpp"
#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::allow_root;
using testing::describe;
using testing::directly;
using testing::lines_of;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;
using testing::under_mpirun;

constexpr int no_device = static_cast<int>(ExitCode::no_device);

void expect_skipped_once(const ProcessResult& result, const std::string& backend, const TempDir& dir) {
  // mpirun adds its own report of the non-zero exit; fabricbench's part is one line per job.
  std::vector<std::string> lines;
  for (const std::string& line : lines_of(result.err))
    if (line.starts_with("fabricbench:")) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u) << describe(result);
  EXPECT_THAT(lines[0], StartsWith("fabricbench: skipped: "));
  EXPECT_THAT(lines[0], HasSubstr("the " + backend + " backend needs"));
  // Nothing was measured, so nothing was written.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << describe(result);
}

TEST(CudaBackend, CopiesOrSkipsCleanly) {
  if (!FABRICBENCH_CUDA_BACKEND_BUILT) GTEST_SKIP() << "this build has no CUDA backend";
  const TempDir dir;
  const ProcessResult result =
      run_process(directly({"run", "h2d_ce", "d2h_sm", "local_ce", "--backend", "cuda", "-b", "1M", "-e", "4M", "-n",
                            "3", "-w", "1", "-D", dir.path().string()}),
                  allow_root);
  if (result.exit_code == no_device) return expect_skipped_once(result, "cuda", dir);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const auto csv = std::find_if(std::filesystem::directory_iterator(dir.path()), {},
                                [](const auto& entry) { return entry.path().extension() == ".csv"; });
  ASSERT_NE(csv, std::filesystem::directory_iterator());
  const ResultSet results = read_results_csv(csv->path());
  ASSERT_FALSE(results.rows.empty());
  for (const ResultRow& row : results.rows) {
    SCOPED_TRACE(row.op + " " + row.src_device + " -> " + row.dst_device);
    EXPECT_EQ(row.backend, "cuda");
    EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
    EXPECT_GT(row.algbw_gbps, 0);
    if (row.op == "h2d_ce") {
      EXPECT_EQ(row.src_device, "host");
    } else if (row.op == "d2h_sm") {
      EXPECT_EQ(row.dst_device, "host");
    } else {
      EXPECT_EQ(row.src_device, row.dst_device);
    }
  }
  EXPECT_THAT(result.out, HasSubstr("(rows send, columns receive)"));
}

TEST(NcclBackend, SkipsOnceForTheWholeJobWithoutGpus) {
  if (!FABRICBENCH_NCCL_BACKEND_BUILT) GTEST_SKIP() << "this build has no NCCL backend";
  const TempDir dir;
  const ProcessResult result = run_process(under_mpirun(2, testing::fabricbench_binary(),
                                                        {"run", "all_reduce", "--backend", "nccl", "-e", "1M", "-n",
                                                         "3", "-D", dir.path().string()}),
                                           allow_root);
  if (result.exit_code != no_device) GTEST_SKIP() << "this machine runs NCCL on 2 ranks: " << describe(result);
  expect_skipped_once(result, "nccl", dir);
}

TEST(GpuLaunchOptions, AreRefusedByBackendsWithoutThemBeforeAnythingStarts) {
  const TempDir dir;
  const ProcessResult per_process =
      run_process(directly({"run", "all_reduce", "-g", "2", "-D", dir.path().string()}), allow_root);
  EXPECT_EQ(per_process.exit_code, static_cast<int>(ExitCode::usage)) << describe(per_process);
  EXPECT_THAT(per_process.err, HasSubstr("-g 2: the mpi backend drives one GPU (or none) per process"));

  const ProcessResult graphs =
      run_process(directly({"run", "all_reduce", "--backend", "mpi", "-G", "4", "-D", dir.path().string()}),
                  allow_root);
  EXPECT_EQ(graphs.exit_code, static_cast<int>(ExitCode::usage)) << describe(graphs);
  EXPECT_THAT(graphs.err, HasSubstr("-G 4: the mpi backend does not launch CUDA graphs"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace fb
