// `fabricbench topo`: the topology model from the command line.
//
//   topo show FILE...                   counts, link types, tiers, oversubscription
//   topo analyze FILE... --pattern P    oversubscription, bisection, blocking links (table, JSON)
//   topo predict --spec cluster.yaml --op all_reduce -b 8 -e 1G   a predicted sweep as results
//                [--algo A --proto P] [--sharp] [--explain]      (NCCL's choice unless forced)
//                [--nccl-version 2.21]                           whose tuner figures choose
//                [-g 8]                                          GPUs one process drives (nccl-tests -g)
//                [--job op=alltoall,nodes=64 ...]                other jobs sharing the fabric
//   topo compare A.yaml B.yaml...       designs side by side: busbw, time, ratio, limiting link,
//                [--op all_reduce,alltoall] [--nodes N] [--prices P.yaml] [--html F --csv F --json F]
//   topo dot FILE... [--pattern P]      Graphviz DOT, the pattern's blocking links in red
//   topo diff FILE...                   per-node dumps against the fleet's majority (exit 7 on deviations)

#include "cli/command.hpp"
#include "cli/fabric_flags.hpp"

#include "common/build_info.hpp"
#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "common/sizes.hpp"
#include "reports/compare/design_report.hpp"
#include "reports/console/predicted_sweep_text.hpp"
#include "reports/console/topology_analysis_text.hpp"
#include "results/results_io.hpp"
#include "topology/analysis.hpp"
#include "topology/collective_model.hpp"
#include "topology/dot_export.hpp"
#include "topology/fleet_diff.hpp"
#include "topology/format_registry.hpp"
#include "topology/hostlist.hpp"
#include "topology/design_comparison.hpp"
#include "topology/predicted_sweep.hpp"

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

#include <unistd.h>

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
  // compare
  std::string compare_ops = "all_reduce,all_gather,alltoall";
  std::string compare_min_bytes = "1M";
  std::string compare_max_bytes = "1G";
  std::uint64_t compare_step_factor = 4;
  std::vector<std::string> prices_paths;
};

topo::TrafficPattern parse_pattern(const std::string& name) {
  const auto pattern = topo::traffic_pattern_from_string(name);
  if (!pattern) throw UsageError("--pattern must be all_to_all, ring, leaf_to_leaf or bisection, got '" + name + "'");
  return *pattern;
}

int show(const TopoOptions& options) {
  const Graph graph = load_topology_with_warnings(options.files, options.format, options.hints);
  print_topology_summary(graph, options.files.size());
  return static_cast<int>(ExitCode::ok);
}

void write_json(const std::string& path, const nlohmann::json& json) {
  write_file_atomically(path, json.dump(2) + "\n");
}

// Two or more cluster specs in one `topo analyze` would be merged into one cluster: two designs
// are compared, never merged.
void refuse_merging_designs(const TopoOptions& options) {
  std::vector<std::string> designs;
  for (const std::string& path : options.files) {
    const topo::SourceText source = topo::read_topology_source(path, options.hints);
    if (topo::resolve_topology_format(source, options.format).name == "cluster-yaml") designs.push_back(path);
  }
  if (designs.size() > 1) {
    throw UsageError(fmt::format("{} and {} are two cluster designs, and analyze merges its inputs into one cluster: "
                                 "analyze each alone, or put them side by side with `fabricbench topo compare {}`",
                                 designs[0], designs[1], fmt::join(designs, " ")));
  }
}

int analyze(const TopoOptions& options) {
  const topo::TrafficPattern pattern = parse_pattern(options.pattern);
  refuse_merging_designs(options);
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
    print_partitions(graph, partitions, linked);
    if (!options.json_path.empty()) {
      nlohmann::json json{{"disconnected", !linked},
                          {"partitions", nlohmann::json::array()},
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
  const std::vector<topo::HostInjection> shortfalls = topo::injection_shortfalls(graph, fabric);
  print_pattern_analysis(graph, bisection_gbps, analysis, shortfalls, options.max_rows);
  if (!options.json_path.empty()) {
    nlohmann::json json = topo::to_json(graph, analysis);
    json["oversubscription"] = topo::to_json(graph, oversubscription);
    json["bisection_bandwidth_gbps"] = bisection_gbps;
    json["gpu_injection_shortfalls"] = topo::to_json(graph, shortfalls);
    write_json(options.json_path, json);
  }
  return static_cast<int>(ExitCode::ok);
}

std::string utc_now_iso8601() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
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

// "op=alltoall,nodes=64,placement=spread,gpus-per-node=4": commas inside a host list's brackets
// belong to it. op is required, nodes too unless the placement names the hosts.
// NOLINTNEXTLINE(readability-function-cognitive-complexity): one key=value reader for --job with each key's check, refusing the spec with the key named
topo::OtherJob parse_job(const std::string& spec) {
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
  topo::OtherJob job;
  std::map<std::string, std::string> seen;
  for (const std::string& field : fields) {
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos)
      throw fail(fmt::format("'{}' is not field=value (fields: op, nodes, gpus-per-node, placement)", field));
    const std::string key = field.substr(0, equals);
    const std::string value = field.substr(equals + 1);
    if (!seen.emplace(key, value).second) throw fail(fmt::format("{} is given twice", key));
    if (key == "op") {
      job.op = topo::modelled_op(value);
      if (!job.op) throw fail(fmt::format("op must be one of {}, got '{}'", modelled_op_names(), value));
      if (!topo::sharing_pattern_of(*job.op)) {
        throw fail(
            fmt::format("op {} converges on one root: the model has no fabric-wide pattern for it as another job",
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

std::string topology_format_names() { return topo::TopologyFormatRegistry::instance().names(); }

// The sweep --op, --algo, --proto, --nccl-version, -b/-e/-f and -g ask for; the placement and the
// other jobs come from --nodes, --gpus-per-node, --placement and --job.
topo::SweepRequest sweep_request(const TopoOptions& options) {
  topo::SweepRequest request;
  request.op = topo::modelled_op(options.op);
  if (!request.op) throw UsageError(fmt::format("--op must be one of {}, got '{}'", modelled_op_names(), options.op));
  if (options.algorithm != "auto") {
    request.forced.algorithm = topo::algorithm_from_string(options.algorithm);
    if (!request.forced.algorithm) {
      throw UsageError(
          "--algo must be auto, ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat or p2p, got '" +
          options.algorithm + "'");
    }
  }
  if (options.protocol != "auto") {
    request.forced.protocol = topo::protocol_from_string(options.protocol);
    if (!request.forced.protocol)
      throw UsageError("--proto must be auto, LL, LL128 or Simple, got '" + options.protocol + "'");
  }
  if (!options.nccl_version.empty()) {
    request.nccl_version = topo::parse_nccl_version(options.nccl_version);
    if (!request.nccl_version) {
      throw UsageError(
          "--nccl-version must be a release such as 2.21 or 2.21.5 (or a version code such as 22105), got '" +
          options.nccl_version + "'");
    }
  }
  request.sweep.min_bytes = parse_size_bytes(options.min_bytes);
  request.sweep.max_bytes = parse_size_bytes(options.max_bytes);
  request.sweep.step_factor = options.step_factor;
  validate_sweep(request.sweep);
  if (options.gpus_per_process < 1) {
    throw UsageError(fmt::format("--gpus-per-process must be at least 1, got {}", options.gpus_per_process));
  }
  request.gpus_per_process = options.gpus_per_process;
  request.in_network_reduction = options.in_network_reduction;
  request.placement = {options.nodes, options.gpus_per_node, parse_placement(options.placement)};
  for (const std::string& spec : options.job_specs) request.other_jobs.push_back(parse_job(spec));
  return request;
}

int predict(const TopoOptions& options) {
  topo::SweepRequest request = sweep_request(options);
  const Graph graph = load_topology_with_warnings(options.spec_paths, options.format, options.hints);
  std::string inputs;
  for (const std::string& path : options.spec_paths) inputs += (inputs.empty() ? "" : " --spec ") + path;
  request.run_id = fmt::format("model-{}-{}-{}", topo::host_name_from_path(options.spec_paths.front()), options.op,
                               options.algorithm);
  request.start_time = utc_now_iso8601();
  request.command_line = fmt::format(
      "fabricbench topo predict --spec {} --nodes {} --gpus-per-node {} --gpus-per-process {} --placement {} --op {} "
      "--algo {} --proto {}{} -b {} -e {} -f {}",
      inputs, options.nodes, options.gpus_per_node, options.gpus_per_process, options.placement, options.op,
      options.algorithm, options.protocol, options.in_network_reduction ? " --sharp" : "", options.min_bytes,
      options.max_bytes, options.step_factor);
  if (request.nccl_version) request.command_line += " --nccl-version " + options.nccl_version;
  for (const std::string& spec : options.job_specs) request.command_line += fmt::format(" --job '{}'", spec);
  topo::PredictedSweep sweep = topo::predict_sweep(graph, request);
  sweep.results.provenance.tool_version = tool_version();
  sweep.results.provenance.git_revision = git_revision();
  if (options.explain) {
    print_model_explanation(sweep);
  } else {
    print_model_summary(sweep);
  }
  if (!options.csv_path.empty()) write_file_atomically(options.csv_path, results_to_csv(sweep.results));
  if (!options.json_path.empty()) write_file_atomically(options.json_path, results_to_json(sweep.results));
  // A person at a terminal gets a table; a pipe or a file gets CSV, as before, and `--csv -` asks for it.
  if (options.csv_path.empty() && options.json_path.empty()) {
    if (::isatty(STDOUT_FILENO) != 1)
      std::cout << results_to_csv(sweep.results);
    else
      print_prediction_table(std::cout, sweep);
  }
  return static_cast<int>(ExitCode::ok);
}

// --op for compare: a comma-separated list of the ops the model predicts.
std::vector<const OpTraits*> parse_op_list(const std::string& text) {
  std::vector<const OpTraits*> ops;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string name = text.substr(begin, comma - begin);
    const OpTraits* op = topo::modelled_op(name);
    if (!op) throw UsageError(fmt::format("--op must list ops of {}, got '{}'", modelled_op_names(), name));
    ops.push_back(op);
    begin = comma + 1;
  }
  return ops;
}

int compare(const TopoOptions& options) {
  topo::ComparisonRequest request;
  request.ops = parse_op_list(options.compare_ops);
  request.sweep.min_bytes = parse_size_bytes(options.compare_min_bytes);
  request.sweep.max_bytes = parse_size_bytes(options.compare_max_bytes);
  request.sweep.step_factor = options.compare_step_factor;
  validate_sweep(request.sweep);
  request.placement = {options.nodes, options.gpus_per_node, {}};
  if (!options.nccl_version.empty()) {
    request.nccl_version = topo::parse_nccl_version(options.nccl_version);
    if (!request.nccl_version) {
      throw UsageError("--nccl-version must be a release such as 2.21 or 2.21.5, got '" + options.nccl_version + "'");
    }
  }
  if (options.files.size() < 2) {
    throw UsageError(
        fmt::format("topo compare puts designs side by side: give at least 2, got {}", options.files.size()));
  }
  for (const std::string& path : options.prices_paths) request.prices.push_back(topo::read_part_prices(path));
  request.start_time = utc_now_iso8601();
  std::vector<Graph> graphs;
  graphs.reserve(options.files.size());
  std::vector<topo::Design> designs;
  for (const std::string& path : options.files) {
    graphs.push_back(load_topology_with_warnings({path}, options.format, options.hints));
    designs.push_back({topo::host_name_from_path(path), &graphs.back()});
  }
  const topo::DesignComparison comparison = topo::compare_designs(designs, request);
  print_design_comparison(std::cout, comparison);
  if (!options.csv_path.empty()) write_file_atomically(options.csv_path, design_comparison_csv(comparison));
  if (!options.json_path.empty()) write_file_atomically(options.json_path, design_comparison_json(comparison));
  if (!options.output_path.empty()) write_file_atomically(options.output_path, design_comparison_html(comparison));
  return static_cast<int>(ExitCode::ok);
}

int dot(const TopoOptions& options) {
  const Graph graph = load_topology_with_warnings(options.files, options.format, options.hints);
  std::vector<topo::LinkId> flagged;
  if (options.pattern != "none") {
    FabricHierarchy fabric(graph);
    for (const topo::SaturatedLink& finding : topo::analyze_pattern(fabric, parse_pattern(options.pattern)).blocking) {
      flagged.push_back(finding.link);
    }
  }
  std::ostringstream text;
  topo::write_dot(text, graph, flagged);
  write_file_atomically(options.output_path.empty() ? "-" : options.output_path, text.str());
  return static_cast<int>(ExitCode::ok);
}

// Exit status doctor_flags, as doctor's own comparison of hosts: the dumps were read and some node
// differs from the fleet.
int diff(const TopoOptions& options) {
  if (options.files.size() < 2) {
    throw UsageError(
        fmt::format("topo diff compares nodes: give at least 2 dumps, one per node, got {}", options.files.size()));
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
  if (!options.json_path.empty()) { write_json(options.json_path, topo::to_json(fleet_diff)); }
  return static_cast<int>(fleet_diff.deviations.empty() ? ExitCode::ok : ExitCode::doctor_flags);
}

void add_nvlink_generation_flag(CLI::App& command, TopoOptions& options) {
  command
      .add_option_function<int>(
          "--nvlink-gen", [&options](int generation) { options.hints.nvlink_generation = generation; },
          "NVLink generation of the GPUs in nvidia-smi topo -m inputs (NV18: 4 on H100, 5 on B200); "
          "default: from a GPU model named in the file, else assumed from the link count")
      ->check(CLI::Range(1, 5));
}

void add_input_flags(CLI::App& command, TopoOptions& options,
                     const std::string& files_help = "topology inputs, merged in order (hosts match by name)") {
  command.add_option("files", options.files, files_help)->required()->check(CLI::ExistingFile);
  command.add_option("--format", options.format, "input format: auto (sniffed) or one of " + topology_format_names());
  add_nvlink_generation_flag(command, options);
}

const Registrar<CommandRegistration> registrar{
    {"topo", "the fabric model: show, analyze, predict and draw a topology; diff a fleet's dumps",
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
       analyze_command->add_option("--max-rows", options->max_rows, "blocking links shown in the table")
           ->capture_default_str();

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
       predict_command->add_option("--op", options->op, modelled_op_names())->capture_default_str();
       predict_command
           ->add_option("--algo", options->algorithm,
                        "auto (NCCL's choice) or force one as NCCL_ALGO does: ring, tree, nvls, nvls_tree, "
                        "collnet_direct, collnet_chain, pat (p2p for alltoall and sendrecv)")
           ->capture_default_str();
       predict_command
           ->add_option("--proto", options->protocol, "auto, or force one as NCCL_PROTO does: LL, LL128, Simple")
           ->capture_default_str();
       predict_command->add_option("--nccl-version", options->nccl_version,
                                   "the NCCL release whose tuner figures choose algorithm and protocol (2.21, "
                                   "2.21.5, 22105); default: the newest the model has, stated as an assumption");
       predict_command->add_flag("--sharp", options->in_network_reduction,
                                 "the fabric reduces in its switches (SHARP): CollNet and multi-node NVLS");
       predict_command->add_flag(
           "--explain", options->explain,
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
       predict_command->add_option(
           "--job", options->job_specs,
           "another job on the same fabric, on hosts of its own, repeatable: "
           "op=OP,nodes=N[,gpus-per-node=G][,placement=packed|spread|HOSTLIST]; it sends its op's "
           "traffic (rings; alltoall's all-pairs exchange; sendrecv's neighbours) throughout");
       predict_command->add_option("--csv", options->csv_path,
                                   "write the rows as CSV to FILE ('-': stdout); default: a table on a terminal, CSV "
                                   "on a pipe");
       predict_command->add_option("--json", options->json_path, "write the rows as JSON");
       CLI::App* compare_command = sub.add_subcommand(
           "compare", "cluster designs side by side: predicted busbw, time, ratio and limiting link per op and size");
       compare_command
           ->add_option("files", options->files, "cluster designs (specs or any topology input), one per file")
           ->required()
           ->check(CLI::ExistingFile);
       compare_command->add_option("--format", options->format,
                                   "input format: auto (sniffed) or one of " + topology_format_names());
       add_nvlink_generation_flag(*compare_command, *options);
       compare_command->add_option("--op", options->compare_ops, "comma-separated ops: " + modelled_op_names())
           ->capture_default_str();
       compare_command->add_option("-b,--minbytes", options->compare_min_bytes, "smallest size")->capture_default_str();
       compare_command->add_option("-e,--maxbytes", options->compare_max_bytes, "largest size (the answer's size)")
           ->capture_default_str();
       compare_command->add_option("-f,--stepfactor", options->compare_step_factor, "size multiplier")
           ->capture_default_str();
       compare_command->add_option("--nodes", options->nodes, "nodes of each design the job runs on (0: all)");
       compare_command->add_option("--gpus-per-node", options->gpus_per_node, "ranks per node (0: every GPU)");
       compare_command->add_option("--nccl-version", options->nccl_version,
                                   "the NCCL release whose tuner figures choose (default: the newest, an assumption)");
       compare_command
           ->add_option("--prices", options->prices_paths,
                        "YAML map of price per part (host, gpu, nic, switch, cable): adds cost per GB/s; "
                        "once for all designs, or once per design in order")
           ->check(CLI::ExistingFile);
       compare_command->add_option("--html", options->output_path, "write the comparison as one HTML page");
       compare_command->add_option("--csv", options->csv_path, "write one row per op, size and design as CSV");
       compare_command->add_option("--json", options->json_path, "write the comparison as JSON");

       CLI::App* dot_command = sub.add_subcommand("dot", "Graphviz DOT with the pattern's blocking links in red");
       add_input_flags(*dot_command, *options);
       dot_command->add_option("--pattern", options->pattern, "pattern whose blocking links are flagged, or none")
           ->capture_default_str();
       dot_command->add_option("-o,--output", options->output_path, "write to FILE instead of stdout");

       CLI::App* diff_command =
           sub.add_subcommand("diff", "per-node dumps (topo -m, NCCL XML) against the fleet's majority");
       add_input_flags(*diff_command, *options, "one dump per node, each named after its node (dgx01.txt, dgx01.xml)");
       diff_command->add_option("--json", options->json_path, "write the deviations as JSON to FILE ('-': stdout)");

       return [options, show_command, analyze_command, predict_command, compare_command, diff_command]() {
         if (show_command->parsed()) return show(*options);
         if (analyze_command->parsed()) return analyze(*options);
         if (predict_command->parsed()) return predict(*options);
         if (compare_command->parsed()) return compare(*options);
         if (diff_command->parsed()) return diff(*options);
         return dot(*options);
       };
     }}};

}  // namespace
}  // namespace fb::cli
