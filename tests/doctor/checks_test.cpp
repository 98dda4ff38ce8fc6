// The doctor's flags on hosts built with one thing wrong, and across hosts with one odd host.

#include "doctor/checks.hpp"
#include "support/temp_dir.hpp"
#include "sysfs_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

namespace fb::doctor {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using fb::testing::HostSpec;
using fb::testing::SysfsTree;
using fb::testing::TempDir;

HostInventory inventory_of(const HostSpec& spec, const std::string& host = "node0") {
  TempDir dir;
  SysfsTree tree(dir.path());
  fb::testing::build_host(tree, spec);
  HostInventory inventory = collect_host_inventory(tree.root());
  inventory.host = host;
  return inventory;
}

std::string describe(const std::vector<Flag>& findings) {
  std::string text;
  for (const Flag& f : findings)
    text += std::string(name_of(f.severity)) + " | " + f.host + " | " + f.subject + " | " + f.message + "\n";
  return text;
}

TEST(HostChecks, HealthyHostRaisesNothing) {
  const std::vector<Flag> findings = check_host(inventory_of(fb::testing::healthy_host_spec()));
  EXPECT_THAT(findings, IsEmpty()) << describe(findings);
}

TEST(HostChecks, NicTrainedAtX8InsteadOfX16IsAnErrorNamingTheNicAndItsAddress) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.nics[2].link->current_width_lanes = 8;
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_THAT(findings[0].subject, AllOf(HasSubstr("mlx5_2"), HasSubstr(fb::testing::nic_address(2))));
  EXPECT_THAT(findings[0].message, AllOf(HasSubstr("x8 32 GT/s"), HasSubstr("capable of x16 32 GT/s")));
  EXPECT_TRUE(has_errors(findings));
}

TEST(HostChecks, NicBelowItsMaximumSpeedIsAnError) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.nics[0].link->current_speed = "16.0 GT/s PCIe";
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_THAT(findings[0].message, HasSubstr("x16 16 GT/s, capable of x16 32 GT/s"));
}

TEST(HostChecks, IdleGpuBelowItsMaximumSpeedIsOnlyAWarning) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.gpus[7].link->current_speed = "2.5 GT/s PCIe";
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].subject, "GPU " + fb::testing::gpu_address(7));
  EXPECT_FALSE(has_errors(findings));
}

TEST(HostChecks, PortDownIsAnErrorNamingThePort) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.ports[6] = {"1: DOWN", "2: Polling", "10 Gb/sec (4X SDR)", "InfiniBand"};
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_THAT(findings[0].subject, HasSubstr("mlx5_6/1"));
  EXPECT_THAT(findings[0].message, AllOf(HasSubstr("DOWN"), HasSubstr("Polling")));
}

TEST(HostChecks, GpuOnANumaNodeWithoutNicIsFlagged) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.gpus[1].numa_node = 2;
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].subject, "GPU " + fb::testing::gpu_address(1));
  EXPECT_THAT(findings[0].message, AllOf(HasSubstr("NUMA node 2"), HasSubstr("nodes 0, 1")));
}

TEST(HostChecks, AcsRedirectOnABridgeAboveAGpuIsAnError) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.switch_acs[4] = 0x001d;
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_EQ(findings[0].subject, "bridge " + fb::testing::gpu_switch_port_address(4));
  EXPECT_THAT(findings[0].message,
              AllOf(HasSubstr("SV RR CR UF"), HasSubstr("0x001d"), HasSubstr("GPU " + fb::testing::gpu_address(4))));
}

TEST(HostChecks, NoGpuDirectRdmaWithGpusAndRdmaNicsIsAWarning) {
  HostSpec spec = fb::testing::healthy_host_spec();
  spec.nvidia_peermem_loaded = false;
  const std::vector<Flag> findings = check_host(inventory_of(spec));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].subject, "GPUDirect RDMA");
}

TEST(HostChecks, HostWithoutGpusOrNicsSaysSoAndPasses) {
  HostInventory empty;
  empty.host = "bare";
  const std::vector<Flag> findings = check_host(empty);
  ASSERT_EQ(findings.size(), 2u) << describe(findings);
  EXPECT_THAT(findings[0], AllOf(Field(&Flag::severity, Severity::info), Field(&Flag::subject, "GPUs")));
  EXPECT_THAT(findings[1], AllOf(Field(&Flag::severity, Severity::info), Field(&Flag::subject, "NICs")));
  EXPECT_FALSE(has_errors(findings));
}

class FourHosts : public ::testing::Test {
 protected:
  std::vector<HostInventory> hosts_with_odd_node2(const HostSpec& odd) {
    std::vector<HostInventory> hosts;
    for (int i = 0; i < 4; ++i)
      hosts.push_back(inventory_of(i == 2 ? odd : fb::testing::healthy_host_spec(), "node" + std::to_string(i)));
    return hosts;
  }
};

TEST_F(FourHosts, IdenticalHostsRaiseNothing) {
  const std::vector<HostInventory> hosts = hosts_with_odd_node2(fb::testing::healthy_host_spec());
  EXPECT_THAT(compare_hosts(hosts), IsEmpty());
}

TEST_F(FourHosts, HostWithAnotherNcclVersionIsNamed) {
  HostSpec odd = fb::testing::healthy_host_spec();
  odd.nccl_version = "2.19.3";
  const std::vector<Flag> findings = compare_hosts(hosts_with_odd_node2(odd));
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_EQ(findings[0].host, "node2");
  EXPECT_EQ(findings[0].subject, "NCCL");
  EXPECT_THAT(findings[0].message, AllOf(HasSubstr("2.19.3 here"), HasSubstr("2.21.5 on 3 of 4 hosts")));
}

TEST_F(FourHosts, HostWithAPortDownDiffersInLinkStateAndOnlyItIsFlagged) {
  HostSpec odd = fb::testing::healthy_host_spec();
  odd.ports[0] = {"1: DOWN", "3: Disabled", "10 Gb/sec (4X SDR)", "InfiniBand"};
  const std::vector<HostInventory> hosts = hosts_with_odd_node2(odd);
  const std::vector<Flag> cross_host = compare_hosts(hosts);
  ASSERT_EQ(cross_host.size(), 1u) << describe(cross_host);
  EXPECT_EQ(cross_host[0].host, "node2");
  EXPECT_EQ(cross_host[0].subject, "IB ports");
  // The host's own check names the port as well.
  const std::vector<Flag> all = check_hosts(hosts);
  EXPECT_EQ(all.size(), 2u) << describe(all);
  EXPECT_TRUE(has_errors(all));
}

TEST_F(FourHosts, HostWithAGpuMissingDiffersInGpuCount) {
  HostSpec odd = fb::testing::healthy_host_spec();
  odd.gpus.pop_back();
  const std::vector<Flag> findings = compare_hosts(hosts_with_odd_node2(odd));
  EXPECT_THAT(findings, Contains(AllOf(Field(&Flag::host, "node2"), Field(&Flag::subject, "GPU count"),
                                       Field(&Flag::message, HasSubstr("7 here, 8 on 3 of 4 hosts")))))
      << describe(findings);
  for (const Flag& finding : findings) EXPECT_EQ(finding.host, "node2") << describe(findings);
}

TEST(HostComparison, TwoHostsThatDisagreeHaveNoMajorityAndBothAreListed) {
  HostSpec other = fb::testing::healthy_host_spec();
  other.driver_version = "535.129.03";
  const std::vector<HostInventory> hosts{inventory_of(fb::testing::healthy_host_spec(), "a"), inventory_of(other, "b")};
  const std::vector<Flag> findings = compare_hosts(hosts);
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].host, "");
  EXPECT_EQ(findings[0].subject, "NVIDIA driver");
  EXPECT_THAT(findings[0].message, AllOf(HasSubstr("535.129.03 on b"), HasSubstr("550.54.15 on a")));
}

}  // namespace
}  // namespace fb::doctor
