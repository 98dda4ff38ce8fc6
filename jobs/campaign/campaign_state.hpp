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
  // Every file the attempt left, relative to the results directory, and its SHA-256, taken when the
  // stage ended: the record refuses a file that changed since (CampaignState::verify_files). Absent
  // in a state file written before fabricbench kept them.
  std::optional<std::map<std::string, std::string>> files;
};

class CampaignState {
 public:
  // Reads `path` when it exists; a new campaign otherwise. Throws InputError for a state file that
  // is not one, and for one that another plan (another SHA-256) wrote.
  CampaignState(std::filesystem::path path, std::string plan_sha256);

  const std::string& started_at() const { return started_at_; }
  // The SHA-256 of the thresholds file in force when the campaign began measuring ("" without one);
  // std::nullopt in a state file written before fabricbench kept it. The record compares it with
  // the thresholds it judges under.
  const std::optional<std::string>& measured_thresholds_sha256() const { return thresholds_sha256_; }
  // Records `sha256` as the thresholds the campaign measures under, unless the state already holds
  // one (a resumed campaign keeps the hash of its first run).
  void bind_thresholds(const std::string& sha256);
  const StageState* stage(const std::string& name) const;
  // Whether a stage still has to run: never started, or started and interrupted once by a signal.
  // A stage found `running` was interrupted; with an incident in its results (the watchdog ended
  // the job) it is marked timed_out, after two attempts interrupted, and is not tried again.
  bool needs_run(const std::string& name, bool interrupted_attempt_has_incident);

  void begin(const std::string& name, const std::string& results);
  // Ends the stage's attempt and hashes every file it left.
  void finish(const std::string& name, StageStatus status, const std::string& message);

  // Throws InputError naming the first file of the stage's recorded ones that changed, vanished,
  // or was added to its folder since the stage ended. A stage without recorded hashes passes.
  void verify_files(const std::string& name) const;

 private:
  void save() const;

  std::filesystem::path path_;
  std::string plan_sha256_;
  std::string started_at_;
  std::optional<std::string> thresholds_sha256_;
  std::map<std::string, StageState> stages_;
};

// Lowercase hex SHA-256 of `bytes` (OpenSSL).
std::string sha256_hex(std::string_view bytes);

}  // namespace fb::jobs
