// RDMA port counters on sysfs trees the tests build: what a sample reads, how two samples differ,
// what the doctor flags, and how the changes survive the results file.

#include "doctor/checks.hpp"
#include "doctor/port_counters.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"
#include "sysfs_tree.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb::doctor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using fb::testing::HostSpec;
using fb::testing::IbPortFiles;
using fb::testing::SysfsTree;
using fb::testing::TempDir;

class PortCounters : public ::testing::Test {
 protected:
  void SetUp() override { fb::testing::build_host(tree_, spec_); }

  // Rewrites one counter file of mlx5_PAIR's port 1, as the kernel's next read would show it.
  void set_counter(int pair, const std::string& group, const std::string& name, const std::string& value) {
    tree_.write_file(fmt::format("/sys/class/infiniband/mlx5_{}/ports/1/{}/{}", pair, group, name), value + "\n");
  }

  TempDir dir_;
  SysfsTree tree_{dir_.path()};
  HostSpec spec_ = fb::testing::healthy_host_spec();
};

TEST_F(PortCounters, SampleReadsStateRateAndBothCounterDirectoriesOfEveryPort) {
  const std::vector<PortCounterSample> samples = sample_port_counters(tree_.root());
  ASSERT_EQ(samples.size(), 8u);
  EXPECT_EQ(samples[3].port, "mlx5_3/1");
  EXPECT_EQ(samples[3].state, "ACTIVE");
  EXPECT_EQ(samples[3].rate, "400 Gb/sec (4X NDR)");
  // 15 files in counters/, 7 in hw_counters/.
  EXPECT_EQ(samples[3].counters.size(), 22u);
  EXPECT_EQ(samples[3].counters.at("port_rcv_data"), 1822390412u);
  EXPECT_EQ(samples[3].counters.at("port_xmit_wait"), 12u);
  EXPECT_EQ(samples[3].counters.at("out_of_sequence"), 0u);
}

TEST_F(PortCounters, ACounterTheDriverRefusesIsAbsentNotZero) {
  set_counter(0, "counters", "symbol_error", "N/A");
  const std::vector<PortCounterSample> samples = sample_port_counters(tree_.root());
  EXPECT_FALSE(samples[0].counters.contains("symbol_error"));
  EXPECT_EQ(samples[0].counters.size(), 21u);
}

TEST_F(PortCounters, PortsOfADeviceAreInNumericOrder) {
  TempDir dir;
  SysfsTree tree(dir.path());
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.nics.resize(1);
  fb::testing::build_host(tree, spec);
  tree.add_rdma_device("mlx5_bond", fb::testing::nic_address(0), std::vector<IbPortFiles>(10));
  std::vector<std::string> ports;
  for (const PortCounterSample& sample : sample_port_counters(tree.root())) ports.push_back(sample.port);
  EXPECT_THAT(ports, ElementsAre("mlx5_0/1", "mlx5_bond/1", "mlx5_bond/2", "mlx5_bond/3", "mlx5_bond/4", "mlx5_bond/5",
                                 "mlx5_bond/6", "mlx5_bond/7", "mlx5_bond/8", "mlx5_bond/9", "mlx5_bond/10"));
}

TEST_F(PortCounters, ChangesKeepEveryErrorCounterAndWhatGrewAndFlagOnlyThePortWithErrors) {
  const std::vector<PortCounterSample> before = sample_port_counters(tree_.root());
  set_counter(5, "counters", "symbol_error", "37");
  set_counter(5, "counters", "link_error_recovery", "2");
  set_counter(5, "counters", "port_xmit_data", "1822398016");
  set_counter(2, "counters", "port_xmit_wait", "5012");
  set_counter(2, "hw_counters", "out_of_buffer", "3");
  const std::vector<PortCounterChange> changes =
      port_counter_changes("node7", before, sample_port_counters(tree_.root()));
  ASSERT_EQ(changes.size(), 8u);

  const PortCounterChange& bad = changes[5];
  EXPECT_EQ(bad.host, "node7");
  EXPECT_EQ(bad.port, "mlx5_5/1");
  EXPECT_TRUE(bad.degraded());
  EXPECT_THAT(bad.grown_errors(), ElementsAre("link_error_recovery +2", "symbol_error +37"));
  // The 12 error counters and port_xmit_wait always; data counters only when they moved.
  EXPECT_EQ(bad.deltas.size(), 14u);
  EXPECT_EQ(bad.deltas.at("port_xmit_data"), 10000u);
  EXPECT_EQ(bad.deltas.at("link_downed"), 0u);
  EXPECT_FALSE(bad.deltas.contains("port_rcv_packets"));
  EXPECT_EQ(describe_port_change(bad), "node7 mlx5_5/1: link_error_recovery +2, symbol_error +37");

  // Congestion and receive-queue drops are reported, but no link error.
  const PortCounterChange& congested = changes[2];
  EXPECT_FALSE(congested.degraded());
  EXPECT_EQ(congested.deltas.at("port_xmit_wait"), 5000u);
  EXPECT_EQ(congested.deltas.at("out_of_buffer"), 3u);
  EXPECT_EQ(describe_port_change(congested), "node7 mlx5_2/1: port_xmit_wait +5000");
  for (int healthy : {0, 1, 3, 4, 6, 7}) EXPECT_FALSE(changes[static_cast<std::size_t>(healthy)].degraded()) << healthy;
}

TEST_F(PortCounters, APortThatWentDownOrChangedRateIsDegradedWithoutAnyCounter) {
  const std::vector<PortCounterSample> before = sample_port_counters(tree_.root());
  tree_.write_file("/sys/class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
  tree_.write_file("/sys/class/infiniband/mlx5_4/ports/1/rate", "100 Gb/sec (1X NDR)\n");
  const std::vector<PortCounterChange> changes = port_counter_changes("n", before, sample_port_counters(tree_.root()));
  EXPECT_TRUE(changes[1].degraded());
  EXPECT_EQ(describe_port_change(changes[1]), "n mlx5_1/1: state ACTIVE -> DOWN");
  EXPECT_TRUE(changes[4].degraded());
  EXPECT_EQ(describe_port_change(changes[4]), "n mlx5_4/1: rate 400 Gb/sec (4X NDR) -> 100 Gb/sec (1X NDR)");
}

TEST_F(PortCounters, ACounterClearedDuringTheRunHasNoDeltaAndIsNamed) {
  set_counter(0, "counters", "symbol_error", "900");
  const std::vector<PortCounterSample> before = sample_port_counters(tree_.root());
  set_counter(0, "counters", "symbol_error", "4");
  const PortCounterChange change = port_counter_changes("n", before, sample_port_counters(tree_.root()))[0];
  EXPECT_FALSE(change.deltas.contains("symbol_error"));
  EXPECT_THAT(change.counters_reset, ElementsAre("symbol_error"));
  EXPECT_EQ(describe_port_change(change), "n mlx5_0/1: cleared during the run: symbol_error");
}

TEST_F(PortCounters, APortThatVanishedIsAbsentAfterAndDegraded) {
  std::vector<PortCounterSample> after = sample_port_counters(tree_.root());
  const std::vector<PortCounterSample> before = after;
  after.erase(after.begin() + 6);
  const PortCounterChange change = port_counter_changes("n", before, after)[6];
  EXPECT_EQ(change.port, "mlx5_6/1");
  EXPECT_EQ(change.state_after, "absent");
  EXPECT_THAT(change.deltas, IsEmpty());
  EXPECT_TRUE(change.degraded());
}

TEST_F(PortCounters, ChangesSurviveTheJsonResultsFileAndTheCsvNamesTheDegradedPort) {
  const std::vector<PortCounterSample> before = sample_port_counters(tree_.root());
  set_counter(3, "counters", "symbol_error", "120");
  ResultSet results;
  results.provenance.run_id = "r1";
  results.port_counters = port_counter_changes("node3", before, sample_port_counters(tree_.root()));
  results.port_counters[3].repetition = 2;  // a soak run's reading
  const ResultSet read = parse_results_json(results_to_json(results), "r1.json");
  EXPECT_EQ(read.port_counters, results.port_counters);
  EXPECT_FALSE(read.port_counters[2].repetition);
  EXPECT_EQ(read.port_counters[3].deltas.at("symbol_error"), 120u);
  const std::string csv = results_to_csv(results);
  EXPECT_THAT(csv,
              HasSubstr("# port degraded: node3 mlx5_3/1: symbol_error +120 (repetition 3), the rows' repetition 2\n"));
  EXPECT_EQ(csv.find("mlx5_2/1"), std::string::npos);
}

TEST(PortCounterJson, ANegativeDeltaIsRejectedNamingTheEntry) {
  ResultSet results;
  results.port_counters.push_back(
      {"h", "mlx5_0/1", "ACTIVE", "ACTIVE", "", "", {{"symbol_error", 3}}, {}, std::nullopt});
  std::string text = results_to_json(results);
  const std::string written = "\"symbol_error\": 3";
  ASSERT_NE(text.find(written), std::string::npos) << text;
  text.replace(text.find(written), written.size(), "\"symbol_error\": -3");
  try {
    parse_results_json(text, "bad.json");
    FAIL() << "accepted a negative delta";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.json: port_counters[0]: deltas.symbol_error is not a whole number >= 0"));
  }
}

// The doctor: counts since the last clear are a warning, growth while it watched an error.
HostInventory inventory_of(const SysfsTree& tree) {
  HostInventory inventory = collect_host_inventory(tree.root());
  inventory.host = "node0";
  return inventory;
}

TEST_F(PortCounters, DoctorWarnsOfErrorCountsSinceTheLastClear) {
  set_counter(6, "counters", "symbol_error", "4410");
  set_counter(6, "counters", "link_downed", "3");
  const std::vector<Flag> findings = check_host(inventory_of(tree_));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].subject, "port mlx5_6/1 (" + fb::testing::nic_address(6) + ")");
  EXPECT_THAT(findings[0].message,
              HasSubstr("error counters since they were last cleared: link_downed 3, symbol_error 4410"));
}

TEST_F(PortCounters, DoctorFailsAPortWhoseErrorsGrewWhileItWatched) {
  set_counter(6, "counters", "symbol_error", "4410");
  HostInventory inventory = inventory_of(tree_);
  set_counter(6, "counters", "symbol_error", "4461");
  set_counter(6, "counters", "port_xmit_wait", "99999");
  record_port_counter_growth(inventory, tree_.root(), 5);
  EXPECT_THAT(inventory.ib_ports[6].errors_grown, ElementsAre(Pair("symbol_error", 51u)));
  EXPECT_THAT(inventory.ib_ports[0].errors_grown, IsEmpty());
  const std::vector<Flag> findings = check_host(inventory);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_EQ(findings[0].message, "error counters grew within 5 s: symbol_error +51");
}

TEST_F(PortCounters, DoctorSaysNoneGrewWhenItWatchedAndTheCountStood) {
  set_counter(1, "hw_counters", "local_ack_timeout_err", "17");
  HostInventory inventory = inventory_of(tree_);
  record_port_counter_growth(inventory, tree_.root(), 2);
  const std::vector<Flag> findings = check_host(inventory);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_THAT(findings[0].message, HasSubstr("local_ack_timeout_err 17 (none grew within 2 s)"));
}

}  // namespace
}  // namespace fb::doctor
