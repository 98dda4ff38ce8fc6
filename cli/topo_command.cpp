// `fabricbench topo`: the topology model from the command line.
//
//   topo show FILE...                   counts, link types, tiers, oversubscription
//   topo analyze FILE... --pattern P    oversubscription, bisection, blocking links (table, JSON)
//   topo predict --spec cluster.yaml --op all_reduce -b 8 -e 1G   a predicted sweep as results
//                [--algo A --proto P] [--sharp] [--explain]      (NCCL's choice unless forced)
//                [--nccl-version 2.21]                           whose tuner figures choose
//                [-g 8]                                          GPUs one process drives (nccl-tests -g)
//                [--job op=alltoall,nodes=64 ...]                other jobs sharing the fabric
//   topo dot FILE... [--pattern P]      Graphviz DOT, the pattern's blocking links in red
//   topo diff FILE...                   per-node dumps against the fleet's majority (exit 7 on deviations)

#include "cli/command.hpp"
#include "cli/topology_input.hpp"

#include "common/build_info.hpp"
#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/sizes.hpp"
#include "results/results_io.hpp"
#include "topology/analysis.hpp"
#include "topology/collective_model.hpp"
#include "topology/dot_export.hpp"
#include "topology/fleet_diff.hpp"
#include "topology/format_registry.hpp"
#include "topology/hostlist.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace fb::cli {
namespace {

using topo::FabricHierarchy;
using topo::Graph;

struct TopoOptions {
  std::vector<std::string> files;
  std::string format = "auto";
  topo::ReaderHints hints;
  std::string pattern = "all_to_all";
  std::string json_path;  // analyze, diff: findings as JSON ("-" for stdout)
  std::size_t max_rows = 20;
  std::string output_path;  // dot
  // predict
  std::vector<std::string> spec_paths;
  std::string op = "all_reduce";
  std::string algorithm = "auto";
  std::string protocol = "auto";
  bool in_network_reduction = false;
  bool explain = false;
  std::string nccl_version;  // empty: the newest figures, an assumption
  std::string min_bytes = "8";
  std::string max_bytes = "32M";
  std::uint64_t step_factor = 2;
  int nodes = 0;
  int gpus_per_node = 0;
  int gpus_per_process = 1;
  std::string placement = "packed";
  std::vector<std::string> job_specs;  // --job: other jobs on the same fabric
  std::string csv_path;
};

topo::TrafficPattern parse_pattern(const std::string& name) {
  const auto pattern = topo::traffic_pattern_from_string(name);
  if (!pattern) throw UsageError("--pattern must be all_to_all, ring, leaf_to_leaf or bisection, got '" + name + "'");
  return *pattern;
}

std::string ratio_text(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.2f}:1", *ratio) : std::string("-");
}

// Tiers whose uplinks the inputs did not state (topology.conf: one nominal link per relation):
// their ratios are the model's assumption, not the fabric's.
std::set<topo::SwitchTier> tiers_with_assumed_uplinks(const Graph& graph) {
  std::set<topo::SwitchTier> tiers;
  for (const topo::Link& link : graph.links()) {
    const topo::Vertex& a = graph.vertex(link.a);
    const topo::Vertex& b = graph.vertex(link.b);
    if (!link.nominal_capacity || a.kind != topo::VertexKind::fabric_switch ||
        b.kind != topo::VertexKind::fabric_switch) {
      continue;
    }
    tiers.insert(a.tier);  // its uplinks
    tiers.insert(b.tier);  // its downlinks
  }
  return tiers;
}

void print_oversubscription(const Graph& graph, const topo::OversubscriptionReport& report) {
  if (report.tiers.empty()) return;
  const std::set<topo::SwitchTier> assumed = tiers_with_assumed_uplinks(graph);
  fmt::print("\n{:<8} {:>9} {:>14} {:>14} {:>16} {:>14}\n", "tier", "switches", "down GB/s", "up GB/s",
             "oversubscription", "worst switch");
  for (const auto& tier : report.tiers) {
    const auto labelled = [&](const std::optional<double>& ratio) {
      return ratio && assumed.contains(tier.tier) ? ratio_text(ratio) + " assumed" : ratio_text(ratio);
    };
    fmt::print("{:<8} {:>9} {:>14.1f} {:>14.1f} {:>16} {:>14}\n", topo::name_of(tier.tier), tier.switch_count,
               tier.downlink_gbps, tier.uplink_gbps, labelled(tier.oversubscription_ratio),
               labelled(tier.worst_switch_ratio));
  }
  if (!assumed.empty()) {
    fmt::print("# assumed: the inputs state neither the count nor the rate of these tiers' uplinks (see the "
               "assumptions)\n");
  }
}

int show(const TopoOptions& options) {
  const Graph graph = load_topology_with_warnings(options.files, options.format, options.hints);
  std::map<std::string_view, std::size_t> vertices;
  std::map<std::string_view, std::size_t> tiers;
  for (const topo::Vertex& v : graph.vertices()) {
    ++vertices[topo::name_of(v.kind)];
    if (v.kind == topo::VertexKind::fabric_switch) ++tiers[topo::name_of(v.tier)];
  }
  struct LinkSummary {
    std::size_t count = 0;
    std::size_t nominal = 0;
    double capacity_gbps = 0;
  };
  std::map<std::string_view, LinkSummary> links;
  for (const topo::Link& link : graph.links()) {
    LinkSummary& summary = links[link.spec.technology];
    ++summary.count;
    summary.nominal += link.nominal_capacity ? 1 : 0;
    summary.capacity_gbps += link.spec.capacity_gbps;
  }
  fmt::print("# {} vertices, {} links from {} file(s)\n", graph.vertex_count(), graph.link_count(), options.files.size());
  for (const auto& [kind, count] : vertices) fmt::print("{:<14} {:>8}\n", kind, count);
  for (const auto& [tier, count] : tiers) fmt::print("{:<14} {:>8}\n", fmt::format("{} switches", tier), count);
  fmt::print("\n{:<28} {:>8} {:>16} {:>8}\n", "link technology", "links", "total GB/s", "nominal");
  for (const auto& [technology, summary] : links) {
    fmt::print("{:<28} {:>8} {:>16.1f} {:>8}\n", technology, summary.count, summary.capacity_gbps, summary.nominal);
  }
  if (graph.undecided_link_count() > 0) {
    std::set<std::string> reasons;
    for (topo::LinkId l = 0; l < graph.link_count(); ++l) {
      if (const std::string* why = graph.undecided(l)) reasons.insert(*why);
    }
    fmt::print("\n# {} link(s) whose rate the inputs leave undecided: modelled at the lower candidate, and every "
               "expectation that rests on them is withheld (n/a)\n",
               graph.undecided_link_count());
    for (const std::string& why : reasons) fmt::print("undecided: {}\n", why);
  }
  print_oversubscription(graph, topo::analyze_oversubscription(graph));
  if (!graph.assumptions().empty()) {
    fmt::print("\n# {} assumption(s): what the inputs did not state\n", graph.assumptions().size());
    for (const std::string& assumption : graph.assumptions()) fmt::print("assumed: {}\n", assumption);
  }
  return static_cast<int>(ExitCode::ok);
}

void write_json(const std::string& path, const nlohmann::json& json) {
  if (path == "-") {
    std::cout << json.dump(2) << '\n';
  } else {
    write_file_atomically(path, json.dump(2) + "\n");
  }
}

int analyze(const TopoOptions& options) {
  const topo::TrafficPattern pattern = parse_pattern(options.pattern);
  const Graph graph = load_topology_with_warnings(options.files, options.format, options.hints);
  FabricHierarchy fabric(graph);
  const topo::OversubscriptionReport oversubscription = topo::analyze_oversubscription(graph);
  print_oversubscription(graph, oversubscription);
  if (!fabric.has_fabric()) {
    fmt::print("# no fabric links: nothing to route between hosts\n");
    return static_cast<int>(ExitCode::ok);
  }
  const std::vector<std::vector<topo::VertexId>> partitions = topo::fabric_partitions(fabric);
  if (partitions.size() > 1) {
    // Some pairs of hosts have no route at all: a bisection or a pattern's share would be a
    // number about traffic that cannot flow.
    const bool linked = topo::parts_are_linked(graph, partitions);
    if (linked) {
      // A subnet manager does route over such links (OpenSM's min-hop, or up-down from a root it
      // picks); the model's tree analysis cannot say what share they carry, and says that instead.
      fmt::print("\n# the fabric has {} parts with no common upper-tier switch, joined only by links between switches "
                 "of one tier (leaf to leaf): a subnet manager routes between them over those links, but the tree "
                 "model has no upper tier to share traffic through, so no bisection bandwidth and no fabric-wide "
                 "pattern is computed\n",
                 partitions.size());
    } else {
      fmt::print("\n# the fabric is disconnected: {} parts that no link joins, so no bisection bandwidth and no "
                 "fabric-wide pattern\n", partitions.size());
    }
    for (const auto& part : partitions) {
      fmt::print("#   {} host(s): {}{}\n", part.size(), graph.vertex(part.front()).name,
                 part.size() > 1 ? fmt::format(" ... {}", graph.vertex(part.back()).name) : std::string());
    }
    if (!options.json_path.empty()) {
      nlohmann::json json{{"disconnected", !linked}, {"partitions", nlohmann::json::array()},
                          {"oversubscription", topo::to_json(graph, oversubscription)}};
      for (const auto& part : partitions) {
        nlohmann::json names = nlohmann::json::array();
        for (const topo::VertexId host : part) names.push_back(graph.vertex(host).name);
        json["partitions"].push_back(names);
      }
      write_json(options.json_path, json);
    }
    return static_cast<int>(ExitCode::ok);
  }
  if (fabric.hosts().size() < 2) {
    fmt::print("# one host on the fabric: no traffic between hosts to analyze\n");
    return static_cast<int>(ExitCode::ok);
  }
  const double bisection_gbps = topo::bisection_bandwidth_gbps(fabric);
  const topo::PatternAnalysis analysis = topo::analyze_pattern(fabric, pattern);
  fmt::print("\n# bisection bandwidth {:.1f} GB/s per direction ({} hosts)\n", bisection_gbps, fabric.hosts().size());
  // The headline is the completion time: a total near 100% of what is offered can hide flows
  // that crawl through a full uplink while others race.
  fmt::print("# {}: takes {:.2f}x as long as on a non-blocking fabric: slowest flow {:.3f} GB/s against {:.3f} "
             "GB/s, held by {}\n",
             topo::name_of(pattern), analysis.completion_time_ratio, analysis.min_flow_rate_gbps,
             analysis.nonblocking_min_flow_rate_gbps, analysis.slowest_flow_limit);
  fmt::print("# {}: offered {:.1f} GB/s in all, max-min fair total {:.1f} GB/s\n", topo::name_of(pattern),
             analysis.offered_gbps, analysis.achieved_gbps);
  fmt::print("# {} blocking link direction(s)\n", analysis.blocking.size());
  if (!analysis.blocking.empty()) {
    fmt::print("{:<28} {:<28} {:>10} {:>14} {:>8}\n", "from", "to", "cap GB/s", "expected GB/s", "load");
  }
  for (std::size_t i = 0; i < analysis.blocking.size() && i < options.max_rows; ++i) {
    const topo::BlockingFinding& finding = analysis.blocking[i];
    fmt::print("{:<28} {:<28} {:>10.1f} {:>14.1f} {:>7.2f}x\n", graph.vertex(finding.from).name,
               graph.vertex(finding.to).name, finding.capacity_gbps, finding.expected_load_gbps, finding.load_ratio);
  }
  if (analysis.blocking.size() > options.max_rows) {
    fmt::print("... and {} more (--max-rows, or --json for all)\n", analysis.blocking.size() - options.max_rows);
  }
  if (!options.json_path.empty()) {
    nlohmann::json json = topo::to_json(graph, analysis);
    json["oversubscription"] = topo::to_json(graph, oversubscription);
    json["bisection_bandwidth_gbps"] = bisection_gbps;
    write_json(options.json_path, json);
  }
  return static_cast<int>(ExitCode::ok);
}

std::string utc_now_iso8601() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

// `what` names the flag or field in errors.
topo::Placement parse_placement(const std::string& text, std::string_view what = "--placement") {
  if (text == "packed") return {};
  if (text == "spread") return {topo::Placement::Kind::spread, {}};
  topo::HostlistResult hosts = topo::expand_hostlist(text);
  if (!hosts.error.empty() || hosts.hosts.empty()) {
    throw UsageError(fmt::format("{} must be packed, spread or a host list like node[01-16], got '{}': {}", what, text,
                                 hosts.error));
  }
  return {topo::Placement::Kind::hosts, std::move(hosts.hosts)};
}

// What --op accepts: the catalog's ops the model predicts.
std::string modelled_op_names() {
  return op_names([](const OpTraits& op) { return op.modelled_as != ModelledCollective::none; });
}

// Another job on the fabric, as --job states it.
struct OtherJob {
  const OpTraits* op = nullptr;
  topo::JobPlacement placement;
};

// "op=alltoall,nodes=64,placement=spread,gpus-per-node=4": commas inside a host list's brackets
// belong to it. op is required, nodes too unless the placement names the hosts.
OtherJob parse_job(const std::string& spec) {
  const auto fail = [&](const std::string& problem) {
    return UsageError(fmt::format("--job '{}': {}", spec, problem));
  };
  const auto positive = [&](std::string_view field, const std::string& value) {
    int number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc() || end != value.data() + value.size() || number < 1) {
      throw fail(fmt::format("{} must be a positive integer, got '{}'", field, value));
    }
    return number;
  };
  std::vector<std::string> fields(1);
  int depth = 0;
  for (const char c : spec) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ',' && depth == 0) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  OtherJob job;
  std::map<std::string, std::string> seen;
  for (const std::string& field : fields) {
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) throw fail(fmt::format("'{}' is not field=value (fields: op, nodes, gpus-per-node, placement)", field));
    const std::string key = field.substr(0, equals);
    const std::string value = field.substr(equals + 1);
    if (!seen.emplace(key, value).second) throw fail(fmt::format("{} is given twice", key));
    if (key == "op") {
      job.op = topo::modelled_op(value);
      if (!job.op) throw fail(fmt::format("op must be one of {}, got '{}'", modelled_op_names(), value));
      if (!topo::sharing_pattern_of(*job.op)) {
        throw fail(fmt::format("op {} converges on one root: the model has no fabric-wide pattern for it as another job",
                               value));
      }
    } else if (key == "nodes") {
      job.placement.nodes = positive(key, value);
    } else if (key == "gpus-per-node") {
      job.placement.gpus_per_node = positive(key, value);
    } else if (key == "placement") {
      job.placement.placement = parse_placement(value, fmt::format("--job '{}': placement", spec));
    } else {
      throw fail(fmt::format("unknown field '{}' (fields: op, nodes, gpus-per-node, placement)", key));
    }
  }
  if (!job.op) throw fail("op is missing (op=all_reduce, alltoall, ...)");
  if (job.placement.nodes == 0 && job.placement.placement.kind != topo::Placement::Kind::hosts) {
    throw fail("nodes is missing (or name the hosts: placement=node[01-16])");
  }
  return job;
}

// The other jobs as the model sees them, named "job 2 (alltoall on 64 nodes, node065 ... node128)".
std::vector<topo::SharingJob> sharing_jobs(const Graph& graph, const std::vector<OtherJob>& jobs,
                                           const std::vector<std::vector<topo::VertexId>>& job_ranks) {
  std::vector<topo::SharingJob> sharing;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::vector<topo::VertexId>& ranks = job_ranks[j + 1];
    const auto host_of = [&](topo::VertexId rank) { return graph.vertex(graph.vertex(rank).host).name; };
    std::size_t nodes = 0;  // place_jobs lists a host's ranks together
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (r == 0 || graph.vertex(ranks[r]).host != graph.vertex(ranks[r - 1]).host) ++nodes;
    }
    sharing.push_back({fmt::format("job {} ({} on {} node{}, {}{})", j + 2, jobs[j].op->name, nodes, nodes == 1 ? "" : "s",
                                   host_of(ranks.front()), nodes > 1 ? " ... " + host_of(ranks.back()) : std::string()),
                       ranks, *topo::sharing_pattern_of(*jobs[j].op)});
  }
  return sharing;
}

void print_sharing(const topo::CollectiveModel& model) {
  for (const std::string& line : model.sharing) fmt::print(stderr, "# sharing the fabric: {}\n", line);
}

void print_explanation(const topo::CollectiveModel& model, const topo::NcclTuning& tuning,
                       const std::vector<ResultRow>& rows, const std::vector<std::string>& warnings) {
  fmt::print(stderr, "# model: {} ranks on {} nodes ({} per node), sm_{}{}{}\n", model.ranks, model.nodes,
             model.ranks_per_node, model.compute_capability, model.nvswitch ? ", NVSwitch" : "",
             model.in_network_reduction ? ", in-network reduction (SHARP)" : "");
  fmt::print(stderr, "#   NCCL {} tuner figures (read from NCCL's {} src/graph/tuning.cc)\n", tuning.range, tuning.source);
  print_sharing(model);
  if (!model.sharing.empty()) {
    fmt::print(stderr, "#   a limiting link another job crosses too says 'shared with' that job; any other carries "
                       "this job's traffic alone\n");
  }
  fmt::print(stderr, "#   ring {:.1f} GB/s, limited by {}\n", model.ring_gbps, model.ring_limit);
  if (model.nodes > 1) {
    fmt::print(stderr, "#   {} rail(s); network {:.1f} GB/s per node, limited by {}\n", model.rails, model.net_gbps,
               model.net_limit);
    if (model.ranks_per_node > 1) fmt::print(stderr, "#   intra-node ring {:.1f} GB/s, limited by {}\n", model.intra_gbps, model.intra_limit);
  }
  if (model.gpu_nvlink_gbps > 0) fmt::print(stderr, "#   one GPU's NVLink {:.1f} GB/s\n", model.gpu_nvlink_gbps);
  if (const double serial_us = topo::serial_launch_us(model); serial_us > 0) {
    fmt::print(stderr, "#   one process launches {} GPUs' kernels in turn: +{:.1f} us per call\n",
               model.gpus_per_process, serial_us);
  }
  fmt::print(stderr, "# {:>14} {:>12} {:>10} {:>14} {:>7} {:>8}  {}\n", "bytes", "time us", "busbw", "algorithm",
             "proto", "channels", "limiting link");
  for (const ResultRow& row : rows) {
    fmt::print(stderr, "# {:>14} {:>12.2f} {:>10.2f} {:>14} {:>7} {:>8}  {}\n", row.bytes, row.time_median_us,
               row.busbw_gbps.value_or(row.algbw_gbps), row.model_algorithm, row.model_protocol,
               row.model_channels.value_or(0), row.model_limit);
  }
  for (const std::string& warning : warnings) fmt::print(stderr, "fabricbench: warning: {}\n", warning);
}

std::string topology_format_names() { return topo::TopologyFormatRegistry::instance().names(); }

int predict(const TopoOptions& options) {
  const OpTraits* op = topo::modelled_op(options.op);
  if (!op) throw UsageError(fmt::format("--op must be one of {}, got '{}'", modelled_op_names(), options.op));
  topo::Forced forced;
  if (options.algorithm != "auto") {
    forced.algorithm = topo::algorithm_from_string(options.algorithm);
    if (!forced.algorithm) {
      throw UsageError("--algo must be auto, ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat or p2p, got '" +
                       options.algorithm + "'");
    }
  }
  if (options.protocol != "auto") {
    forced.protocol = topo::protocol_from_string(options.protocol);
    if (!forced.protocol) throw UsageError("--proto must be auto, LL, LL128 or Simple, got '" + options.protocol + "'");
  }
  std::optional<topo::NcclVersion> nccl_version;
  if (!options.nccl_version.empty()) {
    nccl_version = topo::parse_nccl_version(options.nccl_version);
    if (!nccl_version) {
      throw UsageError("--nccl-version must be a release such as 2.21 or 2.21.5 (or a version code such as 22105), got '" +
                       options.nccl_version + "'");
    }
  }
  const topo::NcclTuningChoice tuning = topo::nccl_tuning_for(nccl_version);
  SweepSpec sweep;
  sweep.min_bytes = parse_size_bytes(options.min_bytes);
  sweep.max_bytes = parse_size_bytes(options.max_bytes);
  sweep.step_factor = options.step_factor;
  validate_sweep(sweep);
  if (options.gpus_per_process < 1) {
    throw UsageError(fmt::format("--gpus-per-process must be at least 1, got {}", options.gpus_per_process));
  }

  std::vector<OtherJob> other_jobs;
  std::vector<topo::JobPlacement> placements{{options.nodes, options.gpus_per_node, parse_placement(options.placement)}};
  for (const std::string& spec : options.job_specs) {
    other_jobs.push_back(parse_job(spec));
    placements.push_back(other_jobs.back().placement);
  }

  const Graph graph = load_topology_with_warnings(options.spec_paths, options.format, options.hints);
  const std::vector<std::vector<topo::VertexId>> job_ranks = topo::place_jobs(graph, placements);
  const std::vector<topo::VertexId>& ranks = job_ranks.front();
  std::map<topo::VertexId, int> ranks_on_host;
  for (const topo::VertexId gpu : ranks) ++ranks_on_host[graph.vertex(gpu).host];
  for (const auto& [host, count] : ranks_on_host) {
    if (count % options.gpus_per_process != 0) {
      throw UsageError(fmt::format("--gpus-per-process {} must divide the GPUs per node: {} has {} ranks",
                                   options.gpus_per_process, graph.vertex(host).name, count));
    }
  }
  const topo::CollectiveModel model = topo::model_collectives(
      graph, ranks,
      topo::ModelOptions{options.in_network_reduction, sharing_jobs(graph, other_jobs, job_ranks),
                         options.gpus_per_process});
  const std::vector<std::uint64_t> sizes = expand_sweep(sweep, size_unit_bytes(*op, 4, model.ranks), "float elements");

  ResultSet results;
  Provenance& provenance = results.provenance;
  std::string inputs;
  for (const std::string& path : options.spec_paths) inputs += (inputs.empty() ? "" : " --spec ") + path;
  provenance.run_id = fmt::format("model-{}-{}-{}", topo::host_name_from_path(options.spec_paths.front()), options.op,
                                  options.algorithm);
  provenance.tool_version = tool_version();
  provenance.git_revision = git_revision();
  provenance.start_time = utc_now_iso8601();
  provenance.command_line = fmt::format(
      "fabricbench topo predict --spec {} --nodes {} --gpus-per-node {} --gpus-per-process {} --placement {} --op {} "
      "--algo {} --proto {}{} -b {} -e {} -f {}",
      inputs, options.nodes, options.gpus_per_node, options.gpus_per_process, options.placement, options.op,
      options.algorithm, options.protocol, options.in_network_reduction ? " --sharp" : "", options.min_bytes,
      options.max_bytes, options.step_factor);
  if (nccl_version) provenance.command_line += " --nccl-version " + options.nccl_version;
  for (const std::string& spec : options.job_specs) provenance.command_line += fmt::format(" --job '{}'", spec);
  for (const std::string& line : model.sharing) provenance.assumptions.push_back("sharing the fabric: " + line);
  provenance.backend = "model";
  provenance.nranks = model.ranks;
  provenance.nodes = model.nodes;
  provenance.ranks_per_node = model.ranks_per_node;
  for (const topo::VertexId gpu : ranks) provenance.rank_hosts.push_back(graph.vertex(graph.vertex(gpu).host).name);
  std::vector<std::string> warnings;
  for (const std::uint64_t bytes : sizes) {
    const topo::Prediction prediction = topo::predict(model, *op, bytes, forced, *tuning.tuning);
    if (!prediction.warning.empty() && std::find(warnings.begin(), warnings.end(), prediction.warning) == warnings.end()) {
      warnings.push_back(prediction.warning);
    }
    results.rows.push_back(topo::predicted_row(model, prediction, *op, bytes, provenance.run_id, provenance.start_time));
  }
  // The model's guesses are warnings: a prediction that rests on them says so.
  if (!tuning.assumption.empty()) {
    warnings.push_back("assumed: " + tuning.assumption);
    provenance.assumptions.push_back(tuning.assumption);
  }
  for (const std::string& assumption : model.assumptions) warnings.push_back("assumed: " + assumption);
  if (op->modelled_as == ModelledCollective::alltoall && !model.alltoall_assumption.empty()) {
    warnings.push_back("assumed: " + model.alltoall_assumption);
  }
  if (options.explain) {
    print_explanation(model, *tuning.tuning, results.rows, warnings);
  } else {
    fmt::print(stderr, "# model: {} ranks on {} nodes, ring {:.1f} GB/s ({}){}\n", model.ranks, model.nodes,
               model.ring_gbps, model.ring_limit, model.nodes > 1 ? fmt::format(", network {:.1f} GB/s per node", model.net_gbps) : "");
    print_sharing(model);
    for (const std::string& warning : warnings) fmt::print(stderr, "fabricbench: warning: {}\n", warning);
  }
  if (!options.csv_path.empty()) write_file_atomically(options.csv_path, results_to_csv(results));
  if (!options.json_path.empty()) write_file_atomically(options.json_path, results_to_json(results));
  if (options.csv_path.empty() && options.json_path.empty()) std::cout << results_to_csv(results);
  return static_cast<int>(ExitCode::ok);
}

int dot(const TopoOptions& options) {
  const Graph graph = load_topology_with_warnings(options.files, options.format, options.hints);
  std::vector<topo::LinkId> flagged;
  if (options.pattern != "none") {
    FabricHierarchy fabric(graph);
    for (const topo::BlockingFinding& finding : topo::analyze_pattern(fabric, parse_pattern(options.pattern)).blocking) {
      flagged.push_back(finding.link);
    }
  }
  if (options.output_path.empty() || options.output_path == "-") {
    topo::write_dot(std::cout, graph, flagged);
  } else {
    std::ostringstream text;
    topo::write_dot(text, graph, flagged);
    write_file_atomically(options.output_path, text.str());
  }
  return static_cast<int>(ExitCode::ok);
}

// Exit status doctor_flags, as doctor's own comparison of hosts: the dumps were read and some node
// differs from the fleet.
int diff(const TopoOptions& options) {
  if (options.files.size() < 2) {
    throw UsageError(fmt::format("topo diff compares nodes: give at least 2 dumps, one per node, got {}",
                                 options.files.size()));
  }
  const topo::Fleet fleet = topo::load_fleet(options.files, options.format, options.hints);
  for (const topo::NodeTopology& node : fleet.nodes) print_assumption_warnings(node.graph);
  const topo::FleetDiff fleet_diff = topo::diff_fleet(fleet);
  fmt::print("# topo diff: {} nodes ({}), {}\n", fleet_diff.nodes.size(), fleet_diff.format,
             fleet_diff.deviations.empty() ? std::string("uniform")
                                           : fmt::format("{} deviation(s)", fleet_diff.deviations.size()));
  for (const topo::GpuRenumbering& renumbering : fleet_diff.renumberings) {
    fmt::print("# {}\n", topo::describe(renumbering));
  }
  for (const topo::Deviation& deviation : fleet_diff.deviations) fmt::print("{}\n", topo::describe(deviation));
  if (!options.json_path.empty()) {
    write_json(options.json_path, topo::to_json(fleet_diff));
  }
  return static_cast<int>(fleet_diff.deviations.empty() ? ExitCode::ok : ExitCode::doctor_flags);
}

void add_nvlink_generation_flag(CLI::App& command, TopoOptions& options) {
  command
      .add_option_function<int>("--nvlink-gen", [&options](int generation) { options.hints.nvlink_generation = generation; },
                                "NVLink generation of the GPUs in nvidia-smi topo -m inputs (NV18: 4 on H100, 5 on B200); "
                                "default: from a GPU model named in the file, else assumed from the link count")
      ->check(CLI::Range(1, 5));
}

void add_input_flags(CLI::App& command, TopoOptions& options,
                     const std::string& files_help = "topology inputs, merged in order (hosts match by name)") {
  command.add_option("files", options.files, files_help)
      ->required()
      ->check(CLI::ExistingFile);
  command.add_option("--format", options.format, "input format: auto (sniffed) or one of " + topology_format_names());
  add_nvlink_generation_flag(command, options);
}

const Registrar<CommandRegistration> registrar{{
    "topo", "the fabric model: show, analyze, predict and draw a topology; diff a fleet's dumps",
    [](CLI::App& sub, const ProcessArguments&) -> std::function<int()> {
      auto options = std::make_shared<TopoOptions>();
      sub.require_subcommand(1);
      CLI::App* show_command = sub.add_subcommand("show", "summary: counts, link types, tiers, oversubscription");
      add_input_flags(*show_command, *options);

      CLI::App* analyze_command = sub.add_subcommand("analyze", "oversubscription, bisection and blocking links");
      add_input_flags(*analyze_command, *options);
      analyze_command->add_option("--pattern", options->pattern, "all_to_all, ring, leaf_to_leaf or bisection")
          ->capture_default_str();
      analyze_command->add_option("--json", options->json_path, "write the findings as JSON to FILE ('-': stdout)");
      analyze_command->add_option("--max-rows", options->max_rows, "blocking links shown in the table")->capture_default_str();

      CLI::App* predict_command =
          sub.add_subcommand("predict", "NCCL's algorithm x protocol choice and time for a collective sweep");
      predict_command
          ->add_option("--spec", options->spec_paths,
                       "the topology: a cluster spec YAML or any input; repeat to merge (node dumps + fabric)")
          ->required()
          ->check(CLI::ExistingFile);
      predict_command->add_option("--format", options->format,
                                  "input format: auto (sniffed) or one of " + topology_format_names());
      add_nvlink_generation_flag(*predict_command, *options);
      predict_command->add_option("--op", options->op, modelled_op_names())
          ->capture_default_str();
      predict_command
          ->add_option("--algo", options->algorithm,
                       "auto (NCCL's choice) or force one as NCCL_ALGO does: ring, tree, nvls, nvls_tree, "
                       "collnet_direct, collnet_chain, pat (p2p for alltoall and sendrecv)")
          ->capture_default_str();
      predict_command->add_option("--proto", options->protocol, "auto, or force one as NCCL_PROTO does: LL, LL128, Simple")
          ->capture_default_str();
      predict_command->add_option("--nccl-version", options->nccl_version,
                                  "the NCCL release whose tuner figures choose algorithm and protocol (2.21, "
                                  "2.21.5, 22105); default: the newest the model has, stated as an assumption");
      predict_command->add_flag("--sharp", options->in_network_reduction,
                                "the fabric reduces in its switches (SHARP): CollNet and multi-node NVLS");
      predict_command->add_flag("--explain", options->explain,
                                "print each size's algorithm, protocol, channels and limiting link, and the assumptions");
      predict_command->add_option("-b,--minbytes", options->min_bytes, "smallest size")->capture_default_str();
      predict_command->add_option("-e,--maxbytes", options->max_bytes, "largest size")->capture_default_str();
      predict_command->add_option("-f,--stepfactor", options->step_factor, "size multiplier")->capture_default_str();
      predict_command->add_option("--nodes", options->nodes, "nodes to place ranks on (0: all)");
      predict_command->add_option("--gpus-per-node", options->gpus_per_node, "ranks per node (0: every GPU)");
      predict_command
          ->add_option("-g,--gpus-per-process", options->gpus_per_process,
                       "GPUs one process drives, as nccl-tests -g: it launches their kernels in turn, adding a "
                       "launch per extra GPU to every call; must divide the GPUs per node")
          ->capture_default_str();
      predict_command
          ->add_option("--placement", options->placement,
                       "which hosts: packed (the first --nodes), spread (evenly over all), or a host list node[01-16]")
          ->capture_default_str();
      predict_command
          ->add_option("--job", options->job_specs,
                       "another job on the same fabric, on hosts of its own, repeatable: "
                       "op=OP,nodes=N[,gpus-per-node=G][,placement=packed|spread|HOSTLIST]; it sends its op's "
                       "traffic (rings; alltoall's all-pairs exchange; sendrecv's neighbours) throughout");
      predict_command->add_option("--csv", options->csv_path, "write the rows as CSV (default: CSV on stdout)");
      predict_command->add_option("--json", options->json_path, "write the rows as JSON");

      CLI::App* dot_command = sub.add_subcommand("dot", "Graphviz DOT with the pattern's blocking links in red");
      add_input_flags(*dot_command, *options);
      dot_command->add_option("--pattern", options->pattern, "pattern whose blocking links are flagged, or none")
          ->capture_default_str();
      dot_command->add_option("-o,--output", options->output_path, "write to FILE instead of stdout");

      CLI::App* diff_command =
          sub.add_subcommand("diff", "per-node dumps (topo -m, NCCL XML) against the fleet's majority");
      add_input_flags(*diff_command, *options, "one dump per node, each named after its node (dgx01.txt, dgx01.xml)");
      diff_command->add_option("--json", options->json_path, "write the deviations as JSON to FILE ('-': stdout)");

      return [options, show_command, analyze_command, predict_command, diff_command]() {
        if (show_command->parsed()) return show(*options);
        if (analyze_command->parsed()) return analyze(*options);
        if (predict_command->parsed()) return predict(*options);
        if (diff_command->parsed()) return diff(*options);
        return dot(*options);
      };
    }}};

}  // namespace
}  // namespace fb::cli
