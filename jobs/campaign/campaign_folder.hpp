#pragma once
// A campaign's results folder: one campaign at a time in it, never one holding another campaign's
// (or the user's) outputs without a state file, and a stage's results only ever inside it.

#include <filesystem>
#include <string>

namespace fb::jobs {

// The folder, created when missing, and an exclusive flock on its campaign.lock for as long as
// this object lives (the kernel drops it when the process ends, however it ends). Two campaigns
// started into one folder would both run every stage and judge each other's rows.
class CampaignFolderLock {
 public:
  // Throws UsageError when another process holds the lock, std::runtime_error when the lock file
  // cannot be made.
  explicit CampaignFolderLock(const std::filesystem::path& folder);
  ~CampaignFolderLock();
  CampaignFolderLock(const CampaignFolderLock&) = delete;
  CampaignFolderLock& operator=(const CampaignFolderLock&) = delete;

 private:
  int fd_ = -1;
};

// Throws InputError when `folder` holds a campaign's outputs (summary.json, record.html,
// junit.xml) but not `state_file`: they are someone's, and a new campaign would replace them.
void refuse_outputs_without_state(const std::filesystem::path& folder, const std::filesystem::path& state_file);

// Throws InputError, naming `state_file`, when `relative` (a stage's results as the state file
// records them) is absolute, climbs with "..", or passes through a symbolic link under `folder`:
// a stage's rows are only ever read from inside the campaign's folder.
void require_inside(const std::filesystem::path& folder, const std::string& relative,
                    const std::filesystem::path& state_file);

}  // namespace fb::jobs
