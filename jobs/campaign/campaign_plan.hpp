#pragma once
// The plan of `fabricbench campaign PLAN.yaml`: who the system and customer are, the stages to run
// in order (doctor, pairwise, concurrent, collectives, soak), where the results go and what they
// are judged by. docs/acceptance.md describes the format; plans/ holds examples.

#include "benchmarks/core/run_plan.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fb::jobs {

enum class StageKind { doctor, pairwise, concurrent, collectives, soak };
std::string_view name_of(StageKind kind);

struct CampaignStage {
  std::string name;  // unique in the plan; the stage's results folder and its key in the state file
  StageKind kind = StageKind::collectives;
  int line = 0;
  RunOptions run;         // measuring stages: ops, sizes, iterations, timeout
  int repetitions = 1;    // sweeps of the stage (rows carry their repetition): what verdicts rest on
  double duration_s = 0;  // soak: repeat until this much time has passed instead
};

// Checks derived from the topology model: every collective row at or above `min_bytes` must
// reach `fraction` of the busbw the model predicts for it.
struct ModelChecks {
  std::vector<std::filesystem::path> topology;
  double fraction = 0.9;
  std::uint64_t min_bytes = 0;
  int line = 0;
};

struct CampaignPlan {
  std::filesystem::path source;
  std::string text;  // the file as read: the record quotes it and its SHA-256
  std::string system;
  std::string customer;
  std::string backend = "mpi";
  std::filesystem::path results_dir;  // relative paths: to the current directory
  double confidence = 0.95;           // each verdict's; false accepts and rejects each <= (1 - c) / 2
  std::vector<CampaignStage> stages;
  std::optional<std::filesystem::path> thresholds;  // relative to the plan's folder
  std::optional<ModelChecks> model_checks;
  LaunchOptions launch;  // gpus_per_process for the nccl backend
};

// Throws InputError "PLAN:LINE: what" for a malformed plan (unknown keys and kinds, repeated stage
// names, a size that does not parse) and when the file cannot be read.
CampaignPlan read_campaign_plan(const std::filesystem::path& path);
CampaignPlan parse_campaign_plan(const std::string& text, const std::filesystem::path& origin);

}  // namespace fb::jobs
