#include "topology/link_technology.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace fb::topo {
namespace {

TEST(LinkTechnology, Nv18IsEighteenNvlink4LinksAtNcclsEffectiveRate) {
  const auto spec = nvlink_by_generation(4, 18);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->type, LinkType::nvlink);
  EXPECT_EQ(spec->lane_count, 18);
  EXPECT_DOUBLE_EQ(spec->capacity_gbps, 18 * 20.6);
  EXPECT_DOUBLE_EQ(spec->datasheet_gbps, 450.0);
}

TEST(LinkTechnology, NcclXmlAndTopoMNameTheSameNvlinkRow) {
  // An H100 node is 370.8 GB/s per GPU whichever input describes it.
  for (const auto& [sm, generation] : {std::pair{70, 2}, {80, 3}, {90, 4}, {100, 5}}) {
    const auto by_sm = nvlink_by_sm(sm, 18);
    const auto by_generation = nvlink_by_generation(generation, 18);
    ASSERT_TRUE(by_sm && by_generation) << sm;
    EXPECT_EQ(by_sm->technology, by_generation->technology);
    EXPECT_DOUBLE_EQ(by_sm->capacity_gbps, by_generation->capacity_gbps);
    EXPECT_EQ(compute_capability_of(by_sm->technology), sm);
  }
  EXPECT_DOUBLE_EQ(nvlink_by_sm(100, 18)->capacity_gbps, 18 * 40.1);
  EXPECT_DOUBLE_EQ(nvlink_by_generation(3, 12)->capacity_gbps, 12 * 20.0);
  EXPECT_DOUBLE_EQ(nvlink_by_generation(3, 12)->datasheet_gbps, 12 * 25.0);
  EXPECT_FALSE(nvlink_by_sm(42, 1));
  EXPECT_FALSE(compute_capability_of("PCIe Gen5"));
}

TEST(LinkTechnology, NetworkTransportsCarryTheirCollectiveEfficiency) {
  EXPECT_DOUBLE_EQ(collective_efficiency(*infiniband_by_name("4xNDR")), 0.95);
  EXPECT_DOUBLE_EQ(collective_efficiency(*network_by_rate(LinkType::roce, 400000)), 0.92);
  EXPECT_DOUBLE_EQ(collective_efficiency(*network_by_rate(LinkType::efa, 100000)), 0.89);
  EXPECT_DOUBLE_EQ(collective_efficiency(*nvlink_by_generation(4, 1)), 1.0);
  EXPECT_EQ(link_type_from_string("EFA"), LinkType::efa);
  // PCIe: NCCL's rate against the datasheet's 128b/130b rate.
  EXPECT_NEAR(pcie_by_generation(5, 16)->datasheet_gbps, 63.015, 0.001);
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
