#include "results/atomic_file.hpp"

#include "common/termination_signals.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <stdexcept>

namespace fb {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what, int error) {
  throw std::runtime_error(fmt::format("cannot write {}: {}: {}", path.string(), what, std::strerror(error)));
}

// A name beside `target` that nobody can predict: ".NAME.<16 hex digits>".
std::filesystem::path random_sibling(const std::filesystem::path& target) {
  std::array<unsigned char, 8> random{};
  for (std::size_t got = 0; got < random.size();) {
    const ssize_t n = ::getrandom(random.data() + got, random.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(target, "getrandom", errno);
    got += static_cast<std::size_t>(n);
  }
  std::string suffix;
  for (unsigned char byte : random) suffix += fmt::format("{:02x}", byte);
  return target.parent_path() / fmt::format(".{}.{}", target.filename().string(), suffix);
}

// Retries `attempt` on fresh names while the name it drew exists already.
template <class Attempt>
std::filesystem::path on_a_fresh_name(const std::filesystem::path& target, std::string_view what, Attempt attempt) {
  for (int tries = 0; tries < 100; ++tries) {
    std::filesystem::path name = random_sibling(target);
    if (attempt(name)) return name;
    if (errno != EEXIST) fail(target, what, errno);
  }
  fail(target, what, EEXIST);
}

struct ExclusiveFile {
  int fd;
  std::filesystem::path path;
};

ExclusiveFile create_exclusively(const std::filesystem::path& target) {
  int fd = -1;
  std::filesystem::path path = on_a_fresh_name(target, "create", [&](const std::filesystem::path& name) {
    fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    return fd >= 0;
  });
  return {fd, std::move(path)};
}

// Writes all of `bytes` at `offset`; returns errno, or 0.
int write_all_at(int fd, std::string_view bytes, std::size_t offset) {
  for (std::size_t written = 0; written < bytes.size();) {
    const ssize_t n = ::pwrite(fd, bytes.data() + written, bytes.size() - written, static_cast<off_t>(offset + written));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

// Shadow file names the termination-signal handler removes. A slot is marked unused while its
// name changes, so the handler never reads a half-written name.
constexpr std::size_t shadow_slot_count = 16;
std::array<std::array<char, PATH_MAX>, shadow_slot_count> shadow_names{};
std::array<volatile std::sig_atomic_t, shadow_slot_count> shadow_name_set{};
std::array<bool, shadow_slot_count> shadow_slot_taken{};
std::mutex shadow_slots_mutex;

int take_shadow_slot() {
  const std::lock_guard lock(shadow_slots_mutex);
  for (std::size_t slot = 0; slot < shadow_slot_count; ++slot)
    if (!shadow_slot_taken[slot]) {
      shadow_slot_taken[slot] = true;
      return static_cast<int>(slot);
    }
  return -1;  // more growing files than slots: their shadows outlive a signal, nothing worse
}

void set_shadow_name(int slot, const std::filesystem::path& name) {
  if (slot < 0) return;
  shadow_name_set[slot] = 0;
  const std::string& text = name.native();
  if (text.empty() || text.size() >= PATH_MAX) return;
  std::memcpy(shadow_names[slot].data(), text.c_str(), text.size() + 1);
  shadow_name_set[slot] = 1;
}

void release_shadow_slot(int slot) {
  if (slot < 0) return;
  set_shadow_name(slot, {});
  const std::lock_guard lock(shadow_slots_mutex);
  shadow_slot_taken[slot] = false;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  // An interrupted run must not leave a temporary file behind: the signal waits for the rename.
  const TerminationSignalsHeld signals_held;
  const ExclusiveFile file = create_exclusively(path);
  const auto give_up = [&](std::string_view what, int error) {
    ::close(file.fd);
    ::unlink(file.path.c_str());
    fail(path, what, error);
  };
  if (const int error = write_all_at(file.fd, contents, 0)) give_up("write", error);
  // Without fsync before rename, a power loss can leave the new name pointing at empty data.
  if (::fsync(file.fd) != 0) give_up("fsync", errno);
  if (::close(file.fd) != 0) {
    const int error = errno;
    ::unlink(file.path.c_str());
    fail(path, "close", error);
  }
  if (::rename(file.path.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(file.path.c_str());
    fail(path, "rename", error);
  }
}

AtomicallyGrowingFile::AtomicallyGrowingFile(std::filesystem::path path)
    : path_(std::move(path)), shadow_slot_(take_shadow_slot()) {}

AtomicallyGrowingFile::~AtomicallyGrowingFile() {
  forget_shadow();
  if (published_fd_ >= 0) ::close(published_fd_);
  release_shadow_slot(shadow_slot_);
}

void AtomicallyGrowingFile::forget_shadow() {
  if (shadow_fd_ < 0) return;
  const TerminationSignalsHeld signals_held;
  ::close(shadow_fd_);
  ::unlink(shadow_path_.c_str());
  set_shadow_name(shadow_slot_, {});
  shadow_fd_ = -1;
}

void AtomicallyGrowingFile::reset(std::string body) {
  body_ = std::move(body);
  // Neither the shadow nor the published version starts with the new body.
  forget_shadow();
  if (published_fd_ >= 0) ::close(published_fd_);
  published_fd_ = -1;
}

void AtomicallyGrowingFile::bring_shadow_up_to_date(std::string_view tail, bool durable) {
  if (shadow_fd_ < 0) {
    ExclusiveFile fresh = create_exclusively(path_);
    shadow_fd_ = fresh.fd;
    shadow_path_ = std::move(fresh.path);
    shadow_body_bytes_ = 0;
    set_shadow_name(shadow_slot_, shadow_path_);
  }
  // The shadow holds the first shadow_body_bytes_ of the body: write the rest, then the tail.
  const std::string_view missing = std::string_view(body_).substr(shadow_body_bytes_);
  int error = write_all_at(shadow_fd_, missing, shadow_body_bytes_);
  if (error == 0) error = write_all_at(shadow_fd_, tail, body_.size());
  if (error == 0 && ::ftruncate(shadow_fd_, static_cast<off_t>(body_.size() + tail.size())) != 0) error = errno;
  // Without fsync before rename, a power loss can leave the new name pointing at empty data.
  if (error == 0 && durable && ::fsync(shadow_fd_) != 0) error = errno;
  if (error != 0) {
    forget_shadow();
    fail(path_, "write", error);
  }
}

void AtomicallyGrowingFile::shadow_published(int replaced_fd, std::size_t replaced_body_bytes,
                                             std::filesystem::path kept_name) {
  published_fd_ = shadow_fd_;
  published_body_bytes_ = body_.size();
  shadow_fd_ = -1;
  set_shadow_name(shadow_slot_, {});
  if (kept_name.empty()) {
    if (replaced_fd >= 0) ::close(replaced_fd);
    return;
  }
  shadow_fd_ = replaced_fd;
  shadow_path_ = std::move(kept_name);
  shadow_body_bytes_ = replaced_body_bytes;
  set_shadow_name(shadow_slot_, shadow_path_);
}

void AtomicallyGrowingFile::publish(std::string_view tail, bool durable) {
  const TerminationSignalsHeld signals_held;
  bring_shadow_up_to_date(tail, durable);
  // The version about to be replaced gets a name of its own, to become the next shadow. Through
  // /proc the link names exactly the inode this process wrote, whatever the directory holds now.
  std::filesystem::path kept_name;
  if (published_fd_ >= 0) {
    const std::string published_inode = fmt::format("/proc/self/fd/{}", published_fd_);
    try {
      kept_name = on_a_fresh_name(path_, "link", [&](const std::filesystem::path& name) {
        return ::linkat(AT_FDCWD, published_inode.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
      });
    } catch (const std::runtime_error&) {
      kept_name.clear();  // no /proc: the next publication writes the whole file
    }
  }
  if (::rename(shadow_path_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    if (!kept_name.empty()) ::unlink(kept_name.c_str());
    forget_shadow();
    fail(path_, "rename", error);
  }
  shadow_published(published_fd_, published_body_bytes_, std::move(kept_name));
}

void AtomicallyGrowingFile::publish_new(std::string_view tail) {
  const TerminationSignalsHeld signals_held;
  bring_shadow_up_to_date(tail, true);
  if (::link(shadow_path_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    forget_shadow();
    if (error == EEXIST)
      throw std::runtime_error(
          fmt::format("{} exists already: results are never overwritten; remove it or give another path", path_.string()));
    fail(path_, "link", error);
  }
  ::unlink(shadow_path_.c_str());
  if (published_fd_ >= 0) ::close(published_fd_);
  shadow_published(-1, 0, {});
}

void AtomicallyGrowingFile::sync() {
  if (published_fd_ >= 0 && ::fsync(published_fd_) != 0) fail(path_, "fsync", errno);
}

void remove_shadow_files_from_signal_handler() noexcept {
  for (std::size_t slot = 0; slot < shadow_slot_count; ++slot)
    if (shadow_name_set[slot] != 0) ::unlink(shadow_names[slot].data());
}

}  // namespace fb
