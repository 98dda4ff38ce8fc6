// The device validation kernels against the host pattern they mirror. They need a GPU; without
// one each test skips with a message.

#include "common/errors.hpp"
#include "benchmarks/core/pattern.hpp"
#include "benchmarks/cuda/device_memory.hpp"
#include "benchmarks/cuda/device_pattern.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace fb {
namespace {

class DevicePattern : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      require_visible_gpus("device pattern test", 1);
    } catch (const NoDeviceError& e) { GTEST_SKIP() << e.what(); }
    stream_.emplace(0);
  }
  cudaStream_t stream() const { return stream_->get(); }

  std::optional<CudaStream> stream_;
};

TEST_F(DevicePattern, FillMatchesTheHostPatternInEveryType) {
  constexpr std::uint64_t count = 100'003;  // not a multiple of any block size
  for (DataType type : all_data_types()) {
    SCOPED_TRACE(name_of(type));
    DeviceBuffer buffer(0, count * size_in_bytes(type));
    fill_pattern_on_device(buffer.data(), type, count, 3, 17, ReduceOp::sum, stream());
    const ExpectedPattern expected{.nranks = 4, .source_rank = 3, .first_index = 17};
    EXPECT_EQ(count_wrong_on_device(buffer.data(), type, count, expected, stream()), 0u);
    // Another rank's pattern is wrong almost everywhere.
    const ExpectedPattern other_rank{.nranks = 4, .source_rank = 2, .first_index = 17};
    EXPECT_GT(count_wrong_on_device(buffer.data(), type, count, other_rank, stream()), count / 2);
  }
}

TEST_F(DevicePattern, CountsExactlyTheCorruptedElements) {
  constexpr std::uint64_t count = 1 << 20;
  DeviceBuffer buffer(0, count * sizeof(float));
  fill_pattern_on_device(buffer.data(), DataType::float32, count, 0, 0, ReduceOp::sum, stream());
  const float wrong_value = 1e9f;
  // On the fill's stream: the stream is non-blocking, so a copy on the legacy default stream
  // (cudaMemcpy) would not wait for the fill and could be overwritten by it. The count below
  // waits for the stream, and with it for the copies from host memory that must stay alive.
  for (std::uint64_t index : {std::uint64_t{0}, std::uint64_t{777}, count - 1})
    FB_CUDA_CHECK(cudaMemcpyAsync(static_cast<float*>(buffer.data()) + index, &wrong_value, sizeof wrong_value,
                                  cudaMemcpyHostToDevice, stream()));
  EXPECT_EQ(count_wrong_on_device(buffer.data(), DataType::float32, count, ExpectedPattern{}, stream()), 3u);
}

TEST_F(DevicePattern, AResetOutputIsWrongInEveryElementAndType) {
  // What an op that writes nothing leaves behind after reset_outputs(): every element wrong, for
  // a reduction (integers wrap at 1000 ranks) and for a gathered output alike.
  constexpr std::uint64_t count = 10'007;
  const ExpectedPattern reduced{.nranks = 1000, .redop = ReduceOp::sum, .reduced_over_ranks = true};
  const ExpectedPattern gathered{.nranks = 7, .source_rank = -1, .block_count = 1'000};
  for (DataType type : all_data_types()) {
    SCOPED_TRACE(name_of(type));
    DeviceBuffer buffer(0, count * size_in_bytes(type));
    for (const ExpectedPattern& expected : {reduced, gathered}) {
      reset_output_on_device(buffer.data(), type, count, expected, stream());
      EXPECT_EQ(count_wrong_on_device(buffer.data(), type, count, expected, stream()), count);
    }
  }
}

TEST_F(DevicePattern, ReductionExpectationsAgreeWithTheHost) {
  // The host computes an all_reduce result; the device check must accept it.
  constexpr int nranks = 5;
  constexpr std::uint64_t count = 4096;
  for (ReduceOp redop : all_reduce_ops()) {
    SCOPED_TRACE(name_of(redop));
    std::vector<std::int32_t> reduced(count);
    for (std::uint64_t i = 0; i < count; ++i) reduced[i] = expected_reduction<std::int32_t>(nranks, i, redop);
    DeviceBuffer buffer(0, count * sizeof(std::int32_t));
    // On the check's stream: cudaMemcpy from pageable memory may return before the data is on the
    // device, and the legacy stream does not order the non-blocking one.
    FB_CUDA_CHECK(
        cudaMemcpyAsync(buffer.data(), reduced.data(), count * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream()));
    const ExpectedPattern expected{.nranks = nranks, .redop = redop, .reduced_over_ranks = true};
    EXPECT_EQ(count_wrong_on_device(buffer.data(), DataType::int32, count, expected, stream()), 0u);
  }
}

}  // namespace
}  // namespace fb
