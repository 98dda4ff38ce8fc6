#pragma once
// The troubleshooting job's one judged value: result sets joined to the fabric model (when a
// topology is given) or to their peers (when not), with every finding ranked by its predicted cost,
// its repair ticket and its confidence, the efficiency of every row against the model, the wrong
// results, drift from the run store, the hosts to drain and whether anything was found. `diagnose`
// and `report` both render this value, so the same inputs name the same findings in both.

#include "diagnosis/confirm_plan.hpp"
#include "diagnosis/diagnosis.hpp"
#include "diagnosis/drain_list.hpp"
#include "diagnosis/efficiency.hpp"
#include "diagnosis/fault_cost.hpp"
#include "diagnosis/finding.hpp"
#include "diagnosis/host_outliers.hpp"
#include "diagnosis/repair_ticket.hpp"
#include "results/result_loading.hpp"
#include "topology/forwarding_tables.hpp"
#include "topology/graph.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::diagnosis {

struct FabricInputs {
  std::span<LoadedResults> sets{};            // rows without the model's expectation get it (ExpectationColumns)
  const topo::Graph* graph = nullptr;         // nullptr: the peers are the reference
  const topo::TableRouter* routes = nullptr;  // the fabric's forwarding tables over `graph`
  std::vector<MixedJob> job_mix{};            // what a fault's cost is predicted for; empty: the default
  std::vector<Finding> drift{};               // from the run store's history (history/)
  std::vector<HostReason> drifted_hosts{};    // hosts whose own series drifted worse
  bool plan_confirm = false;                  // with a topology: plan the confirm round
};

// A finding of the model's diagnosis with what an operator acts on.
struct FindingTicket {
  Finding finding{};
  std::size_t rank = 0;             // 1: the dearest for the job mix
  std::optional<FaultCost> cost{};  // empty: the model cannot price it, and `no_cost` says why
  std::string no_cost{};            // "no predicted cost (WHY)" where `cost` is empty (no_cost_text)
  RepairTicket ticket{};
  std::string blamed_host{};  // the host it drains, empty for a link between two switches
  // Link findings: the two ends' names; the parallel cables it cannot be told from.
  std::string link_a{};
  std::string link_b{};
  std::vector<std::string> parallel_links{};
};

// A directed link no measured pair crossed: unmeasured, so neither faulty nor healthy.
struct UncoveredLink {
  std::string direction{};  // "leaf01 -> spine03": the direction of travel
  std::string cable{};      // the cable's two ends with their ports
};

// Only a finding this sure is put on the drain list: among findings at this confidence or more,
// at least 99% named the true part on the seeded fabrics of perf/diagnosis_accuracy
// (docs/troubleshooting.md); below it, the confirm round decides.
inline constexpr double drain_confidence = 0.99;

struct FabricJudgement {
  bool topology_given = false;
  Diagnosis diagnosis{};                          // the counts of the flows examined; its findings are `ranked`
  std::vector<FindingTicket> ranked{};            // the model's findings, dearest first
  std::vector<topo::LinkId> flagged_links{};      // every link a ranked finding names, for the drawing
  std::vector<UncoveredLink> uncovered_links{};   // the links a host pair can cross that no measured pair crossed
  std::vector<UncoveredLink> unverified_links{};  // crossed, never at a healthy rate, named by no finding
  std::vector<HostOutliers> host_outliers{};      // without a topology: slow hosts among their peers
  // Findings not of the model: wrong results, drift against the run store, and without a topology
  // the slow hosts (the findings of `host_outliers`).
  std::vector<Finding> wrong_results{};
  std::vector<Finding> drift{};
  std::vector<Finding> slow_hosts{};
  std::vector<EfficiencySummary> efficiency{};
  std::size_t incidents = 0;
  std::string job_mix{};     // "all_reduce 1G, alltoall 1G across every node"
  std::string cost_basis{};  // how the costs were computed
  DrainList drain{"diagnose"};
  std::vector<std::string> warnings{};  // the model's, on rows it cannot give an expectation for
  // The pairs that separate what the findings cannot tell apart, among the hosts measured.
  std::optional<ConfirmPlan> confirm_plan{};

  // wrong_results, drift and slow_hosts, in that order.
  std::vector<Finding> row_findings() const;
  // Any finding, or slow pairs no finding explains: something is slow even where no part is named.
  bool any_finding() const {
    return !ranked.empty() || !wrong_results.empty() || !drift.empty() || !slow_hosts.empty() ||
           !diagnosis.unexplained_slow_pairs.empty();
  }
};

// Throws InputError when a row names a host the topology does not have.
FabricJudgement judge_fabric(const FabricInputs& inputs, const std::string& drained_by);

}  // namespace fb::diagnosis
