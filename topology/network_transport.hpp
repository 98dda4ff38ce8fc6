#pragma once
// How NCCL moves data between nodes, per transport: what fraction of a port's rate its
// collectives sustain and what each network message and each remote peer costs on top of NCCL's own tuning figures
// (which NCCL measured on InfiniBand verbs, its built-in transport). A cluster spec names the transport (`nics: {type:
// ethernet, transport: tcpxo}`); otherwise the port's type implies it (InfiniBand and RoCE: verbs, EFA: libfabric,
// Ethernet: NCCL's TCP sockets).

#include "topology/link_technology.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fb::topo {

enum class Transport { ib_verbs, roce_verbs, efa_libfabric, tcpx, tcpxo, sockets };

struct TransportFigures {
  Transport transport = Transport::ib_verbs;
  std::string_view key;                       // how a cluster spec names it: ib, roce, efa, tcpx, tcpxo, sockets
  std::string_view name;                      // how explanations name it
  LinkType port_type = LinkType::infiniband;  // the ports it runs over
  double collective_efficiency = 1;           // busbw NCCL sustains over a port, per unit of its data rate
  // Added to every network step NCCL's tuner counts, twice for Simple (its flush), as NCCL adds a
  // network plugin's `latency` property (src/graph/tuning.cc, latencyInter).
  double message_us = 0;
  // What Simple adds to each such step on top: NCCL adds the plugin latency again for its flush;
  // AWS's own model of EFA adds its completion overhead instead.
  double flush_us = 0;
  // Grouped point-to-point (alltoall, gather, scatter): each remote peer is one more send and
  // receive the GPU's proxy thread posts and completes, one after another.
  double remote_peer_us = 0;
  // Figures no published measurement backs: a prediction that uses one says it is assumed.
  bool efficiency_assumed = false;
  bool remote_peer_assumed = false;
  std::string_view assumed_why;  // why the assumed figures are what they are
  std::string_view source;       // where the published figures come from
};

const TransportFigures& figures_of(Transport transport);
std::span<const TransportFigures> network_transports();
std::optional<Transport> transport_from_string(std::string_view key);
// The keys, comma-separated, for error messages.
std::string transport_keys();

// The transport a network port uses: the one its technology names (GPUDirect-TCPX, -TCPXO), else
// the port type's own (verbs for InfiniBand and RoCE, libfabric for EFA, sockets for Ethernet).
// Empty for a link that is not a network port.
std::optional<Transport> transport_of(const LinkSpec& port);

// The warning a prediction over this transport carries: its assumed figures that the op uses
// (the remote-peer cost only where grouped sends reach remote peers); empty when none.
std::string transport_assumption(Transport transport, bool remote_peers);

// The same port run by another transport; empty when that transport cannot drive the port's
// type (TCPX over InfiniBand, verbs over plain Ethernet).
std::optional<LinkSpec> with_transport(const LinkSpec& port, Transport transport);

}  // namespace fb::topo
