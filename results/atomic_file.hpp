#pragma once
// Every file fabricbench writes is published the same way: its contents go into a file created
// exclusively (O_EXCL|O_NOFOLLOW, a random name beside the target), are fsynced, and the file is
// renamed over the target. So no link planted in the directory is ever followed, and a reader,
// or a run killed at any instant, sees the old contents or the new ones in full.

#include <filesystem>
#include <string>
#include <string_view>

namespace fb {

// Replaces `path` with `contents`. Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// A file that only grows at the end (a body of appended bytes followed by a short tail that each
// publication replaces), published as write_file_atomically does at a cost linear in the bytes
// appended: the version the rename replaces is kept under a hidden random name (the "shadow")
// and brought up to date by appending, instead of writing everything again. Between publications
// the directory holds the target and its shadow; the destructor, and
// remove_shadow_files_from_signal_handler, remove the shadow.
class AtomicallyGrowingFile {
 public:
  explicit AtomicallyGrowingFile(std::filesystem::path path);
  ~AtomicallyGrowingFile();
  AtomicallyGrowingFile(const AtomicallyGrowingFile&) = delete;
  AtomicallyGrowingFile& operator=(const AtomicallyGrowingFile&) = delete;

  void append(std::string_view bytes) { body_ += bytes; }
  // Starts over with `body`: the next publication writes the whole file.
  void reset(std::string body);
  // Makes the target hold body + tail. `durable`: fsynced before the rename, so that after a power
  // loss the target holds this version or the one before in full. Without it the version is as
  // safe against a killed process, and against a power loss only on file systems that write a
  // renamed file's data before the rename (ext4's default auto_da_alloc, btrfs).
  void publish(std::string_view tail, bool durable = true);
  // The first publication, when the target must not exist yet: linked into place (which never
  // replaces nor follows anything) instead of renamed. Throws std::runtime_error when it exists.
  void publish_new(std::string_view tail);
  // fsyncs the version last published.
  void sync();
  const std::filesystem::path& path() const { return path_; }

 private:
  void forget_shadow();
  // Writes body + tail into the shadow (a fresh file when there is none) and fsyncs it if asked.
  void bring_shadow_up_to_date(std::string_view tail, bool durable);
  // The shadow is now the published version; the replaced one, if kept, the next shadow.
  void shadow_published(int replaced_fd, std::size_t replaced_body_bytes, std::filesystem::path kept_name);

  std::filesystem::path path_;
  std::string body_;
  int published_fd_ = -1;  // the inode the target names, kept open to become the next shadow
  std::size_t published_body_bytes_ = 0;
  int shadow_fd_ = -1;
  std::filesystem::path shadow_path_;
  std::size_t shadow_body_bytes_ = 0;
  int shadow_slot_ = -1;  // in the table the signal handler reads
};

// Unlinks every shadow file of this process; only async-signal-safe calls, for a handler that
// ends the process on a termination signal (which publish holds back while it renames).
void remove_shadow_files_from_signal_handler() noexcept;

}  // namespace fb
