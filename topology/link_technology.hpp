#pragma once
// The one table of link technologies. Every capacity in the topology model comes from here, so a
// parser says what the input declares (NV18, PCIe Gen5 x16, 4xNDR, 400000 Mb/s) and never computes
// a bandwidth itself. Capacities are per direction, decimal GB/s (1e9 bytes/s).

#include <optional>
#include <string_view>

namespace fb::topo {

enum class LinkType { nvlink, pcie, smp, infiniband, roce, ethernet };

std::string_view to_string(LinkType type);
std::optional<LinkType> link_type_from_string(std::string_view name);

// What one link (or bond of `lane_count` identical lanes) can carry.
struct LinkSpec {
  LinkType type = LinkType::pcie;
  std::string_view technology;  // a row name of the table, e.g. "NVLink4", "PCIe Gen5", "IB NDR"
  int lane_count = 1;           // NVLinks in a bond, PCIe lanes, IB lanes (4 for 4xNDR)
  double capacity_gbps = 0;     // whole bond, per direction
  double latency_us = 0;        // nominal one-hop latency (the alpha of the model sums these)
};

// NV# in `nvidia-smi topo -m`: `link_count` NVLinks of the given generation at their raw rate.
std::optional<LinkSpec> nvlink_by_generation(int generation, int link_count);

// The NVLink generation of a GPU model named in text ("NVIDIA H100 80GB HBM3" -> 4, "B200" -> 5),
// from the first model name found; none when no known model appears.
std::optional<int> nvlink_generation_of_gpu_model(std::string_view text);

// NCCL's per-NVLink bandwidth for a GPU architecture (topo.h: sm_90 is 20.6 GB/s), for NCCL XML.
std::optional<LinkSpec> nvlink_by_sm(int sm, int link_count);

// PCIe as NCCL computes it: width x GT/s code / 80 (Gen3 x16 = 12 GB/s, Gen5 x16 = 48 GB/s).
std::optional<LinkSpec> pcie_by_generation(int generation, int width);
std::optional<int> pcie_generation_from_gts(double gigatransfers_per_s);
// The per-lane rate of a PCIe row ("PCIe Gen5" -> 32 GT/s), as lspci and NCCL state it; none for
// a technology that is not PCIe.
std::optional<double> pcie_gts_of(std::string_view technology);

// InfiniBand by its `WIDTHxSPEED` name as ibnetdiscover prints it: "4xNDR", "2xHDR", "4xFDR10".
std::optional<LinkSpec> infiniband_by_name(std::string_view width_speed);
std::optional<LinkSpec> infiniband(int width, std::string_view speed_name);

// A network port given in Mb/s (NCCL XML `speed`), GB/s = Mb/s / 8000.
std::optional<LinkSpec> network_by_rate(LinkType type, double rate_mbps);

// The CPU interconnect between sockets, by vendor and model (NCCL's QPI/UPI/xGMI constants); an
// empty vendor (the input did not say) gives a row named for that, at NCCL's default rate.
LinkSpec smp_link(std::string_view cpu_vendor, int cpu_model);

}  // namespace fb::topo
