// The inventory of the machine the tests run on, checked against its /sys read independently.

#include "doctor/checks.hpp"
#include "doctor/host_inventory.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace fb::doctor {
namespace {

namespace fs = std::filesystem;

std::string first_word(const fs::path& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

struct PciCensus {
  int nvidia_gpus = 0;
  std::set<std::string> network_functions;
};

// vendor 0x10de with a display class; class 0x0200xx or 0x0207xx.
PciCensus pci_census() {
  PciCensus census;
  for (const auto& entry : fs::directory_iterator("/sys/bus/pci/devices")) {
    const std::string pci_class = first_word(entry.path() / "class");
    if (first_word(entry.path() / "vendor") == "0x10de" &&
        (pci_class.starts_with("0x0300") || pci_class.starts_with("0x0302")))
      ++census.nvidia_gpus;
    if (pci_class.starts_with("0x0200") || pci_class.starts_with("0x0207"))
      census.network_functions.insert(entry.path().filename().string());
  }
  return census;
}

TEST(ThisMachine, FindsTheGpusAndNicsItsSysfsShows) {
  const PciCensus census = pci_census();
  const HostInventory inventory = collect_host_inventory("/");
  EXPECT_EQ(inventory.gpus.size(), static_cast<std::size_t>(census.nvidia_gpus));
  std::set<std::string> found;
  for (const Nic& nic : inventory.nics) {
    found.insert(nic.pci_address);
    for (const std::string& name : nic.net_devices) EXPECT_TRUE(fs::exists("/sys/class/net/" + name)) << name;
  }
  EXPECT_EQ(found, census.network_functions);
}

TEST(ThisMachine, WithoutGpusSaysSoOnceAndRaisesNoError) {
  if (pci_census().nvidia_gpus > 0) GTEST_SKIP() << "this machine has NVIDIA GPUs";
  const std::vector<Flag> findings = check_host(collect_host_inventory("/"));
  const auto gpu_lines = std::count_if(findings.begin(), findings.end(), [](const Flag& f) {
    return f.subject == "GPUs" && f.severity == Severity::info;
  });
  EXPECT_EQ(gpu_lines, 1);
  EXPECT_FALSE(has_errors(findings));
}

}  // namespace
}  // namespace fb::doctor
