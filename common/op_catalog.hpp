#pragma once
// What each benchmark op means, independent of the backend that runs it: how -b/-e sizes map to
// buffers, the bus-bandwidth factor, which flags apply. Backends look ops up here by name.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fb {

// How a pair pattern chooses its pairs (core/pair_patterns.hpp).
enum class PairSchedule { none, round_robin, cut_alone_then_together };

// collective: every rank takes part. point_to_point: two ranks, the others idle. pair_pattern:
// many pairs of hosts, scheduled by the core (core/pair_patterns.hpp), each pair running the op's
// point-to-point primitive. device_copy: one process copies between the memories it sees (host,
// its GPUs), one route at a time, over every route the backend lists (Backend::device_routes).
enum class OpClass { collective, point_to_point, pair_pattern, device_copy };

// device_copy ops: which memories a route joins, and what moves the bytes.
enum class CopyRoute { none, host_to_device, device_to_host, device_local, device_to_device };
enum class CopyEngine { none, copy_engine, sm_kernel };  // cudaMemcpyAsync, or a copy kernel

enum class Placement { out_of_place, in_place };
std::string_view name_of(Placement placement);

struct OpTraits {
  std::string_view name;
  std::string_view summary;
  OpClass op_class;
  // nccl-tests size semantics: for all_gather, reduce_scatter and alltoall the size is the whole
  // n-rank buffer, so a rank's share is size / n.
  bool size_is_whole_buffer;
  bool takes_redop;
  bool takes_root;
  bool has_in_place;
  int min_ranks;
  // Multiplies algbw into busbw, which is comparable across rank counts (nccl-tests PERFORMANCE.md).
  double (*busbw_factor)(int nranks);
  // Bytes counted per timed unit relative to the message size: 2 for bibw, where both directions
  // carry a message in the same time.
  double algbw_bytes_factor;
  // pair_pattern ops: the point-to-point op every pair runs, and how the pairs are chosen.
  std::string_view pair_primitive = {};
  PairSchedule pair_schedule = PairSchedule::none;
  CopyRoute copy_route = CopyRoute::none;
  CopyEngine copy_engine = CopyEngine::none;
  bool bidirectional = false;  // device copies both ways at once (algbw_bytes_factor 2)
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

}  // namespace fb
