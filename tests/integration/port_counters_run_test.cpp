// `fabricbench run` reading the RDMA port counters of a prepared sysfs tree before and after it
// measures, under the real mpirun: the changes land in the results, and a counter that grows
// while the run measures flags its port.

#include "fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"
#include "sysfs_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::allow_root;
using testing::describe;
using testing::under_mpirun;

class PortCountersRun : public ::testing::Test {
 protected:
  void SetUp() override { testing::build_host(tree_, testing::healthy_host_spec()); }

  std::vector<std::string> run_args(const std::string& max_bytes) const {
    return {"run",          "latency",
            "-b",           "8",
            "-e",           max_bytes,
            "-n",           "200",
            "--sysfs-root", tree_.root().string(),
            "--csv",        csv_.string(),
            "--json",       json_.string()};
  }

  testing::TempDir dir_;
  testing::SysfsTree tree_{dir_.path() / "host"};
  std::filesystem::path csv_ = dir_.path() / "run.csv";
  std::filesystem::path json_ = dir_.path() / "run.json";
};

TEST_F(PortCountersRun, AQuietRunRecordsEveryPortOnceWithZeroErrorGrowth) {
  const testing::ProcessResult result =
      testing::run_process(under_mpirun(2, FABRICBENCH_BINARY, run_args("64")), allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_json(json_);
  // Two ranks on one host: its ports are read once, not once per rank.
  ASSERT_EQ(results.port_counters.size(), 8u);
  for (const PortCounterChange& change : results.port_counters) {
    EXPECT_EQ(change.host, results.provenance.rank_hosts.at(0));
    EXPECT_FALSE(change.degraded()) << describe_port_change(change);
    EXPECT_EQ(change.deltas.at("symbol_error"), 0u);
    EXPECT_EQ(change.deltas.at("local_ack_timeout_err"), 0u);
  }
  EXPECT_EQ(results.port_counters[7].port, "mlx5_7/1");
  EXPECT_THAT(result.out, HasSubstr("# port counters: 8 RDMA ports on 1 host read before and after; 0 degraded\n"));
  // The port counters as the results schema publishes them.
  const testing::ProcessResult valid =
      testing::validate_against_schema(json_, FABRICBENCH_SCHEMAS_DIR "/results.schema.json");
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
}

TEST_F(PortCountersRun, SymbolErrorsThatGrowWhileItMeasuresFlagThatPortOnly) {
  testing::ChildProcess run(under_mpirun(2, FABRICBENCH_BINARY, run_args("16M")), allow_root);
  // The first row on disk: the counters were read before it, the last sizes are still to run.
  ASSERT_TRUE(testing::wait_for_rows(csv_, 1, std::chrono::seconds(120)))
      << describe(run.wait(std::chrono::seconds(0)));
  tree_.write_file("/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error", "250\n");
  const testing::ProcessResult result = run.wait(std::chrono::seconds(240));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_json(json_);
  ASSERT_EQ(results.rows.size(), 22u) << "the counter changed after the run had ended; the sweep is too short";
  ASSERT_EQ(results.port_counters.size(), 8u);
  std::vector<std::string> degraded;
  for (const PortCounterChange& change : results.port_counters)
    if (change.degraded()) degraded.push_back(describe_port_change(change));
  const std::string host = results.provenance.rank_hosts.at(0);
  EXPECT_EQ(degraded, std::vector<std::string>{host + " mlx5_3/1: symbol_error +250"});
  EXPECT_THAT(result.out, HasSubstr("# port degraded: " + host + " mlx5_3/1: symbol_error +250\n"));
  EXPECT_THAT(result.out, HasSubstr("; 1 degraded\n"));
  EXPECT_THAT(testing::lines_of(read_text_file(csv_)),
              Contains("# port degraded: " + host + " mlx5_3/1: symbol_error +250"));
}

// A soak run reads the counters around every repetition: the errors belong to the repetition
// they grew in, and the other repetitions of the port stay clean.
TEST_F(PortCountersRun, ASoakRunTiesErrorsToTheRepetitionTheyGrewIn) {
  std::vector<std::string> args = run_args("16M");
  args.insert(args.end(), {"--repeat", "3"});
  testing::ChildProcess run(under_mpirun(2, FABRICBENCH_BINARY, args), allow_root);
  // The first row of the second repetition on disk: 22 sizes per sweep.
  ASSERT_TRUE(testing::wait_for_rows(csv_, 23, std::chrono::seconds(180)))
      << describe(run.wait(std::chrono::seconds(0)));
  tree_.write_file("/sys/class/infiniband/mlx5_3/ports/1/counters/symbol_error", "250\n");
  const testing::ProcessResult result = run.wait(std::chrono::seconds(300));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const ResultSet results = read_results_json(json_);
  ASSERT_EQ(results.rows.size(), 66u);
  ASSERT_EQ(results.port_counters.size(), 3u * 8u);  // every port, once per repetition
  std::vector<std::string> degraded;
  for (const PortCounterChange& change : results.port_counters) {
    ASSERT_TRUE(change.repetition) << describe_port_change(change);
    if (change.degraded()) degraded.push_back(describe_port_change(change));
  }
  const std::string host = results.provenance.rank_hosts.at(0);
  EXPECT_EQ(degraded, std::vector<std::string>{host + " mlx5_3/1: symbol_error +250 (repetition 2)"})
      << "the counter must have changed during the second sweep";
  EXPECT_THAT(result.out, HasSubstr("read at the start and end of repetition 3; 0 degraded\n"));
}

}  // namespace
}  // namespace fb
