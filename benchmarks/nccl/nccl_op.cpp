#include "benchmarks/nccl/nccl_op.hpp"

#include "benchmarks/cuda/device_pattern.hpp"
#include "benchmarks/nccl/nccl_check.hpp"

#include <algorithm>
#include <stdexcept>

namespace fb {

ncclDataType_t nccl_datatype_of(DataType type) {
  switch (type) {
    case DataType::int8: return ncclInt8;
    case DataType::uint8: return ncclUint8;
    case DataType::int32: return ncclInt32;
    case DataType::uint32: return ncclUint32;
    case DataType::int64: return ncclInt64;
    case DataType::uint64: return ncclUint64;
    case DataType::half: return ncclFloat16;
    case DataType::bfloat16: return ncclBfloat16;
    case DataType::float32: return ncclFloat32;
    case DataType::float64: return ncclFloat64;
  }
  throw std::logic_error("unknown DataType");
}

ncclRedOp_t nccl_redop_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
  }
  throw std::logic_error("unknown ReduceOp");
}

NcclCollectiveCase::NcclCollectiveCase(const BenchmarkCase& benchmark_case, const NcclOpContext& context)
    : case_(benchmark_case), context_(context) {}

void NcclCollectiveCase::allocate() {
  const std::size_t element_bytes = size_in_bytes(case_.dtype);
  for (const NcclGpu& gpu : context_.gpus) {
    const Layout sizes = layout(gpu.rank);
    GpuBuffers buffers;
    if (case_.placement == Placement::in_place) {
      const std::uint64_t elements =
          std::max(sizes.in_place_send_offset + sizes.send_count, sizes.in_place_recv_offset + sizes.recv_count);
      buffers.recv = DeviceBuffer(gpu.device, elements * element_bytes);
      auto* base = static_cast<unsigned char*>(buffers.recv.data());
      buffers.send_data = base + sizes.in_place_send_offset * element_bytes;
      buffers.recv_data = base + sizes.in_place_recv_offset * element_bytes;
    } else {
      buffers.send = DeviceBuffer(gpu.device, sizes.send_count * element_bytes);
      buffers.recv = DeviceBuffer(gpu.device, sizes.recv_count * element_bytes);
      buffers.send_data = buffers.send.data();
      buffers.recv_data = buffers.recv.data();
    }
    buffers_.push_back(std::move(buffers));
  }
}

void NcclCollectiveCase::fill_inputs() {
  for (std::size_t g = 0; g < context_.gpus.size(); ++g) {
    const NcclGpu& gpu = context_.gpus[g];
    const ScopedDevice on(gpu.device);
    fill_pattern_on_device(buffers_[g].send_data, case_.dtype, layout(gpu.rank).send_count, gpu.rank,
                           input_first_index(gpu.rank), pattern_redop(), gpu.stream);
  }
}

void NcclCollectiveCase::reset_outputs() {
  for (std::size_t g = 0; g < context_.gpus.size(); ++g) {
    const NcclGpu& gpu = context_.gpus[g];
    const ScopedDevice on(gpu.device);
    reset_output_on_device(buffers_[g].recv_data, case_.dtype, layout(gpu.rank).recv_count, expected_output(gpu.rank),
                           gpu.stream);
  }
}

// Blocking communicators (nccl_backend.cpp): the group's work is on the streams when
// ncclGroupEnd returns, with no wait for NCCL in between.
void NcclCollectiveCase::enqueue_iteration() {
  FB_NCCL_CHECK(ncclGroupStart());
  for (std::size_t g = 0; g < context_.gpus.size(); ++g)
    call(context_.gpus[g], buffers_[g].send_data, buffers_[g].recv_data);
  FB_NCCL_CHECK(ncclGroupEnd());
}

ExpectedPattern NcclCollectiveCase::expected_output(int rank) const {
  ExpectedPattern wanted = expected(rank);
  wanted.nranks = context_.nranks;
  wanted.redop = pattern_redop();
  return wanted;
}

std::uint64_t NcclCollectiveCase::count_wrong(std::size_t gpu_index) {
  const NcclGpu& gpu = context_.gpus[gpu_index];
  const ScopedDevice on(gpu.device);
  return count_wrong_on_device(buffers_[gpu_index].recv_data, case_.dtype, layout(gpu.rank).recv_count,
                               expected_output(gpu.rank), gpu.stream);
}

}  // namespace fb
