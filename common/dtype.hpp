#pragma once
// Element types and reduction operators, named as nccl-tests names them (-d, -o).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fb {

enum class DataType { int8, uint8, int32, uint32, int64, uint64, half, bfloat16, float32, float64 };
enum class ReduceOp { sum, prod, min, max };

std::span<const DataType> all_data_types();
std::span<const ReduceOp> all_reduce_ops();

std::string_view name_of(DataType type);
std::string_view name_of(ReduceOp op);
std::size_t size_in_bytes(DataType type);

// Accept nccl-tests spellings ("float", "half") and the explicit ones ("float32", "fp16").
// Throws UsageError naming the accepted values.
DataType parse_data_type(std::string_view text);
ReduceOp parse_reduce_op(std::string_view text);

[[noreturn]] void throw_no_host_type(DataType type);

// Calls `visit.template operator()<T>()` with the C++ type of `type`. Half and BFloat16 are the
// types that stand for the 16-bit floats (the device code has them); void where there is none,
// and visiting such a type throws UsageError.
template <class Half, class BFloat16, class Visitor>
decltype(auto) visit_type(DataType type, Visitor&& visit) {
  switch (type) {
    case DataType::int8: return visit.template operator()<std::int8_t>();
    case DataType::uint8: return visit.template operator()<std::uint8_t>();
    case DataType::int32: return visit.template operator()<std::int32_t>();
    case DataType::uint32: return visit.template operator()<std::uint32_t>();
    case DataType::int64: return visit.template operator()<std::int64_t>();
    case DataType::uint64: return visit.template operator()<std::uint64_t>();
    case DataType::float32: return visit.template operator()<float>();
    case DataType::float64: return visit.template operator()<double>();
    case DataType::half:
      if constexpr (!std::is_void_v<Half>) return visit.template operator()<Half>();
      break;
    case DataType::bfloat16:
      if constexpr (!std::is_void_v<BFloat16>) return visit.template operator()<BFloat16>();
      break;
  }
  throw_no_host_type(type);
}

// The host has no arithmetic type for the 16-bit floats.
template <class Visitor>
decltype(auto) visit_host_type(DataType type, Visitor&& visit) {
  return visit_type<void, void>(type, std::forward<Visitor>(visit));
}

}  // namespace fb
