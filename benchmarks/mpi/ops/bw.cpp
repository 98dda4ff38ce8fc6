#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/point_to_point.hpp"

#include <vector>

namespace fb {
namespace {

// Streaming bandwidth, as osu_bw: src keeps a window of non-blocking sends in flight, dst answers
// each window with a small acknowledgement so the next window cannot overlap it.
template <class T>
class BandwidthCase final : public PointToPointCase<T> {
 public:
  BandwidthCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : PointToPointCase<T>(benchmark_case, context), requests_(static_cast<std::size_t>(benchmark_case.window)) {}

  void run_iteration() override {
    int ack = 0;
    if (this->is_src_) {
      for (auto& request : requests_)
        FB_MPI_CHECK(MPI_Isend(this->send_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                               this->context_.comm, &request));
      FB_MPI_CHECK(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
      FB_MPI_CHECK(MPI_Recv(&ack, 1, MPI_INT, this->peer_, this->ack_tag, this->context_.comm, MPI_STATUS_IGNORE));
    } else if (this->is_dst_) {
      for (auto& request : requests_)
        FB_MPI_CHECK(MPI_Irecv(this->recv_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                               this->context_.comm, &request));
      FB_MPI_CHECK(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
      FB_MPI_CHECK(MPI_Send(&ack, 1, MPI_INT, this->peer_, this->ack_tag, this->context_.comm));
    }
  }

  std::uint64_t count_wrong() const override { return this->is_dst_ ? this->count_wrong_received() : 0; }

  int units_per_iteration() const override { return static_cast<int>(requests_.size()); }

 private:
  std::vector<MPI_Request> requests_;
};

const Registrar<MpiOpImplementation> registrar{{"bw", {Placement::out_of_place}, make_typed_case<BandwidthCase>}};

}  // namespace
}  // namespace fb
