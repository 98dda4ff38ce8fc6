#include "topology/link_technology.hpp"

#include "topology/network_transport.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>

namespace fb::topo {
namespace {

struct TechnologyRow {
  std::string_view name;
  LinkType type;
  double lane_capacity_gbps;   // effective: one NVLink, one PCIe lane, one IB lane; per direction
  double lane_datasheet_gbps;  // as sold
  double latency_us;           // nominal one hop: device-to-switch or switch-to-switch
  int compute_capability;      // NVLink rows: the GPU generation that carries it; 0 otherwise
};

// Sources. NVLink: datasheet rates per link and direction (NVIDIA NVLink generations); effective
// rates are NCCL's per-architecture constants (src/graph/topo.h: 18, 20, 20, 12, 20.6, 40.1 GB/s).
// PCIe: datasheet = GT/s x 128b/130b (8b/10b before Gen3, FLIT for Gen6) / 8 per lane; effective =
// NCCL's GT/s code / 80 per lane (Gen5 x16 = 48 GB/s). InfiniBand: IBTA data rate per lane after
// encoding. SMP: NCCL's QPI/UPI/xGMI constants. What NCCL's collectives sustain over a network
// port is its transport's (network_transport.cpp).
// Latencies are nominal per-hop figures for the point-to-point alpha-beta model.
constexpr std::array technology_table{
    TechnologyRow{"NVLink1", LinkType::nvlink, 18.0, 20.0, 0.3, 60},
    TechnologyRow{"NVLink2", LinkType::nvlink, 20.0, 25.0, 0.3, 70},
    TechnologyRow{"NVLink3", LinkType::nvlink, 20.0, 25.0, 0.3, 80},
    TechnologyRow{"NVLink3 GA10x", LinkType::nvlink, 12.0, 14.0625, 0.3, 86},
    TechnologyRow{"NVLink4", LinkType::nvlink, 20.6, 25.0, 0.3, 90},
    TechnologyRow{"NVLink5", LinkType::nvlink, 40.1, 50.0, 0.3, 100},
    // xGMI: AMD's data sheets give the peak per link as the sum of both directions (MI300X: 7
    // links of 128 GB/s; MI250X: 8 links of 100 GB/s); per direction is half. No collective
    // library's effective figure is published, so the effective rate is the data sheet's.
    TechnologyRow{"xGMI MI300X", LinkType::xgmi, 64.0, 64.0, 0.3, 0},
    TechnologyRow{"xGMI MI250X", LinkType::xgmi, 50.0, 50.0, 0.3, 0},
    TechnologyRow{"PCIe Gen1", LinkType::pcie, 15.0 / 80, 0.25, 0.5, 0},
    TechnologyRow{"PCIe Gen2", LinkType::pcie, 30.0 / 80, 0.5, 0.5, 0},
    TechnologyRow{"PCIe Gen3", LinkType::pcie, 60.0 / 80, 8.0 * 128 / 130 / 8, 0.5, 0},
    TechnologyRow{"PCIe Gen4", LinkType::pcie, 120.0 / 80, 16.0 * 128 / 130 / 8, 0.5, 0},
    TechnologyRow{"PCIe Gen5", LinkType::pcie, 240.0 / 80, 32.0 * 128 / 130 / 8, 0.5, 0},
    TechnologyRow{"PCIe Gen6", LinkType::pcie, 480.0 / 80, 64.0 * 242 / 256 / 8, 0.5, 0},
    TechnologyRow{"IB SDR", LinkType::infiniband, 2.0 / 8, 2.0 / 8, 0.3, 0},
    TechnologyRow{"IB DDR", LinkType::infiniband, 4.0 / 8, 4.0 / 8, 0.3, 0},
    TechnologyRow{"IB QDR", LinkType::infiniband, 8.0 / 8, 8.0 / 8, 0.3, 0},
    TechnologyRow{"IB FDR10", LinkType::infiniband, 10.0 / 8, 10.0 / 8, 0.3, 0},
    TechnologyRow{"IB FDR", LinkType::infiniband, 13.64 / 8, 13.64 / 8, 0.3, 0},
    TechnologyRow{"IB EDR", LinkType::infiniband, 25.0 / 8, 25.0 / 8, 0.3, 0},
    TechnologyRow{"IB HDR", LinkType::infiniband, 50.0 / 8, 50.0 / 8, 0.3, 0},
    TechnologyRow{"IB NDR", LinkType::infiniband, 100.0 / 8, 100.0 / 8, 0.3, 0},
    TechnologyRow{"IB XDR", LinkType::infiniband, 200.0 / 8, 200.0 / 8, 0.3, 0},
    // Rate-defined ports: the lane capacity is 1 GB/s, lane_count carries nothing; the bond
    // capacity is Mb/s / 8000 (NCCL's arithmetic).
    TechnologyRow{"InfiniBand", LinkType::infiniband, 1.0, 1.0, 0.3, 0},
    TechnologyRow{"RoCE", LinkType::roce, 1.0, 1.0, 0.8, 0},
    TechnologyRow{"EFA", LinkType::efa, 1.0, 1.0, 2.0, 0},
    TechnologyRow{"Ethernet", LinkType::ethernet, 1.0, 1.0, 5.0, 0},
    // GCP's GPUDirect over TCP: the same Ethernet ports, driven by NCCL plugins that move data
    // straight between GPU memory and the NIC (network_transport.cpp).
    TechnologyRow{"Ethernet GPUDirect-TCPX", LinkType::ethernet, 1.0, 1.0, 5.0, 0},
    TechnologyRow{"Ethernet GPUDirect-TCPXO", LinkType::ethernet, 1.0, 1.0, 5.0, 0},
    TechnologyRow{"SMP Intel Broadwell", LinkType::smp, 6.0, 6.0, 0.2, 0},
    TechnologyRow{"SMP Intel Skylake", LinkType::smp, 10.0, 10.0, 0.2, 0},
    TechnologyRow{"SMP vendor not stated", LinkType::smp, 10.0, 10.0, 0.2, 0},
    TechnologyRow{"SMP Intel Sapphire Rapids", LinkType::smp, 22.0, 22.0, 0.2, 0},
    TechnologyRow{"SMP Intel Emerald Rapids", LinkType::smp, 40.0, 40.0, 0.2, 0},
    TechnologyRow{"SMP AMD", LinkType::smp, 16.0, 16.0, 0.2, 0},
    TechnologyRow{"SMP POWER9", LinkType::smp, 32.0, 32.0, 0.2, 0},
    TechnologyRow{"SMP ARM", LinkType::smp, 6.0, 6.0, 0.2, 0},
};

const TechnologyRow* find_row(std::string_view name) {
  const auto* row = std::find_if(technology_table.begin(), technology_table.end(),
                                 [&](const TechnologyRow& r) { return r.name == name; });
  return row == technology_table.end() ? nullptr : row;
}

LinkSpec bond(const TechnologyRow& row, int lane_count) {
  return LinkSpec{
      row.type,      row.name, lane_count, row.lane_capacity_gbps * lane_count, row.lane_datasheet_gbps * lane_count,
      row.latency_us};
}

std::optional<LinkSpec> bond_by_name(std::string_view name, int lane_count) {
  if (lane_count <= 0) return std::nullopt;
  const TechnologyRow* row = find_row(name);
  if (row == nullptr) return std::nullopt;
  return bond(*row, lane_count);
}

}  // namespace

std::string_view name_of(LinkType type) {
  switch (type) {
    case LinkType::nvlink: return "NVLink";
    case LinkType::pcie: return "PCIe";
    case LinkType::smp: return "SMP";
    case LinkType::infiniband: return "InfiniBand";
    case LinkType::roce: return "RoCE";
    case LinkType::efa: return "EFA";
    case LinkType::ethernet: return "Ethernet";
    case LinkType::xgmi: return "xGMI";
  }
  return "unknown";
}

std::optional<LinkType> link_type_from_string(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "nvlink") return LinkType::nvlink;
  if (lower == "pcie") return LinkType::pcie;
  if (lower == "smp") return LinkType::smp;
  if (lower == "infiniband" || lower == "ib") return LinkType::infiniband;
  if (lower == "roce") return LinkType::roce;
  if (lower == "efa") return LinkType::efa;
  if (lower == "ethernet" || lower == "eth") return LinkType::ethernet;
  if (lower == "xgmi") return LinkType::xgmi;
  return std::nullopt;
}

std::optional<LinkSpec> nvlink_by_generation(int generation, int link_count) {
  return bond_by_name("NVLink" + std::to_string(generation), link_count);
}

std::optional<int> nvlink_generation_of_gpu_model(std::string_view text) {
  struct ModelGeneration {
    std::string_view model;
    int generation;
  };
  // Matched as whole tokens, so that "GH200" does not read as "H200".
  constexpr std::array models{
      ModelGeneration{"GB300", 5}, ModelGeneration{"GB200", 5}, ModelGeneration{"B300", 5}, ModelGeneration{"B200", 5},
      ModelGeneration{"B100", 5},  ModelGeneration{"GH200", 4}, ModelGeneration{"H200", 4}, ModelGeneration{"H100", 4},
      ModelGeneration{"H800", 4},  ModelGeneration{"H20", 4},   ModelGeneration{"A100", 3}, ModelGeneration{"A800", 3},
      ModelGeneration{"V100", 2},  ModelGeneration{"P100", 1},
  };
  std::optional<std::pair<std::size_t, int>> first;  // position in text, generation
  for (const ModelGeneration& entry : models) {
    for (std::size_t at = text.find(entry.model); at != std::string_view::npos; at = text.find(entry.model, at + 1)) {
      const std::size_t end = at + entry.model.size();
      const bool starts_token = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
      const bool ends_token = end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
      if (starts_token && ends_token) {
        if (!first || at < first->first) first = std::pair{at, entry.generation};
        break;
      }
    }
  }
  if (!first) return std::nullopt;
  return first->second;
}

std::optional<LinkSpec> xgmi_link(std::string_view family) { return bond_by_name("xGMI " + std::string(family), 1); }

std::optional<std::string_view> xgmi_family_of_gpu_model(std::string_view text) {
  struct ModelFamily {
    std::string_view model;
    std::string_view family;
  };
  constexpr std::array models{ModelFamily{"MI325X", "MI300X"}, ModelFamily{"MI308X", "MI300X"},
                              ModelFamily{"MI300X", "MI300X"}, ModelFamily{"MI250X", "MI250X"},
                              ModelFamily{"MI250", "MI250X"},  ModelFamily{"MI210", "MI250X"}};
  std::optional<std::pair<std::size_t, std::string_view>> first;
  for (const ModelFamily& entry : models) {
    const std::size_t at = text.find(entry.model);
    if (at != std::string_view::npos && (!first || at < first->first)) first = std::pair{at, entry.family};
  }
  if (!first) return std::nullopt;
  return first->second;
}

std::optional<LinkSpec> nvlink_by_sm(int sm, int link_count) {
  for (const TechnologyRow& row : technology_table) {
    if (row.type == LinkType::nvlink && row.compute_capability == sm) return bond_by_name(row.name, link_count);
  }
  return std::nullopt;
}

std::optional<int> compute_capability_of(std::string_view technology) {
  const TechnologyRow* row = find_row(technology);
  if (row == nullptr || row->type != LinkType::nvlink) return std::nullopt;
  return row->compute_capability;
}

double collective_efficiency(const LinkSpec& spec) {
  const std::optional<Transport> transport = transport_of(spec);
  return transport ? figures_of(*transport).collective_efficiency : 1.0;
}

std::optional<LinkSpec> pcie_by_generation(int generation, int width) {
  return bond_by_name("PCIe Gen" + std::to_string(generation), width);
}

namespace {
constexpr std::array<double, 6> pcie_gts_by_generation{2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
}  // namespace

std::optional<int> pcie_generation_from_gts(double gigatransfers_per_s) {
  for (std::size_t i = 0; i < pcie_gts_by_generation.size(); ++i) {
    if (std::abs(gigatransfers_per_s - pcie_gts_by_generation[i]) < 0.01) return static_cast<int>(i) + 1;
  }
  return std::nullopt;
}

std::optional<double> pcie_gts_of(std::string_view technology) {
  for (std::size_t i = 0; i < pcie_gts_by_generation.size(); ++i) {
    if (technology == "PCIe Gen" + std::to_string(i + 1)) return pcie_gts_by_generation[i];
  }
  return std::nullopt;
}

std::optional<LinkSpec> infiniband(int width, std::string_view speed_name) {
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12) return std::nullopt;
  return bond_by_name("IB " + std::string(speed_name), width);
}

std::optional<LinkSpec> infiniband_by_name(std::string_view width_speed) {
  const std::size_t x = width_speed.find('x');
  if (x == std::string_view::npos || x == 0) return std::nullopt;
  int width = 0;
  const auto [end, ec] = std::from_chars(width_speed.data(), width_speed.data() + x, width);
  if (ec != std::errc{} || end != width_speed.data() + x) return std::nullopt;
  return infiniband(width, width_speed.substr(x + 1));
}

std::optional<LinkSpec> network_by_rate(LinkType type, double rate_mbps, std::string_view technology) {
  if (!(rate_mbps > 0) || !std::isfinite(rate_mbps)) return std::nullopt;
  if (!technology.empty()) {
    const TechnologyRow* row = find_row(technology);
    if (row == nullptr || row->type != type) return std::nullopt;
    LinkSpec spec = bond(*row, 1);
    spec.capacity_gbps = spec.datasheet_gbps = rate_mbps / 8000.0;
    return spec;
  }
  std::string_view row_name;
  switch (type) {
    case LinkType::infiniband: row_name = "InfiniBand"; break;
    case LinkType::roce: row_name = "RoCE"; break;
    case LinkType::efa: row_name = "EFA"; break;
    case LinkType::ethernet: row_name = "Ethernet"; break;
    default: return std::nullopt;
  }
  LinkSpec spec = bond(*find_row(row_name), 1);
  spec.capacity_gbps = spec.datasheet_gbps = rate_mbps / 8000.0;
  return spec;
}

LinkSpec smp_link(std::string_view cpu_vendor, int cpu_model) {
  std::string_view row_name = "SMP Intel Skylake";
  if (cpu_vendor.empty()) {
    row_name = "SMP vendor not stated";
  } else if (cpu_vendor == "AuthenticAMD") {
    row_name = "SMP AMD";
  } else if (cpu_vendor == "GenuineIntel") {
    // Intel family 6 model numbers, as NCCL distinguishes them.
    if (cpu_model == 0x4f) row_name = "SMP Intel Broadwell";
    if (cpu_model == 0x8f) row_name = "SMP Intel Sapphire Rapids";
    if (cpu_model == 0xcf) row_name = "SMP Intel Emerald Rapids";
  } else if (cpu_vendor == "POWER" || cpu_vendor == "ppc64") {
    row_name = "SMP POWER9";
  } else if (cpu_vendor == "ARM" || cpu_vendor == "aarch64") {
    row_name = "SMP ARM";
  }
  return bond(*find_row(row_name), 1);
}

}  // namespace fb::topo
