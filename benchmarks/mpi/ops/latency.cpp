#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/point_to_point.hpp"

namespace fb {
namespace {

// Ping-pong, as osu_latency: the reported time is half the round trip.
template <class T>
class LatencyCase final : public PointToPointCase<T> {
 public:
  using PointToPointCase<T>::PointToPointCase;

  void run_iteration() override {
    if (this->is_src_) {
      FB_MPI_CHECK(MPI_Send(this->send_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                            this->context_.comm));
      FB_MPI_CHECK(MPI_Recv(this->recv_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                            this->context_.comm, MPI_STATUS_IGNORE));
    } else if (this->is_dst_) {
      FB_MPI_CHECK(MPI_Recv(this->recv_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                            this->context_.comm, MPI_STATUS_IGNORE));
      FB_MPI_CHECK(MPI_Send(this->send_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                            this->context_.comm));
    }
  }

  std::uint64_t count_wrong() const override { return this->endpoint() ? this->count_wrong_received() : 0; }

  int units_per_iteration() const override { return 2; }
};

const Registrar<MpiOpImplementation> registrar{{"latency", {Placement::out_of_place}, make_typed_case<LatencyCase>}};

}  // namespace
}  // namespace fb
