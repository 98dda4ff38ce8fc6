#include "common/op_catalog.hpp"

#include "common/errors.hpp"

#include <array>
#include <fmt/format.h>
#include <string>

namespace fb {
namespace {

double all_reduce_factor(int n) { return 2.0 * (n - 1) / n; }
double gather_scatter_factor(int n) { return static_cast<double>(n - 1) / n; }
double unit_factor(int) { return 1.0; }

constexpr OpTraits copy_op(std::string_view name, std::string_view summary, CopyRoute route, CopyEngine engine,
                           double algbw_bytes_factor = 1.0, bool bidirectional = false) {
  OpTraits op{name, summary, OpClass::device_copy, false, false, false, false, 1, unit_factor, algbw_bytes_factor};
  op.copy_route = route;
  op.copy_engine = engine;
  op.bidirectional = bidirectional;
  return op;
}

// name, summary, class, whole buffer, redop, root, in-place, min ranks, busbw factor, algbw bytes factor
constexpr std::array ops{
    OpTraits{"all_reduce", "every rank gets the reduction of all ranks' buffers", OpClass::collective, false,
             true, false, true, 1, all_reduce_factor, 1.0},
    OpTraits{"all_gather", "every rank gets the concatenation of all ranks' buffers", OpClass::collective,
             true, false, false, true, 1, gather_scatter_factor, 1.0},
    OpTraits{"reduce_scatter", "rank r gets block r of the reduction", OpClass::collective, true, true, false,
             true, 1, gather_scatter_factor, 1.0},
    OpTraits{"broadcast", "every rank gets the root's buffer", OpClass::collective, false, false, true, true, 1,
             unit_factor, 1.0},
    OpTraits{"alltoall", "rank r sends block d of its buffer to rank d", OpClass::collective, true, false, false,
             true, 1, gather_scatter_factor, 1.0},
    // nccl-tests' reduce, gather and scatter: reduce moves one rank's buffer to the root (busbw =
    // algbw); gather and scatter sizes are the root's whole buffer, of which (n-1)/n crosses.
    OpTraits{"reduce", "the root gets the reduction of all ranks' buffers", OpClass::collective, false, true, true,
             true, 1, unit_factor, 1.0},
    OpTraits{"gather", "the root gets the concatenation of all ranks' buffers", OpClass::collective, true, false,
             true, false, 1, gather_scatter_factor, 1.0},
    OpTraits{"scatter", "rank r gets block r of the root's buffer", OpClass::collective, true, false, true, false, 1,
             gather_scatter_factor, 1.0},
    // OSU's vector variants with equal counts: the same data movement as all_gather and alltoall.
    OpTraits{"allgatherv", "all_gather through the vector interface, equal counts (osu_allgatherv)",
             OpClass::collective, true, false, false, false, 1, gather_scatter_factor, 1.0},
    OpTraits{"alltoallv", "alltoall through the vector interface, equal counts (osu_alltoallv)", OpClass::collective,
             true, false, false, false, 1, gather_scatter_factor, 1.0},
    OpTraits{"sendrecv", "ring neighbour exchange: send to rank+1, receive from rank-1", OpClass::collective,
             false, false, false, true, 1, unit_factor, 1.0},
    OpTraits{"latency", "ping-pong between two ranks, half the round trip", OpClass::point_to_point, false,
             false, false, false, 2, unit_factor, 1.0},
    OpTraits{"bw", "uni-directional streaming bandwidth, a window of messages in flight",
             OpClass::point_to_point, false, false, false, false, 2, unit_factor, 1.0},
    OpTraits{"bibw", "bi-directional streaming bandwidth, windows in flight both ways", OpClass::point_to_point,
             false, false, false, false, 2, unit_factor, 2.0},
    OpTraits{"pairwise", "bw between every pair of hosts, both directions, in rounds of disjoint pairs",
             OpClass::pair_pattern, false, false, false, false, 2, unit_factor, 1.0, "bw", PairSchedule::round_robin},
    OpTraits{"pairwise_latency", "latency between every pair of hosts, in rounds of disjoint pairs",
             OpClass::pair_pattern, false, false, false, false, 2, unit_factor, 1.0, "latency", PairSchedule::round_robin},
    OpTraits{"concurrent", "bw of pairs across a cut, each alone and then all at once: the test for blocking",
             OpClass::pair_pattern, false, false, false, false, 2, unit_factor, 1.0, "bw",
             PairSchedule::cut_alone_then_together},
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

}  // namespace

std::string_view name_of(Placement placement) {
  return placement == Placement::in_place ? "in-place" : "out-of-place";
}

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
  return op.busbw_factor(nranks);
}

std::uint64_t size_unit_bytes(const OpTraits& op, std::size_t element_bytes, int nranks) {
  return op.size_is_whole_buffer ? element_bytes * static_cast<std::uint64_t>(nranks) : element_bytes;
}

std::uint64_t count_per_rank(const OpTraits& op, std::uint64_t bytes, std::size_t element_bytes, int nranks) {
  return bytes / size_unit_bytes(op, element_bytes, nranks);
}

}  // namespace fb
