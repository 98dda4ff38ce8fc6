#pragma once
// An acceptance campaign under one launch (`fabricbench campaign PLAN.yaml`). Every rank runs the
// plan's stages in order in this process (doctor's inventory, pair patterns, collectives, soak),
// through the same engine and doctor code as `run` and `doctor`; rank 0 keeps the state file, the
// stages' results and, at the end, the record, the JSON summary, JUnit and the drain list
// (campaign_outputs.hpp), all judged by diagnosis::judge_acceptance.

#include "history/baseline_store.hpp"

#include <string>

namespace fb::jobs {

struct CampaignOptions {
  std::string plan_path;
  std::string results_dir;  // overrides the plan's
  std::string json_path;
  bool pdf = true;
  bool dry_run = false;
  // Also print each stage's tables and the doctor's report here; they are in each stage's
  // console.txt either way.
  bool verbose = false;
  history::BaselineOptions baseline;
  // The process' own arguments: MPI_Init takes them, the provenance records them.
  int argc = 0;
  char** argv = nullptr;
};

// Runs (or with dry_run describes) the campaign; returns the process' exit code on every rank.
int run_campaign(const CampaignOptions& options);

}  // namespace fb::jobs
