#include "results/atomic_file.hpp"

#include "common/errors.hpp"
#include "common/termination_signals.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <pwd.h>
#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
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
    const ssize_t n =
        ::pwrite(fd, bytes.data() + written, bytes.size() - written, static_cast<off_t>(offset + written));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

// Writes all of `bytes` at the descriptor's position (a device or a FIFO has no offsets).
int write_all(int fd, std::string_view bytes) {
  for (std::size_t written = 0; written < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

std::string_view kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISFIFO(mode)) return "a FIFO";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::filesystem::path& path, std::string_view why) {
  throw UsageError(fmt::format("{} {}: outputs are regular files, a character device, a FIFO with a reader, or - for "
                               "standard output",
                               path.string(), why));
}

// Where `-` writes: standard output, or the duplicate of it kept once the console moved to
// standard error (reserve_standard_output_for_data).
int data_output_fd = STDOUT_FILENO;

void write_to_standard_output(std::string_view contents) {
  // What the command printed before goes first.
  std::cout.flush();
  std::fflush(stdout);
  if (const int error = write_all(data_output_fd, contents)) fail("standard output", "write", error);
}

// A character device or a FIFO takes the bytes as they are: renaming a file over it would replace
// /dev/null for every process on the host, or the pipe a reader waits on.
void write_through(const std::filesystem::path& path, std::string_view contents) {
  // Without O_NONBLOCK a FIFO nobody reads would block here for ever; with it, the open fails.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO) refuse(path, "is a FIFO that nobody reads");
  if (fd < 0) fail(path, "open", errno);
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || !(S_ISCHR(opened.st_mode) || S_ISFIFO(opened.st_mode))) {
    ::close(fd);
    refuse(path, "changed while it was opened");
  }
  int error = ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 ? 0 : errno;
  if (error == 0) error = write_all(fd, contents);
  ::close(fd);
  if (error != 0) fail(path, "write", error);
}

// Copies the first `bytes` of `from` into `to` inside the kernel; returns how many it copied
// (fewer where the file systems cannot, and the caller writes the rest).
std::size_t copy_prefix(int from, int to, std::size_t bytes) {
  loff_t in = 0;
  loff_t out = 0;
  while (static_cast<std::size_t>(in) < bytes) {
    const ssize_t n = ::copy_file_range(from, &in, to, &out, bytes - static_cast<std::size_t>(in), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
  }
  return static_cast<std::size_t>(in);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  if (path == "-") return write_to_standard_output(contents);
  // Followed through links: a link to /dev/null is written through, and a link to a regular file
  // is replaced (the rename never follows it).
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    if (!S_ISCHR(target.st_mode) && !S_ISFIFO(target.st_mode))
      refuse(path, fmt::format("is {}", kind_of(target.st_mode)));
    return write_through(path, contents);
  }
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

void reserve_standard_output_for_data() {
  if (data_output_fd != STDOUT_FILENO) return;
  std::cout.flush();
  std::fflush(stdout);
  const int kept = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (kept < 0) fail("standard output", "dup", errno);
  if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) fail("standard output", "dup2", errno);
  data_output_fd = kept;
}

void require_results_file_path(const std::filesystem::path& path) {
  if (path == "-")
    throw UsageError("- (standard output) cannot hold results that a run publishes as it measures: give a file name");
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode))
    throw UsageError(
        fmt::format("{} is {}: results are written to a new regular file", path.string(), kind_of(target.st_mode)));
}

namespace {
std::string user_name(uid_t uid) {
  const passwd* entry = ::getpwuid(uid);
  return entry != nullptr ? fmt::format("{} (uid {})", entry->pw_name, uid) : fmt::format("uid {}", uid);
}
}  // namespace

void require_no_foreign_link(const std::filesystem::path& dir) {
  const std::filesystem::path absolute = std::filesystem::absolute(dir);
  std::filesystem::path walked = absolute.root_path();
  for (const std::filesystem::path& part : absolute.relative_path()) {
    const std::filesystem::path holder = walked;
    walked /= part;
    struct stat link {};
    if (::lstat(walked.c_str(), &link) != 0) return;  // the rest is created by the run, as its own
    if (!S_ISLNK(link.st_mode)) continue;
    struct stat holder_status {};
    if (::stat(holder.c_str(), &holder_status) != 0) return;
    if (link.st_uid != ::geteuid() && link.st_uid != holder_status.st_uid)
      throw UsageError(fmt::format("results directory {}: {} is a symbolic link owned by {}, neither you nor the owner "
                                   "of {}: refused, since such a link can send the results anywhere; give the "
                                   "directory it names yourself",
                                   dir.string(), walked.string(), user_name(link.st_uid), holder.string()));
  }
}

std::string foreign_owner_note(const std::filesystem::path& dir) {
  struct stat status {};
  if (::stat(dir.c_str(), &status) != 0 || status.st_uid == ::geteuid()) return "";
  return fmt::format("results directory {} belongs to {}, not to you: its owner can change or remove the results "
                     "after the run",
                     dir.string(), user_name(status.st_uid));
}

AtomicallyGrowingFile::~AtomicallyGrowingFile() {
  if (published_fd_ >= 0) ::close(published_fd_);
}

void AtomicallyGrowingFile::reset(std::string body) {
  body_ = std::move(body);
  published_body_bytes_ = 0;  // the published version does not begin with the new body
}

std::pair<int, std::filesystem::path> AtomicallyGrowingFile::write_version(std::string_view tail, bool durable) {
  ExclusiveFile file = create_exclusively(path_);
  const std::size_t copied =
      published_fd_ >= 0 ? copy_prefix(published_fd_, file.fd, std::min(published_body_bytes_, body_.size())) : 0;
  int error = write_all_at(file.fd, std::string_view(body_).substr(copied), copied);
  if (error == 0) error = write_all_at(file.fd, tail, body_.size());
  // Without fsync before rename, a power loss can leave the new name pointing at empty data.
  if (error == 0 && durable && ::fsync(file.fd) != 0) error = errno;
  if (error != 0) {
    ::close(file.fd);
    ::unlink(file.path.c_str());
    fail(path_, "write", error);
  }
  return {file.fd, std::move(file.path)};
}

void AtomicallyGrowingFile::published(int fd) {
  if (published_fd_ >= 0) ::close(published_fd_);
  published_fd_ = fd;
  published_body_bytes_ = body_.size();
}

void AtomicallyGrowingFile::publish(std::string_view tail, bool durable) {
  const TerminationSignalsHeld signals_held;
  auto [fd, name] = write_version(tail, durable);
  if (::rename(name.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(name.c_str());
    fail(path_, "rename", error);
  }
  published(fd);
}

void AtomicallyGrowingFile::publish_new(std::string_view tail) {
  const TerminationSignalsHeld signals_held;
  auto [fd, name] = write_version(tail, true);
  const int error = ::link(name.c_str(), path_.c_str()) == 0 ? 0 : errno;
  ::unlink(name.c_str());
  if (error != 0) {
    ::close(fd);
    if (error == EEXIST)
      throw UsageError(fmt::format("{} exists already: results are never overwritten; remove it or give another path",
                                   path_.string()));
    fail(path_, "link", error);
  }
  published(fd);
}

void AtomicallyGrowingFile::sync() {
  if (published_fd_ >= 0 && ::fsync(published_fd_) != 0) fail(path_, "fsync", errno);
}

}  // namespace fb
