#include "diagnosis/fault_cost.hpp"

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "common/text_scan.hpp"
#include "topology/collective_model.hpp"
#include "topology/routed_collective.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>

namespace fb::diagnosis {

using topo::Graph;
using topo::LinkId;
using topo::VertexId;
using topo::VertexKind;
using topo::CollectiveModel;
using topo::Forced;
using topo::modelled_op;
using topo::predict;
using topo::Prediction;
using topo::RoutedStep;
using topo::TableRouter;
namespace {

// Every host's ranks: its GPUs, else its first CPU, else its first NIC (host memory, as MPI runs).
std::vector<VertexId> ranks_on_every_host(const Graph& graph) {
  std::vector<VertexId> ranks;
  for (VertexId v = 0; v < graph.vertex_count(); ++v) {
    if (graph.vertex(v).kind != VertexKind::host || !first_nic_of_host(graph, graph.vertex(v).name)) continue;
    std::vector<VertexId> gpus;
    std::optional<VertexId> cpu;
    for (const VertexId device : graph.devices_of(v)) {
      if (graph.vertex(device).kind == VertexKind::gpu) gpus.push_back(device);
      if (graph.vertex(device).kind == VertexKind::cpu && !cpu) cpu = device;
    }
    if (!gpus.empty())
      ranks.insert(ranks.end(), gpus.begin(), gpus.end());
    else
      ranks.push_back(cpu ? *cpu : *first_nic_of_host(graph, graph.vertex(v).name));
  }
  return ranks;
}

double mix_time_us(const Graph& graph, std::span<const VertexId> ranks, const std::vector<MixedJob>& mix) {
  const CollectiveModel model = model_collectives(graph, ranks);
  double total = 0;
  for (const MixedJob& job : mix) total += predict(model, *job.op, job.bytes).time_us;
  return total;
}

// The part of a prediction's time that grows with the bytes. The model's time is launch +
// latency + bytes / rate, with latency and rate fixed within a power-of-two size bucket (NCCL's
// tuner corrects per power of two), so the slope between two sizes of the bucket, times the bytes,
// is that part.
double bandwidth_term_us(const CollectiveModel& model, const MixedJob& job, const Forced& forced, double time_us) {
  const std::uint64_t delta = std::max<std::uint64_t>(job.bytes / 16, 1);
  const std::uint64_t other = job.bytes + delta < 2 * std::bit_floor(job.bytes) ? job.bytes + delta : job.bytes - delta;
  if (other == 0 || other == job.bytes) return time_us;
  const double other_us = predict(model, *job.op, other, forced).time_us;
  const double slope = (time_us - other_us) / (static_cast<double>(job.bytes) - static_cast<double>(other));
  return std::clamp(slope * static_cast<double>(job.bytes), 0.0, time_us);
}

// The mix over the forwarding tables' routes. NCCL's tuner and Open MPI's decision rules pick the
// algorithm by op, size and the topology they detect, not by a cable's measured rate, so the
// algorithm and protocol the healthy fabric gets are held under the fault: the cost is what the
// job pays, not what an algorithm avoiding the fault would.
class RoutedMix {
 public:
  RoutedMix(const Graph& graph, std::span<const VertexId> ranks, const std::vector<MixedJob>& mix,
            const TableRouter& tables)
      : ranks_(ranks.begin(), ranks.end()) {
    const CollectiveModel model = model_collectives(graph, ranks);
    for (const MixedJob& job : mix) {
      Job routed;
      routed.job = job;
      routed.healthy = predict(model, *job.op, job.bytes);
      routed.forced = Forced{routed.healthy.algorithm, routed.healthy.protocol};
      routed.bandwidth_us = bandwidth_term_us(model, job, routed.forced, routed.healthy.time_us);
      if (const auto flows = topo::step_flows(graph, ranks, *job.op, routed.healthy.algorithm)) {
        routed.step.emplace(graph, &tables, *flows);
        routed.healthy_s_per_gb = routed.step->slowest_flow_s_per_gb(graph);
      }
      healthy_us_ += routed.healthy.time_us;
      jobs_.push_back(std::move(routed));
    }
  }

  double healthy_us() const { return healthy_us_; }

  // The bandwidth term of each step grows with its slowest flow; the latency terms do not. An
  // algorithm whose traffic is not routed here (NVLS, CollNet, PAT) keeps the model's pooled
  // prediction, still with the healthy fabric's algorithm.
  double faulty_us(const Graph& faulty) const {
    std::optional<CollectiveModel> pooled;
    double total = 0;
    for (const Job& job : jobs_) {
      if (job.step) {
        const double stretch =
            job.healthy_s_per_gb > 0 ? job.step->slowest_flow_s_per_gb(faulty) / job.healthy_s_per_gb : 1.0;
        total += job.healthy.time_us + job.bandwidth_us * (std::max(stretch, 1.0) - 1);
        continue;
      }
      if (!pooled) pooled = model_collectives(faulty, ranks_);
      total += predict(*pooled, *job.job.op, job.job.bytes, job.forced).time_us;
    }
    return total;
  }

 private:
  struct Job {
    MixedJob job;
    Prediction healthy;  // the tuner's choice on the healthy fabric
    double bandwidth_us = 0;
    std::optional<RoutedStep> step;  // none: the algorithm's traffic is not routed here
    double healthy_s_per_gb = 0;
    Forced forced;
  };
  std::vector<VertexId> ranks_;
  std::vector<Job> jobs_;
  double healthy_us_ = 0;
};

// The link a finding degrades in the prediction, and to what share of its capacity.
std::optional<std::pair<LinkId, double>> degraded_part(const Graph& graph, const Finding& finding) {
  const double ratio = std::clamp(finding.ratio().value_or(0), 0.01, 1.0);
  if (finding.kind == "degraded_link" && finding.link) return std::pair{*finding.link, ratio};
  if (finding.kind == "slow_node" && !finding.host.empty()) {
    const std::optional<VertexId> nic = first_nic_of_host(graph, finding.host);
    if (!nic) return std::nullopt;
    for (const LinkId l : graph.links_of(*nic))
      if (graph.vertex(graph.link(l).other_end(*nic)).kind == VertexKind::fabric_switch) return std::pair{l, ratio};
  }
  return std::nullopt;
}

}  // namespace

std::vector<MixedJob> default_job_mix() {
  return {{&op_by_name("all_reduce"), 1ull << 30}, {&op_by_name("alltoall"), 1ull << 30}};
}

std::vector<MixedJob> parse_job_mix(std::string_view text) {
  std::vector<MixedJob> mix;
  for (const std::string_view entry : split_fields(text, ',')) {
    const std::size_t colon = entry.find(':');
    const std::string_view name = trim(entry.substr(0, colon));
    const OpTraits* op = modelled_op(name);
    if (op == nullptr || colon == std::string_view::npos)
      throw UsageError(fmt::format("--job-mix entry '{}' is not OP:SIZE with an op the model predicts", entry));
    mix.push_back({op, parse_size_bytes(trim(entry.substr(colon + 1)))});
  }
  if (mix.empty()) throw UsageError("--job-mix names no job");
  return mix;
}

std::string describe_job_mix(const std::vector<MixedJob>& mix) {
  std::string text;
  for (const MixedJob& job : mix)
    text += fmt::format("{}{} {}", text.empty() ? "" : " + ", job.op->name, format_size_bytes(job.bytes));
  return text + " across every node";
}

std::string describe_cost_basis(const TableRouter* tables) {
  if (tables != nullptr)
    return "routes: the forwarding tables' paths, each step's flows routed hop by hop; the algorithm the tuner picks "
           "on the healthy fabric, held under the fault (NCCL and Open MPI choose by size and topology, not by a "
           "cable's rate)";
  return "routes unknown: uplinks pooled (a leaf's uplinks share the load, so one slow cable of a bundle costs "
         "little; --routes prices it on the forwarding tables' paths)";
}

std::string no_cost_text(const Finding& finding) {
  // The prediction prices a part by degrading one link to one steady rate: each kind below says
  // why it has no such rate, so that no reader takes "no cost" for "costs nothing".
  if (finding.kind == "intermittent_link" || finding.kind == "intermittent_host")
    return "no predicted cost (an intermittent fault has no steady degraded rate for the model to price: what it "
           "costs a job depends on when and for how long it drops)";
  if (finding.kind == "blocking_link")
    return "no predicted cost of a repair (a blocking link is the fabric as built, not a fault: the healthy "
           "prediction already runs through it, and only more uplinks or another placement change it)";
  if (finding.kind == "failed_link")
    return "no predicted cost (a link that is down has no rate: a job that needs it fails or is routed around it, "
           "which the model does not price)";
  if (finding.kind == "lossy_link")
    return "no predicted cost (a lossy link keeps most of its bandwidth; its retransmissions show in latency tails, "
           "which the model does not price)";
  return "no predicted cost (the model has no rate to degrade for it)";
}

std::vector<std::optional<FaultCost>> predict_fault_costs(const Graph& graph, const Diagnosis& diagnosis,
                                                          const std::vector<MixedJob>& mix, const TableRouter* tables) {
  std::vector<std::optional<FaultCost>> costs(diagnosis.findings.size());
  // The healthy mix is predicted only when some finding names a part to degrade.
  if (std::none_of(diagnosis.findings.begin(), diagnosis.findings.end(),
                   [&](const Finding& finding) { return degraded_part(graph, finding).has_value(); }))
    return costs;
  const std::vector<VertexId> ranks = ranks_on_every_host(graph);
  if (ranks.size() < 2) return costs;
  // A fabric the collective model cannot place the mix on (no route between some hosts) prices
  // nothing: the findings stand without a cost rather than the diagnosis failing.
  try {
    const std::optional<RoutedMix> routed =
        tables != nullptr ? std::optional<RoutedMix>(std::in_place, graph, ranks, mix, *tables) : std::nullopt;
    const double healthy_us = routed ? routed->healthy_us() : mix_time_us(graph, ranks, mix);
    for (std::size_t f = 0; f < diagnosis.findings.size(); ++f) {
      const auto part = degraded_part(graph, diagnosis.findings[f]);
      if (!part || !(healthy_us > 0)) continue;
      Graph faulty = graph;
      faulty.set_link_capacity(part->first, graph.link(part->first).spec.capacity_gbps * part->second);
      const double faulty_us = routed ? routed->faulty_us(faulty) : mix_time_us(faulty, ranks, mix);
      costs[f] = FaultCost{faulty_us / healthy_us - 1,
                           fmt::format("{} at {:.2f} of its capacity", link_name(graph, part->first), part->second)};
    }
  } catch (const InputError&) { std::fill(costs.begin(), costs.end(), std::nullopt); }
  return costs;
}

std::vector<std::optional<FaultCost>> rank_by_cost(const Graph& graph, Diagnosis& diagnosis,
                                                   const std::vector<MixedJob>& mix, const TableRouter* tables) {
  const std::vector<std::optional<FaultCost>> costs = predict_fault_costs(graph, diagnosis, mix, tables);
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return costs[a].has_value() != costs[b].has_value() ? costs[a].has_value()
                                                        : costs[a] && costs[a]->slowdown > costs[b]->slowdown;
  });
  std::vector<Finding> findings;
  std::vector<std::optional<FaultCost>> ranked;
  for (const std::size_t f : order) {
    findings.push_back(std::move(diagnosis.findings[f]));
    ranked.push_back(costs[f]);
  }
  diagnosis.findings = std::move(findings);
  return ranked;
}

}  // namespace fb::diagnosis
