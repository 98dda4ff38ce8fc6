#pragma once
// The shape most collectives share: a send buffer read and a receive buffer written, where the
// in-place form starts with the input in the receive buffer (MPI_IN_PLACE as the send argument).

#include "benchmarks/core/host_buffer.hpp"
#include "benchmarks/core/pattern.hpp"
#include "benchmarks/mpi/mpi_op.hpp"

namespace fb {

template <class T>
class SendRecvCase : public MpiOpCase {
 public:
  void fill_inputs() override {
    auto& input = case_.placement == Placement::in_place ? recv_ : send_;
    fill_pattern(input.span(), context_.rank, 0, pattern_redop());
  }

 protected:
  SendRecvCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context, std::size_t send_count,
               std::size_t recv_count)
      : case_(benchmark_case),
        context_(context),
        send_(send_count, context.host_pages),
        recv_(recv_count, context.host_pages) {}

  // Ops that do not reduce still need a pattern; the sum pattern's small integers serve.
  ReduceOp pattern_redop() const { return case_.op->takes_redop ? case_.redop : ReduceOp::sum; }

  const void* send_argument() const {
    return case_.placement == Placement::in_place ? MPI_IN_PLACE : static_cast<const void*>(send_.data());
  }
  int count() const { return static_cast<int>(case_.count); }
  MPI_Datatype datatype() const { return mpi_datatype_of(case_.dtype); }

  BenchmarkCase case_;
  MpiOpContext context_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;
};

}  // namespace fb
