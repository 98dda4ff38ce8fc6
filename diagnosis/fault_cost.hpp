#pragma once
// What a fault costs: the collective model's predicted slowdown of a job mix when the part a
// finding names is as slow as measured, against the healthy fabric. A 4x-throttled host cable
// halves an all_reduce across every node; one of 32 uplinks of a leaf at a quarter costs a few
// percent. Findings are ranked by it, so the technician starts where the jobs lose most.
//
// Where the fabric's forwarding tables are known, the cost is computed over the routed paths
// (topology/routed_collective.hpp): each step of the algorithm the tuner picks on the healthy
// fabric is routed hop by hop, and the fault stretches the step's bandwidth term by the ratio of
// its slowest flow with and without the fault. That takes the fabric (NIC to NIC, host cables
// included) as what bounds the healthy bandwidth term, as it does for ranks in host memory and for
// GPU nodes whose NICs are slower than their NVLink and PCIe; where a node's inside is slower, the
// routed stretch overstates a small fault. Without tables the collective model's own
// prediction stands, which pools a leaf's uplinks: a slow cable a ring is routed over is then
// priced at about nothing (docs/emulated-fabric.md measured +236% against +0.0%).

#include "common/op_catalog.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct MixedJob {
  const OpTraits* op = nullptr;  // an op the collective model predicts
  std::uint64_t bytes = 0;
};

// all_reduce of 1 GiB and alltoall of 1 GiB, each across every node.
std::vector<MixedJob> default_job_mix();
// "all_reduce:1G,alltoall:256M". Throws UsageError naming the bad entry.
std::vector<MixedJob> parse_job_mix(std::string_view text);
std::string describe_job_mix(const std::vector<MixedJob>& mix);

struct FaultCost {
  double slowdown = 0;   // predicted time of the mix with the fault over without it, minus 1
  std::string degraded;  // what the prediction degraded: "h003/mlx5_0 <-> leaf01 at 0.25 of its capacity"
};

// One entry per finding, in the diagnosis' order; empty where the finding names no part the model
// can degrade (a blocking link is the design itself; stalls and intermittent pairs have no rate).
// The jobs run on every host with a NIC: their GPUs where the topology has them, else host memory.
// `tables`: the fabric's forwarding tables, routed over the same graph; nullptr when unknown.
std::vector<std::optional<FaultCost>> predict_fault_costs(const topo::Graph& graph, const Diagnosis& diagnosis,
                                                          const std::vector<MixedJob>& mix,
                                                          const topo::TableRouter* tables = nullptr);

// What a ticket says of a finding the model gives no cost, "no predicted cost (WHY)": an
// intermittent fault has no steady rate to degrade, any other unpriced finding no rate the model
// degrades. The judgement keeps it with the ticket (FindingTicket::no_cost), which the report and
// the console print as it is.
std::string no_cost_text(const Finding& finding);

// Orders the findings by what they cost the mix, the dearest first; those the model cannot price
// keep their order after them. Returns the costs in the new order.
std::vector<std::optional<FaultCost>> rank_by_cost(const topo::Graph& graph, Diagnosis& diagnosis,
                                                   const std::vector<MixedJob>& mix,
                                                   const topo::TableRouter* tables = nullptr);

// How the costs were computed, said where they are printed: over the tables' routes with the
// algorithm held, or "routes unknown: uplinks pooled".
std::string describe_cost_basis(const topo::TableRouter* tables);

}  // namespace fb::diagnosis
