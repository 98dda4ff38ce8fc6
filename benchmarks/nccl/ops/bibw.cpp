#include "benchmarks/nccl/point_to_point.hpp"

namespace fb {
namespace {

// A window of messages each way at once, as OSU's osu_bibw; each side's time ends with its own
// receives, so no acknowledgement is needed.
std::unique_ptr<NcclOpCase> make_bibw(const BenchmarkCase& c, const NcclOpContext& context) {
  return std::make_unique<NcclPointToPointCase>(
      c, context,
      [window = c.window](RankPair pair) {
        return std::vector<NcclPointToPointCase::Step>{{{.from = pair.src, .to = pair.dst, .messages = window},
                                                        {.from = pair.dst, .to = pair.src, .messages = window}}};
      },
      c.window);
}

const Registrar<NcclOpImplementation> registrar{{"bibw", {Placement::out_of_place}, make_bibw}};

}  // namespace
}  // namespace fb
