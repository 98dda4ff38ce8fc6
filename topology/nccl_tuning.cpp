#include "topology/nccl_tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

namespace fb::topo {

std::optional<NcclVersion> parse_nccl_version(std::string_view text) {
  const auto number = [&text](std::size_t& at) -> std::optional<int> {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
    if (error != std::errc() || end == text.data() + at) return std::nullopt;
    at = static_cast<std::size_t>(end - text.data());
    return value;
  };
  std::size_t at = 0;
  const std::optional<int> first = number(at);
  if (!first) return std::nullopt;
  if (at == text.size() || text[at] != '.') {
    // NCCL_VERSION_CODE: 2.9 on are major*10000 + minor*100 + patch, 2.8 and older major*1000 + ...
    if (at != text.size()) return std::nullopt;
    if (*first >= 20000 && *first < 100000) return NcclVersion{*first / 10000, *first / 100 % 100, *first % 100};
    if (*first >= 2000 && *first < 10000) return NcclVersion{*first / 1000, *first / 100 % 10, *first % 100};
    return std::nullopt;
  }
  ++at;
  const std::optional<int> minor = number(at);
  if (!minor) return std::nullopt;
  NcclVersion version{*first, *minor, 0};
  if (at < text.size() && text[at] == '.') {
    ++at;
    const std::optional<int> patch = number(at);
    if (!patch) return std::nullopt;
    version.patch = *patch;
  }
  // What may follow: a package suffix ("-1") or a build tag ("+cuda12.3").
  if (at < text.size() && text[at] != '-' && text[at] != '+') return std::nullopt;
  return version;
}

std::string to_string(const NcclVersion& version) {
  return fmt::format("{}.{}.{}", version.major, version.minor, version.patch);
}

namespace {

// Indices into LatencyFigures and GenerationFigures.
enum : std::size_t { ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat };
enum : std::size_t { volta, ampere, hopper, blackwell };

// NCCL's figures, read from src/graph/tuning.cc at the tag each block names, written as what
// changed from the previous range. Rows are {LL, LL128, Simple}; unused cells are 0.
std::vector<NcclTuning> build_tunings() {
  std::vector<NcclTuning> out;
  NcclTuning t;

  // v2.8.3-1 .. v2.11.4-1. (2.8-2.9 capped LL128 per op at 12-18.8 GB/s a channel; the table
  // takes the single 20 GB/s of 2.10-2.16.)
  t.first = {2, 8, 0};
  t.range = "2.8-2.11";
  t.source = "v2.8.3-1";
  t.base_latency_us[ring] = {3.6, 10.0, 8.4};
  t.base_latency_us[tree] = {4.4, 4.4, 0};
  t.base_latency_us[collnet_direct] = t.base_latency_us[collnet_chain] = {4.4, 4.4, 0};
  t.nvlink_hop_us[ring] = {.47, 1.9, 3.4};
  t.nvlink_hop_us[tree] = {.52, 1.25, 28};
  t.nvlink_hop_us[collnet_direct] = t.nvlink_hop_us[collnet_chain] = {0, 0, 8.0};
  t.pcie_hop_us[ring] = {1.0, 2.5, 5.7};
  t.pcie_hop_us[tree] = {1.0, 1.9, 28};
  t.pcie_hop_us[collnet_direct] = t.pcie_hop_us[collnet_chain] = {0, 0, 8.0};
  t.network_hop_us[ring] = {2.7, 4.0, 9.6};
  t.network_hop_us[tree] = {5.0, 8.5, 28};
  t.network_hop_us[collnet_direct] = t.network_hop_us[collnet_chain] = {0, 0, 10.7};
  // Hopper and Blackwell had no rows of their own yet: NCCL used Ampere's.
  t.ll_max_gbps = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}};
  t.ring_ll128_per_channel_gbps = {{{20, 20, 20}, {20, 20, 20}, {20, 20, 20}, {20, 20, 20}}};
  t.tree_ll128_per_channel_gbps = t.ring_ll128_per_channel_gbps;
  t.ring_ll_share = 1.0 / 4.0;
  t.ring_ll_share_other_one_node = 1.0 / 3.0;
  t.multi_node_ll_intra_factor = 1.8;
  t.collnet_arity_us = 0.5;
  out.push_back(t);

  t.first = {2, 12, 0};
  t.range = "2.12-2.13";
  t.source = "v2.12.12-1";
  t.network_hop_us[ring][2] = 28;
  out.push_back(t);

  t.first = {2, 14, 0};
  t.range = "2.14-2.16";
  t.source = "v2.15.5-1";
  t.network_hop_us[ring][2] = 9.6;
  out.push_back(t);

  // NVLS inside a node; LL128's cap per generation.
  t.first = {2, 17, 0};
  t.range = "2.17";
  t.source = "v2.17.1-1";
  t.base_latency_us[nvls] = {0, 0, 40};
  for (auto& row : t.ring_ll128_per_channel_gbps) row.fill(20);
  t.ring_ll128_per_channel_gbps[hopper].fill(36.7);
  t.tree_ll128_per_channel_gbps = t.ring_ll128_per_channel_gbps;
  t.has_nvls = true;
  t.has_nvls_gathers = true;
  out.push_back(t);

  // New base latencies; NVLS across nodes and NVLS-tree, but all_gather and reduce_scatter on
  // rings only; no 1.8x LL penalty.
  t.first = {2, 18, 0};
  t.range = "2.18";
  t.source = "v2.18.5-1";
  t.base_latency_us[ring] = {6.6, 14.0, 8.4};
  t.base_latency_us[tree] = {6.8, 14.0, 0};
  t.base_latency_us[collnet_direct] = t.base_latency_us[collnet_chain] = {6.8, 14.0, 0};
  t.base_latency_us[nvls] = t.base_latency_us[nvls_tree] = {0, 0, 23};
  t.nvlink_hop_us[ring] = {.6, 1.9, 3.4};
  t.nvlink_hop_us[tree] = {.6, 1.25, 4};
  t.nvlink_hop_us[collnet_chain] = {0, 0, 4.75};
  t.pcie_hop_us[tree] = {1.0, 1.9, 6};
  t.network_hop_us[ring] = {2.7, 4.0, 14.0};
  t.network_hop_us[tree] = {5.0, 8.5, 14};
  t.network_hop_us[collnet_chain] = {0, 0, 14};
  t.network_hop_us[nvls] = {0, 0, 18};
  t.network_hop_us[nvls_tree] = {0, 0, 19};
  t.tree_ll128_per_channel_gbps[hopper] = {36.7, 36.7, 29.0};
  t.multi_node_ll_intra_factor = 1.0;
  t.ring_network_overhead = true;
  t.nvls_tree_linear_in_nodes = true;
  t.has_multi_node_nvls = true;
  t.has_nvls_gathers = false;
  out.push_back(t);

  // NVLS and NVLS-tree pay an NVLink hop (23 us) instead of a base latency; NVLS gathers again;
  // tree Simple back to 28 us a hop; CollNet re-tuned.
  t.first = {2, 19, 0};
  t.range = "2.19";
  t.source = "v2.19.4-1";
  t.base_latency_us[collnet_direct] = t.base_latency_us[collnet_chain] = {0, 0, 0};
  t.base_latency_us[nvls] = t.base_latency_us[nvls_tree] = {0, 0, 0};
  t.nvlink_hop_us[tree] = {.6, 1.25, 28};
  t.nvlink_hop_us[collnet_direct] = {0, 0, 3.7};
  t.nvlink_hop_us[collnet_chain] = {0, 0, 2.8};
  t.nvlink_hop_us[nvls] = t.nvlink_hop_us[nvls_tree] = {0, 0, 23};
  t.pcie_hop_us[tree] = {1.0, 1.9, 28};
  t.pcie_hop_us[collnet_direct] = {0, 0, 3.7};
  t.pcie_hop_us[collnet_chain] = {0, 0, 2.8};
  t.network_hop_us[tree] = {5.0, 8.5, 28};
  t.network_hop_us[collnet_direct] = {0, 0, 31};
  t.network_hop_us[collnet_chain] = {0, 0, 30};
  t.network_hop_us[nvls_tree] = {0, 0, 14};
  t.nvls_tree_linear_in_nodes = false;
  t.collnet_arity_us = 0.4;
  t.has_nvls_gathers = true;
  out.push_back(t);

  // The tuner's figures as 2.19's; a send to a network peer halves its channels as ranks grow.
  t.first = {2, 20, 0};
  t.range = "2.20";
  t.source = "v2.20.5-1";
  t.p2p_net_channels = P2pNetChannels::halved_with_ranks;
  out.push_back(t);

  // Hopper gets its own LL ceiling; LL's ring share doubles.
  t.first = {2, 21, 0};
  t.range = "2.21-2.22";
  t.source = "v2.21.5-1";
  t.nvlink_hop_us[nvls] = t.nvlink_hop_us[nvls_tree] = {0, 0, 25};
  t.ll_max_gbps[hopper] = {141.0, 45.0, 35.0};
  t.ll_max_gbps[blackwell] = t.ll_max_gbps[hopper];
  t.ring_ll_share = t.ring_ll_share_other_one_node = 0.5;
  out.push_back(t);

  // Tree Simple re-tuned; PAT; one rank per node pays the tree's network hop.
  t.first = {2, 23, 0};
  t.range = "2.23-2.24";
  t.source = "v2.23.4-1";
  t.base_latency_us[tree] = {6.8, 14.0, 8.4};
  t.base_latency_us[pat] = {8.0, 8.0, 8.0};
  t.nvlink_hop_us[tree] = {.6, 1.25, 4.0};
  t.nvlink_hop_us[pat] = {0, 0, 4.0};
  t.pcie_hop_us[tree] = {1.0, 1.9, 4.0};
  t.pcie_hop_us[pat] = {0, 0, 4.0};
  t.network_hop_us[tree] = {5.0, 8.5, 14};
  t.network_hop_us[pat] = {0, 0, 14};
  t.one_rank_per_node_uses_tree_network_hop = true;
  t.has_pat = true;
  out.push_back(t);

  // Blackwell: LL128 enabled, its own LL and LL128 ceilings.
  t.first = {2, 25, 0};
  t.range = "2.25-2.27";
  t.source = "v2.27.7-1";
  t.ll_max_gbps[blackwell] = {2 * 141.0, 2 * 45.0, 2 * 35.0};
  t.ring_ll128_per_channel_gbps[blackwell].fill(2 * 36.7);
  t.tree_ll128_per_channel_gbps[blackwell] = {2 * 36.7, 2 * 36.7, 2 * 29.0};
  t.ll128_on_blackwell = true;
  out.push_back(t);

  t.first = {2, 28, 0};
  t.range = "2.28.0-2.28.8";
  t.source = "v2.28.7-1";
  t.ring_ll128_per_channel_gbps[blackwell] = {2 * 36.7, 34.6, 2 * 36.7};
  t.tree_ll128_per_channel_gbps[blackwell] = {55.6, 31.67, 20.0};
  out.push_back(t);

  // NVLS-tree's network hop re-tuned.
  t.first = {2, 28, 9};
  t.range = "2.28.9";
  t.source = "v2.28.9-1";
  t.network_hop_us[nvls_tree] = {0, 0, 20.9};
  out.push_back(t);

  t.first = {2, 29, 0};
  t.range = "2.29-2.30";
  t.source = "v2.30.7-1";
  t.p2p_net_channels = P2pNetChannels::by_nic_rate;
  t.ring_ll128_per_channel_gbps[blackwell].fill(40.0);
  out.push_back(t);
  return out;
}

const std::vector<NcclTuning>& tunings() {
  static const std::vector<NcclTuning> all = build_tunings();
  return all;
}

}  // namespace

std::span<const NcclTuning> nccl_tunings() { return tunings(); }

const NcclTuning& newest_nccl_tuning() { return tunings().back(); }

namespace {

int pow2_up(int value) {
  int pow2 = 1;
  while (pow2 < value) pow2 *= 2;
  return pow2;
}

}  // namespace

int p2p_channels_per_net_peer(const NcclTuning& tuning, int ranks, int channels, int nics_per_gpu, double gpu_net_gbps,
                              bool pcie_local_peers) {
  const int nics = std::max(1, nics_per_gpu);
  // NCCL takes the fewest channels any peer gets: a local peer over PCIe gets 2 (over NVLink,
  // 2 per NVLink's worth of bandwidth: never fewer than a network peer).
  const int local_cap = pcie_local_peers ? 2 : std::numeric_limits<int>::max();
  switch (tuning.p2p_net_channels) {
    case P2pNetChannels::two_per_peer: return std::min(2, channels);
    case P2pNetChannels::halved_with_ranks: {
      // "Avoid overloading channels with 8+ operations": p2pnChannels is the collective count here.
      int per_peer = 2;
      while (per_peer * ranks > channels * 4 && per_peer > 1) per_peer /= 2;
      return pow2_up(std::min({std::max(nics, per_peer), local_cap, channels}));
    }
    case P2pNetChannels::by_nic_rate: {
      const int p2p_channels = pow2_up(channels);
      const int needed = std::max(nics, static_cast<int>(std::ceil(gpu_net_gbps / p2p_channel_net_gbps - 1e-9)));
      int per_peer = std::min(pow2_up(std::min(needed, local_cap)), p2p_channels);
      // Every peer in one round: NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) peers share a channel.
      const int rounds = (ranks + 7) / 8;
      while (per_peer * rounds > p2p_channels && per_peer > 1) per_peer /= 2;
      return per_peer;
    }
  }
  return 2;
}

NcclTuningChoice nccl_tuning_for(std::optional<NcclVersion> version) {
  const std::vector<NcclTuning>& all = tunings();
  if (!version) {
    return {&all.back(), fmt::format("NCCL version not given: NCCL {}'s tuning figures (the newest the model has)",
                                     all.back().range)};
  }
  if (*version < all.front().first) {
    return {&all.front(), fmt::format("NCCL {} is older than the model's tuning tables: NCCL {}'s figures",
                                      to_string(*version), all.front().range)};
  }
  const NcclTuning* chosen = &all.front();
  for (const NcclTuning& tuning : all) {
    if (tuning.first <= *version) chosen = &tuning;
  }
  const std::optional<NcclVersion> newest_read = parse_nccl_version(chosen->source.substr(1));
  if (chosen == &all.back() && newest_read &&
      NcclVersion{version->major, version->minor, 0} > NcclVersion{newest_read->major, newest_read->minor, 0}) {
    return {chosen, fmt::format("NCCL {} is newer than the model's tuning tables: NCCL {}'s figures",
                                to_string(*version), chosen->range)};
  }
  return {chosen, ""};
}

}  // namespace fb::topo
