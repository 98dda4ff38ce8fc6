// The console view of a predicted sweep (predicted_sweep_text.hpp).

#include "reports/console/predicted_sweep_text.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace fb {
namespace {

void print_sharing(const topo::CollectiveModel& model) {
  for (const std::string& line : model.sharing) fmt::print(stderr, "# sharing the fabric: {}\n", line);
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) fmt::print(stderr, "fabricbench: warning: {}\n", warning);
}

// "330.1-402.7": the row's 80% interval; "-" on a row without one.
std::string busbw_interval(const ResultRow& row) {
  if (!row.busbw_low_gbps || !row.busbw_high_gbps) return "-";
  return fmt::format("{:.1f}-{:.1f}", *row.busbw_low_gbps, *row.busbw_high_gbps);
}

std::string time_interval(const ResultRow& row) {
  if (!row.time_low_us || !row.time_high_us) return "-";
  return fmt::format("{:.2f}-{:.2f}", *row.time_low_us, *row.time_high_us);
}

}  // namespace

void print_model_summary(const topo::PredictedSweep& sweep) {
  const topo::CollectiveModel& model = sweep.model;
  fmt::print(stderr, "# model: {} ranks on {} nodes, ring {:.1f} GB/s ({}){}\n", model.ranks, model.nodes,
             model.ring_gbps, model.ring_limit,
             model.nodes > 1 ? fmt::format(", network {:.1f} GB/s per node", model.net_gbps) : "");
  print_sharing(model);
  print_warnings(sweep.warnings);
}

void print_model_explanation(const topo::PredictedSweep& sweep) {
  const topo::CollectiveModel& model = sweep.model;
  const topo::NcclTuning& tuning = *sweep.tuning;
  fmt::print(stderr, "# model: {} ranks on {} nodes ({} per node), sm_{}{}{}\n", model.ranks, model.nodes,
             model.ranks_per_node, model.compute_capability, model.nvswitch ? ", NVSwitch" : "",
             model.in_network_reduction ? ", in-network reduction (SHARP)" : "");
  fmt::print(stderr, "#   NCCL {} tuner figures (read from NCCL's {} src/graph/tuning.cc)\n", tuning.range,
             tuning.source);
  print_sharing(model);
  if (!model.sharing.empty()) {
    fmt::print(stderr, "#   a limiting link another job crosses too says 'shared with' that job; any other carries "
                       "this job's traffic alone\n");
  }
  fmt::print(stderr, "#   ring {:.1f} GB/s, limited by {}\n", model.ring_gbps, model.ring_limit);
  if (model.nodes > 1) {
    fmt::print(stderr, "#   {} rail(s); network {:.1f} GB/s per node, limited by {}\n", model.rails, model.net_gbps,
               model.net_limit);
    if (model.ranks_per_node > 1) {
      fmt::print(stderr, "#   intra-node ring {:.1f} GB/s, limited by {}\n", model.intra_gbps, model.intra_limit);
    }
  }
  if (model.gpu_nvlink_gbps > 0) fmt::print(stderr, "#   one GPU's NVLink {:.1f} GB/s\n", model.gpu_nvlink_gbps);
  if (const double serial_us = topo::serial_launch_us(model); serial_us > 0) {
    fmt::print(stderr, "#   one process launches {} GPUs' kernels in turn: +{:.1f} us per call\n",
               model.gpus_per_process, serial_us);
  }
  fmt::print(stderr, "# {:>14} {:>12} {:>19} {:>10} {:>17} {:>14} {:>7} {:>8}  {}\n", "bytes", "time us", "time 80% us",
             "busbw", "busbw 80%", "algorithm", "proto", "channels", "limiting link");
  for (const ResultRow& row : sweep.results.rows) {
    fmt::print(stderr, "# {:>14} {:>12.2f} {:>19} {:>10.2f} {:>17} {:>14} {:>7} {:>8}  {}\n", row.bytes,
               row.time_median_us, time_interval(row), row.busbw_gbps.value_or(row.algbw_gbps), busbw_interval(row),
               row.model_algorithm, row.model_protocol, row.model_channels.value_or(0), row.model_limit);
  }
  fmt::print(stderr, "#   80%: where a measurement falls 4 times in 5, from the model's errors on published points it "
                     "was not fitted to (docs/model.md)\n");
  print_warnings(sweep.warnings);
}

void print_prediction_table(std::ostream& out, const topo::PredictedSweep& sweep) {
  const topo::CollectiveModel& model = sweep.model;
  const std::string op = sweep.results.rows.empty() ? std::string() : sweep.results.rows.front().op;
  fmt::print(out, "# predicted {} on {} ranks ({} nodes x {}); busbw as nccl-tests reports it\n", op, model.ranks,
             model.nodes, model.ranks_per_node);
  fmt::print(out, "{:>10} {:>12} {:>12} {:>17} {:>12} {:>7}  {}\n", "size", "time (us)", "busbw GB/s", "busbw 80%",
             "algorithm", "proto", "limiting link");
  for (const ResultRow& row : sweep.results.rows) {
    fmt::print(out, "{:>10} {:>12.2f} {:>12.2f} {:>17} {:>12} {:>7}  {}\n", format_size_bytes(row.bytes),
               row.time_median_us, row.busbw_gbps.value_or(row.algbw_gbps), busbw_interval(row), row.model_algorithm,
               row.model_protocol, row.model_limit);
  }
  fmt::print(out, "# busbw 80%: the prediction interval, from the model's errors on published points it was not fitted "
                  "to\n");
}

}  // namespace fb
