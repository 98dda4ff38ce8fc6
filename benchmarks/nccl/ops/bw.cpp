#include "benchmarks/nccl/point_to_point.hpp"

namespace fb {
namespace {

// A window of messages one way, then the receiver's acknowledgement, as OSU's osu_bw.
std::unique_ptr<NcclOpCase> make_bw(const BenchmarkCase& c, const NcclOpContext& context) {
  return std::make_unique<NcclPointToPointCase>(
      c, context,
      [window = c.window](RankPair pair) {
        return std::vector<NcclPointToPointCase::Step>{{{.from = pair.src, .to = pair.dst, .messages = window}},
                                                       {{.from = pair.dst, .to = pair.src, .acknowledgement = true}}};
      },
      c.window);
}

const Registrar<NcclOpImplementation> registrar{{"bw", {Placement::out_of_place}, make_bw}};

}  // namespace
}  // namespace fb
