#pragma once
// Every file fabricbench writes is published the same way: its contents go into a file created
// exclusively (O_EXCL|O_NOFOLLOW, a random name beside the target), are fsynced, and the file is
// renamed over the target. So no link planted in the directory is ever followed, a reader, or a
// run killed at any instant, sees the old contents or the new ones in full, and a version once
// published is never written again: every publication is a new inode, so a hard link to it, or a
// slow reader (scp, rsync), keeps one whole version.
//
// A path the user names need not be a file: `-` is standard output, and an existing character
// device or FIFO (/dev/null, /dev/stdout, a shell's >(...)) is written through, never renamed
// over. Anything else that is not a regular file (a directory, a socket, a block device) is
// refused as a usage error.

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

namespace fb {

// Replaces `path` with `contents`, or writes them through to standard output (`-`), a character
// device or a FIFO (see above). Throws UsageError for a target that is none of these (or a FIFO
// that nobody reads), std::runtime_error naming the path and the system error when a write fails.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Gives standard output to the one output named `-`: from here on, everything printed for a person
// (std::cout, printf) goes to standard error, and only write_file_atomically("-", ...) writes to
// the original standard output, so that `--json - | jq` reads JSON alone. Called once, by main,
// before the command runs.
void reserve_standard_output_for_data();

// Throws UsageError when `path` cannot hold a results file that grows as a run measures: `-`, or
// anything that exists and is not a regular file.
void require_results_file_path(const std::filesystem::path& path);

// Refuses (UsageError) a results directory reached through a symbolic link that neither the running
// user nor the owner of the directory holding it owns: in a shared directory such as /tmp anyone
// may plant a link under the name a run will use and send its results anywhere. This is the rule
// the kernel's fs.protected_symlinks applies in sticky directories, applied everywhere.
void require_no_foreign_link(const std::filesystem::path& dir);

// "" when `dir` does not exist yet or belongs to the running user; otherwise a sentence naming its
// owner, who can change or remove the results after the run.
std::string foreign_owner_note(const std::filesystem::path& dir);

// A file that only grows at the end (a body of appended bytes followed by a short tail that each
// publication replaces), published as write_file_atomically does: each publication is a new file
// renamed over the target, whose body is copied from the version published before inside the
// kernel (copy_file_range: a clone of extents on file systems that share them, XFS and btrfs)
// and completed with the bytes appended since. Between publications nothing but the target
// exists, so a run ended at any point leaves no hidden file.
class AtomicallyGrowingFile {
 public:
  explicit AtomicallyGrowingFile(std::filesystem::path path) : path_(std::move(path)) {}
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
  // replaces nor follows anything) instead of renamed. Throws UsageError when it exists.
  void publish_new(std::string_view tail);
  // fsyncs the version last published.
  void sync();
  const std::filesystem::path& path() const { return path_; }
  std::size_t body_bytes() const { return body_.size(); }
  // How much of the body the published version holds.
  std::size_t published_body_bytes() const { return published_body_bytes_; }

 private:
  // Writes body + tail into a new file beside the target, fsynced if asked; returns its
  // descriptor and name.
  std::pair<int, std::filesystem::path> write_version(std::string_view tail, bool durable);
  void published(int fd);

  std::filesystem::path path_;
  std::string body_;
  int published_fd_ = -1;  // the version the target names, read to begin the next one
  std::size_t published_body_bytes_ = 0;
};

}  // namespace fb
