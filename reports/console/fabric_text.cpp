#include "reports/console/fabric_text.hpp"

#include "common/sizes.hpp"
#include "results/repetition.hpp"

#include <fmt/format.h>

namespace fb {

using diagnosis::EfficiencySummary;
using diagnosis::FabricJudgement;
using diagnosis::Finding;
using diagnosis::HostOutliers;
using diagnosis::FindingTicket;
namespace {

void print_row_findings(std::ostream& out, const FabricJudgement& judged) {
  for (const Finding& finding : judged.row_findings())
    out << fmt::format("  {:<14} {:<56} {}\n", finding.kind, finding.subject, finding.evidence_text());
}

void print_ranked(std::ostream& out, const FindingTicket& ranked) {
  const Finding& finding = ranked.finding;
  // Findings from incidents have no bandwidth to compare.
  const double confidence = finding.confidence.value_or(0);
  if (finding.expected.value_or(0) > 0)
    out << fmt::format("  {:<14} {:<56} {:>12.4g} {:>12.4g} {:>7.3f} {:>10.2f}\n", finding.kind, finding.subject,
                       *finding.expected, finding.measured.value_or(0), finding.ratio().value_or(0), confidence);
  else
    out << fmt::format("  {:<14} {:<56} {:>12} {:>12} {:>7} {:>10.2f}\n", finding.kind, finding.subject, "-", "-", "-",
                       confidence);
  // The header above the findings names the job mix and the cost basis once; each line names
  // what its prediction degraded.
  out << fmt::format("      rank {}: {}\n", ranked.rank,
                     ranked.cost ? fmt::format("{:+.1f}% predicted for the job mix ({})", 100 * ranked.cost->slowdown,
                                               ranked.cost->degraded)
                                 : ranked.no_cost);
  out << fmt::format("      where:   {}\n      do:      {}\n      confirm: {}\n", ranked.ticket.location,
                     ranked.ticket.action, ranked.ticket.confirm);
  for (const std::string& line : finding.evidence) out << fmt::format("      - {}\n", line);
}

// What the measurements could not judge: links no pair crossed, slow pairs no finding explains,
// and what they could not see. Said before the findings, so no "no findings" reads as healthy.
void print_unjudged(std::ostream& out, const FabricJudgement& judged) {
  const diagnosis::Diagnosis& diagnosis = judged.diagnosis;
  if (!judged.uncovered_links.empty()) {
    out << fmt::format("# {} of {} directed links a host pair can cross were crossed by no measured pair: not "
                       "measured, so neither faulty nor healthy\n",
                       judged.uncovered_links.size(), diagnosis.crossable_links);
    for (const diagnosis::UncoveredLink& link : judged.uncovered_links)
      out << fmt::format("#   uncovered: {} ({})\n", link.direction, link.cable);
  }
  if (!judged.unverified_links.empty()) {
    out << fmt::format("# {} directed link{} measured pairs crossed, none at a healthy rate, that no finding names: "
                       "neither faulty nor healthy\n",
                       judged.unverified_links.size(), judged.unverified_links.size() == 1 ? "" : "s");
    for (const diagnosis::UncoveredLink& link : judged.unverified_links)
      out << fmt::format("#   unverified: {} ({})\n", link.direction, link.cable);
  }
  if (!diagnosis.unexplained_slow_pairs.empty())
    out << fmt::format("# {} slow pair measurement{} no finding explains (under {:.0f}% of the expectation): "
                       "something is slow where no part could be named\n",
                       diagnosis.unexplained_slow_pairs.size(), diagnosis.unexplained_slow_pairs.size() == 1 ? "" : "s",
                       100 * diagnosis::DiagnosisSettings{}.slow_ratio);
  // A pair is looked up in the results: its repetition as a person counts it and as the field holds it.
  for (const diagnosis::SlowPair& pair : diagnosis.unexplained_slow_pairs)
    out << fmt::format("#   unexplained: {} -> {} (run {}, round {}{}) at {:.3f} of its expectation\n", pair.src_host,
                       pair.dst_host, pair.run_id, pair.round,
                       pair.repetition ? fmt::format(", {}, the results' repetition {}",
                                                     repetition_text(*pair.repetition), *pair.repetition)
                                       : "",
                       pair.ratio);
  for (const std::string& blind : diagnosis.blind_spots) out << fmt::format("# not seen: {}\n", blind);
}

void print_against_model(std::ostream& out, const FabricJudgement& judged) {
  const diagnosis::Diagnosis& diagnosis = judged.diagnosis;
  out << fmt::format("# {} pair measurements examined (each run's largest size); scale {:.4g} measured GB/s per "
                     "modelled GB/s; {} slow, {} explained by the findings\n",
                     diagnosis.flows_examined, diagnosis.calibration, diagnosis.slow_flows,
                     diagnosis.slow_flows_explained);
  if (!diagnosis.tables_given)
    out << "# routes: the model's ECMP spread over equal-cost links (no --routes): a fault in a bundle of parallel "
           "cables is named as one of them\n";
  else
    out << fmt::format("# routes: {} of {} pair measurements on the forwarding tables' paths{}\n",
                       diagnosis.flows_on_table_routes, diagnosis.flows_examined,
                       diagnosis.flows_on_table_routes < diagnosis.flows_examined
                           ? ", the others (no table entry) on the model's ECMP spread"
                           : "");
  if (judged.incidents > 0)
    out << fmt::format("# {} incident{} (runs the watchdog ended)\n", judged.incidents,
                       judged.incidents == 1 ? "" : "s");
  print_unjudged(out, judged);
  if (!judged.any_finding()) {
    out << "# no findings\n";
    return;
  }
  // Slow pairs alone (no part named): said above, no table of findings to head.
  if (judged.ranked.empty() && judged.row_findings().empty()) return;
  out << fmt::format("# {:<14} {:<56} {:>12} {:>12} {:>7} {:>10}\n", "kind", "subject", "expected GB/s",
                     "measured GB/s", "ratio", "confidence");
  out << fmt::format("# ranked by the predicted slowdown of {} (the collective model, the fault at its measured "
                     "ratio against the healthy fabric; {})\n",
                     judged.job_mix, judged.cost_basis);
  for (const FindingTicket& ranked : judged.ranked) print_ranked(out, ranked);
  print_row_findings(out, judged);
}

void print_against_peers(std::ostream& out, const FabricJudgement& judged) {
  out << "# no topology given: slow hosts by the median absolute deviation of their pair measurements\n";
  for (const HostOutliers& o : judged.host_outliers)
    out << fmt::format("# {} hosts compared on {} rows at {}; peer median {:.3g}; {} outlier{}\n", o.hosts, o.rows,
                       format_size_bytes(o.bytes), o.peer_median, o.findings.size(), o.findings.size() == 1 ? "" : "s");
  if (judged.host_outliers.empty()) out << "# no op with per-host rows of at least 3 hosts: no host compared\n";
  if (!judged.any_finding()) out << "# no findings\n";
  print_row_findings(out, judged);
}

// Every measured row against the model's expectation of it, one line per op, size and placement.
void print_efficiency(std::ostream& out, const std::vector<EfficiencySummary>& summaries) {
  if (summaries.empty()) return;
  out << "# measured against the model's nominal link rates (pairs: each alone on its route); the findings above "
         "are against the calibrated scale instead\n";
  out << fmt::format("# {:<16} {:>10} {:>6} {:>12} {:>12} {:>8} {:>8}  {}\n", "op", "size", "rows", "expected",
                     "measured", "median%", "lowest%", "lowest row");
  for (const EfficiencySummary& s : summaries)
    out << fmt::format("  {:<16} {:>10} {:>6} {:>12} {:>12} {:>8.1f} {:>8.1f}  {}\n", s.op + (s.in_place ? " in" : ""),
                       s.bytes, s.rows, fmt::format("{:.4g} {}", s.median_expected, s.unit),
                       fmt::format("{:.4g} {}", s.median_measured, s.unit), s.median_efficiency_pct,
                       s.lowest_efficiency_pct, s.lowest_row);
}

}  // namespace

void print_fabric_judgement(std::ostream& out, const FabricJudgement& judged) {
  if (!judged.topology_given) {
    print_against_peers(out, judged);
    return;
  }
  print_against_model(out, judged);
  print_efficiency(out, judged.efficiency);
}

}  // namespace fb
