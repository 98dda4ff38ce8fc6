#include "common/errors.hpp"
#include "benchmarks/core/memory_budget.hpp"
#include "common/op_catalog.hpp"
#include "common/sizes.hpp"
#include "results/result_row.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

void write_meminfo(const TempDir& root, std::uint64_t available_kib) {
  write_text(root / "proc/meminfo", "MemTotal:       24578604 kB\nMemFree:        16930232 kB\nMemAvailable:   " +
                                        std::to_string(available_kib) + " kB\nBuffers:          220432 kB\n");
}

TEST(AvailableMemory, MemAvailableWithoutACgroupLimit) {
  const TempDir root;
  write_meminfo(root, 20971520);
  write_text(root / "proc/self/cgroup", "0::/user.slice/session-1.scope\n");
  write_text(root / "sys/fs/cgroup/user.slice/session-1.scope/memory.max", "max\n");
  const std::optional<AvailableMemory> available = available_memory(root.path());
  ASSERT_TRUE(available);
  EXPECT_EQ(available->bytes, 20971520ull * 1024);
  EXPECT_EQ(available->source, "MemAvailable");
}

// A Slurm or Kubernetes job is bounded by its cgroup, often far below the node's free memory; the
// limit may sit on an ancestor of the process's own cgroup.
TEST(AvailableMemory, TheTightestCgroupV2LimitUpTheTreeBinds) {
  const TempDir root;
  write_meminfo(root, 20971520);
  write_text(root / "proc/self/cgroup", "0::/job_42/step_0/task_1\n");
  write_text(root / "sys/fs/cgroup/job_42/step_0/task_1/memory.max", "max\n");
  write_text(root / "sys/fs/cgroup/job_42/step_0/memory.max", "4294967296\n");
  write_text(root / "sys/fs/cgroup/job_42/step_0/memory.current", "1073741824\n");
  write_text(root / "sys/fs/cgroup/job_42/memory.max", "8589934592\n");
  write_text(root / "sys/fs/cgroup/job_42/memory.current", "1073741824\n");
  const std::optional<AvailableMemory> available = available_memory(root.path());
  ASSERT_TRUE(available);
  EXPECT_EQ(available->bytes, 3221225472ull);
  EXPECT_EQ(available->source, "the cgroup /job_42/step_0 memory.max of 4294967296 B, 1073741824 B used");
}

TEST(AvailableMemory, CgroupV1MemoryController) {
  const TempDir root;
  write_meminfo(root, 20971520);
  write_text(root / "proc/self/cgroup", "12:pids:/slurm/uid_0/job_7\n5:memory:/slurm/uid_0/job_7\n1:name=systemd:/\n");
  write_text(root / "sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes", "2147483648\n");
  write_text(root / "sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.usage_in_bytes", "147483648\n");
  write_text(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // no limit
  const std::optional<AvailableMemory> available = available_memory(root.path());
  ASSERT_TRUE(available);
  EXPECT_EQ(available->bytes, 2000000000ull);
  EXPECT_THAT(available->source, HasSubstr("/slurm/uid_0/job_7 memory.limit_in_bytes"));
}

std::vector<PlannedOp> one_case(std::string_view op, std::uint64_t bytes, std::uint64_t count, DataType dtype,
                                int iterations) {
  PlannedOp planned;
  planned.op = &op_by_name(op);
  BenchmarkCase c;
  c.op = planned.op;
  c.bytes = bytes;
  c.count = count;
  c.dtype = dtype;
  c.iterations = iterations;
  planned.cases_by_size.push_back({c});
  return {planned};
}

// `-b 8G -e 8G -d double` on 4 ranks of one node: 16 GiB of buffers each, 64 GiB for the node.
TEST(MemoryBudget, BuffersOfEveryRankOnTheNodeAreCounted) {
  const auto plan = one_case("all_reduce", 8ull << 30, 1ull << 30, DataType::float64, 20);
  EXPECT_EQ(rank_memory_need(plan, 1, 4, true).bytes, (16ull << 30) + 20 * 8);
  EXPECT_EQ(rank_memory_need(plan, 0, 4, true).bytes, (16ull << 30) + 20 * 8 * 6);
  EXPECT_EQ(rank_memory_need(plan, 1, 4, false).bytes, 20u * 8);  // device buffers
  const AvailableMemory available{20ull << 30, "MemAvailable"};
  try {
    require_memory_for(plan, 0, 4, "node01", {0, 1, 2, 3}, true, available);
    FAIL() << "64 GiB accepted in 20 GiB";
  } catch (const UsageError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "all_reduce at 8589934592 B (double, -n 20) needs 17179870144 B of memory per rank (68719478176 B for the "
        "4 ranks on node01), more than the 21474836480 B available there (MemAvailable); lower -e, -n, --max-iters "
        "or -W, or run fewer ranks per node");
  }
  // One rank of the four per node fits.
  EXPECT_NO_THROW(require_memory_for(plan, 0, 4, "node01", {0}, true, available));
}

// `-n 2000000000`: 16 GB of times on every rank before a single byte is sent.
TEST(MemoryBudget, IterationArraysAreCounted) {
  const auto plan = one_case("all_reduce", 8, 2, DataType::float32, 2000000000);
  EXPECT_THROW(require_memory_for(plan, 0, 2, "node01", {0, 1}, true, {20ull << 30, "MemAvailable"}), UsageError);
  EXPECT_NO_THROW(require_memory_for(one_case("all_reduce", 8, 2, DataType::float32, 1000), 0, 2, "node01", {0, 1},
                                     true, {20ull << 30, "MemAvailable"}));
}

// `bw -W 1000000000`: two billion requests in flight, which woke the OOM killer after 41 s.
TEST(MemoryBudget, TheWindowOfBwIsCounted) {
  auto plan = one_case("bw", 8, 8, DataType::int8, 20);
  plan[0].cases_by_size[0][0].window = 1000000000;
  const AvailableMemory available{20ull << 30, "MemAvailable"};
  try {
    require_memory_for(plan, 0, 2, "node01", {0, 1}, true, available);
    FAIL() << "a window of a billion messages accepted in 20 GiB";
  } catch (const UsageError& e) {
    EXPECT_THAT(std::string(e.what()), ::testing::StartsWith("bw at 8 B (int8, -n 20, -W 1000000000) needs 2048000"));
  }
  plan[0].cases_by_size[0][0].window = 64;
  EXPECT_NO_THROW(require_memory_for(plan, 0, 2, "node01", {0, 1}, true, available));
}

// `-n auto --max-iters 2000000000`: the times of the most iterations a size may run are counted.
TEST(MemoryBudget, MaxItersUnderAutoIsCounted) {
  auto plan = one_case("all_reduce", 8, 2, DataType::float32, 5);
  plan[0].cases_by_size[0][0].max_iterations = 2000000000;
  try {
    require_memory_for(plan, 1, 2, "node01", {0, 1}, true, {20ull << 30, "MemAvailable"});
    FAIL() << "two billion iterations' times accepted in 20 GiB";
  } catch (const UsageError& e) {
    EXPECT_THAT(std::string(e.what()),
                ::testing::StartsWith("all_reduce at 8 B (float, --max-iters 2000000000) needs"));
  }
}

TEST(MemoryBudget, ALinearSweepOfABillionSizesIsRefusedBeforeItIsBuilt) {
  SweepSpec sweep;
  sweep.min_bytes = 4;
  sweep.max_bytes = 4ull << 30;
  sweep.step_bytes = 4;
  const AvailableMemory available{64ull << 30, "MemAvailable"};
  try {
    require_memory_for_sizes(sweep, 2, available);
    ADD_FAILURE() << "a billion sizes fit in 64 GiB";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("-b 4 to -e 4294967296 in steps of -i 4 makes 1073741824 sizes"));
    EXPECT_THAT(e.what(), HasSubstr(fmt::format("need {} B of memory per rank", size_list_bytes(1ull << 30, 2))));
    EXPECT_THAT(e.what(), HasSubstr("raise -i"));
  }
  // Each size costs at least a case and a results row per placement.
  EXPECT_GE(size_list_bytes(1, 2), 2 * (sizeof(BenchmarkCase) + sizeof(ResultRow)));
  // The default sweep and a thousand-size -i sweep fit; with memory unknown nothing is refused.
  SweepSpec small;
  EXPECT_NO_THROW(require_memory_for_sizes(small, 2, available));
  sweep.step_bytes = 4ull << 20;
  EXPECT_NO_THROW(require_memory_for_sizes(sweep, 2, available));
  sweep.step_bytes = 4;
  EXPECT_NO_THROW(require_memory_for_sizes(sweep, 2, std::nullopt));
}

}  // namespace
}  // namespace fb
