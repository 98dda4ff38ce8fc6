#pragma once
// Generated per-node dumps of a DGX H100-like node for the `topo diff` tests: eight GPUs on two
// NUMA nodes, each GPU under its own PCIe switch with one NIC, all GPUs on NVSwitches. A test
// changes one field of a node's layout to plant one deviation.

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fb::topo::test {

inline constexpr int gpus_per_numa_node = 4;

// As `nvidia-smi topo -m` prints it.
struct SmiNode {
  int gpu_count = 8;
  std::vector<int> gpu_nvlinks = std::vector<int>(8, 18);  // a GPU's NV#; a pair shows the smaller; 0: links down
  std::vector<int> nic_switch{0, 1, 2, 3, 4, 5, 6, 7};     // the GPU whose PCIe switch NIC n shares; -1: no NIC n

  std::string text() const {
    struct Device {
      std::string label;
      bool gpu;
      int ordinal;
      int pcie_switch;
    };
    std::vector<Device> devices;
    for (int g = 0; g < gpu_count; ++g) devices.push_back({fmt::format("GPU{}", g), true, g, g});
    std::string legend;
    for (int n = 0, label = 0; n < static_cast<int>(nic_switch.size()); ++n) {
      if (nic_switch[n] < 0) continue;
      devices.push_back({fmt::format("NIC{}", label), false, n, nic_switch[n]});
      legend += fmt::format("  NIC{}: mlx5_{}\n", label++, n);
    }
    const auto relation = [&](const Device& a, const Device& b) -> std::string {
      if (&a == &b) return " X ";
      if (a.gpu && b.gpu && std::min(gpu_nvlinks[a.ordinal], gpu_nvlinks[b.ordinal]) > 0) {
        return fmt::format("NV{}", std::min(gpu_nvlinks[a.ordinal], gpu_nvlinks[b.ordinal]));
      }
      if (a.pcie_switch == b.pcie_switch) return "PXB";
      return a.pcie_switch / gpus_per_numa_node == b.pcie_switch / gpus_per_numa_node ? "NODE" : "SYS";
    };
    std::string text;
    for (const Device& d : devices) text += "\t" + d.label;
    text += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
    for (const Device& row : devices) {
      text += row.label;
      for (const Device& column : devices) text += "\t" + relation(row, column);
      const int numa = row.pcie_switch / gpus_per_numa_node;
      if (row.gpu) text += fmt::format("\t{}\t{}\tN/A", numa == 0 ? "0-55,112-167" : "56-111,168-223", numa);
      text += "\n";
    }
    return text +
           "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n\nNIC Legend:\n\n" +
           legend;
  }
};

// As NCCL writes it with NCCL_TOPO_DUMP_FILE: per GPU a PCIe switch holding the GPU and its NIC,
// and four NVLink bonds to the NVSwitches (5 + 4 + 4 + 5 links, as on an H100 SXM).
struct NcclNode {
  std::vector<std::string> gpu_link_speed = std::vector<std::string>(8, "32.0 GT/s PCIe");
  std::vector<int> gpu_link_width = std::vector<int>(8, 16);
  std::vector<std::string> switch_uplink_speed = std::vector<std::string>(8, "32.0 GT/s PCIe");
  std::vector<std::vector<int>> gpu_nvlinks = std::vector<std::vector<int>>(8, {5, 4, 4, 5});
  std::vector<int> nic_switch{0, 1, 2, 3, 4, 5, 6, 7};  // the GPU whose PCIe switch NIC n is under; -1: no NIC n
  std::vector<int> nic_speed_mbps = std::vector<int>(9, 400000);
  std::vector<int> nic_gdr = std::vector<int>(9, 1);

  std::string text() const {
    std::string text = "<system version=\"1\">\n";
    for (int numa = 0; numa < 2; ++numa) {
      text +=
          fmt::format("  <cpu numaid=\"{}\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n",
                      numa);
      for (int g = numa * gpus_per_numa_node; g < (numa + 1) * gpus_per_numa_node; ++g) {
        const int bus = 0x10 * (g + 1);
        text +=
            fmt::format("    <pci busid=\"0000:{:02x}:00.0\" class=\"0x060400\" link_speed=\"{}\" link_width=\"16\">\n",
                        bus, switch_uplink_speed[g]);
        text += fmt::format(
            "      <pci busid=\"0000:{:02x}:00.0\" class=\"0x030200\" link_speed=\"{}\" link_width=\"{}\">\n", bus + 1,
            gpu_link_speed[g], gpu_link_width[g]);
        text += fmt::format("        <gpu dev=\"{}\" sm=\"90\" rank=\"{}\" gdr=\"1\">\n", g, g);
        for (std::size_t s = 0; s < gpu_nvlinks[g].size(); ++s) {
          text += fmt::format("          <nvlink target=\"0000:{:02x}:00.0\" count=\"{}\" tclass=\"0x068000\"/>\n",
                              0xa0 + s, gpu_nvlinks[g][s]);
        }
        text += "        </gpu>\n      </pci>\n";
        for (int n = 0; n < static_cast<int>(nic_switch.size()); ++n) {
          if (nic_switch[n] != g) continue;
          text += fmt::format(
              "      <pci busid=\"0000:{:02x}:00.0\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" "
              "link_width=\"16\">\n"
              "        <nic><net name=\"mlx5_{}\" dev=\"{}\" speed=\"{}\" port=\"1\" latency=\"0\" guid=\"0x{:x}\" "
              "maxconn=\"131072\" gdr=\"{}\"/></nic>\n      </pci>\n",
              bus + 2 + n, n, n, nic_speed_mbps[n], n + 1, nic_gdr[n]);
        }
        text += "    </pci>\n";
      }
      text += "  </cpu>\n";
    }
    return text + "</system>\n";
  }
};

// A fleet of `count` nodes named dgx01.EXT ... with `planted` replacing node `planted_index`'s dump.
template <typename Node>
std::vector<std::pair<std::string, std::string>> fleet_with(int count, int planted_index, const Node& planted,
                                                            const std::string& extension) {
  std::vector<std::pair<std::string, std::string>> dumps;
  for (int i = 0; i < count; ++i) {
    dumps.emplace_back(fmt::format("dgx{:02}.{}", i + 1, extension),
                       i == planted_index ? planted.text() : Node{}.text());
  }
  return dumps;
}

}  // namespace fb::topo::test
