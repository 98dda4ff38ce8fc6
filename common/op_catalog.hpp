#pragma once
// What each benchmark op means, independent of the backend that runs it: how -b/-e sizes map to
// buffers, the bus-bandwidth factor, which flags apply, what the topology model predicts for it.
// Every stage asks these questions here, never by comparing op names.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fb {

// How a pair pattern chooses its pairs (common/pair_schedule.hpp).
enum class PairSchedule { none, round_robin, cut_alone_then_together };

// collective: every rank takes part. point_to_point: two ranks, the others idle. pair_pattern:
// many pairs of hosts, scheduled by the core (common/pair_schedule.hpp), each pair running the op's
// point-to-point primitive. device_copy: one process copies between the memories it sees (host,
// its GPUs), one route at a time, over every route the backend lists (Backend::device_routes).
enum class OpClass { collective, point_to_point, pair_pattern, device_copy };

// device_copy ops: which memories a route joins, and what moves the bytes.
enum class CopyRoute { none, host_to_device, device_to_host, device_local, device_to_device };
enum class CopyEngine { none, copy_engine, sm_kernel };  // cudaMemcpyAsync, or a copy kernel

// busbw = algbw x factor, with n ranks (nccl-tests doc/PERFORMANCE.md): what the busiest link
// carries relative to the message, comparable across rank counts.
enum class BusbwFactor {
  one,               // broadcast, reduce, sendrecv, point-to-point, copies
  ring_share,        // (n-1)/n: all_gather, reduce_scatter, alltoall, gather, scatter
  twice_ring_share,  // 2(n-1)/n: all_reduce
};

// The data movement the topology model has formulas for (topology/collective_model.hpp); none:
// the model predicts nothing for the op. OSU's vector variants with equal counts move the same
// data as their plain ops and share their formulas.
enum class ModelledCollective {
  none,
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  gather,
  scatter,
  alltoall,
  sendrecv
};

enum class Placement { out_of_place, in_place };
std::string_view name_of(Placement placement);

struct OpTraits {
  std::string_view name;
  std::string_view summary;
  OpClass op_class = OpClass::collective;
  // nccl-tests size semantics: for all_gather, reduce_scatter and alltoall the size is the whole
  // n-rank buffer, so a rank's share is size / n.
  bool size_is_whole_buffer = false;
  bool takes_redop = false;
  bool takes_root = false;
  bool has_in_place = false;
  int min_ranks = 1;
  BusbwFactor busbw_factor = BusbwFactor::one;
  // Bytes counted per timed unit relative to the message size: 2 for bibw, where both directions
  // carry a message in the same time, and for a local copy, which reads and writes every byte.
  double algbw_bytes_factor = 1.0;
  // The op's result is a time (half a round trip), not a bandwidth.
  bool measures_latency = false;
  // Both directions at once: bibw, and device copies both ways (algbw_bytes_factor 2).
  bool bidirectional = false;
  // pair_pattern ops: the point-to-point op every pair runs, and how the pairs are chosen.
  std::string_view pair_primitive = {};
  PairSchedule pair_schedule = PairSchedule::none;
  CopyRoute copy_route = CopyRoute::none;
  CopyEngine copy_engine = CopyEngine::none;
  ModelledCollective modelled_as = ModelledCollective::none;
};

std::span<const OpTraits> all_ops();

// nullptr when unknown.
const OpTraits* find_op(std::string_view name);

// Throws UsageError listing the known ops.
const OpTraits& op_by_name(std::string_view name);

// Bus bandwidth is undefined with one rank: nothing crosses a bus. Empty in that case.
std::optional<double> busbw_factor_for(const OpTraits& op, int nranks);

// Elements in one rank's buffer for a given size.
std::uint64_t count_per_rank(const OpTraits& op, std::uint64_t bytes, std::size_t element_bytes, int nranks);

// The granularity sizes must be a multiple of for this op, type and rank count.
std::uint64_t size_unit_bytes(const OpTraits& op, std::size_t element_bytes, int nranks);

// Between two ranks at a time: point-to-point ops and pair patterns.
bool is_pair_op(const OpTraits& op);

// The op each pair of a pair pattern runs; the op itself otherwise.
const OpTraits& primitive_of(const OpTraits& op);

// The op's rows carry a latency (time), not a bandwidth: latency and the patterns running it.
bool reports_latency(const OpTraits& op);

// Pairs measured both alone and all at once across a cut (the concurrent pattern).
bool measures_contention(const OpTraits& op);

}  // namespace fb
