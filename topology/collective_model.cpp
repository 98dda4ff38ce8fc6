// The choice layer: what NCCL's tuner picks per op and size from the fabric layer's rates
// (collective_fabric.cpp) and its published latency and efficiency figures.

#include "topology/collective_model.hpp"

#include "common/errors.hpp"
#include "topology/prediction_interval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <optional>
#include <string>

namespace fb::topo {
namespace {

// NCCL's tuning figures per release range are in nccl_tuning.cpp; what follows holds for all.
constexpr int protocol_count = tuned_protocol_count;

// NCCL's correction of tree bandwidth at medium sizes, per protocol, powers of two from 64 B.
constexpr std::array<std::array<double, 24>, protocol_count> tree_correction{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

constexpr double tree_efficiency = 0.92;  // NCCL's tree all_reduce against its links
// A tree deeper than one level (4 nodes and more: some node has a parent and two children) gets
// half the network's rate: AWS's time model of NCCL (aws/aws-ofi-nccl
// src/tuner/nccl_ofi_model.cpp) gives the tree half the ring's inter-node bandwidth, and measured
// tree busbw is about half the ring's from 4 nodes up (issue #41: 190-196 GB/s over 8x 400G IB on
// B200 at 4-64 nodes). NCCL's own tuner keeps 0.92 of the link, which holds for a 2-node tree
// (one edge: nccl#1048, 86 GB/s of 96).
constexpr double deep_tree_network_share = 0.5;
// The switches' reduction (SHARP) against the ports, from sm_90: NCCL's tuner takes CollNet's
// rate x 0.85 there (src/graph/tuning.cc, `if (minCompCap >= 90) busBw *= .85`); 8x 400G NDR
// then plateaus at 613 GB/s where published IB SHARP runs reach 540-606 (issue #41).
constexpr double switch_reduction_efficiency_sm90 = 0.85;
constexpr double ll128_efficiency = 0.92;  // 120 payload bytes of every 128
constexpr double pat_efficiency = 0.75;
constexpr double network_post_overhead_us = 1.0;         // per network step (NCCL: 1 us Intel, 2 AMD)
constexpr std::uint64_t p2p_ll_threshold_bytes = 16384;  // NCCL_P2P_LL_THRESHOLD
// Grouped sends inside a node: posting one more send/recv pair over NVLink or PCIe (an
// assumption); a remote peer costs its transport's figure (network_transport.cpp).
constexpr double local_peer_us = 0.3;
// NVLS's CTAs (src/transport/nvls.cc): 16 on Hopper; on Blackwell 24 inside one NVLink domain and
// 32 across nodes from NCCL 2.27 (2.25-2.26 ran 32 everywhere; 2.30 retunes the multi-node count
// by NIC rate).
int nvls_channels(const CollectiveModel& m) {
  if (m.compute_capability < 100) return 16;
  return m.nodes > 1 ? 32 : 24;
}
// NVLS all_reduce inside one NVLink domain is a pipeline of three stages per channel (NCCL's
// src/device/all_reduce.h, RunWorkColl<ncclFuncAllReduce, NVLS, Simple>, one node: scatter warps
// write a loop's chunks to the heads' buffers, the heads' reduce warps multimem-reduce and
// broadcast them, gather warps copy the result out), so a call takes two loop-times more than its
// bytes alone while the first loop fills the pipeline. A loop is nChannels x nHeads chunks
// (src/enqueue.cc, calcCollChunking, pattern NVLS), heads the domain's GPUs up to
// NCCL_MAX_NVLS_ARITY, the chunk NCCL_NVLS_CHUNKSIZE's 128 KiB, halved to 64, 32 and 16 KiB
// below 64, 8 and 2 loops of it: the wider the domain, the longer the loop and the larger the
// call before the fill is small. NCCL's tuner does not count it.
constexpr int nvls_pipeline_stages = 3;
constexpr int nvls_max_heads = 32;
constexpr std::uint64_t nvls_default_chunk_bytes = 128 * 1024;
constexpr int nvls_measured_growth_gpus = 8;  // NVLS busbw measured to grow with g up to here
constexpr int ring_warning_nodes = 256;

std::size_t index_of(Algorithm a) { return static_cast<std::size_t>(a); }
std::size_t index_of(Protocol p) { return static_cast<std::size_t>(p); }

std::size_t generation_index(int compute_capability) {
  if (compute_capability >= 100) return 3;
  if (compute_capability >= 90) return 2;
  if (compute_capability >= 80) return 1;
  return 0;
}

int log2_floor(int n) { return n <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(n))) - 1; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}
}  // namespace

std::string_view name_of(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::ring: return "ring";
    case Algorithm::tree: return "tree";
    case Algorithm::nvls: return "nvls";
    case Algorithm::nvls_tree: return "nvls_tree";
    case Algorithm::collnet_direct: return "collnet_direct";
    case Algorithm::collnet_chain: return "collnet_chain";
    case Algorithm::pat: return "pat";
    case Algorithm::p2p: return "p2p";
  }
  return "unknown";
}

std::string_view name_of(Protocol protocol) {
  switch (protocol) {
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
    case Protocol::simple: return "Simple";
  }
  return "unknown";
}

const OpTraits* modelled_op(std::string_view name) {
  const OpTraits* op = find_op(name);
  return op && op->modelled_as != ModelledCollective::none ? op : nullptr;
}

std::optional<Algorithm> algorithm_from_string(std::string_view name) {
  std::string key = lower(name);
  std::erase(key, '_');
  for (int a = 0; a <= static_cast<int>(Algorithm::p2p); ++a) {
    std::string candidate(name_of(static_cast<Algorithm>(a)));
    std::erase(candidate, '_');
    if (key == candidate) return static_cast<Algorithm>(a);
  }
  return std::nullopt;
}

std::optional<Protocol> protocol_from_string(std::string_view name) {
  const std::string key = lower(name);
  for (int p = 0; p < protocol_count; ++p) {
    if (key == lower(name_of(static_cast<Protocol>(p)))) return static_cast<Protocol>(p);
  }
  return std::nullopt;
}

namespace {

struct Candidate {
  Algorithm algorithm;
  Protocol protocol;
  double busbw_gbps;  // at large sizes
  double latency_us;
  std::string limit;
  double bound_gbps;  // what `limit` allows the algorithm's traffic, before efficiencies and protocols
  // What NCCL's tuner takes the rate to be, where the model knows better (a deep tree): NCCL
  // chooses by it, the prediction's time uses busbw_gbps. 0: the same.
  double tuner_busbw_gbps = 0;
};

bool has_nvls(const CollectiveModel& m, const NcclTuning& t) {
  return t.has_nvls && m.gpu_ranks && m.nvswitch && m.compute_capability >= 90 && m.ranks_per_node > 1;
}

// Each GPU sends S + S/g through its NVLink to the switches: busbw 2(g-1)/(g+1) x its NVLink.
double nvls_traffic_factor(int gpus_per_domain) {
  const double g = gpus_per_domain;
  return 2 * (g - 1) / (g + 1);
}

double nvls_all_reduce_bound(const CollectiveModel& m) {
  return nvls_traffic_factor(m.ranks_per_node) * m.gpu_nvlink_gbps;
}

// NVLS's share of what its NVLink traffic allows (FittedConstants); none before Hopper.
double nvls_efficiency(const CollectiveModel& m) {
  const std::size_t generation = generation_index(m.compute_capability);
  if (generation == 3) return m.constants.nvls_efficiency_blackwell;
  return generation == 2 ? m.constants.nvls_efficiency_hopper : 0.0;
}

// What NVLS reaches follows S + S/g up to 8 GPUs (8 H100 at 5-8 GPUs, nccl#1455) and then stops
// growing: one GB200 NVL72 rack gives 811 GB/s on 8 of its GPUs and 834.6 on all 72, where
// S + S/g would grow 1.25x, and 8-GPU HGX B200/B300 give 830/845. No source says what bounds it.
double nvls_all_reduce_busbw(const CollectiveModel& m) {
  return nvls_traffic_factor(std::min(m.ranks_per_node, nvls_measured_growth_gpus)) * m.gpu_nvlink_gbps *
         nvls_efficiency(m);
}

double switch_reduction_efficiency(const CollectiveModel& m) {
  return m.compute_capability >= 90 ? switch_reduction_efficiency_sm90 : 1.0;
}

// What the transport adds to one network step: its per-message cost, and in Simple its flush or
// completion cost as well (NCCL's tuner adds a plugin's latency twice there, tuning.cc
// latencyInter).
double transport_step_us(const CollectiveModel& m, Protocol pr) {
  if (!m.transport) return 0.0;
  const TransportFigures& figures = figures_of(*m.transport);
  return figures.message_us + (pr == Protocol::simple ? figures.flush_us : 0.0);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one candidate per algorithm and protocol NCCL's tuner weighs, each with the conditions NCCL attaches to it; split, the conditions would hide from their table
std::vector<Candidate> enumerate(const CollectiveModel& m, ModelledCollective op, const NcclTuning& t) {
  const std::size_t generation = generation_index(m.compute_capability);
  const std::size_t node_index = m.nodes <= 2 ? static_cast<std::size_t>(m.nodes - 1) : 2;
  const double ll_max = m.nodes == 1 ? t.ll_max_gbps[generation][node_index] : t.ll_max_gbps[0][node_index];
  const int ppn = m.ranks_per_node;
  const bool multi_node = m.nodes > 1;
  const bool blackwell = m.compute_capability >= 100;
  const bool ll128_enabled =
      m.gpu_ranks && m.compute_capability >= 70 && (!blackwell || t.ll128_on_blackwell) && (m.nvlink_intra || ppn == 1);
  const bool reduces = op == ModelledCollective::all_reduce;
  const int p = m.ranks;
  const int nsteps = reduces ? 2 * (p - 1) : p - 1;
  const int inter_steps = !multi_node ? 0 : reduces ? 2 * (m.nodes - 1) : m.nodes - 1;
  const int depth = log2_floor(m.nodes);

  const auto intra_hop = [&](Algorithm a, Protocol pr) {
    return (m.nvlink_intra ? t.nvlink_hop_us : t.pcie_hop_us)[index_of(a)][index_of(pr)];
  };
  // One network step: with one rank per node latencies are fully exposed (NCCL takes the
  // tree's figure); Simple flushes, paying the fabric twice.
  const auto inter_hop = [&](Algorithm a, Protocol pr) {
    const Algorithm figure = ppn == 1 && t.one_rank_per_node_uses_tree_network_hop ? Algorithm::tree : a;
    return t.network_hop_us[index_of(figure)][index_of(pr)] + m.net_latency_us * (pr == Protocol::simple ? 2 : 1) +
           transport_step_us(m, pr);
  };
  const auto base = [&](Algorithm a, Protocol pr) { return t.base_latency_us[index_of(a)][index_of(pr)]; };

  const bool ll_share_reducing = multi_node || op == ModelledCollective::all_reduce || op == ModelledCollective::reduce;
  const double ll_share = ll_share_reducing ? t.ring_ll_share : t.ring_ll_share_other_one_node;
  std::vector<Candidate> out;
  const std::array<Protocol, 3> protocols{Protocol::ll, Protocol::ll128, Protocol::simple};
  const auto add_ring_family = [&](Algorithm a, double simple_gbps, const std::string& limit) {
    for (const Protocol pr : protocols) {
      if (!m.gpu_ranks && pr != Protocol::simple) continue;
      if (pr == Protocol::ll128 && !ll128_enabled) continue;
      double bw = simple_gbps;
      if (pr == Protocol::ll) bw = std::min(ll_max, ll_share * bw);
      if (pr == Protocol::ll128)
        bw = std::min(ll128_efficiency * bw, m.channels * t.ring_ll128_per_channel_gbps[generation][node_index]);
      double intra = intra_hop(Algorithm::ring, pr);
      if (multi_node && pr == Protocol::ll) intra *= t.multi_node_ll_intra_factor;
      if (multi_node && t.ring_network_overhead) {
        intra = std::max(intra, network_post_overhead_us * (pr == Protocol::simple ? 3 : 1));
      }
      const double latency =
          base(Algorithm::ring, pr) + (nsteps - inter_steps) * intra + inter_steps * inter_hop(Algorithm::ring, pr);
      out.push_back({a, pr, bw, latency, limit, simple_gbps});
    }
  };

  switch (op) {
    case ModelledCollective::none:
    case ModelledCollective::sendrecv:
    case ModelledCollective::gather:
    case ModelledCollective::scatter:
    case ModelledCollective::alltoall: break;
    // A pipelined chain from (or, reducing, to) the root: NCCL runs both on rings only.
    case ModelledCollective::broadcast:
    case ModelledCollective::reduce: add_ring_family(Algorithm::ring, m.ring_gbps, m.ring_limit); break;
    case ModelledCollective::all_gather:
    case ModelledCollective::reduce_scatter:
      add_ring_family(Algorithm::ring, m.ring_gbps, m.ring_limit);
      if (has_nvls(m, t) && t.has_nvls_gathers && !multi_node) {
        out.push_back({Algorithm::nvls, Protocol::simple, m.gpu_nvlink_gbps * nvls_efficiency(m),
                       base(Algorithm::nvls, Protocol::simple) + intra_hop(Algorithm::nvls, Protocol::simple),
                       "NVLink to the NVSwitches (NVLS multicast)", m.gpu_nvlink_gbps});
      }
      if (t.has_pat && m.gpu_ranks && multi_node && ppn == 1 && m.compute_capability >= 60) {
        out.push_back({Algorithm::pat, Protocol::simple, pat_efficiency * m.ring_gbps,
                       base(Algorithm::pat, Protocol::simple) +
                           depth * inter_hop(Algorithm::pat, Protocol::simple) / 3.5 + p * 2.8,
                       m.ring_limit, m.ring_gbps});
      }
      break;
    case ModelledCollective::all_reduce: {
      add_ring_family(Algorithm::ring, m.ring_gbps, m.ring_limit);
      // Tree: a chain inside each node, a double binary tree across nodes.
      // NCCL credits a 2-node tree's single crossing to NVLS-tree only: a plain tree is held to
      // the NICs' rate (2-node A100, nccl#1048: 86 GB/s over 96 of NICs, never above).
      const double tree_network = std::min(m.tree_net_gbps, m.net_gbps);
      const bool network_bound = multi_node && tree_network < m.intra_gbps;
      const double tree_bound = multi_node ? std::min(m.intra_gbps, tree_network) : m.intra_gbps;
      // A deep tree's network part at half its rate; NCCL's tuner does not know it and chooses by
      // the whole rate.
      const double deep_tree_gbps =
          depth >= 2 ? std::min(m.intra_gbps, tree_network * deep_tree_network_share) : tree_bound;
      const std::string tree_limit = !network_bound                 ? m.intra_limit
                                     : m.tree_net_gbps < m.net_gbps ? m.tree_limit
                                                                    : m.net_limit;
      const auto tree_rate = [&](double link_gbps, Protocol pr) {
        double bw = tree_efficiency * link_gbps;
        if (pr == Protocol::ll) bw = std::min(bw / 3.8, ll_max);
        if (pr == Protocol::ll128) {
          bw = std::min(bw * (multi_node ? 120.0 / 128.0 : 7.0 / 9.0),
                        m.channels * t.tree_ll128_per_channel_gbps[generation][node_index]);
        }
        return bw;
      };
      for (const Protocol pr : protocols) {
        if (!m.gpu_ranks && pr != Protocol::simple) continue;
        if (pr == Protocol::ll128 && !ll128_enabled) continue;
        const double intra =
            intra_hop(Algorithm::tree, pr) * (multi_node && pr == Protocol::ll ? t.multi_node_ll_intra_factor : 1.0);
        const double latency =
            base(Algorithm::tree, pr) + 2 * ((ppn - 1) * intra + depth * inter_hop(Algorithm::tree, pr));
        out.push_back({Algorithm::tree, pr, tree_rate(deep_tree_gbps, pr), latency, tree_limit, tree_bound,
                       tree_rate(tree_bound, pr)});
      }
      if (has_nvls(m, t)) {
        const double intra = intra_hop(Algorithm::nvls, Protocol::simple);
        const std::string nvls_limit = "NVLink to the NVSwitches (NVLS in-switch reduction)";
        if (!multi_node || (m.in_network_reduction && t.has_multi_node_nvls)) {
          const double sharp_gbps = m.net_gbps * 2 * (p - 1.0) / p * switch_reduction_efficiency(m);
          const double bw = multi_node ? std::min(nvls_all_reduce_busbw(m), sharp_gbps) : nvls_all_reduce_busbw(m);
          const double bound = multi_node ? std::min(nvls_all_reduce_bound(m), sharp_gbps) : nvls_all_reduce_bound(m);
          const double latency = base(Algorithm::nvls, Protocol::simple) + intra +
                                 (multi_node ? inter_hop(Algorithm::nvls, Protocol::simple) : 0.0);
          out.push_back({Algorithm::nvls, Protocol::simple, bw, latency,
                         multi_node && sharp_gbps < nvls_all_reduce_busbw(m) ? m.net_limit : nvls_limit, bound});
        }
        if (multi_node && t.has_multi_node_nvls) {
          const double network = m.tree_net_gbps;
          const int crossings = t.nvls_tree_linear_in_nodes ? m.nodes - 1 : depth;
          const double latency = base(Algorithm::nvls_tree, Protocol::simple) +
                                 intra_hop(Algorithm::nvls_tree, Protocol::simple) +
                                 2 * crossings * inter_hop(Algorithm::nvls_tree, Protocol::simple);
          out.push_back({Algorithm::nvls_tree, Protocol::simple, std::min(nvls_all_reduce_busbw(m), network), latency,
                         network < nvls_all_reduce_busbw(m) ? m.tree_limit : nvls_limit,
                         std::min(nvls_all_reduce_bound(m), network)});
        }
      }
      if (m.in_network_reduction && m.gpu_ranks) {
        // The switches reduce: each node sends its data across once.
        const double ports = m.net_gbps * 2 * (p - 1.0) / p;
        const double network = ports * switch_reduction_efficiency(m);
        const double bw = std::min(m.intra_gbps, network);
        const double bound = std::min(m.intra_gbps, ports);
        const std::string limit = network < m.intra_gbps ? m.net_limit : m.intra_limit;
        if (m.nvswitch) {
          const double intra = intra_hop(Algorithm::collnet_direct, Protocol::simple);
          out.push_back({Algorithm::collnet_direct, Protocol::simple, bw,
                         base(Algorithm::collnet_direct, Protocol::simple) +
                             2 * (std::min(1, ppn - 1) * intra + (ppn - 1) * t.collnet_arity_us) +
                             inter_hop(Algorithm::collnet_direct, Protocol::simple),
                         limit, bound});
        }
        out.push_back({Algorithm::collnet_chain, Protocol::simple, bw,
                       base(Algorithm::collnet_chain, Protocol::simple) +
                           2 * (ppn - 1) * intra_hop(Algorithm::collnet_chain, Protocol::simple) +
                           inter_hop(Algorithm::collnet_chain, Protocol::simple),
                       limit, bound});
      }
      break;
    }
  }
  return out;
}

// nccl-tests' factor; the model places at least 2 ranks, where it is defined.
double busbw_factor(const OpTraits& op, int ranks) { return busbw_factor_for(op, ranks).value(); }

// The host's part of a call: one launch per GPU its process drives, the last one's kernel ending it.
double launch_us(const CollectiveModel& m) {
  return m.gpu_ranks ? m.constants.launch_overhead_us * m.gpus_per_process : 0.0;
}

// The bytes NVLS all_reduce in one NVLink domain moves before its pipeline is full: the two
// stages after the first, one loop each (a call smaller than a loop crosses its three stages in
// turn).
double nvls_pipeline_fill_bytes(const CollectiveModel& m, std::uint64_t bytes) {
  const auto concurrent_chunks = static_cast<std::uint64_t>(nvls_channels(m)) *
                                 static_cast<std::uint64_t>(std::min(m.ranks_per_node, nvls_max_heads));
  std::uint64_t chunk = nvls_default_chunk_bytes;
  // NCCL's thresholds, each on the chunk the one before left.
  if (bytes < 64 * concurrent_chunks * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * concurrent_chunks * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * concurrent_chunks * chunk && chunk > 16384) chunk = 16384;
  return (nvls_pipeline_stages - 1) * static_cast<double>(std::min(bytes, concurrent_chunks * chunk));
}

Prediction timed(const CollectiveModel& m, const OpTraits& op, const Candidate& c, std::uint64_t bytes) {
  const bool all_reduce = op.modelled_as == ModelledCollective::all_reduce;
  double bw = c.busbw_gbps;
  double latency = c.latency_us;
  const int log_size = bytes >= 64 ? log2_floor(static_cast<int>(std::min<std::uint64_t>(bytes >> 6, 1u << 30))) : -1;
  if (c.algorithm == Algorithm::tree && all_reduce && log_size >= 0 && log_size < 23) {
    bw *= tree_correction[index_of(c.protocol)][static_cast<std::size_t>(log_size)];
  }
  // NCCL's ring plateau: a multi-node ring in Simple pays its latency again once chunks fill.
  if (c.algorithm == Algorithm::ring && c.protocol == Protocol::simple && m.nodes > 1 && all_reduce &&
      bytes / static_cast<std::uint64_t>(std::max(1, m.channels * m.ranks)) >= 64) {
    latency *= m.compute_capability < 80 ? 1.9 : 1.4;
  }
  const double algbw = bw / busbw_factor(op, m.ranks);
  // The tuner's view of the same candidate: the same corrections on its own rate.
  const double tuner_bw = c.tuner_busbw_gbps > 0 ? bw * c.tuner_busbw_gbps / c.busbw_gbps : bw;
  Prediction prediction;
  prediction.algorithm = c.algorithm;
  prediction.protocol = c.protocol;
  const bool nvls = c.algorithm == Algorithm::nvls || c.algorithm == Algorithm::nvls_tree;
  prediction.channels = nvls ? nvls_channels(m) : m.channels;
  const bool one_domain_nvls = c.algorithm == Algorithm::nvls && all_reduce && m.nodes == 1;
  const double fill_bytes = one_domain_nvls ? nvls_pipeline_fill_bytes(m, bytes) : 0.0;
  const double transfer_us = (static_cast<double>(bytes) + fill_bytes) / (algbw * 1e3);
  prediction.time_us = launch_us(m) + latency + transfer_us;
  prediction.bandwidth_share = transfer_us / prediction.time_us;
  prediction.tuner_time_us =
      launch_us(m) + latency + static_cast<double>(bytes) / (tuner_bw / busbw_factor(op, m.ranks) * 1e3);
  prediction.busbw_gbps = static_cast<double>(bytes) / (prediction.time_us * 1e3) * busbw_factor(op, m.ranks);
  prediction.limit = c.limit;
  prediction.bound_gbps = c.bound_gbps;
  const bool chain = op.modelled_as == ModelledCollective::broadcast || op.modelled_as == ModelledCollective::reduce;
  if (nvls && all_reduce && m.ranks_per_node > nvls_measured_growth_gpus) {
    prediction.assumption = fmt::format(
        "NVLS all_reduce on {} GPUs of one NVLink domain reaches what it does on {} (busbw measured flat from 8 to 72 "
        "GPUs in a GB200 NVL72 rack; what bounds it is not published)",
        m.ranks_per_node, nvls_measured_growth_gpus);
  }
  if (c.algorithm == Algorithm::ring && m.nodes > ring_warning_nodes && !chain) {
    prediction.warning =
        fmt::format("a ring across {} nodes has {} latency steps; no one runs that: NCCL picks trees, NVLS-tree or "
                    "PAT at this scale, and jobs this large use hierarchical (per-rail) collectives",
                    m.nodes, all_reduce ? 2 * (m.ranks - 1) : m.ranks - 1);
  }
  return prediction;
}

// alltoall, sendrecv, gather and scatter are grouped point-to-point sends in NCCL (nccl-tests
// builds gather and scatter from ncclSend/ncclRecv): no collective algorithm, LL up to
// NCCL_P2P_LL_THRESHOLD per peer and Simple above.
struct Transfer {
  double time_us = 0;
  std::string limit;
};

// The (g-1) shares of bytes/p a GPU exchanges with its own node's ranks, over its NVLink.
Transfer node_shares_transfer(const CollectiveModel& m, double bytes, std::string_view nvlink_limit) {
  const double g = m.ranks_per_node;
  if (g <= 1) return {};
  return {bytes * (g - 1) / m.ranks / ((m.nvlink_intra ? m.gpu_nvlink_gbps : m.intra_gbps) * 1e3),
          m.nvlink_intra ? std::string(nvlink_limit) : m.intra_limit};
}

// Every GPU sends bytes/p to every rank: (g-1) shares over NVLink, (p-g) over the network.
Transfer alltoall_transfer(const CollectiveModel& m, double bytes) {
  const double p = m.ranks;
  const double g = m.ranks_per_node;
  Transfer transfer = node_shares_transfer(m, bytes, "NVLink of one GPU");
  if (g > 1) {
    const double all_pairs_us = bytes / p / (m.local_all_pairs_gbps * 1e3);
    if (all_pairs_us > transfer.time_us * (1 + 1e-9)) transfer = {all_pairs_us, m.local_all_pairs_limit};
  }
  if (m.nodes > 1) {
    const double network_us = bytes * g * (p - g) / p / (m.alltoall_node_gbps * 1e3);
    const double nic_path_us = bytes * (p - g) / p / (m.gpu_nic_gbps * 1e3);
    if (network_us > transfer.time_us) transfer = {network_us, m.alltoall_limit};
    if (nic_path_us > transfer.time_us) {
      transfer = {nic_path_us, fmt::format("a GPU's PCIe path to its NIC ({:.1f} GB/s)", m.gpu_nic_gbps)};
    }
  }
  return transfer;
}

// The root exchanges bytes/p with every other rank. Its node's (g-1) shares cross the root's
// NVLink; the (p-g) from other nodes cross one rail: PXN forwards each sender's share to the GPU
// on the root NIC's rail, so all of it enters (gather) or leaves (scatter) through the root's NIC
// port and that NIC's PCIe path to the root.
Transfer root_transfer(const CollectiveModel& m, double bytes) {
  const double p = m.ranks;
  const double g = m.ranks_per_node;
  Transfer transfer = node_shares_transfer(m, bytes, "NVLink of the root GPU");
  if (m.nodes > 1) {
    const double rail_gbps = m.net_gbps / m.rails;
    const bool pcie_limits = m.gpu_nic_gbps <= rail_gbps;
    const double network_us = bytes * (p - g) / p / (std::min(rail_gbps, m.gpu_nic_gbps) * 1e3);
    if (network_us > transfer.time_us) {
      transfer = {network_us, pcie_limits
                                  ? fmt::format("the root GPU's PCIe path to its NIC ({:.1f} GB/s)", m.gpu_nic_gbps)
                                  : fmt::format("the root's NIC port, one rail ({:.1f} GB/s effective)", rail_gbps)};
    }
  }
  return transfer;
}

// sendrecv's pairs across nodes: the fabric's rate for the flow, or what the channels NCCL stripes
// a send to one network peer over carry (p2p_channels_per_net_peer), whichever is lower. Only a
// single peer is limited so: alltoall's many peers fill the NICs together.
Transfer sendrecv_transfer(const CollectiveModel& m, double bytes, const NcclTuning& t) {
  Transfer transfer{bytes / (m.sendrecv_gbps * 1e3), m.sendrecv_limit};
  if (m.nodes <= 1 || !m.gpu_ranks || m.rails <= 0) return transfer;
  // NCCL counts the NICs a GPU uses and their rate (one of 8 ports per GPU; four on AWS p5).
  const int nics = std::max(1, m.rails / std::max(1, m.ranks_per_node));
  const int channels = p2p_channels_per_net_peer(t, m.ranks, m.channels, nics, m.net_gbps / m.rails * nics,
                                                 m.ranks_per_node > 1 && !m.nvlink_intra);
  const double channels_gbps = channels * p2p_channel_net_gbps;
  if (channels_gbps < m.sendrecv_gbps) {
    transfer = {bytes / (channels_gbps * 1e3),
                fmt::format("{} p2p channel{} to the peer on the next node ({:.1f} GB/s each, NCCL's figure)", channels,
                            channels == 1 ? "" : "s", p2p_channel_net_gbps)};
  }
  return transfer;
}

Prediction point_to_point(const CollectiveModel& m, const OpTraits& op, std::uint64_t bytes, const Forced& forced,
                          const NcclTuning& t) {
  const bool every_peer = op.modelled_as != ModelledCollective::sendrecv;
  const int peers = every_peer ? m.ranks - 1 : 1;
  const std::uint64_t per_peer = bytes / static_cast<std::uint64_t>(every_peer ? m.ranks : 1);
  Protocol protocol = per_peer <= p2p_ll_threshold_bytes && m.gpu_ranks ? Protocol::ll : Protocol::simple;
  if (forced.protocol) protocol = *forced.protocol;
  const std::size_t pr = index_of(protocol);
  const double hop = m.nodes > 1 ? t.network_hop_us[0][pr] + m.net_latency_us + transport_step_us(m, protocol)
                                 : (m.nvlink_intra ? t.nvlink_hop_us : t.pcie_hop_us)[0][pr];
  // Every peer is one more send and receive to post and complete: over NVLink or PCIe inside the
  // node, through the transport's proxy for each remote one. alltoall, gather and scatter grow
  // with the peer count, not only with bytes.
  const int remote_peers = every_peer ? m.ranks - m.ranks_per_node : 0;
  const int local_peers = peers - remote_peers;
  const double peers_us = std::max(0, local_peers - 1) * local_peer_us +
                          (m.transport ? remote_peers * figures_of(*m.transport).remote_peer_us : 0.0);
  const double b = static_cast<double>(bytes);
  Transfer transfer;
  switch (op.modelled_as) {
    case ModelledCollective::sendrecv: transfer = sendrecv_transfer(m, b, t); break;
    case ModelledCollective::alltoall: transfer = alltoall_transfer(m, b); break;
    default: transfer = root_transfer(m, b); break;  // gather, scatter
  }
  Prediction prediction;
  prediction.algorithm = Algorithm::p2p;
  prediction.protocol = protocol;
  prediction.channels = m.channels;
  const double transfer_us = transfer.time_us / (protocol == Protocol::ll ? 0.5 : 1.0);
  prediction.time_us = launch_us(m) + t.base_latency_us[0][pr] + hop + peers_us + transfer_us;
  prediction.bandwidth_share = transfer_us / prediction.time_us;
  prediction.tuner_time_us = prediction.time_us;
  prediction.busbw_gbps = b / (prediction.time_us * 1e3) * busbw_factor(op, m.ranks);
  prediction.limit = transfer.limit;
  prediction.bound_gbps = transfer.time_us > 0 ? b / (transfer.time_us * 1e3) * busbw_factor(op, m.ranks)
                                               : std::numeric_limits<double>::infinity();
  return prediction;
}

// The grouped point-to-point ops above. Throws when the model has no formulas for the op.
bool is_grouped_point_to_point(const OpTraits& op) {
  switch (op.modelled_as) {
    case ModelledCollective::none: throw InputError(fmt::format("the topology model does not predict {}", op.name));
    case ModelledCollective::alltoall:
    case ModelledCollective::sendrecv:
    case ModelledCollective::gather:
    case ModelledCollective::scatter: return true;
    case ModelledCollective::all_reduce:
    case ModelledCollective::all_gather:
    case ModelledCollective::reduce_scatter:
    case ModelledCollective::broadcast:
    case ModelledCollective::reduce: return false;
  }
  return false;
}

// The 80% interval: the calibration's half-width for the transport and the ranks, weighed by the
// bandwidth share; its fast end held to what the limiting link allows, so it never claims the
// impossible.
void add_interval(const CollectiveModel& m, Prediction& prediction) {
  const double factor = std::exp(
      interval_half_width_log(shipped_interval_calibration(), m.transport, prediction.bandwidth_share, m.ranks));
  prediction.time_high_us = prediction.time_us * factor;
  prediction.busbw_low_gbps = prediction.busbw_gbps / factor;
  prediction.busbw_high_gbps =
      std::min(prediction.busbw_gbps * factor, std::max(prediction.bound_gbps, prediction.busbw_gbps));
  prediction.time_low_us = prediction.time_us * prediction.busbw_gbps / prediction.busbw_high_gbps;
}

// A prediction faster than the link that limits it is a bug in the model, never an answer.
// Returns it with its interval.
Prediction checked(const CollectiveModel& m, Prediction prediction, const OpTraits& op, std::uint64_t bytes) {
  add_interval(m, prediction);
  if (!(prediction.busbw_gbps <= prediction.bound_gbps * (1 + 1e-9))) {
    throw std::logic_error(fmt::format("collective model bug: {} {}/{} at {} B predicted {:.3f} GB/s busbw, over the "
                                       "{:.3f} GB/s its limiting link allows ({})",
                                       op.name, name_of(prediction.algorithm), name_of(prediction.protocol), bytes,
                                       prediction.busbw_gbps, prediction.bound_gbps, prediction.limit));
  }
  return prediction;
}

}  // namespace

double serial_launch_us(const CollectiveModel& model) {
  return model.gpu_ranks ? model.constants.launch_overhead_us * (model.gpus_per_process - 1) : 0.0;
}

std::vector<Prediction> candidates(const CollectiveModel& model, const OpTraits& op, std::uint64_t bytes,
                                   const NcclTuning& tuning) {
  std::vector<Prediction> out;
  if (is_grouped_point_to_point(op)) {
    out.push_back(checked(model, point_to_point(model, op, bytes, {}, tuning), op, bytes));
    return out;
  }
  for (const Candidate& c : enumerate(model, op.modelled_as, tuning)) {
    out.push_back(checked(model, timed(model, op, c, bytes), op, bytes));
  }
  return out;
}

Prediction predict(const CollectiveModel& model, const OpTraits& op, std::uint64_t bytes, const Forced& forced,
                   const NcclTuning& tuning) {
  if (is_grouped_point_to_point(op)) {
    if (forced.algorithm && *forced.algorithm != Algorithm::p2p) {
      throw InputError(
          fmt::format("{} is point-to-point in NCCL: no {} algorithm", op.name, name_of(*forced.algorithm)));
    }
    return checked(model, point_to_point(model, op, bytes, forced, tuning), op, bytes);
  }
  std::optional<Prediction> best;
  for (const Candidate& c : enumerate(model, op.modelled_as, tuning)) {
    if (forced.algorithm && c.algorithm != *forced.algorithm) continue;
    if (forced.protocol && c.protocol != *forced.protocol) continue;
    const Prediction p = checked(model, timed(model, op, c, bytes), op, bytes);
    if (!best || p.tuner_time_us < best->tuner_time_us) best = p;
  }
  if (!best) {
    throw InputError(fmt::format(
        "{}{}{} cannot run {} on {} ranks over {} nodes here with NCCL {} (NVLS needs NVSwitch, sm_90+ and NCCL "
        "2.17+, NVLS-tree several nodes and 2.18+, CollNet in-network reduction, PAT one GPU per node and 2.23+, "
        "LL128 NVLink, and on Blackwell 2.25+)",
        forced.algorithm ? name_of(*forced.algorithm) : "", forced.algorithm && forced.protocol ? "/" : "",
        forced.protocol ? name_of(*forced.protocol) : "", op.name, model.ranks, model.nodes, tuning.range));
  }
  return *best;
}

ResultRow predicted_row(const CollectiveModel& model, const Prediction& prediction, const OpTraits& op,
                        std::uint64_t bytes, std::string run_id, std::string timestamp) {
  constexpr std::size_t float_bytes = 4;
  ResultRow row;
  row.run_id = std::move(run_id);
  row.backend = "model";
  row.op = std::string(op.name);
  row.dtype = "float";
  row.redop = op.takes_redop ? "sum" : "none";
  if (op.takes_root) row.root = 0;
  row.nranks = model.ranks;
  row.nodes = model.nodes;
  row.ranks_per_node = model.ranks_per_node;
  row.bytes = bytes;
  row.count = count_per_rank(op, bytes, float_bytes, model.ranks);
  row.time_min_us = row.time_median_us = row.time_p99_us = row.time_max_us = prediction.time_us;
  row.algbw_gbps = static_cast<double>(bytes) / (prediction.time_us * 1e3);
  row.busbw_gbps = prediction.busbw_gbps;
  row.timestamp = std::move(timestamp);
  row.model_algorithm = std::string(name_of(prediction.algorithm));
  row.model_protocol = std::string(name_of(prediction.protocol));
  row.model_channels = prediction.channels;
  row.model_limit = prediction.limit;
  row.busbw_low_gbps = prediction.busbw_low_gbps;
  row.busbw_high_gbps = prediction.busbw_high_gbps;
  row.time_low_us = prediction.time_low_us;
  row.time_high_us = prediction.time_high_us;
  return row;
}

}  // namespace fb::topo
