#include "jobs/campaign/campaign_state.hpp"

#include "benchmarks/core/result_builder.hpp"
#include "jobs/campaign/campaign_folder.hpp"
#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "results/atomic_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>

namespace fb::jobs {

namespace {

constexpr std::string_view state_schema = "fabricbench.campaign-state.v1";
constexpr int attempts_before_giving_up = 2;

constexpr std::array<std::pair<StageStatus, std::string_view>, 5> status_names{{
    {StageStatus::running, "running"},
    {StageStatus::completed, "completed"},
    {StageStatus::failed, "failed"},
    {StageStatus::timed_out, "timed_out"},
    {StageStatus::interrupted, "interrupted"},
}};

StageStatus status_named(const std::string& name, const std::filesystem::path& path) {
  for (const auto& [status, text] : status_names)
    if (text == name) return status;
  throw InputError(fmt::format("{}: unknown stage status '{}'", path.string(), name));
}

}  // namespace

std::string_view name_of(StageStatus status) {
  for (const auto& [s, text] : status_names)
    if (s == status) return text;
  return "unknown";
}

CampaignState::CampaignState(std::filesystem::path path, std::string plan_sha256)
    : path_(std::move(path)), plan_sha256_(std::move(plan_sha256)) {
  const std::optional<std::string> text = read_text(path_);
  if (!text) {
    started_at_ = utc_timestamp_now();
    save();
    return;
  }
  try {
    const nlohmann::json json = nlohmann::json::parse(*text);
    if (json.at("schema").get<std::string>() != state_schema)
      throw InputError(
          fmt::format("{}: not a campaign state file (schema {})", path_.string(), json.at("schema").dump()));
    const std::string recorded_sha = json.at("plan_sha256").get<std::string>();
    if (recorded_sha != plan_sha256_)
      throw InputError(fmt::format("{}: the campaign in this folder ran another plan (SHA-256 {}, this one {}): give "
                                   "another results_dir, or remove the folder to start again",
                                   path_.string(), recorded_sha, plan_sha256_));
    started_at_ = json.at("started_at").get<std::string>();
    for (const auto& [name, stage] : json.at("stages").items())
      stages_[name] = {status_named(stage.at("status").get<std::string>(), path_),
                       stage.at("attempts").get<int>(),
                       stage.at("started").get<std::string>(),
                       stage.at("finished").get<std::string>(),
                       stage.at("message").get<std::string>(),
                       stage.at("results").get<std::string>()};
    for (const auto& [name, stage] : stages_) require_inside(path_.parent_path(), stage.results, path_);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: malformed campaign state: {}", path_.string(), e.what()));
  }
}

const StageState* CampaignState::stage(const std::string& name) const {
  const auto it = stages_.find(name);
  return it == stages_.end() ? nullptr : &it->second;
}

bool CampaignState::needs_run(const std::string& name, bool interrupted_attempt_has_incident) {
  const auto it = stages_.find(name);
  if (it == stages_.end()) return true;
  StageState& stage = it->second;
  if (stage.status != StageStatus::running) return false;
  // The last attempt never finished: the job ended under it.
  if (interrupted_attempt_has_incident) {
    finish(name, StageStatus::timed_out,
           "the watchdog ended the job: a step passed its deadline (see the incident in "
           "the stage's results)");
    return false;
  }
  if (stage.attempts >= attempts_before_giving_up) {
    finish(name, StageStatus::interrupted,
           fmt::format("interrupted in each of {} attempts; not tried again", stage.attempts));
    return false;
  }
  return true;
}

void CampaignState::begin(const std::string& name, const std::string& results) {
  StageState& stage = stages_[name];
  stage.status = StageStatus::running;
  ++stage.attempts;
  stage.started = utc_timestamp_now();
  stage.finished.clear();
  stage.message.clear();
  stage.results = results;
  save();
}

void CampaignState::finish(const std::string& name, StageStatus status, const std::string& message) {
  StageState& stage = stages_[name];
  stage.status = status;
  stage.finished = utc_timestamp_now();
  stage.message = message;
  save();
}

void CampaignState::save() const {
  nlohmann::json stages = nlohmann::json::object();
  for (const auto& [name, s] : stages_)
    stages[name] = {{"status", name_of(s.status)}, {"attempts", s.attempts}, {"started", s.started},
                    {"finished", s.finished},      {"message", s.message},   {"results", s.results}};
  const nlohmann::json json{{"schema", state_schema},
                            {"plan_sha256", plan_sha256_},
                            {"started_at", started_at_},
                            {"stages", stages}};
  write_file_atomically(path_, json.dump(2) + "\n");
}

}  // namespace fb::jobs
