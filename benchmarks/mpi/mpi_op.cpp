#include "benchmarks/mpi/mpi_op.hpp"

#include <stdexcept>

namespace fb {

MPI_Datatype mpi_datatype_of(DataType type) {
  switch (type) {
    case DataType::int8: return MPI_INT8_T;
    case DataType::uint8: return MPI_UINT8_T;
    case DataType::int32: return MPI_INT32_T;
    case DataType::uint32: return MPI_UINT32_T;
    case DataType::int64: return MPI_INT64_T;
    case DataType::uint64: return MPI_UINT64_T;
    case DataType::float32: return MPI_FLOAT;
    case DataType::float64: return MPI_DOUBLE;
    case DataType::half:
    case DataType::bfloat16: break;
  }
  throw std::logic_error("no MPI datatype for a 16-bit float; require_supported() should have refused it");
}

MPI_Op mpi_op_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
  }
  throw std::logic_error("ReduceOp without an MPI_Op");
}

}  // namespace fb
