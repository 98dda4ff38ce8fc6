#include "nccl/point_to_point.hpp"

namespace fb {
namespace {

// A window of messages each way at once, as OSU's osu_bibw; each side's time ends with its own
// receives, so no acknowledgement is needed.
std::unique_ptr<NcclOpCase> make_bibw(const BenchmarkCase& c, const NcclOpContext& context) {
  return std::make_unique<NcclPointToPointCase>(
      c, context,
      std::vector<NcclPointToPointCase::Step>{{{.from = c.src_rank, .to = c.dst_rank, .messages = c.window},
                                               {.from = c.dst_rank, .to = c.src_rank, .messages = c.window}}},
      c.window);
}

const NcclOpRegistrar registrar{{"bibw", {Placement::out_of_place}, make_bibw}};

}  // namespace
}  // namespace fb
