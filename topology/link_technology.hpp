#pragma once
// The one table of link technologies. Every capacity in the topology model comes from here, so a
// parser says what the input declares (NV18, PCIe Gen5 x16, 4xNDR, 400000 Mb/s) and never computes
// a bandwidth itself. Capacities are per direction, decimal GB/s (1e9 bytes/s).
//
// Two rates per technology: the datasheet rate (what the link is sold at, kept for reports) and the
// effective rate the models use. For NVLink and PCIe the effective rate is NCCL's own figure (an
// NVLink4 lane carries 20.6 GB/s of collective traffic against 25 on the datasheet), whatever
// the input format, so an H100 node is the same 370.8 GB/s read from YAML, topo -m or NCCL's XML.
// Network ports keep their signalling data rate as capacity (what ib_write_bw approaches and what
// fabric analysis shares out); the fraction of it NCCL's collectives sustain over the transport is
// `collective_efficiency`.

#include <optional>
#include <string_view>

namespace fb::topo {

// xgmi: AMD Infinity Fabric between Instinct GPUs (rocm-smi's "XGMI").
enum class LinkType { nvlink, pcie, smp, infiniband, roce, efa, ethernet, xgmi };

std::string_view name_of(LinkType type);
std::optional<LinkType> link_type_from_string(std::string_view name);

// What one link (or bond of `lane_count` identical lanes) can carry.
struct LinkSpec {
  LinkType type = LinkType::pcie;
  std::string_view technology;  // a row name of the table, e.g. "NVLink4", "PCIe Gen5", "IB NDR"
  int lane_count = 1;           // NVLinks in a bond, PCIe lanes, IB lanes (4 for 4xNDR)
  double capacity_gbps = 0;     // whole bond, per direction, effective (see above)
  double datasheet_gbps = 0;    // whole bond, per direction, as sold
  double latency_us = 0;        // nominal one-hop latency (the alpha of the model sums these)
};

// NV# in `nvidia-smi topo -m`: `link_count` NVLinks of the given generation.
std::optional<LinkSpec> nvlink_by_generation(int generation, int link_count);

// The NVLink generation of a GPU model named in text ("NVIDIA H100 80GB HBM3" -> 4, "B200" -> 5),
// from the first model name found; none when no known model appears.
std::optional<int> nvlink_generation_of_gpu_model(std::string_view text);

// The NVLinks of a GPU architecture as NCCL's XML names it (sm 90: NVLink4): the same row as by
// generation, so both inputs give the same capacity.
std::optional<LinkSpec> nvlink_by_sm(int sm, int link_count);

// One AMD xGMI (Infinity Fabric) link between two Instinct GPUs of the named family: "MI300X"
// (MI300X, MI325X, MI308X: 64 GB/s per link and direction) or "MI250X" (MI250X, MI250, MI210:
// 50 GB/s); none for another name.
std::optional<LinkSpec> xgmi_link(std::string_view family);
// The xGMI family of the first AMD Instinct model named in text ("AMD Instinct MI300X" -> "MI300X").
std::optional<std::string_view> xgmi_family_of_gpu_model(std::string_view text);

// The GPU compute capability (80, 90, 100) an NVLink technology belongs to; none for a link that
// is not NVLink. NCCL's tuning differs per GPU generation and NVLink is how the inputs name it.
std::optional<int> compute_capability_of(std::string_view technology);

// The fraction of a link's effective capacity NCCL's collectives sustain over it: 1 for NVLink
// and PCIe (their table rate already is NCCL's), the port's transport's for a network port
// (network_transport.hpp: IB verbs 0.95, 46-48 GB/s per NDR port in nccl-tests).
double collective_efficiency(const LinkSpec& spec);

// PCIe as NCCL computes it: width x GT/s code / 80 (Gen3 x16 = 12 GB/s, Gen5 x16 = 48 GB/s).
std::optional<LinkSpec> pcie_by_generation(int generation, int width);
std::optional<int> pcie_generation_from_gts(double gigatransfers_per_s);
// The per-lane rate of a PCIe row ("PCIe Gen5" -> 32 GT/s), as lspci and NCCL state it; none for
// a technology that is not PCIe.
std::optional<double> pcie_gts_of(std::string_view technology);

// InfiniBand by its `WIDTHxSPEED` name as ibnetdiscover prints it: "4xNDR", "2xHDR", "4xFDR10".
std::optional<LinkSpec> infiniband_by_name(std::string_view width_speed);
std::optional<LinkSpec> infiniband(int width, std::string_view speed_name);

// A network port given in Mb/s (NCCL XML `speed`), GB/s = Mb/s / 8000; `technology` names a row of
// that type other than the type's own ("Ethernet GPUDirect-TCPXO"), empty for the type's own.
std::optional<LinkSpec> network_by_rate(LinkType type, double rate_mbps, std::string_view technology = {});

// The CPU interconnect between sockets, by vendor and model (NCCL's QPI/UPI/xGMI constants); an
// empty vendor (the input did not say) gives a row named for that, at NCCL's default rate.
LinkSpec smp_link(std::string_view cpu_vendor, int cpu_model);

}  // namespace fb::topo
