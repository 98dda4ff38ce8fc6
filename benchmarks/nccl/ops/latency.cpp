#include "nccl/point_to_point.hpp"

namespace fb {
namespace {

// Ping-pong: one message there, one back; the time is half the round trip.
std::unique_ptr<NcclOpCase> make_latency(const BenchmarkCase& c, const NcclOpContext& context) {
  return std::make_unique<NcclPointToPointCase>(
      c, context,
      std::vector<NcclPointToPointCase::Step>{{{.from = c.src_rank, .to = c.dst_rank}},
                                              {{.from = c.dst_rank, .to = c.src_rank}}},
      2);
}

const NcclOpRegistrar registrar{{"latency", {Placement::out_of_place}, make_latency}};

}  // namespace
}  // namespace fb
