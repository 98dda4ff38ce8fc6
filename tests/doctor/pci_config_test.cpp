// The parsers under the inventory: config-space capability walking, ACS flags, sysfs value text.

#include "doctor/host_inventory.hpp"
#include "doctor/pci_config.hpp"
#include "doctor/software_versions.hpp"
#include "sysfs_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb::doctor {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(PciConfig, FindsAcsBehindAnotherExtendedCapability) {
  const std::vector<std::uint8_t> config = testing::config_space_with_acs(0x1000, 0xc030, 0x001d);
  EXPECT_EQ(find_extended_capability(config, 0x0001), 0x100u);
  EXPECT_EQ(find_extended_capability(config, acs_capability_id), 0x148u);
  EXPECT_EQ(acs_control_register(config), 0x001d);
}

TEST(PciConfig, BridgeWithoutAcsHasNoControlRegister) {
  const std::vector<std::uint8_t> config = testing::config_space_with_acs(0x1000, 0xc030, std::nullopt);
  EXPECT_EQ(acs_control_register(config), std::nullopt);
}

TEST(PciConfig, UnprivilegedShortReadHasNoExtendedCapabilities) {
  std::vector<std::uint8_t> config = testing::config_space_with_acs(0x1000, 0xc030, 0x001d);
  config.resize(64);
  EXPECT_EQ(acs_control_register(config), std::nullopt);
}

TEST(PciConfig, CapabilityListThatPointsAtItselfEnds) {
  std::vector<std::uint8_t> config(4096, 0);
  // id 0x0001 whose next pointer is its own offset 0x100.
  config[0x100] = 0x01;
  config[0x102] = 0x01;
  config[0x103] = 0x10;
  EXPECT_EQ(find_extended_capability(config, acs_capability_id), std::nullopt);
}

TEST(PciConfig, RedirectFlagsAreSvRrCrUfOnly) {
  EXPECT_THAT(acs_redirect_flags(0x001d), ElementsAre("SV", "RR", "CR", "UF"));
  EXPECT_THAT(acs_redirect_flags(0x0004), ElementsAre("RR"));
  // Translation Blocking, Egress Control and Direct Translated P2P do not redirect requests.
  EXPECT_THAT(acs_redirect_flags(0x0062), IsEmpty());
  EXPECT_THAT(acs_redirect_flags(0), IsEmpty());
}

TEST(SysfsText, LinkSpeedsInTheKernelsFormats) {
  EXPECT_EQ(parse_link_speed_gts("32.0 GT/s PCIe"), 32.0);
  EXPECT_EQ(parse_link_speed_gts("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(parse_link_speed_gts("8 GT/s"), 8.0);
  EXPECT_EQ(parse_link_speed_gts("Unknown"), std::nullopt);
  EXPECT_EQ(parse_link_speed_gts(""), std::nullopt);
}

TEST(SysfsText, PciAddresses) {
  EXPECT_TRUE(is_pci_address("0000:17:00.0"));
  EXPECT_TRUE(is_pci_address("10000:e1:00.7"));  // behind Intel VMD
  EXPECT_FALSE(is_pci_address("pci0000:00"));
  EXPECT_FALSE(is_pci_address("0000:17:00.8"));
  EXPECT_FALSE(is_pci_address("virtio2"));
  EXPECT_FALSE(is_pci_address("0000:17:00.0x"));
}

TEST(SysfsText, DriverVersionFromBothKernelModuleBanners) {
  EXPECT_EQ(driver_version_from_banner(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023"),
            "535.129.03");
  EXPECT_EQ(driver_version_from_banner("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release "
                                       "Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024"),
            "550.54.15");
  EXPECT_EQ(driver_version_from_banner("NVRM version: unknown"), "");
}

}  // namespace
}  // namespace fb::doctor
