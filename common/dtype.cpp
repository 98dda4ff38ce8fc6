#include "common/dtype.hpp"

#include "common/errors.hpp"

#include <array>
#include <fmt/format.h>

namespace fb {
namespace {

struct TypeName {
  DataType type;
  std::string_view name;  // canonical, as printed
  std::string_view alias;
  std::size_t bytes;
};

constexpr std::array type_names{
    TypeName{DataType::int8, "int8", "char", 1},        TypeName{DataType::uint8, "uint8", "uchar", 1},
    TypeName{DataType::int32, "int32", "int", 4},       TypeName{DataType::uint32, "uint32", "uint", 4},
    TypeName{DataType::int64, "int64", "long", 8},      TypeName{DataType::uint64, "uint64", "ulong", 8},
    TypeName{DataType::half, "half", "fp16", 2},        TypeName{DataType::bfloat16, "bfloat16", "bf16", 2},
    TypeName{DataType::float32, "float", "float32", 4}, TypeName{DataType::float64, "double", "float64", 8},
};

struct OpName {
  ReduceOp op;
  std::string_view name;
};
constexpr std::array op_names{OpName{ReduceOp::sum, "sum"}, OpName{ReduceOp::prod, "prod"},
                              OpName{ReduceOp::min, "min"}, OpName{ReduceOp::max, "max"}};

constexpr std::array data_types{DataType::int8,    DataType::uint8,  DataType::int32, DataType::uint32,
                                DataType::int64,   DataType::uint64, DataType::half,  DataType::bfloat16,
                                DataType::float32, DataType::float64};
constexpr std::array reduce_ops{ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max};

const TypeName& entry(DataType type) {
  for (const auto& e : type_names)
    if (e.type == type) return e;
  throw std::logic_error("DataType missing from the name table");
}

}  // namespace

std::span<const DataType> all_data_types() { return data_types; }
std::span<const ReduceOp> all_reduce_ops() { return reduce_ops; }

std::string_view name_of(DataType type) { return entry(type).name; }
std::size_t size_in_bytes(DataType type) { return entry(type).bytes; }

std::string_view name_of(ReduceOp op) {
  for (const auto& e : op_names)
    if (e.op == op) return e.name;
  throw std::logic_error("ReduceOp missing from the name table");
}

DataType parse_data_type(std::string_view text) {
  std::string accepted;
  for (const auto& e : type_names) {
    if (text == e.name || text == e.alias) return e.type;
    accepted += accepted.empty() ? "" : ", ";
    accepted += e.name;
  }
  throw UsageError(fmt::format("unknown data type '{}' (accepted: {})", text, accepted));
}

ReduceOp parse_reduce_op(std::string_view text) {
  std::string accepted;
  for (const auto& e : op_names) {
    if (text == e.name) return e.op;
    accepted += accepted.empty() ? "" : ", ";
    accepted += e.name;
  }
  throw UsageError(fmt::format("unknown reduction op '{}' (accepted: {})", text, accepted));
}

void throw_no_host_type(DataType type) {
  throw UsageError(fmt::format("data type {} has no host arithmetic type in this backend", name_of(type)));
}

}  // namespace fb
