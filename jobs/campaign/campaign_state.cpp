#include "jobs/campaign/campaign_state.hpp"

#include "benchmarks/core/result_builder.hpp"
#include "jobs/campaign/campaign_folder.hpp"
#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "results/atomic_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <sstream>

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

// Every regular file under `folder` (relative to `results_dir`) and its SHA-256.
std::map<std::string, std::string> hash_files(const std::filesystem::path& results_dir,
                                              const std::filesystem::path& folder) {
  std::map<std::string, std::string> files;
  if (!std::filesystem::is_directory(folder)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    files[entry.path().lexically_relative(results_dir).generic_string()] = sha256_hex(bytes.str());
  }
  return files;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL could not compute a SHA-256");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

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
    if (json.contains("thresholds_sha256")) thresholds_sha256_ = json.at("thresholds_sha256").get<std::string>();
    for (const auto& [name, stage] : json.at("stages").items()) {
      stages_[name] = {status_named(stage.at("status").get<std::string>(), path_),
                       stage.at("attempts").get<int>(),
                       stage.at("started").get<std::string>(),
                       stage.at("finished").get<std::string>(),
                       stage.at("message").get<std::string>(),
                       stage.at("results").get<std::string>(),
                       std::nullopt};
      if (stage.contains("files")) stages_[name].files = stage.at("files").get<std::map<std::string, std::string>>();
    }
    for (const auto& [name, stage] : stages_) require_inside(path_.parent_path(), stage.results, path_);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: malformed campaign state: {}", path_.string(), e.what()));
  }
}

void CampaignState::bind_thresholds(const std::string& sha256) {
  if (thresholds_sha256_) return;
  thresholds_sha256_ = sha256;
  save();
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
  stage.files.reset();
  save();
}

void CampaignState::finish(const std::string& name, StageStatus status, const std::string& message) {
  StageState& stage = stages_[name];
  stage.status = status;
  stage.finished = utc_timestamp_now();
  stage.message = message;
  const std::filesystem::path dir = path_.parent_path();
  stage.files = hash_files(dir, dir / stage.results);
  save();
}

void CampaignState::verify_files(const std::string& name) const {
  const StageState* s = stage(name);
  if (!s || !s->files) return;
  const std::filesystem::path dir = path_.parent_path();
  const std::map<std::string, std::string> now = hash_files(dir, dir / s->results);
  for (const auto& [file, sha256] : *s->files) {
    const auto found = now.find(file);
    if (found == now.end())
      throw InputError(fmt::format("{}: stage {} wrote it (SHA-256 {}) and it is gone: the record cannot rest on it",
                                   (dir / file).string(), name, sha256));
    if (found->second != sha256)
      throw InputError(fmt::format("{}: changed after stage {} wrote it (SHA-256 {} then, {} now): restore it, or "
                                   "measure again in another results folder",
                                   (dir / file).string(), name, sha256, found->second));
  }
  for (const auto& [file, sha256] : now)
    if (!s->files->contains(file))
      throw InputError(fmt::format("{}: added to stage {}' results after it ended (the state file holds no hash of "
                                   "it): remove it",
                                   (dir / file).string(), name));
}

void CampaignState::save() const {
  nlohmann::json stages = nlohmann::json::object();
  for (const auto& [name, s] : stages_) {
    stages[name] = {{"status", name_of(s.status)}, {"attempts", s.attempts}, {"started", s.started},
                    {"finished", s.finished},      {"message", s.message},   {"results", s.results}};
    if (s.files) stages[name]["files"] = *s.files;
  }
  nlohmann::json json{{"schema", state_schema},
                      {"plan_sha256", plan_sha256_},
                      {"started_at", started_at_},
                      {"stages", stages}};
  if (thresholds_sha256_) json["thresholds_sha256"] = *thresholds_sha256_;
  write_file_atomically(path_, json.dump(2) + "\n");
}

}  // namespace fb::jobs
