#pragma once
// Diagnosis of RDMA port counters: the ports whose errors grew (or that went down or changed rate)
// while a run measured, joined to that run's pair measurements on the port's host.

#include "results/port_counters.hpp"
#include "results/result_row.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/graph.hpp"

#include <span>
#include <vector>

namespace fb::diagnosis {

// One port_errors finding per degraded port of `changes`, all from the run that measured `rows`.
// Its subject names the port, where the topology has the host the NIC's cable (the NIC named like
// the port's RDMA device, else the host's first NIC), and what grew: "h3 mlx5_0/1 (h3/mlx5_0 <->
// leaf1): symbol_error +800". A pair row is slow when its bandwidth is
// under settings.slow_ratio of the median of its run, op, size and concurrency (each run's largest
// size, as diagnose() takes); the evidence lists the host's slow pairs, and the confidence is the
// share of the host's pair rows that are slow (0 when the run measured no pair touching the host).
std::vector<Finding> diagnose_port_counters(const topo::Graph& graph, std::span<const PortCounterChange> changes,
                                            std::span<const ResultRow> rows, const DiagnosisSettings& settings = {});

}  // namespace fb::diagnosis
