#pragma once
// The history stage's baseline: for `--baseline SPEC` and `--store URL` of accept, compare and
// campaign, the baseline runs read from the run store (store/) and judged by diagnosis/baseline.hpp;
// and the verdicts recorded back. reports/console/baseline_text.hpp prints the judgement.
//   accepted[:N]   the last N runs (default 20) whose recorded verdicts are all "pass"
//   last[:N]       the last N runs recorded
//   ID[,ID...]     those runs
// accepted and last take only runs of this cluster: runs sharing a host with the judged results
// (every run when the judged results name no host, as imported logs).

#include "diagnosis/baseline.hpp"
#include "diagnosis/repeated_verdict.hpp"
#include "results/result_loading.hpp"
#include "store/run_store.hpp"

#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace fb::history {

// Beside the results `run` writes by default, as `history` uses.
inline constexpr std::string_view default_store_path = "fabricbench-results/history.sqlite";

struct BaselineOptions {
  std::string spec;   // empty: no baseline
  std::string store;  // empty: no --store given
  diagnosis::BaselineSettings settings;
};

// Opens the store that --store names, or the default one for --baseline alone. Reading a store
// that does not exist is a typo: InputError. `create`: a missing SQLite file is made (recording).
store::RunStore open_store(const BaselineOptions& options, bool create);

struct LoadedBaseline {
  std::vector<ResultSet> runs;
  std::string description;  // "the last 20 accepted runs on these hosts in S (12 found)"
};

// The baseline runs of `options.spec` for `judged`, none of them a judged run. A malformed spec:
// UsageError; a run id the store does not hold: InputError.
LoadedBaseline load_baseline(store::RunStore& store, const BaselineOptions& options,
                             std::span<const LoadedResults> judged);

// Loads and judges in one step.
diagnosis::BaselineVerdict judge_baseline(store::RunStore& store, const BaselineOptions& options,
                                          std::span<const LoadedResults> judged, std::string& description);

// Records every judged set in the store (idempotent) and `decision` as the verdict of each run.
void record_judged(store::RunStore& store, std::span<const LoadedResults> judged, const std::string& judged_by,
                   diagnosis::Decision decision, const std::string& statement, std::ostream& out);

}  // namespace fb::history
