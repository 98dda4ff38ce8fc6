#pragma once
// Where a campaign stands, kept in RESULTS/campaign-state.json and replaced atomically after every
// change, so a campaign that was killed (a time limit, a node lost, Ctrl-C) resumes where it
// stopped: completed stages are skipped, an interrupted one runs again, one that ended the job by
// its watchdog (a timeout) is recorded as timed out and not tried again.

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace fb::jobs {

enum class StageStatus { running, completed, failed, timed_out, interrupted };
std::string_view name_of(StageStatus status);

struct StageState {
  StageStatus status = StageStatus::running;
  int attempts = 0;
  std::string started;  // ISO 8601 UTC, of the latest attempt
  std::string finished;
  std::string message;
  std::string results;  // the latest attempt's folder, relative to the results directory
};

class CampaignState {
 public:
  // Reads `path` when it exists; a new campaign otherwise. Throws InputError for a state file that
  // is not one, and for one that another plan (another SHA-256) wrote.
  CampaignState(std::filesystem::path path, std::string plan_sha256);

  const std::string& started_at() const { return started_at_; }
  const StageState* stage(const std::string& name) const;
  // Whether a stage still has to run: never started, or started and interrupted once by a signal.
  // A stage found `running` was interrupted; with an incident in its results (the watchdog ended
  // the job) it is marked timed_out, after two attempts interrupted, and is not tried again.
  bool needs_run(const std::string& name, bool interrupted_attempt_has_incident);

  void begin(const std::string& name, const std::string& results);
  void finish(const std::string& name, StageStatus status, const std::string& message);

 private:
  void save() const;

  std::filesystem::path path_;
  std::string plan_sha256_;
  std::string started_at_;
  std::map<std::string, StageState> stages_;
};

}  // namespace fb::jobs
