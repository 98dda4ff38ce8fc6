#include "topology/network_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace fb::topo {
namespace {

// Sources of the figures (each row's `source`); what no measurement backs is named in `assumed`.
// - NCCL's built-in transports report no latency of their own (src/transport/net_ib/init.cc and
//   net_socket.cc: `props->latency = 0`), so their network steps cost what NCCL's tuner figures
//   say; AWS's libfabric plugin reports 0 too unless OFI_NCCL_NET_LATENCY is set.
// - EFA's per-step cost: AWS's own time model of NCCL over EFA (aws/aws-ofi-nccl
//   src/tuner/nccl_ofi_model.cpp, P5 & P5e) charges every network step 20 us and Simple 3 us more
//   (TUNER_NET_COMP_OVERHEAD: ~2 us in the device, ~1 us to hand the completion to the host); the
//   latency the plugin reports to NCCL's tuner (75 us on p5, platform-aws.cpp) is a knob set "so
//   NCCL's internal tuner choices work better", not a time, and is not used.
// - EFA's remote-peer cost: crazyguitar/aws-gpu-communication-benchmark data/nccl_alltoall.csv (p5,
//   2-32 nodes, 32 MiB and 2 GiB per rank): the fixed part of an alltoall (the time left at 32 MiB
//   after the 32 MiB-2 GiB slope's bandwidth) grows by 2.4 us per remote peer (310 us at 8 remote
//   peers, 890 at 248); tests/topology/transport_test.cpp derives it from those rows.
// - GPUDirect-TCPXO (GCP A3 Mega, 8x 200G): lessizzmore/create-a3mega-ztan-fork
//   ztan-NCCL-test-result, 2 nodes x 8 H100, all_reduce 8 B in 123.5 us (in place) where verbs'
//   figures give 50.7 us over 2 network steps: 36.4 us more per step; 338.8 GB/s busbw at 8 GiB
//   holds the efficiency (tests/topology/transport_test.cpp derives both).
constexpr std::array transport_table{
    TransportFigures{Transport::ib_verbs, "ib", "InfiniBand verbs", LinkType::infiniband, 0.95, 0.0, 0.0, 0.3, false,
                     true, "the remote-peer cost is posting one more send and receive, no published point",
                     "46-48 GB/s per NDR port (nccl-tests#290), 96 of 100 GB/s on 4x HDR (nccl-tests#119); NCCL's "
                     "IB transport reports no latency of its own"},
    TransportFigures{Transport::roce_verbs, "roce", "RoCE verbs", LinkType::roce, 0.92, 0.0, 0.0, 0.3, true, true,
                     "efficiency between InfiniBand's and EFA's (Ethernet headers, congestion control); remote-peer "
                     "cost InfiniBand's",
                     "NCCL's IB transport over RoCE reports no latency of its own; ib_write_bw 392.1 of 400 Gb/s "
                     "(nccl#2409) is the port, not the collective"},
    TransportFigures{Transport::efa_libfabric, "efa", "EFA (libfabric)", LinkType::efa, 0.89, 20.0, 3.0, 2.4, false,
                     false, "",
                     "AWS p5: all_reduce 356 of 400 GB/s at 4-16 nodes (nccl_all_reduce.csv), alltoall's fixed part "
                     "+2.4 us per remote peer (nccl_alltoall.csv), crazyguitar/aws-gpu-communication-benchmark; "
                     "20 us per network step, 23 in Simple: AWS's tuner model (aws-ofi-nccl "
                     "src/tuner/nccl_ofi_model.cpp, P5/P5e)"},
    TransportFigures{Transport::tcpx, "tcpx", "GPUDirect-TCPX", LinkType::ethernet, 0.66, 36.4, 36.4, 2.4, false, true,
                     "the per-step and remote-peer costs are GPUDirect-TCPXO's, its successor's (no published TCPX "
                     "small-message sweep found)",
                     "GCP A3 High (8x 200G GPUDirect-TCPX): large all_reduce busbw ~66% of the ports (issue #41's "
                     "published GCP TCPX points), where TCPXO's offload reaches 90%"},
    TransportFigures{Transport::tcpxo, "tcpxo", "GPUDirect-TCPXO", LinkType::ethernet, 0.90, 36.4, 36.4, 2.4, false,
                     true, "the remote-peer cost is EFA's (no published TCPXO alltoall found)",
                     "GCP A3 Mega, 2 nodes: all_reduce 8 B 123.5 us, 8 GiB 338.8 GB/s busbw "
                     "(lessizzmore/create-a3mega-ztan-fork ztan-NCCL-test-result)"},
    TransportFigures{Transport::sockets, "sockets", "TCP sockets", LinkType::ethernet, 0.80, 0.0, 0.0, 0.3, false, true,
                     "the remote-peer cost is InfiniBand's (no published alltoall over NCCL's sockets found)",
                     "large all_reduce over NCCL's socket transport reaches ~80% of the port (issue #41's published "
                     "NCCL-sockets points; nccl#209 saw 60% of 32G with default threads); NCCL's socket transport "
                     "reports no latency of its own"},
};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The technology rows (link_technology.cpp) a transport that is not its port type's own runs on.
std::string_view technology_of(Transport transport) {
  switch (transport) {
    case Transport::tcpx: return "Ethernet GPUDirect-TCPX";
    case Transport::tcpxo: return "Ethernet GPUDirect-TCPXO";
    case Transport::sockets: return "Ethernet";
    case Transport::ib_verbs:
    case Transport::roce_verbs:
    case Transport::efa_libfabric: break;
  }
  return {};
}

}  // namespace

const TransportFigures& figures_of(Transport transport) { return transport_table[static_cast<std::size_t>(transport)]; }

std::span<const TransportFigures> network_transports() { return transport_table; }

std::optional<Transport> transport_from_string(std::string_view key) {
  const std::string wanted = lower(key);
  for (const TransportFigures& row : transport_table) {
    if (row.key == wanted) return row.transport;
  }
  return std::nullopt;
}

std::string transport_keys() {
  std::string out;
  for (const TransportFigures& row : transport_table) out += fmt::format("{}{}", out.empty() ? "" : ", ", row.key);
  return out;
}

std::string transport_assumption(Transport transport, bool remote_peers) {
  const TransportFigures& figures = figures_of(transport);
  const bool efficiency = figures.efficiency_assumed;
  const bool peers = remote_peers && figures.remote_peer_assumed;
  if (!efficiency && !peers) return {};
  std::string what;
  if (efficiency) what = fmt::format("{:.0f}% of the port rate", 100 * figures.collective_efficiency);
  if (peers) what += fmt::format("{}{:g} us per remote peer", what.empty() ? "" : ", ", figures.remote_peer_us);
  return fmt::format("network transport {}: {} ({})", figures.name, what, figures.assumed_why);
}

std::optional<Transport> transport_of(const LinkSpec& port) {
  switch (port.type) {
    case LinkType::infiniband: return Transport::ib_verbs;
    case LinkType::roce: return Transport::roce_verbs;
    case LinkType::efa: return Transport::efa_libfabric;
    case LinkType::ethernet:
      if (port.technology == technology_of(Transport::tcpx)) return Transport::tcpx;
      if (port.technology == technology_of(Transport::tcpxo)) return Transport::tcpxo;
      return Transport::sockets;
    case LinkType::nvlink:
    case LinkType::pcie:
    case LinkType::smp:
    case LinkType::xgmi: break;
  }
  return std::nullopt;
}

std::optional<LinkSpec> with_transport(const LinkSpec& port, Transport transport) {
  if (figures_of(transport).port_type != port.type) return std::nullopt;
  const std::string_view technology = technology_of(transport);
  if (technology.empty()) return port;
  std::optional<LinkSpec> spec = network_by_rate(LinkType::ethernet, port.capacity_gbps * 8000.0, technology);
  if (spec) {
    spec->capacity_gbps = port.capacity_gbps;
    spec->datasheet_gbps = port.datasheet_gbps;
  }
  return spec;
}

}  // namespace fb::topo
