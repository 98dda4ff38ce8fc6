// collect_host_inventory on sysfs trees laid out like the kernel's.

#include "doctor/host_inventory.hpp"
#include "doctor/inventory_json.hpp"
#include "doctor/inventory_summary.hpp"
#include "support/temp_dir.hpp"
#include "sysfs_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include <fstream>

namespace fb::doctor {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using fb::testing::SysfsTree;
using fb::testing::TempDir;

class HealthyHost : public ::testing::Test {
 protected:
  void SetUp() override { fb::testing::build_host(tree_, fb::testing::healthy_host_spec()); }

  TempDir dir_;
  SysfsTree tree_{dir_.path()};
};

TEST_F(HealthyHost, FindsEveryGpuWithModelNumaNodeAndLink) {
  const HostInventory inventory = collect_host_inventory(tree_.root());
  ASSERT_EQ(inventory.gpus.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const Gpu& gpu = inventory.gpus[static_cast<std::size_t>(i)];
    EXPECT_EQ(gpu.pci_address, fb::testing::gpu_address(i));
    EXPECT_EQ(gpu.model, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(gpu.numa_node, i < 4 ? 0 : 1);
    ASSERT_TRUE(gpu.link);
    EXPECT_EQ(gpu.link->current_speed_gts, 32.0);
    EXPECT_EQ(gpu.link->max_width_lanes, 16);
    EXPECT_FALSE(gpu.link->below_max_speed() || gpu.link->below_max_width());
  }
}

TEST_F(HealthyHost, NamesEveryNicByItsNetAndRdmaDevicesAndSkipsVirtualInterfaces) {
  const HostInventory inventory = collect_host_inventory(tree_.root());
  ASSERT_EQ(inventory.nics.size(), 8u);
  const Nic& nic = inventory.nics[3];
  EXPECT_EQ(nic.pci_address, fb::testing::nic_address(3));
  EXPECT_EQ(nic.kind, NicKind::infiniband);
  EXPECT_EQ(nic.vendor_device, "15b3:1021");
  EXPECT_THAT(nic.net_devices, ElementsAre("ib3"));
  EXPECT_THAT(nic.rdma_devices, ElementsAre("mlx5_3"));
  EXPECT_EQ(nic.display_name(), "mlx5_3 (" + fb::testing::nic_address(3) + ")");
  EXPECT_EQ(nic.numa_node, 0);
}

// The record's inventory names each NIC's firmware, as its RDMA device reports it
// (/sys/class/infiniband/DEV/fw_ver, as mlx5 writes it): a fleet with one NIC on old firmware
// shows it counted apart.
TEST_F(HealthyHost, NicFirmwareFromItsRdmaDeviceIsCountedInTheSummary) {
  for (int i = 0; i < 8; ++i)
    tree_.write_file(fmt::format("/sys/class/infiniband/mlx5_{}/fw_ver", i), i == 6 ? "28.37.1014\n" : "28.39.1002\n");
  const HostInventory inventory = collect_host_inventory(tree_.root());
  ASSERT_EQ(inventory.nics.size(), 8u);
  EXPECT_EQ(inventory.nics[3].firmware, "28.39.1002");
  EXPECT_EQ(inventory.nics[6].firmware, "28.37.1014");
  const nlohmann::json json = inventory;
  EXPECT_EQ(json.get<HostInventory>().nics[6].firmware, "28.37.1014");
  const auto facts = summarize_inventory(inventory);
  const auto firmware =
      std::find_if(facts.begin(), facts.end(), [](const auto& f) { return f.first == "NIC firmware"; });
  ASSERT_NE(firmware, facts.end());
  EXPECT_EQ(firmware->second, "1 x 28.37.1014, 7 x 28.39.1002");
}

TEST_F(HealthyHost, ReadsEveryIbPortBehindItsPciFunction) {
  const HostInventory inventory = collect_host_inventory(tree_.root());
  ASSERT_EQ(inventory.ib_ports.size(), 8u);
  const IbPort& port = inventory.ib_ports[5];
  EXPECT_EQ(port.display_name(), "mlx5_5/1");
  EXPECT_EQ(port.pci_address, fb::testing::nic_address(5));
  EXPECT_EQ(port.state, "ACTIVE");
  EXPECT_EQ(port.physical_state, "LinkUp");
  EXPECT_EQ(port.rate, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(port.link_layer, "InfiniBand");
}

TEST_F(HealthyHost, ListsTheBridgesAboveEachDeviceNearestFirstWithTheirAcsControl) {
  const HostInventory inventory = collect_host_inventory(tree_.root());
  EXPECT_EQ(inventory.gpus[0].bridges,
            (std::vector<std::string>{fb::testing::gpu_switch_port_address(0), "0000:11:00.0", "0000:10:01.0"}));
  // Per pair: root port, switch upstream port, two downstream ports.
  ASSERT_EQ(inventory.bridges.size(), 32u);
  for (const PcieBridge& bridge : inventory.bridges) {
    EXPECT_TRUE(bridge.extended_config_readable) << bridge.pci_address;
    if (bridge.pci_address == "0000:11:00.0") { EXPECT_EQ(bridge.acs_control, std::nullopt); }
    if (bridge.pci_address == fb::testing::gpu_switch_port_address(0)) {
      EXPECT_EQ(bridge.acs_control, 0);
      EXPECT_THAT(bridge.devices_below, ElementsAre("GPU " + fb::testing::gpu_address(0)));
    }
  }
}

TEST_F(HealthyHost, ReadsDriverCudaNcclVersionsAndGpuDirectSupport) {
  const HostInventory inventory = collect_host_inventory(tree_.root());
  EXPECT_EQ(inventory.versions.nvidia_driver.version, "550.54.15");
  EXPECT_EQ(inventory.versions.cuda.version, "12.4.1");
  EXPECT_EQ(inventory.versions.nccl.version, "2.21.5");
  EXPECT_THAT(inventory.versions.nccl.source, HasSubstr("libnccl.so.2.21.5"));
  EXPECT_TRUE(inventory.gpudirect_rdma.nvidia_peermem_loaded);
  EXPECT_TRUE(inventory.gpudirect_rdma.possible());
  // The proprietary kernel module cannot export dma-bufs.
  EXPECT_FALSE(inventory.gpudirect_rdma.dma_buf_possible());
}

TEST_F(HealthyHost, SurvivesTheJsonRoundTripUnchanged) {
  ::setenv("NCCL_IB_HCA", "mlx5", 1);
  const HostInventory inventory = collect_host_inventory(tree_.root());
  ::unsetenv("NCCL_IB_HCA");
  EXPECT_EQ(inventory.environment.at("NCCL_IB_HCA"), "mlx5");
  const nlohmann::json first = inventory;
  const nlohmann::json second = first.get<HostInventory>();
  EXPECT_EQ(first, second);
}

TEST(HostInventory, NcclWithoutAVersionedLibraryNameIsReadFromTheHeader) {
  TempDir dir;
  SysfsTree tree(dir.path());
  tree.write_file("/sys/bus/pci/devices/.keep", "");
  tree.write_file("/usr/local/cuda/lib64/libnccl.so.2", "");
  tree.write_file("/usr/local/cuda/include/nccl.h",
                  "#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n#define NCCL_SUFFIX \"\"\n");
  tree.write_file("/usr/local/cuda/include/cuda_runtime_api.h", "#define CUDART_VERSION  13000\n");
  const HostInventory inventory = collect_host_inventory(tree.root());
  EXPECT_EQ(inventory.versions.nccl.version, "2.28.9");
  EXPECT_EQ(inventory.versions.cuda.version, "13.0");
  EXPECT_EQ(inventory.versions.nvidia_driver.version, "");
}

// A two-socket host's /proc as the kernel writes it (abridged): the first model name, every
// processor counted, MemTotal in KiB; the record prints them, and an older report without them
// still reads.
TEST(HostInventory, CpuModelThreadsAndMemoryFromProc) {
  TempDir dir;
  SysfsTree tree(dir.path());
  tree.write_file("/sys/bus/pci/devices/.keep", "");
  std::string cpuinfo;
  for (int cpu = 0; cpu < 4; ++cpu)
    cpuinfo += "processor\t: " + std::to_string(cpu) +
               "\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: fpu vme\n\n";
  tree.write_file("/proc/cpuinfo", cpuinfo);
  tree.write_file("/proc/meminfo", "MemTotal:       2113546240 kB\nMemFree:        2000000000 kB\n");
  tree.write_file("/etc/os-release",
                  "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nID=ubuntu\n");
  const HostInventory inventory = collect_host_inventory(tree.root());
  EXPECT_EQ(inventory.resources.os, "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(summarize_inventory(inventory).front(), (std::pair<std::string, std::string>{"OS", "Ubuntu 24.04.1 LTS"}));
  EXPECT_EQ(inventory.resources.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(inventory.resources.cpu_threads, 4);
  EXPECT_EQ(inventory.resources.memory_bytes, 2113546240ULL * 1024);
  nlohmann::json json = inventory;
  EXPECT_EQ(json.get<HostInventory>().resources.memory_bytes, 2113546240ULL * 1024);
  EXPECT_EQ(json.get<HostInventory>().resources.os, "Ubuntu 24.04.1 LTS");
  json.erase("resources");
  EXPECT_FALSE(json.get<HostInventory>().resources.memory_bytes.has_value());
  EXPECT_EQ(json.get<HostInventory>().resources.os, "");
}

TEST(HostInventory, VirtioNicIsFoundThroughTheChildItsNetDeviceLinksTo) {
  TempDir dir;
  SysfsTree tree(dir.path());
  tree.add_pci_function({"0000:00:03.0", "", 0x020000, 0x1af4, 0x1041, -1, std::nullopt, std::nullopt});
  // As on a VM: /sys/class/net/eth0/device -> ../../../virtio2, a child of the PCI function.
  const fs::path virtio = dir.path() / "sys/devices/pci0000:00/0000:00:03.0/virtio2";
  fs::create_directories(virtio / "net/eth0");
  fs::create_symlink("../../../virtio2", virtio / "net/eth0/device");
  fs::create_directories(dir.path() / "sys/class/net");
  fs::create_symlink("../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0", dir.path() / "sys/class/net/eth0");

  const HostInventory inventory = collect_host_inventory(tree.root());
  EXPECT_TRUE(inventory.gpus.empty());
  ASSERT_EQ(inventory.nics.size(), 1u);
  EXPECT_EQ(inventory.nics[0].kind, NicKind::ethernet);
  EXPECT_THAT(inventory.nics[0].net_devices, ElementsAre("eth0"));
  EXPECT_EQ(inventory.nics[0].numa_node, std::nullopt);
  EXPECT_EQ(inventory.nics[0].link, std::nullopt);
  EXPECT_TRUE(inventory.nics[0].bridges.empty());
}

TEST(HostInventory, RootWithoutPciDevicesIsAnError) {
  TempDir dir;
  EXPECT_THROW(collect_host_inventory(dir.path()), std::runtime_error);
}

}  // namespace
}  // namespace fb::doctor
