#pragma once
// Alpha-beta predictions of ring and tree collectives on a topology, in the results format
// measurements use (backend "model"), so predicted and measured sweeps compare row by row.
//
//   ring all_reduce                T = 2(p-1) a + 2(p-1)/p * n / B
//   ring all_gather, reduce_scatter T =  (p-1) a +  (p-1)/p * n / B
//   tree all_reduce                T = 2 ceil(log2 p) a + 2(p-1)/p * n / B
//   tree all_gather, reduce_scatter T =   ceil(log2 p) a +  (p-1)/p * n / B
//
// a is the slowest ring hop's latency (link latencies summed along its route); B is the
// bandwidth of one ring step: the rings NCCL would build (one per NIC a node has, each entering
// and leaving a node through a different GPU) running at once, under max-min fair sharing of
// every NVLink, PCIe link and fabric bundle they cross. n is the nccl-tests byte count (whole
// buffer for all_gather and reduce_scatter). The tree's bandwidth term is the ring's: a double
// binary tree moves the same bytes per node and reaches the same bus bandwidth for large n.

#include "topology/graph.hpp"

#include "results/result_row.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb::topo {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter };
enum class CollectiveAlgorithm { ring, tree };

std::string_view to_string(CollectiveOp op);
std::string_view to_string(CollectiveAlgorithm algorithm);
std::optional<CollectiveOp> collective_op_from_string(std::string_view name);
std::optional<CollectiveAlgorithm> collective_algorithm_from_string(std::string_view name);

struct RingModel {
  int ranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;  // the most ranks on one node
  int rings = 1;
  double alpha_us = 0;
  double step_bandwidth_gbps = 0;  // B: all rings together
};

// GPUs in rank order: the first `gpus_per_node` GPUs of each of the first `nodes` hosts that
// have GPUs (0 means all). Throws std::invalid_argument when the graph has fewer.
std::vector<VertexId> place_ranks(const Graph& graph, int nodes, int gpus_per_node);

// Throws std::invalid_argument with fewer than 2 ranks or a multi-node placement on a host
// without a NIC or fabric route.
RingModel model_rings(const Graph& graph, std::span<const VertexId> rank_gpus);

double predicted_time_us(const RingModel& model, CollectiveOp op, CollectiveAlgorithm algorithm,
                         std::uint64_t bytes);
double bus_bandwidth_factor(CollectiveOp op, int ranks);

// A results row for one predicted size; the timestamp is the caller's (ISO 8601 UTC).
ResultRow predicted_row(const RingModel& model, CollectiveOp op, CollectiveAlgorithm algorithm,
                        std::uint64_t bytes, std::string run_id, std::string timestamp);

}  // namespace fb::topo
