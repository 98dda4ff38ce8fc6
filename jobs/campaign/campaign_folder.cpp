#include "jobs/campaign/campaign_folder.hpp"

#include "common/errors.hpp"
#include "results/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace fb::jobs {

CampaignFolderLock::CampaignFolderLock(const std::filesystem::path& folder) {
  require_no_foreign_link(folder);
  std::filesystem::create_directories(folder);
  const std::filesystem::path lock = folder / "campaign.lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("{}: cannot open: {}", lock.string(), std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int error = errno;
  ::close(fd_);
  fd_ = -1;
  if (error == EWOULDBLOCK)
    throw UsageError(fmt::format("{}: another campaign is running in this folder; wait for it, or give another "
                                 "results_dir",
                                 folder.string()));
  throw std::runtime_error(fmt::format("{}: cannot lock: {}", lock.string(), std::strerror(error)));
}

CampaignFolderLock::~CampaignFolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

void refuse_outputs_without_state(const std::filesystem::path& folder, const std::filesystem::path& state_file) {
  if (std::filesystem::exists(state_file)) return;
  for (const std::string_view output : std::array<std::string_view, 3>{"summary.json", "record.html", "junit.xml"})
    if (std::filesystem::exists(std::filesystem::symlink_status(folder / output)))
      throw InputError(fmt::format("{}: holds {} but no {}: not this campaign's outputs, and they would be replaced; "
                                   "give another results_dir",
                                   folder.string(), output, state_file.filename().string()));
}

void require_inside(const std::filesystem::path& folder, const std::string& relative,
                    const std::filesystem::path& state_file) {
  const std::filesystem::path path(relative);
  const auto refuse = [&](std::string_view why) {
    throw InputError(fmt::format("{}: stage results '{}' {}: a stage's results stay inside the campaign's folder",
                                 state_file.string(), relative, why));
  };
  if (relative.empty() || path.is_absolute() || path.has_root_name()) refuse("is not a path inside the folder");
  std::filesystem::path walked = folder;
  for (const std::filesystem::path& part : path) {
    if (part == "..") refuse("climbs out with '..'");
    walked /= part;
    if (std::filesystem::is_symlink(walked))
      refuse(fmt::format("passes through the symbolic link {}", walked.string()));
  }
}

}  // namespace fb::jobs
