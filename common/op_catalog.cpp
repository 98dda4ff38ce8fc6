#include "common/op_catalog.hpp"

#include "common/errors.hpp"

#include <array>
#include <fmt/format.h>
#include <string>

namespace fb {
namespace {

constexpr OpTraits copy_op(std::string_view name, std::string_view summary, CopyRoute route, CopyEngine engine,
                           double algbw_bytes_factor = 1.0, bool bidirectional = false) {
  return {.name = name,
          .summary = summary,
          .op_class = OpClass::device_copy,
          .algbw_bytes_factor = algbw_bytes_factor,
          .bidirectional = bidirectional,
          .copy_route = route,
          .copy_engine = engine};
}

constexpr std::array ops{
    OpTraits{.name = "all_reduce",
             .summary = "every rank gets the reduction of all ranks' buffers",
             .takes_redop = true,
             .has_in_place = true,
             .busbw_factor = BusbwFactor::twice_ring_share,
             .modelled_as = ModelledCollective::all_reduce},
    OpTraits{.name = "all_gather",
             .summary = "every rank gets the concatenation of all ranks' buffers",
             .size_is_whole_buffer = true,
             .has_in_place = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::all_gather},
    OpTraits{.name = "reduce_scatter",
             .summary = "rank r gets block r of the reduction",
             .size_is_whole_buffer = true,
             .takes_redop = true,
             .has_in_place = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::reduce_scatter},
    OpTraits{.name = "broadcast",
             .summary = "every rank gets the root's buffer",
             .takes_root = true,
             .has_in_place = true,
             .modelled_as = ModelledCollective::broadcast},
    OpTraits{.name = "alltoall",
             .summary = "rank r sends block d of its buffer to rank d",
             .size_is_whole_buffer = true,
             .has_in_place = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::alltoall},
    // nccl-tests' reduce, gather and scatter: reduce moves one rank's buffer to the root (busbw =
    // algbw); gather and scatter sizes are the root's whole buffer, of which (n-1)/n crosses.
    OpTraits{.name = "reduce",
             .summary = "the root gets the reduction of all ranks' buffers",
             .takes_redop = true,
             .takes_root = true,
             .has_in_place = true,
             .modelled_as = ModelledCollective::reduce},
    OpTraits{.name = "gather",
             .summary = "the root gets the concatenation of all ranks' buffers",
             .size_is_whole_buffer = true,
             .takes_root = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::gather},
    OpTraits{.name = "scatter",
             .summary = "rank r gets block r of the root's buffer",
             .size_is_whole_buffer = true,
             .takes_root = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::scatter},
    // OSU's vector variants with equal counts: the same data movement as all_gather and alltoall.
    OpTraits{.name = "allgatherv",
             .summary = "all_gather through the vector interface, equal counts (osu_allgatherv)",
             .size_is_whole_buffer = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::all_gather},
    OpTraits{.name = "alltoallv",
             .summary = "alltoall through the vector interface, equal counts (osu_alltoallv)",
             .size_is_whole_buffer = true,
             .busbw_factor = BusbwFactor::ring_share,
             .modelled_as = ModelledCollective::alltoall},
    OpTraits{.name = "sendrecv",
             .summary = "ring neighbour exchange: send to rank+1, receive from rank-1",
             .has_in_place = true,
             .modelled_as = ModelledCollective::sendrecv},
    OpTraits{.name = "latency",
             .summary = "ping-pong between two ranks, half the round trip",
             .op_class = OpClass::point_to_point,
             .min_ranks = 2,
             .measures_latency = true},
    OpTraits{.name = "bw",
             .summary = "uni-directional streaming bandwidth, a window of messages in flight",
             .op_class = OpClass::point_to_point,
             .min_ranks = 2},
    OpTraits{.name = "bibw",
             .summary = "bi-directional streaming bandwidth, windows in flight both ways",
             .op_class = OpClass::point_to_point,
             .min_ranks = 2,
             .algbw_bytes_factor = 2.0,
             .bidirectional = true},
    OpTraits{.name = "pairwise",
             .summary = "bw between every pair of hosts, both directions, in rounds of disjoint pairs",
             .op_class = OpClass::pair_pattern,
             .min_ranks = 2,
             .pair_primitive = "bw",
             .pair_schedule = PairSchedule::round_robin},
    OpTraits{.name = "pairwise_latency",
             .summary = "latency between every pair of hosts, in rounds of disjoint pairs",
             .op_class = OpClass::pair_pattern,
             .min_ranks = 2,
             .pair_primitive = "latency",
             .pair_schedule = PairSchedule::round_robin},
    OpTraits{.name = "concurrent",
             .summary = "bw of pairs across a cut, each alone and then all at once: the test for blocking",
             .op_class = OpClass::pair_pattern,
             .min_ranks = 2,
             .pair_primitive = "bw",
             .pair_schedule = PairSchedule::cut_alone_then_together},
    // Device copies in the spirit of nvbandwidth: _ce through the copy engines (cudaMemcpyAsync),
    // _sm through a copy kernel. A local copy reads and writes every byte in device memory, so it
    // counts both, as device-memory bandwidth is quoted.
    copy_op("h2d_ce", "pinned host memory (the GPU's NUMA node) to each GPU, copy engine", CopyRoute::host_to_device,
            CopyEngine::copy_engine),
    copy_op("h2d_sm", "pinned host memory (the GPU's NUMA node) to each GPU, copy kernel", CopyRoute::host_to_device,
            CopyEngine::sm_kernel),
    copy_op("d2h_ce", "each GPU to pinned host memory on its NUMA node, copy engine", CopyRoute::device_to_host,
            CopyEngine::copy_engine),
    copy_op("d2h_sm", "each GPU to pinned host memory on its NUMA node, copy kernel", CopyRoute::device_to_host,
            CopyEngine::sm_kernel),
    copy_op("local_ce", "within each GPU's memory, copy engine (read + write bytes)", CopyRoute::device_local,
            CopyEngine::copy_engine, 2.0),
    copy_op("local_sm", "within each GPU's memory, copy kernel (read + write bytes)", CopyRoute::device_local,
            CopyEngine::sm_kernel, 2.0),
    copy_op("d2d_ce", "every GPU to every other GPU (peer matrix), copy engine", CopyRoute::device_to_device,
            CopyEngine::copy_engine),
    copy_op("d2d_sm", "every GPU to every other GPU (peer matrix), kernel on the source GPU writing to the peer",
            CopyRoute::device_to_device, CopyEngine::sm_kernel),
    copy_op("d2d_bidir_ce", "every pair of GPUs copying both ways at once, copy engines", CopyRoute::device_to_device,
            CopyEngine::copy_engine, 2.0, true),
    copy_op("d2d_bidir_sm", "every pair of GPUs copying both ways at once, copy kernels", CopyRoute::device_to_device,
            CopyEngine::sm_kernel, 2.0, true),
};

constexpr bool primitives_are_point_to_point() {
  for (const OpTraits& op : ops) {
    if ((op.op_class == OpClass::pair_pattern) == op.pair_primitive.empty()) return false;
    if (op.pair_primitive.empty()) continue;
    bool found = false;
    for (const OpTraits& primitive : ops)
      if (primitive.name == op.pair_primitive) found = primitive.op_class == OpClass::point_to_point;
    if (!found) return false;
  }
  return true;
}
static_assert(primitives_are_point_to_point(), "every pair pattern names a point-to-point op of the catalog");

}  // namespace

std::string_view name_of(Placement placement) { return placement == Placement::in_place ? "in-place" : "out-of-place"; }

std::span<const OpTraits> all_ops() { return ops; }

const OpTraits* find_op(std::string_view name) {
  for (const auto& op : ops)
    if (op.name == name) return &op;
  return nullptr;
}

const OpTraits& op_by_name(std::string_view name) {
  if (const auto* op = find_op(name)) return *op;
  std::string known;
  for (const auto& op : ops) known += fmt::format("{}{}", known.empty() ? "" : ", ", op.name);
  throw UsageError(fmt::format("unknown op '{}' (known: {})", name, known));
}

std::optional<double> busbw_factor_for(const OpTraits& op, int nranks) {
  if (nranks < 2) return std::nullopt;
  switch (op.busbw_factor) {
    case BusbwFactor::one: return 1.0;
    case BusbwFactor::ring_share: return static_cast<double>(nranks - 1) / nranks;
    case BusbwFactor::twice_ring_share: return 2.0 * (nranks - 1) / nranks;
  }
  return std::nullopt;
}

std::uint64_t size_unit_bytes(const OpTraits& op, std::size_t element_bytes, int nranks) {
  return op.size_is_whole_buffer ? element_bytes * static_cast<std::uint64_t>(nranks) : element_bytes;
}

std::uint64_t count_per_rank(const OpTraits& op, std::uint64_t bytes, std::size_t element_bytes, int nranks) {
  return bytes / size_unit_bytes(op, element_bytes, nranks);
}

bool is_pair_op(const OpTraits& op) {
  return op.op_class == OpClass::point_to_point || op.op_class == OpClass::pair_pattern;
}

const OpTraits& primitive_of(const OpTraits& op) {
  return op.pair_primitive.empty() ? op : *find_op(op.pair_primitive);
}

bool reports_latency(const OpTraits& op) { return primitive_of(op).measures_latency; }

bool measures_contention(const OpTraits& op) { return op.pair_schedule == PairSchedule::cut_alone_then_together; }

}  // namespace fb
