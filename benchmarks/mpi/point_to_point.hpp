#pragma once
// Shared by the point-to-point ops: two ranks (src and dst of the case) exchange messages while
// the others stay idle, and each endpoint checks it received its peer's pattern.

#include "benchmarks/core/host_buffer.hpp"
#include "benchmarks/core/pattern.hpp"
#include "benchmarks/mpi/mpi_op.hpp"

namespace fb {

template <class T>
class PointToPointCase : public MpiOpCase {
 public:
  PointToPointCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : case_(benchmark_case),
        context_(context),
        is_src_(context.rank == benchmark_case.src_rank),
        is_dst_(context.rank == benchmark_case.dst_rank),
        peer_(is_src_ ? benchmark_case.dst_rank : benchmark_case.src_rank),
        send_(endpoint() ? case_.count : 0, context.host_pages),
        recv_(endpoint() ? case_.count : 0, context.host_pages),
        count_(static_cast<int>(case_.count)),
        datatype_(mpi_datatype_of(case_.dtype)) {}

  void fill_inputs() override {
    if (!endpoint()) return;
    fill_pattern(send_.span(), context_.rank, 0, ReduceOp::sum);
    // Start the receive side from our own pattern so a message that never lands is counted.
    fill_pattern(recv_.span(), context_.rank, 0, ReduceOp::sum);
  }

 protected:
  bool endpoint() const { return is_src_ || is_dst_; }

  // Endpoints that received data in this op check it came from the peer.
  std::uint64_t count_wrong_received() const {
    return fb::count_wrong(recv_.span(), [&](std::uint64_t i) { return pattern_value<T>(peer_, i, ReduceOp::sum); });
  }

  int count() const { return count_; }
  MPI_Datatype datatype() const { return datatype_; }

  static constexpr int data_tag = 1;
  static constexpr int ack_tag = 2;

  BenchmarkCase case_;
  MpiOpContext context_;
  bool is_src_;
  bool is_dst_;
  int peer_;
  HostBuffer<T> send_;
  HostBuffer<T> recv_;

 private:
  // Resolved once, not per call: a ping-pong's reply follows its receive directly, so even a
  // function call between the two is on the round trip that the latency measures (#44).
  int count_;
  MPI_Datatype datatype_;
};

}  // namespace fb
