// `fabricbench fit RESULTS... [--topology FILE...]`: latency (alpha) and inverse bandwidth (beta)
// of each link class, fitted to measured point-to-point sweeps, beside the model's defaults.
//
// Only point-to-point primitives are fitted: their time is one message over one route. A
// collective's sweep has no single per-step alpha and beta to recover, because MPI libraries
// change algorithm with the size (recursive doubling for small messages, rings for large ones).
// bibw (two messages crossing) and concurrent (pairs sharing links) are left out for the same
// reason.

#include "diagnosis/alpha_beta_fit.hpp"
#include "results/result_loading.hpp"
#include "cli/command.hpp"
#include "diagnosis/expectation_columns.hpp"
#include "cli/fabric_flags.hpp"
#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/robust_statistics.hpp"
#include "common/sizes.hpp"
#include "topology/format_registry.hpp"

#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>

namespace fb::cli {

using diagnosis::AlphaBetaFit;
using diagnosis::ExpectationColumns;
using diagnosis::SizeTime;
using diagnosis::fit_alpha_beta;
namespace {

struct FitOptions {
  std::vector<std::string> results;
  std::vector<std::string> topology;
  // The sizes fitted: one protocol regime (eager, rendezvous) at a time fits a line best.
  std::string min_bytes = "0";
  std::string max_bytes;
};

bool is_fitted_op(const std::string& name) {
  const OpTraits* op = find_op(name);
  return op && is_pair_op(*op) && !primitive_of(*op).bidirectional && !measures_contention(*op);
}

struct SweepGroup {
  std::vector<SizeTime> points;
  std::vector<double> model_alpha_us;  // per row, from its route in the topology
  std::vector<double> model_bandwidth_gbps;
};

// Without a topology, or where it has no route for the pair: whether the ranks shared a host.
std::string host_class(const ResultRow& row) {
  if (row.src_host.empty() || row.dst_host.empty()) return "hosts not recorded";
  return row.src_host == row.dst_host ? "intra-node" : "inter-node";
}

std::string model_cell(const std::vector<double>& values, const char* format) {
  return values.empty() ? std::string("-") : fmt::format(fmt::runtime(format), median_of(values));
}

std::string ratio_cell(double fitted, const std::vector<double>& model) {
  return model.empty() || median_of(model) == 0 ? std::string("-") : fmt::format("{:.2f}", fitted / median_of(model));
}

int run_fit(const FitOptions& options) {
  const std::uint64_t min_bytes = parse_size_bytes(options.min_bytes);
  const std::uint64_t max_bytes =
      options.max_bytes.empty() ? std::numeric_limits<std::uint64_t>::max() : parse_size_bytes(options.max_bytes);
  std::vector<LoadedResults> sets =
      load_results(std::vector<std::filesystem::path>(options.results.begin(), options.results.end()));
  std::optional<topo::Graph> graph;
  std::optional<ExpectationColumns> expectations;
  if (!options.topology.empty()) {
    graph.emplace(load_topology_with_warnings(options.topology));
    expectations.emplace(*graph, std::cerr);
    expectations->add(sets);  // says once why a host's rows have no route in the model
  }

  // Keyed by op, then link class: the table reads op by op.
  std::map<std::pair<std::string, std::string>, SweepGroup> groups;
  for (const LoadedResults& set : sets) {
    for (const ResultRow& row : set.results.rows) {
      if (!is_fitted_op(row.op) || row.bytes < min_bytes || row.bytes > max_bytes) continue;
      std::string link_class = host_class(row);
      std::optional<topo::PairPath> path;
      if (expectations) path = expectations->model().pair_path(row, set.results.provenance.rank_hosts).path;
      if (path) link_class = fmt::format("{} ({:.4g} GB/s)", path->bottleneck, path->bandwidth_gbps);
      SweepGroup& group = groups[{row.op, link_class}];
      group.points.push_back({static_cast<double>(row.bytes), row.time_median_us});
      if (path) {
        group.model_alpha_us.push_back(path->alpha_us);
        group.model_bandwidth_gbps.push_back(path->bandwidth_gbps);
      }
    }
  }
  if (groups.empty())
    throw UsageError("no point-to-point rows (latency, bw, pairwise_latency, pairwise) in the results and sizes "
                     "selected: nothing to fit");

  std::vector<std::string> lines;
  std::vector<std::string> skipped;
  for (const auto& [key, group] : groups) {
    const auto& [op, link_class] = key;
    AlphaBetaFit fit;
    try {
      fit = fit_alpha_beta(group.points);
    } catch (const std::invalid_argument& unfit) {
      skipped.push_back(fmt::format("{} over {}: {}", op, link_class, unfit.what()));
      continue;
    }
    lines.push_back(
        fmt::format("  {:<16} {:>6} {:>5} {:>9.4g} {:>9.2g} {:>10.4g} {:>8.5f} {:>10} {:>10} {:>7} {:>7}  {}\n", op,
                    fit.points, fit.distinct_sizes, fit.alpha_us, fit.alpha_stderr_us, fit.bandwidth_gbps(),
                    fit.r_squared, model_cell(group.model_alpha_us, "{:.4g}"),
                    model_cell(group.model_bandwidth_gbps, "{:.4g}"), ratio_cell(fit.alpha_us, group.model_alpha_us),
                    ratio_cell(fit.bandwidth_gbps(), group.model_bandwidth_gbps), link_class));
  }
  if (lines.empty())
    throw UsageError(fmt::format("nothing to fit: {} (measure a sweep: -b below -e)", skipped.front()));

  std::cout << "# time = alpha + beta * bytes per op and link class (least squares on relative residuals);\n"
               "# bw and pairwise overlap messages, so their alpha is the per-message overhead, not the latency\n";
  std::cout << fmt::format("# {:<16} {:>6} {:>5} {:>9} {:>9} {:>10} {:>8} {:>10} {:>10} {:>7} {:>7}  {}\n", "op",
                           "points", "sizes", "alpha_us", "+-", "1/b_GB/s", "R^2", "model_a_us", "model_GB/s",
                           "a/model", "bw/mod", "link class");
  for (const std::string& line : lines) std::cout << line;
  for (const std::string& reason : skipped) std::cout << fmt::format("# not fitted: {}\n", reason);
  return static_cast<int>(ExitCode::ok);
}

const Registrar<CommandRegistration> registrar{
    {"fit",
     "fit latency (alpha) and bandwidth (1/beta) per link class to point-to-point sweeps; compare with the model",
     [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
       auto options = std::make_shared<FitOptions>();
       sub.add_option("results", options->results, "results files or directories with latency/bw size sweeps")
           ->required();
       sub.add_option("--topology", options->topology,
                      "topology files: classes by the route's bottleneck link, with the model's alpha and bandwidth");
       sub.add_option("-b,--minbytes", options->min_bytes, "fit only sizes from this one (8, 4K, 1M)");
       sub.add_option("-e,--maxbytes", options->max_bytes, "fit only sizes up to this one");
       return [options] { return run_fit(*options); };
     }}};

}  // namespace
}  // namespace fb::cli
