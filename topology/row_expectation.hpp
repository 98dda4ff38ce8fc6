#pragma once
// What the topology model expects of a measured results row, for the ranks where the row's run
// placed them: the bus bandwidth of a collective (what collective_model.hpp predicts NCCL picks),
// the bandwidth of a pair, or the time of a latency message. The model lives here, next to the
// routes and the ring model it reuses; judging a run by it (efficiency, reports) is the caller's.
//
// Placement: a rank is on the host its run recorded (provenance `rank_hosts`, or a pair row's
// src_host/dst_host). The k-th rank of a host measuring host memory (mpi, osu) sits on the host's
// CPU k mod CPUs, as `mpirun --map-by numa` deals them; without CPUs in the topology, on its
// first NIC. The k-th rank measuring GPU memory (nccl, cuda, nccl-tests) drives the host's GPU k.
// Two ranks on one CPU share memory over no link the model knows: no expectation.
//
// Pairs: one flow alone on its route (rank to NIC, NIC to NIC, NIC to rank): alpha is the sum of
// the link latencies, B the bottleneck. latency: time = alpha + bytes / B; bw, pairwise,
// concurrent: B; bibw: B there plus B back. Flows that share links while measured (pairwise rounds,
// concurrent pairs together) are judged against the pair alone here; diagnose models the sharing.

#include "results/result_row.hpp"
#include "topology/collective_model.hpp"
#include "topology/graph.hpp"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <utility>
#include <vector>

namespace fb::topo {

enum class RankMemory { host, gpu };

// The memory the backend's ranks measure; empty for backends the model does not place (the
// model's own predictions, micro-benchmarks).
std::optional<RankMemory> rank_memory_of(std::string_view backend);

// One flow alone between two ranks.
struct PairPath {
  double alpha_us = 0;        // link latencies along the route, summed
  double bandwidth_gbps = 0;  // the most the flow can push: its bottleneck
  std::string bottleneck;     // the bottleneck link's technology: "SMP AMD", "Ethernet", "IB NDR"
  // Set when the bottleneck is a link whose capacity the input left undecided (Graph::undecided):
  // the bandwidth is then the lower candidate, and an expectation from it is withheld.
  std::string undecided;
};

// How the collective model reached an expectation (row columns model_algorithm, ...).
struct ModelChoice {
  std::string algorithm;
  std::string protocol;
  std::optional<int> channels;
  std::string limit;
};

struct Expectation {
  std::optional<double> busbw_gbps;  // collectives and bandwidth pair ops
  std::optional<double> time_us;     // latency ops
  // Set when the model could not answer a row it should have: a host the topology does not have,
  // ranks sharing a CPU, a placement the collective model refuses. Empty for rows it never models
  // (ops it does not know, one rank, a backend it does not place).
  std::string problem;
  ModelChoice choice;  // collectives only

  Expectation(std::optional<double> busbw = {}, std::optional<double> time = {}, std::string why_not = {},
              ModelChoice how = {})
      : busbw_gbps(busbw), time_us(time), problem(std::move(why_not)), choice(std::move(how)) {}
};

struct PairPathResult {
  std::optional<PairPath> path;
  std::string problem;  // as Expectation::problem
};

// A pure function of (graph, placement, row), memoised: routes and ring models are computed once
// per pair of endpoints and per placement, so a 1,000-host pairwise run costs one route per pair.
class ExpectationModel {
 public:
  explicit ExpectationModel(const Graph& graph) : graph_(graph) {}

  // `rank_hosts`: the host of every rank of the row's run (empty when the run did not record it;
  // pair rows then rely on their src_host and dst_host).
  // `forced`: the algorithm/protocol the run forced (NCCL_ALGO, NCCL_PROTO), for collectives;
  // `tuning`: the figures of the NCCL release the run used (nccl_version_recorded);
  // `gpus_per_process`: the GPUs one of its threads launched in turn (ModelOptions).
  Expectation expect(const ResultRow& row, std::span<const std::string> rank_hosts, const Forced& forced = {},
                     const NcclTuning& tuning = newest_nccl_tuning(), int gpus_per_process = 1);

  // The path between a point-to-point or pair row's two ranks, src to dst.
  PairPathResult pair_path(const ResultRow& row, std::span<const std::string> rank_hosts);

 private:
  struct Endpoint {
    VertexId vertex = no_vertex;
    std::string problem;
  };

  Endpoint endpoint(const std::string& host_name, int local_index, RankMemory memory) const;
  Endpoint rank_endpoint(std::optional<int> rank, const std::string& host_name, int fallback_local_index,
                         RankMemory memory, std::span<const std::string> rank_hosts) const;
  PairPathResult path_between(VertexId src, VertexId dst);
  Expectation expect_collective(const ResultRow& row, const OpTraits& op, RankMemory memory,
                                std::span<const std::string> rank_hosts, const Forced& forced, const NcclTuning& tuning,
                                int gpus_per_process);

  const Graph& graph_;
  std::map<std::pair<VertexId, VertexId>, PairPathResult> paths_;
  // Per placement and GPUs per process.
  std::map<std::pair<std::vector<VertexId>, int>, std::variant<CollectiveModel, std::string>> models_;
};

// What a run's environment forces on NCCL: NCCL_ALGO and NCCL_PROTO when each names one algorithm
// or protocol (lists and exclusions leave NCCL a choice and force nothing here).
Forced forced_by_environment(const std::map<std::string, std::string>& environment);

// The NCCL release a run's provenance records: the library "nccl" (fabricbench's NCCL backend:
// "2.21.5"; nccl-tests' JSON: its version code) or "nccl-library" (nccl-tests' header line).
// Empty when it records neither or the text is not a version.
std::optional<NcclVersion> nccl_version_recorded(const std::map<std::string, std::string>& libraries);

// Writes the expectation into the row's expected_busbw_gbps / expected_time_us and sets
// efficiency_pct: measured busbw (algbw where busbw is undefined) over expected, or expected time
// over measured time, in percent.
void set_expectation(ResultRow& row, const Expectation& expectation);

}  // namespace fb::topo
