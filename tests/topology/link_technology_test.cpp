#include "topology/link_technology.hpp"

#include <gtest/gtest.h>

namespace fb::topo {
namespace {

TEST(LinkTechnology, Nv18IsEighteenNvlink4LinksAt25GBps) {
  const auto spec = nvlink_by_generation(4, 18);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->type, LinkType::nvlink);
  EXPECT_EQ(spec->lane_count, 18);
  EXPECT_DOUBLE_EQ(spec->capacity_gbps, 450.0);
}

TEST(LinkTechnology, NcclPerNvlinkConstantForSm90) {
  EXPECT_DOUBLE_EQ(nvlink_by_sm(90, 18)->capacity_gbps, 18 * 20.6);
  EXPECT_FALSE(nvlink_by_sm(42, 1));
}

TEST(LinkTechnology, PcieFollowsNcclWidthTimesCodeOver80) {
  EXPECT_DOUBLE_EQ(pcie_by_generation(3, 16)->capacity_gbps, 12.0);
  EXPECT_DOUBLE_EQ(pcie_by_generation(4, 16)->capacity_gbps, 24.0);
  EXPECT_DOUBLE_EQ(pcie_by_generation(5, 16)->capacity_gbps, 48.0);
  EXPECT_DOUBLE_EQ(pcie_by_generation(5, 8)->capacity_gbps, 24.0);
  EXPECT_EQ(pcie_generation_from_gts(32.0), 5);
  EXPECT_EQ(pcie_generation_from_gts(16.0), 4);
  EXPECT_FALSE(pcie_generation_from_gts(7.0));
  EXPECT_FALSE(pcie_by_generation(5, 0));
}

TEST(LinkTechnology, InfinibandWidthTimesLaneRate) {
  EXPECT_DOUBLE_EQ(infiniband_by_name("4xNDR")->capacity_gbps, 50.0);
  EXPECT_DOUBLE_EQ(infiniband_by_name("4xHDR")->capacity_gbps, 25.0);
  EXPECT_DOUBLE_EQ(infiniband_by_name("2xNDR")->capacity_gbps, 25.0);
  EXPECT_EQ(infiniband_by_name("4xNDR")->lane_count, 4);
  EXPECT_FALSE(infiniband_by_name("4xWARP"));
  EXPECT_FALSE(infiniband_by_name("3xNDR"));
  EXPECT_FALSE(infiniband_by_name("NDR"));
}

TEST(LinkTechnology, NetworkRateInMbpsOver8000) {
  EXPECT_DOUBLE_EQ(network_by_rate(LinkType::infiniband, 400000)->capacity_gbps, 50.0);
  EXPECT_DOUBLE_EQ(network_by_rate(LinkType::ethernet, 10000)->capacity_gbps, 1.25);
  EXPECT_FALSE(network_by_rate(LinkType::pcie, 10000));
  EXPECT_FALSE(network_by_rate(LinkType::roce, -5));
}

TEST(LinkTechnology, SmpByCpuModel) {
  EXPECT_DOUBLE_EQ(smp_link("GenuineIntel", 0xcf).capacity_gbps, 40.0);
  EXPECT_DOUBLE_EQ(smp_link("AuthenticAMD", 0).capacity_gbps, 16.0);
  EXPECT_EQ(smp_link("GenuineIntel", 0x55).type, LinkType::smp);
}

}  // namespace
}  // namespace fb::topo
