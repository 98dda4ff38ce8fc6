#include "diagnosis/intermittent_diagnosis.hpp"

#include "common/robust_statistics.hpp"
#include "results/repetition.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>

namespace fb::diagnosis {

using topo::Graph;
using topo::LinkId;
using topo::VertexId;
namespace {

// One part as the repetitions' findings named it.
struct PartHistory {
  std::map<int, const Finding*> by_repetition;
};

// The host at an end of the link: a host's cable to its switch.
std::optional<std::string> host_of_cable(const Graph& graph, LinkId link) {
  for (const VertexId end : {graph.link(link).a, graph.link(link).b})
    if (const VertexId host = graph.vertex(end).host; host != topo::no_vertex) return graph.vertex(host).name;
  return std::nullopt;
}

// The joined finding: the part, the repetitions it was slow in, the lowest of their confidences.
Finding join(const Graph& graph, const PartHistory& history) {
  const Finding& first = *history.by_repetition.begin()->second;
  Finding finding;
  finding.link = first.link;
  finding.host = first.host;
  finding.direction = first.direction;
  std::vector<int> repetitions;
  std::vector<double> expected, measured;
  double confidence = 1;
  std::size_t most_pairs = 0;
  for (const auto& [repetition, found] : history.by_repetition) {
    repetitions.push_back(repetition_number(repetition));
    if (found->direction != finding.direction) finding.direction = LinkDirection::both;
    finding.parallel_links.insert(finding.parallel_links.end(), found->parallel_links.begin(),
                                  found->parallel_links.end());
    confidence = std::min(confidence, found->confidence.value_or(0));
    most_pairs = std::max(most_pairs, found->explained_pairs);
    if (found->expected && found->measured) {
      expected.push_back(*found->expected);
      measured.push_back(*found->measured);
    }
    finding.evidence.push_back(fmt::format("{}: {} {} (confidence {:.2f})", repetition_text(repetition), found->kind,
                                           found->subject, found->confidence.value_or(0)));
    for (std::size_t e = 0; e < std::min<std::size_t>(3, found->evidence.size()); ++e)
      finding.evidence.push_back(fmt::format("{}: {}", repetition_text(repetition), found->evidence[e]));
  }
  std::sort(finding.parallel_links.begin(), finding.parallel_links.end());
  finding.parallel_links.erase(std::unique(finding.parallel_links.begin(), finding.parallel_links.end()),
                               finding.parallel_links.end());
  if (finding.link && finding.host.empty()) finding.host = host_of_cable(graph, *finding.link).value_or("");
  finding.kind = finding.host.empty() ? "intermittent_link" : "intermittent_host";
  // A switch-to-switch cable by the subject its repetitions gave it; a host or its cable by the host.
  // The repetitions as a person counts them, from 1 (result_row.hpp).
  const std::string part = finding.host.empty() ? first.subject : finding.host;
  finding.subject = fmt::format("{}: {} pairs slow in repetition{} {} only", part, most_pairs,
                                repetitions.size() == 1 ? "" : "s", fmt::join(repetitions, ", "));
  if (!expected.empty()) finding.set_bandwidth_gbps(median_of(expected), median_of(measured));
  finding.confidence = confidence;
  finding.explained_pairs = most_pairs;
  return finding;
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): judges each repetition on its own, then joins them per part, pair and repetition; each branch one case of that join
IntermittentDiagnosis diagnose_intermittent(const Graph& graph, std::span<const ResultRow> rows,
                                            const DiagnosisSettings& settings, const topo::TableRouter* tables) {
  std::map<std::string, std::map<int, std::vector<ResultRow>>> by_run;
  for (const ResultRow& row : rows)
    if (is_pair_bandwidth_row(row) && row.repetition) by_run[row.run_id][*row.repetition].push_back(row);

  IntermittentDiagnosis result;
  for (const auto& [run_id, repetitions] : by_run) {
    if (repetitions.size() < 2) continue;
    result.soak_runs.insert(run_id);
    // Each repetition alone; the findings are kept until the parts are joined.
    std::vector<Diagnosis> diagnoses;
    diagnoses.reserve(repetitions.size());
    std::map<std::string, PartHistory> parts;  // by the link or host a finding names
    for (const auto& [repetition, repetition_rows] : repetitions) {
      diagnoses.push_back(diagnose(graph, repetition_rows, settings, tables));
      for (const SlowPair& slow : diagnoses.back().unexplained_slow_pairs)
        result.unexplained.insert({run_id, repetition, slow.round, slow.src_host, slow.dst_host});
      for (const Finding& finding : diagnoses.back().findings) {
        if (finding.kind != "degraded_link" && finding.kind != "slow_node") continue;
        const std::string part = finding.link ? fmt::format("link {}", *finding.link) : "host " + finding.host;
        parts[part].by_repetition.emplace(repetition, &finding);
      }
    }
    for (const auto& [part, history] : parts)
      if (history.by_repetition.size() < repetitions.size()) result.findings.push_back(join(graph, history));
  }
  return result;
}

}  // namespace fb::diagnosis
