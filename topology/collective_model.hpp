#pragma once
// Predictions of NCCL collectives on a topology, in the results format measurements use (backend
// "model"), so predicted and measured sweeps compare row by row.
//
// Two layers. The fabric layer (model_collectives, collective_fabric.cpp) measures what a
// placement of ranks can carry, with max-min fair sharing of every NVLink, PCIe link, NIC port and
// fabric bundle:
//   - rings as NCCL builds them: one per NIC (a rail), entering each node at a GPU near that NIC
//     and leaving through a GPU near it too, or through NVLink to it (PXN) when no second GPU is
//     near; a node's NICs are never pooled, so 32x 100G and 8x 400G differ where ports or PCIe
//     paths do;
//   - the node's network alone (what trees, NVLS-tree and CollNet cross), the intra-node ring,
//     one GPU's NVLink (NVLS), the neighbour exchange of sendrecv and the all-pairs exchange of
//     alltoall;
//   - with other jobs on the fabric (ModelOptions::sharing_jobs), their traffic as competing flows
//     in every solve that crosses the fabric.
// The choice layer (predict, collective_model.cpp) does what NCCL's tuner does per op and size:
// every enabled algorithm x protocol gets time = launch + latency + bytes / bandwidth, where
// latency follows NCCL's published base and per-hop figures (src/graph/tuning.cc) and bandwidth
// is the fabric layer's, scaled by the protocol's efficiency and capped by NCCL's per-channel
// limits; the fastest wins unless --algo/--proto force one, as NCCL_ALGO/NCCL_PROTO do.
//
// Bus bandwidth per algorithm (busbw = algbw x nccl-tests' factor; p ranks, N nodes, g per node):
//   ring       the ring rate B (all rails at once)
//   tree       0.92 x min(intra ring, tree network, the node's network): the double binary tree's
//              edges as flows on every rail at once (a 2-node tree sends each node's data across
//              once, a deeper one twice, a ring 2(p-1)/p times; edges between leaves feel a
//              tapered fabric). Only NVLS-tree is credited with the 2-node single crossing, as in
//              NCCL's tuner.
//   NVLS       2(g-1)/(g+1) x GPU NVLink x NVLS efficiency (each GPU sends S + S/g to the switch)
//   NVLS-tree  min(NVLS, tree network term)
//   CollNet    min(intra, network x 2(p-1)/p): the switch reduces, each node sends its data once
//   PAT        0.75 x ring (1 GPU per node only)

#include "topology/graph.hpp"
#include "topology/nccl_tuning.hpp"
#include "topology/network_transport.hpp"

#include "common/op_catalog.hpp"
#include "results/result_row.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {

// p2p: alltoall and sendrecv, grouped sends with no collective algorithm.
enum class Algorithm { ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat, p2p };
enum class Protocol { ll, ll128, simple };

std::string_view name_of(Algorithm algorithm);
std::string_view name_of(Protocol protocol);
// The catalog's op of that name when the model predicts it (OpTraits::modelled_as), else nullptr.
const OpTraits* modelled_op(std::string_view name);
// NCCL_ALGO / NCCL_PROTO spellings, case-insensitive: ring, tree, nvls, nvlstree, collnetdirect,
// collnetchain, pat, p2p; ll, ll128, simple.
std::optional<Algorithm> algorithm_from_string(std::string_view name);
std::optional<Protocol> protocol_from_string(std::string_view name);

// The traffic another job on the same fabric offers: its op's dominant pattern. Rings (all_reduce,
// all_gather, reduce_scatter, broadcast, reduce: NCCL's large-message ring, one per rail, its fabric hops),
// the all-pairs exchange between its nodes (alltoall), rank i to i + 1 (sendrecv). Empty for
// gather and scatter, whose traffic converges on one root and is not modelled as a neighbour's.
enum class SharingPattern { rings, all_pairs, neighbours };
std::string_view name_of(SharingPattern pattern);
std::optional<SharingPattern> sharing_pattern_of(const OpTraits& op);

// Another job running at the same time, on hosts of its own. It sends throughout the predicted
// job's collective (the worst case for it): its flows take their max-min fair share of every
// fabric link both jobs cross.
struct SharingJob {
  std::string name;  // how limits and explanations name it: "job 2 (alltoall on 64 nodes)"
  std::vector<VertexId> ranks;
  SharingPattern pattern = SharingPattern::rings;
};

struct ModelOptions {
  // The fabric reduces in the switches (SHARP): enables CollNet and multi-node NVLS.
  bool in_network_reduction = false;
  std::vector<SharingJob> sharing_jobs;
  // GPUs one process drives (nccl-tests -g): it launches their kernels one after another, so a
  // collective ends no sooner than the last GPU's launch. At least 1.
  int gpus_per_process = 1;
  // Model alltoall (its pairs inside the fullest node and its sampled host pairs across nodes).
  // Only an alltoall prediction reads those figures, and at a million GPUs they are a fifth of
  // the model's time; off, local_all_pairs_* and alltoall_* are left at NaN and empty.
  bool alltoall = true;
  // Model the double binary tree's network part (tree_net_gbps, read by all_reduce's tree and
  // NVLS-tree only) and the neighbour exchange (sendrecv_gbps, read by sendrecv only). At a
  // million GPUs they take 1.1 and 0.8 s; off, those figures are NaN and their limits empty.
  bool trees = true;
  bool sendrecv = true;
};

// The choice layer's free constants, fitted to published results by least squares on
// log(model/published) (tests/topology/calibration_loso_test.cpp fits them on every source, and on
// all sources but one for each source left out; docs/model.md gives the errors). A default must lie
// within 5% of the fit on every source and inside the range of the leave-one-source-out fits.
struct FittedConstants {
  // The host's cost of one collective call that back-to-back calls do not hide (stream ordering,
  // kernel start), paid once per GPU the calling thread drives. Fit 1.422 us (1.04-1.83 leaving
  // one source out).
  double launch_overhead_us = 1.422;
  // NVLS all_reduce against what its NVLink traffic allows. Fit 0.827 on Hopper (0.822-0.837;
  // NCCL's tuner figure, 0.85, is outside it), 0.719 on Blackwell (0.712-0.751 over three sources,
  // the GB200 NVL72 rack's sweep below its peak pulling it under NCCL's 0.74).
  double nvls_efficiency_hopper = 0.827;
  double nvls_efficiency_blackwell = 0.719;
};

// What one placement of ranks can carry; computed once, queried per op and size.
struct CollectiveModel {
  int ranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;  // the most ranks on one node
  bool gpu_ranks = true;   // ranks drive GPUs (NCCL); false: host memory (MPI), ring and tree only
  int compute_capability = 0;
  bool nvlink_intra = false;  // a node's ranks reach each other over NVLink
  bool nvswitch = false;      // and through NVSwitches: NVLS is possible from sm_90 on
  bool in_network_reduction = false;
  int gpus_per_process = 1;  // ModelOptions::gpus_per_process
  int rails = 0;             // rings across nodes: one per NIC
  int channels = 0;          // NCCL's channels for the ring: two per rail, or per NVLink pair in a node

  double ring_gbps = 0;  // B: all rings at once
  std::string ring_limit;
  double intra_gbps = 0;  // one node's ring alone (the intra-node part of trees)
  std::string intra_limit;
  double gpu_nvlink_gbps = 0;  // the slowest rank's NVLink to its switches
  double net_gbps = 0;         // one node's network, all rails at once, after transport efficiency
  std::string net_limit;
  double tree_net_gbps = 0;  // busbw of NCCL's double binary tree over the nodes, network part
  std::string tree_limit;
  double sendrecv_gbps = 0;  // rank i to i+1, all at once
  std::string sendrecv_limit;
  double alltoall_node_gbps = 0;  // what one node sends when every node sends to every other
  // One pair's rate when all of a node's ranks send to each other at once (alltoall inside a node).
  double local_all_pairs_gbps = 0;
  std::string local_all_pairs_limit;
  std::string alltoall_limit;
  double gpu_nic_gbps = 0;    // the slowest rank's path to its nearest NIC
  double net_latency_us = 0;  // one fabric crossing, NIC to NIC
  // How NCCL crosses the network (the ranks' NICs' transport; the costliest when they differ);
  // empty on one node.
  std::optional<Transport> transport;
  FittedConstants constants;
  std::vector<std::string> assumptions;
  std::string alltoall_assumption;  // beyond 128 nodes: the sampled peers standing for all
  // One line per sharing job: its pattern and what of it crosses the fabric.
  std::vector<std::string> sharing;
};

// Which hosts a job gets: packed (the first N hosts in the topology's order, so neighbours share
// leaves), spread (N hosts evenly spaced over all of them, so they do not), or named hosts.
struct Placement {
  enum class Kind { packed, spread, hosts };
  Kind kind = Kind::packed;
  std::vector<std::string> hosts;  // Kind::hosts, in rank order
};

// GPUs in rank order: the first `gpus_per_node` GPUs (0: all) of each of `nodes` hosts with GPUs
// (0: all, or as many as named) chosen by the placement. Throws InputError when the
// graph has fewer, or a named host is not in it or has no GPU.
std::vector<VertexId> place_ranks(const Graph& graph, int nodes, int gpus_per_node, const Placement& placement = {});

struct JobPlacement {
  int nodes = 0;  // 0: every host the other jobs leave free (or as many as named)
  int gpus_per_node = 0;
  Placement placement;
};

// Several jobs' ranks, as place_ranks does for one, on hosts no two jobs share: named hosts are
// reserved first (a host two jobs name is an InputError naming it), then packed and spread jobs,
// in order, take theirs from the hosts still free (packed: the first free ones; spread: evenly
// over the free ones), and jobs of 0 nodes what is left. Errors name the job (job 1 is the first).
std::vector<std::vector<VertexId>> place_jobs(const Graph& graph, std::span<const JobPlacement> jobs);

// Throws InputError with fewer than 2 ranks, a multi-node placement on a host
// without a NIC or fabric route, or a sharing job on one of the ranks' hosts.
CollectiveModel model_collectives(const Graph& graph, std::span<const VertexId> rank_vertices,
                                  const ModelOptions& options = {});

// What launching the kernels of a process's other GPUs adds to every GPU collective: one launch
// overhead per GPU after the first (0 with one GPU per process, or ranks in host memory).
double serial_launch_us(const CollectiveModel& model);

struct Forced {
  std::optional<Algorithm> algorithm;  // NCCL_ALGO
  std::optional<Protocol> protocol;    // NCCL_PROTO
};

struct Prediction {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  int channels = 0;
  double time_us = 0;
  double busbw_gbps = 0;  // at this size
  std::string limit;      // the link that bounds the bandwidth term
  // The busbw that link allows this algorithm's traffic (no latency, no protocol overhead): a
  // prediction above it is a bug in the model, refused with std::logic_error.
  double bound_gbps = 0;
  std::string warning;     // a setup no one runs (ring across thousands of nodes), else empty
  std::string assumption;  // an empirical limit the prediction rests on, else empty
  // The share of time_us that is bytes over bandwidth (the rest: launch and latency); it weighs
  // the bandwidth and latency regimes of the interval.
  double bandwidth_share = 0;
  // The time NCCL's tuner expects (its rates, where the model knows better: a tree deeper than one
  // level): predict() chooses by it, as NCCL does.
  double tuner_time_us = 0;
  // The 80% prediction interval (prediction_interval.hpp): where a measurement of this prediction
  // falls 4 times in 5, judged by the model's errors on published points it was not fitted to.
  // It always holds the point prediction, and busbw_high_gbps never exceeds bound_gbps.
  double time_low_us = 0;
  double time_high_us = 0;
  double busbw_low_gbps = 0;
  double busbw_high_gbps = 0;
};

// `tuning`: the figures of the NCCL release whose tuner the choice follows (nccl_tuning.hpp).

// Every algorithm x protocol NCCL would consider for the op on this model, with its time. The op
// must be one the model predicts (modelled_op); InputError otherwise.
std::vector<Prediction> candidates(const CollectiveModel& model, const OpTraits& op, std::uint64_t bytes,
                                   const NcclTuning& tuning = newest_nccl_tuning());

// The fastest candidate among those `forced` allows. Throws InputError when the forced
// algorithm or protocol cannot run the op here (NVLS without NVSwitch, PAT with 8 GPUs per node).
Prediction predict(const CollectiveModel& model, const OpTraits& op, std::uint64_t bytes, const Forced& forced = {},
                   const NcclTuning& tuning = newest_nccl_tuning());

// A results row for one prediction; the timestamp is the caller's (ISO 8601 UTC).
ResultRow predicted_row(const CollectiveModel& model, const Prediction& prediction, const OpTraits& op,
                        std::uint64_t bytes, std::string run_id, std::string timestamp);

}  // namespace fb::topo
