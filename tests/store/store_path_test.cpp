// What the real binary does with a --store that is not a run store file: devices (real nodes made
// with mknod in a temp folder; refused before anything opens them), a FIFO, a dangling link and
// another application's SQLite database are refused with one line and nothing written; a store
// its owner made read-only can still be listed, and is left byte for byte as it was.

#include "integration/fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "store/database.hpp"
#include "support/temp_dir.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::describe;
using testing::directly;
using testing::run_process;

constexpr int usage_exit = 2;
constexpr int input_exit = 4;

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::ranges::count(text, '\n')); }

class StorePath : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(results()); }
  std::filesystem::path results() const { return dir_ / "results"; }

  // `history ingest` of an empty results folder into `store`: the least that opens it for writing.
  testing::ProcessResult ingest_into(const std::filesystem::path& store) const {
    return run_process(directly({"history", "ingest", results().string(), "--store", store.string()}), {},
                       std::chrono::seconds(30));
  }

  // A device node in the temp folder; false where this process may not make one (not root).
  static bool make_node(const std::filesystem::path& path, mode_t kind, unsigned major_number, unsigned minor_number) {
    return ::mknod(path.c_str(), kind | 0600, makedev(major_number, minor_number)) == 0;
  }

  void expect_refused_device(const std::filesystem::path& node, mode_t kind, std::string_view named) const {
    struct stat before {};
    ASSERT_EQ(::lstat(node.c_str(), &before), 0);
    const testing::ProcessResult ingest = ingest_into(node);
    EXPECT_EQ(ingest.exit_code, usage_exit) << describe(ingest);
    EXPECT_THAT(ingest.err, HasSubstr(fmt::format("run store {}: a {}, not a file", node.string(), named)));
    EXPECT_EQ(lines_of(ingest.err), 1U) << ingest.err;
    const testing::ProcessResult run =
        run_process(directly({"run", "all_reduce", "-b", "8", "-e", "8", "-n", "1", "-w", "0", "-D",
                              (dir_ / "run").string(), "--store", node.string()}),
                    testing::allow_root, std::chrono::seconds(60));
    EXPECT_EQ(run.exit_code, usage_exit) << describe(run);
    EXPECT_THAT(run.err, HasSubstr(fmt::format("a {}, not a file", named)));
    // Still the node it was: no file was put in its place, no sidecar files beside it.
    struct stat after {};
    ASSERT_EQ(::lstat(node.c_str(), &after), 0);
    EXPECT_EQ(after.st_mode & S_IFMT, kind);
    EXPECT_EQ(after.st_rdev, before.st_rdev);
    EXPECT_FALSE(std::filesystem::exists(node.string() + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(node.string() + "-journal"));
  }

  testing::TempDir dir_;
};

TEST_F(StorePath, BlockDeviceIsRefusedBeforeItIsOpened) {
  // Major 7 is the loop driver; the node is only ever lstat'ed and stat'ed here.
  const std::filesystem::path node = dir_ / "loop-node";
  if (!make_node(node, S_IFBLK, 7, 0)) GTEST_SKIP() << "mknod needs root";
  expect_refused_device(node, S_IFBLK, "block device");
}

TEST_F(StorePath, CharacterDeviceIsRefused) {
  const std::filesystem::path node = dir_ / "null-node";  // 1:3 is /dev/null
  if (!make_node(node, S_IFCHR, 1, 3)) GTEST_SKIP() << "mknod needs root";
  expect_refused_device(node, S_IFCHR, "character device");
}

TEST_F(StorePath, FifoIsRefusedInsteadOfBlockingOnIt) {
  const std::filesystem::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const testing::ProcessResult result = ingest_into(fifo);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, usage_exit) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("a FIFO, not a file"));
}

TEST_F(StorePath, DanglingLinkIsRefusedAndItsTargetNotCreated) {
  const std::filesystem::path target = dir_ / "elsewhere" / "history.sqlite";
  std::filesystem::create_directories(target.parent_path());
  const std::filesystem::path link = dir_ / "history.sqlite";
  std::filesystem::create_symlink(target, link);
  const testing::ProcessResult result = ingest_into(link);
  EXPECT_EQ(result.exit_code, usage_exit) << describe(result);
  EXPECT_THAT(result.err, HasSubstr("a symbolic link to " + target.string() + ", which does not exist"));
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_TRUE(std::filesystem::is_empty(target.parent_path()));
}

TEST_F(StorePath, AnotherApplicationsDatabaseIsNeitherListedNorChanged) {
  const std::filesystem::path foreign = dir_ / "contacts.db";
  {
    const std::unique_ptr<store::Database> database = store::open_sqlite(foreign.string());
    database->execute(
        "PRAGMA journal_mode=DELETE; CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada')");
  }
  const std::optional<std::string> before = read_text(foreign);
  ASSERT_TRUE(before);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"history", "--store", foreign.string()},
        std::vector<std::string>{"history", "ingest", results().string(), "--store", foreign.string()}}) {
    const testing::ProcessResult result = run_process(directly(args), {}, std::chrono::seconds(30));
    EXPECT_EQ(result.exit_code, input_exit) << describe(result);
    EXPECT_THAT(result.err, HasSubstr("an SQLite database of another application (tables contacts)"));
    EXPECT_EQ(lines_of(result.err), 1U) << result.err;
  }
  EXPECT_EQ(read_text(foreign), before);  // no fabricbench tables, still in rollback-journal mode
  EXPECT_FALSE(std::filesystem::exists(foreign.string() + "-wal"));
}

TEST_F(StorePath, ReadOnlyStoreIsListedAndLeftUnchanged) {
  const std::filesystem::path folder = dir_ / "store";
  std::filesystem::create_directories(folder);
  const std::filesystem::path store = folder / "history.sqlite";
  const testing::ProcessResult recorded =
      run_process(directly({"run", "all_reduce", "-b", "8", "-e", "64", "-n", "2", "-w", "0", "-D", results().string(),
                            "--store", store.string()}),
                  testing::allow_root, std::chrono::seconds(60));
  ASSERT_EQ(recorded.exit_code, 0) << describe(recorded);
  const std::optional<std::string> before = read_text(store);
  ASSERT_TRUE(before);
  // Made read-only by its owner, in a folder no one may write: SQLite can create no -shm there.
  std::filesystem::permissions(store, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                          std::filesystem::perms::others_read);
  std::filesystem::permissions(folder, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                                           std::filesystem::perms::group_read | std::filesystem::perms::group_exec |
                                           std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  std::filesystem::permissions(dir_.path(), std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
  // Root writes whatever it likes: the listing runs as nobody, as a user reading a colleague's store would.
  std::vector<std::string> argv = directly({"history", "--store", store.string()});
  if (::geteuid() == 0)
    argv.insert(argv.begin(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  const testing::ProcessResult listed = run_process(argv, {}, std::chrono::seconds(30));
  EXPECT_EQ(listed.exit_code, 0) << describe(listed);
  EXPECT_THAT(listed.out, HasSubstr(fmt::format("# {}: 1 runs (schema version", store.string())));
  EXPECT_EQ(read_text(store), before);
  std::filesystem::permissions(folder, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
}

}  // namespace
}  // namespace fb
