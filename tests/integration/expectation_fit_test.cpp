// `run --topology` and `fit` end to end: a real point-to-point sweep under the real mpirun on this
// machine, judged against a topology spec of this machine, then fitted.

#include "fabricbench_runs.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::allow_root;
using testing::describe;
using testing::directly;
using testing::lines_of;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;
using testing::under_mpirun;

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) throw std::runtime_error("gethostname failed");
  return name;
}

// This host by the name MPI reports for it. The model's only path between two host-memory ranks
// of one host is the link between its CPU sockets, and the ranks are dealt to the sockets in
// turn; the spec gives the host two, so that ranks 0 and 1 have a path whatever this machine has.
void write_spec(const std::filesystem::path& path) {
  std::ofstream(path) << "name: this-host\nnode:\n  hosts: \"" << this_host()
                      << "\"\n  cpus: 2\n  gpus: 0\n  pcie: {generation: 4, width: 16, switches: 0}\n"
                         "  nics: {count: 1, type: ethernet, rate_gbps: 10}\n";
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; in >> field;) fields.push_back(field);
  return fields;
}

// The fit's table line of `op`: op points sizes alpha_us +- 1/b_GB/s R^2 model... link class.
std::vector<std::string> fit_line(const std::string& out, const std::string& op) {
  for (const std::string& line : lines_of(out))
    if (const auto fields = fields_of(line); !fields.empty() && fields[0] == op) return fields;
  return {};
}

TEST(ExpectationAndFit, PointToPointSweepCarriesTheModelAndFitsAlphaAndBeta) {
  const TempDir dir;
  write_spec(dir / "host.yaml");
  const ProcessResult run = run_process(
      under_mpirun(2, FABRICBENCH_BINARY,
                   {"run", "latency", "bw", "-e", "256K", "-n", "10", "-w", "2", "-W", "8", "--topology",
                    dir / "host.yaml", "--csv", dir / "r.csv", "--json", dir / "r.json"}),
      allow_root);
  ASSERT_EQ(run.exit_code, 0) << describe(run);
  EXPECT_THAT(run.out, HasSubstr("%exp"));
  EXPECT_THAT(run.err, ::testing::Not(HasSubstr("warning"))) << describe(run);

  const ResultSet from_csv = read_results_csv(dir / "r.csv");
  const ResultSet results = read_results_json(dir / "r.json");
  EXPECT_EQ(from_csv.rows, results.rows);
  ASSERT_EQ(results.rows.size(), 2u * 16);  // 8 B to 256K, two ops
  for (const ResultRow& row : results.rows) {
    SCOPED_TRACE(row.op + " " + std::to_string(row.bytes));
    ASSERT_TRUE(row.efficiency_pct);
    if (row.op == "latency") {
      ASSERT_TRUE(row.expected_time_us);
      EXPECT_FALSE(row.expected_busbw_gbps);
      EXPECT_NEAR(*row.efficiency_pct, 100 * *row.expected_time_us / row.time_median_us, 1e-9 * *row.efficiency_pct);
    } else {
      ASSERT_TRUE(row.expected_busbw_gbps);
      EXPECT_NEAR(*row.efficiency_pct, 100 * *row.busbw_gbps / *row.expected_busbw_gbps, 1e-9 * *row.efficiency_pct);
    }
  }

  const ProcessResult fit = run_process(directly({"fit", dir / "r.json", "--topology", dir / "host.yaml"}));
  ASSERT_EQ(fit.exit_code, 0) << describe(fit);
  const std::vector<std::string> latency = fit_line(fit.out, "latency");
  ASSERT_GE(latency.size(), 12u) << fit.out;
  EXPECT_EQ(latency[1], "16");  // points
  EXPECT_GT(std::stod(latency[3]), 0) << "alpha_us\n" << fit.out;
  EXPECT_GT(std::stod(latency[5]), 0) << "1/beta GB/s\n" << fit.out;
  EXPECT_LE(std::stod(latency[6]), 1.0) << "R^2\n" << fit.out;
  EXPECT_THAT(fit.out, HasSubstr("R^2"));
  EXPECT_THAT(latency.back(), HasSubstr("GB/s)"));  // the class is the route's bottleneck link
  EXPECT_NE(latency[7], "-") << "the model's alpha for the class\n" << fit.out;
  EXPECT_GE(fit_line(fit.out, "bw").size(), 12u) << fit.out;

  // Without a topology the classes are intra- and inter-node.
  const ProcessResult plain = run_process(directly({"fit", dir / "r.csv"}));
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_EQ(fit_line(plain.out, "latency").back(), "intra-node") << plain.out;
}

TEST(ExpectationAndFit, FitWithoutPointToPointRowsIsAOneLineUsageError) {
  const TempDir dir;
  ResultSet results;
  ResultRow row;
  row.backend = "mpi";
  row.op = "all_reduce";
  row.bytes = 1024;
  row.time_median_us = 10;
  results.rows.push_back(row);
  write_file_atomically(dir / "c.json", results_to_json(results));
  const ProcessResult fit = run_process(directly({"fit", dir / "c.json"}));
  EXPECT_EQ(fit.exit_code, 2) << describe(fit);
  ASSERT_EQ(lines_of(fit.err).size(), 1u) << describe(fit);
  EXPECT_THAT(fit.err, HasSubstr("no point-to-point rows"));

  row.op = "latency";
  row.src_host = row.dst_host = "h";
  results.rows = {row, row};
  write_file_atomically(dir / "one-size.json", results_to_json(results));
  const ProcessResult one_size = run_process(directly({"fit", dir / "one-size.json"}));
  EXPECT_EQ(one_size.exit_code, 2) << describe(one_size);
  ASSERT_EQ(lines_of(one_size.err).size(), 1u) << describe(one_size);
  EXPECT_THAT(one_size.err, HasSubstr("1 distinct size"));
}

}  // namespace
}  // namespace fb
