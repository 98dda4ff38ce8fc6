#include "common/errors.hpp"
#include "benchmarks/cuda/gpu_discovery.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(CpuList, RangesAndSinglesAsSysfsWritesThem) {
  EXPECT_THAT(parse_cpu_list("0-3,8,10-11\n"), ElementsAre(0, 1, 2, 3, 8, 10, 11));
  EXPECT_THAT(parse_cpu_list("5"), ElementsAre(5));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_THROW(parse_cpu_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("0-x"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("-1"), std::invalid_argument);
}

TEST(NumaPlacement, AGpuIsPinnedNearTheCpusOfItsNode) {
  const TempDir sysfs;
  write_file(sysfs / "bus/pci/devices/0000:1b:00.0/numa_node", "1\n");
  write_file(sysfs / "bus/pci/devices/0000:9a:00.0/numa_node", "-1\n");
  write_file(sysfs / "devices/system/node/node1/cpulist", "48-51,144\n");
  EXPECT_EQ(numa_node_of_pci_device(sysfs.path(), "0000:1b:00.0"), 1);
  // Single-node machines say -1; a device sysfs does not list says nothing either.
  EXPECT_EQ(numa_node_of_pci_device(sysfs.path(), "0000:9a:00.0"), -1);
  EXPECT_EQ(numa_node_of_pci_device(sysfs.path(), "0000:00:00.0"), -1);
  EXPECT_THAT(cpus_of_numa_node(sysfs.path(), 1), ElementsAre(48, 49, 50, 51, 144));
  EXPECT_TRUE(cpus_of_numa_node(sysfs.path(), -1).empty());
  EXPECT_TRUE(cpus_of_numa_node(sysfs.path(), 7).empty());
}

// On a machine without a GPU (CI) the backends must say "no GPU", never fail some other way; on a
// GPU machine they must find it.
TEST(VisibleGpus, NoneIsNoDeviceErrorNotAFailure) {
  try {
    EXPECT_GE(require_visible_gpus("test", 1), 1);
  } catch (const NoDeviceError& e) { EXPECT_THAT(e.what(), HasSubstr("the test backend needs")); }
}

TEST(VisibleGpus, AskingForMoreThanThereAreNamesBoth) {
  try {
    require_visible_gpus("test", 100000);
    FAIL() << "no machine has 100000 GPUs";
  } catch (const NoDeviceError& e) { EXPECT_THAT(e.what(), HasSubstr("the test backend needs")); }
}

}  // namespace
}  // namespace fb
