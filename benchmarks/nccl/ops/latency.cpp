#include "benchmarks/nccl/point_to_point.hpp"

namespace fb {
namespace {

// Ping-pong: one message there, one back; the time is half the round trip.
std::unique_ptr<NcclOpCase> make_latency(const BenchmarkCase& c, const NcclOpContext& context) {
  return std::make_unique<NcclPointToPointCase>(
      c, context,
      [](RankPair pair) {
        return std::vector<NcclPointToPointCase::Step>{{{.from = pair.src, .to = pair.dst}},
                                                       {{.from = pair.dst, .to = pair.src}}};
      },
      2);
}

const Registrar<NcclOpImplementation> registrar{{"latency", {Placement::out_of_place}, make_latency}};

}  // namespace
}  // namespace fb
