#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/point_to_point.hpp"

#include <vector>

namespace fb {
namespace {

// Bi-directional streaming bandwidth, as osu_bibw: both endpoints post a window of receives and a
// window of sends at once; algbw counts the bytes of both directions.
template <class T>
class BidirectionalBandwidthCase final : public PointToPointCase<T> {
 public:
  BidirectionalBandwidthCase(const BenchmarkCase& benchmark_case, const MpiOpContext& context)
      : PointToPointCase<T>(benchmark_case, context),
        window_(static_cast<std::size_t>(benchmark_case.window)),
        requests_(2 * window_) {}

  void run_iteration() override {
    if (!this->endpoint()) return;
    for (std::size_t i = 0; i < window_; ++i)
      FB_MPI_CHECK(MPI_Irecv(this->recv_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                             this->context_.comm, &requests_[i]));
    for (std::size_t i = 0; i < window_; ++i)
      FB_MPI_CHECK(MPI_Isend(this->send_.data(), this->count(), this->datatype(), this->peer_, this->data_tag,
                             this->context_.comm, &requests_[window_ + i]));
    FB_MPI_CHECK(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  }

  std::uint64_t count_wrong() const override { return this->endpoint() ? this->count_wrong_received() : 0; }

  int units_per_iteration() const override { return static_cast<int>(window_); }

 private:
  std::size_t window_;
  std::vector<MPI_Request> requests_;
};

const Registrar<MpiOpImplementation> registrar{
    {"bibw", {Placement::out_of_place}, make_typed_case<BidirectionalBandwidthCase>}};

}  // namespace
}  // namespace fb
