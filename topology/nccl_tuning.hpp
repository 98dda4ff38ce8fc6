#pragma once
// The figures NCCL's tuner uses to pick an algorithm and protocol, per range of NCCL versions.
// They changed between releases (base and per-hop latencies, the NVLS and NVLS-tree latency
// formulas, LL's bandwidth share, which algorithms and protocols exist on which GPUs), so a
// published result is predicted with the figures of the NCCL that produced it.
//
// The figures are public numbers read from NCCL's src/graph/tuning.cc at each release tag named
// in nccl_tuning.cpp; the tables there are ours, written as what changed at each release.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fb::topo {

struct NcclVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  auto operator<=>(const NcclVersion&) const = default;
};

// "2.21", "2.21.5", "2.21.5-1", "2.21.5+cuda12.3", or NCCL_VERSION_CODE as nccl-tests prints it
// ("nccl-library=22105": major*10000 + minor*100 + patch; 2.8 and older: major*1000 + minor*100 +
// patch). Empty when the text is none of these.
std::optional<NcclVersion> parse_nccl_version(std::string_view text);
std::string to_string(const NcclVersion& version);

constexpr int tuned_algorithm_count = 7;  // ring, tree, NVLS, NVLS-tree, CollNet direct, CollNet chain, PAT
constexpr int tuned_protocol_count = 3;   // LL, LL128, Simple
// [algorithm][protocol], in the order of Algorithm and Protocol (collective_model.hpp).
using LatencyFigures = std::array<std::array<double, tuned_protocol_count>, tuned_algorithm_count>;
// [GPU generation: Volta, Ampere, Hopper, Blackwell][node count: 1, 2, more].
using GenerationFigures = std::array<std::array<double, 3>, 4>;

// How many channels a send to a peer on another node is striped over (NCCL's
// p2pnChannelsPerPeer for network peers, src/graph/paths.cc ncclTopoGetNchannels and
// ncclTopoComputeP2pChannels at each release):
//   two_per_peer        up to 2.19: NCCL_NCHANNELS_PER_NET_PEER, 2 by default;
//   halved_with_ranks   2.20-2.28: 2, halved while 2 x ranks > 4 x the channels (at least the NICs
//                       a GPU needs for its bandwidth);
//   by_nic_rate         2.29 on: one per 14 GB/s of the GPU's NICs (NCCL_P2P_PER_CHANNEL_NET_BW),
//                       at least one per NIC, rounded up to a power of two, halved while
//                       that x ceil(ranks / 8) exceeds the channels.
enum class P2pNetChannels { two_per_peer, halved_with_ranks, by_nic_rate };

struct NcclTuning {
  NcclVersion first;        // the first release these figures hold for
  std::string_view range;   // "2.21-2.22", for explanations
  std::string_view source;  // the release tag the figures were read from

  LatencyFigures base_latency_us{};
  LatencyFigures nvlink_hop_us{};
  LatencyFigures pcie_hop_us{};
  LatencyFigures network_hop_us{};

  // LL's ceiling: one node by GPU generation; several nodes by CPU (row 0 Intel, row 1 AMD).
  GenerationFigures ll_max_gbps{};
  GenerationFigures ring_ll128_per_channel_gbps{};
  GenerationFigures tree_ll128_per_channel_gbps{};
  // A ring's LL bandwidth against Simple's: reducing or across nodes, and the other ops in one node.
  double ring_ll_share = 0.5;
  double ring_ll_share_other_one_node = 0.5;
  // Before 2.18 an LL hop inside a node cost 1.8x when the ring also crossed the network.
  double multi_node_ll_intra_factor = 1.0;
  // From 2.18: a ring step across nodes costs at least the network's per-step overhead.
  bool ring_network_overhead = false;
  // From 2.23: with one rank per node every algorithm pays the tree's network hop.
  bool one_rank_per_node_uses_tree_network_hop = false;
  // 2.18: NVLS-tree crossed the network 2(N-1) times and NVLS had no NVLink hop; from 2.19,
  // 2 log2(N) crossings after one NVLink hop.
  bool nvls_tree_linear_in_nodes = false;
  double collnet_arity_us = 0.4;  // CollNet direct: serialising each extra local rank

  bool has_nvls = false;             // NVLink SHARP inside a node (2.17)
  bool has_multi_node_nvls = false;  // NVLS with the network's SHARP, and NVLS-tree (2.18)
  bool has_nvls_gathers = false;     // NVLS for all_gather and reduce_scatter (2.17, then from 2.19)
  bool has_pat = false;              // PAT for all_gather/reduce_scatter, one GPU per node (2.23)
  bool ll128_on_blackwell = false;   // LL128 enabled by default on sm_100 and sm_120 (2.25)
  P2pNetChannels p2p_net_channels = P2pNetChannels::two_per_peer;
};

// What one p2p channel carries across the network: NCCL's own figure for sizing them
// (NCCL_P2P_PER_CHANNEL_NET_BW, 14 GB/s, src/graph/paths.cc from 2.29). One channel is one CTA
// and one proxy connection with NCCL_STEPS buffers in flight, whatever the NIC's rate.
constexpr double p2p_channel_net_gbps = 14.0;

// The channels NCCL stripes a send to one peer on another node over, under `tuning`'s release:
// `ranks` in the communicator, `channels` its collective channels (NCCL's nChannels),
// `nics_per_gpu` the NICs a GPU uses and `gpu_net_gbps` their rate together; `pcie_local_peers`
// when the node's other ranks are reached over PCIe (NCCL gives such a peer 2 channels and takes
// the fewest over all peers).
int p2p_channels_per_net_peer(const NcclTuning& tuning, int ranks, int channels, int nics_per_gpu, double gpu_net_gbps,
                              bool pcie_local_peers = false);

// The figures of the release range holding `version`; the newest when empty. A version older
// than the oldest range gets the oldest range's figures (NcclTuningChoice says so).
struct NcclTuningChoice {
  const NcclTuning* tuning = nullptr;
  std::string assumption;  // non-empty when the version was not given or is outside the table
};
NcclTuningChoice nccl_tuning_for(std::optional<NcclVersion> version);
const NcclTuning& newest_nccl_tuning();
std::span<const NcclTuning> nccl_tunings();

}  // namespace fb::topo
