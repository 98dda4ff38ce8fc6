// What a user names as an output is never damaged: a character device (a copy of /dev/null made
// with mknod) and a FIFO with a reader are written through and stay what they were; a FIFO nobody
// reads, a socket and a directory are refused with the usage exit code; `-` is standard output.
// The same for every command, since they share one writer: `topo dot -o` and `compare --csv`.

#include "fabricbench_runs.hpp"
#include "common/text_file.hpp"
#include "support/temp_dir.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::allow_root;
using testing::describe;
using testing::directly;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

const std::string healthy_spec = FB_FABRIC_SPECS_DIR "/healthy.yaml";
const std::string results_sample = FB_REPORT_SAMPLES_DIR "/mpi_all_reduce_4ranks.json";

// The two commands, each writing to `target`.
std::vector<std::vector<std::string>> commands_writing_to(const std::string& target) {
  return {{"topo", "dot", healthy_spec, "-o", target}, {"compare", results_sample, results_sample, "--csv", target}};
}

mode_t type_of(const std::filesystem::path& path) {
  struct stat status {};
  EXPECT_EQ(::lstat(path.c_str(), &status), 0) << path << ": " << std::strerror(errno);
  return status.st_mode & S_IFMT;
}

// No temporary file is left beside the target.
void expect_only(const std::filesystem::path& dir, std::size_t entries) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++count;
  EXPECT_EQ(count, entries) << "a temporary file was left in " << dir;
}

TEST(OutputTargets, ACharacterDeviceIsWrittenThroughAndStaysADevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root";
  for (const auto& command : commands_writing_to("")) {
    const TempDir dir;
    const std::filesystem::path null = dir / "null";
    ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
    std::vector<std::string> args = command;
    args.back() = null.string();
    const ProcessResult result = run_process(directly(args), allow_root);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(type_of(null), S_IFCHR) << args[0] << " replaced the device";
    struct stat status {};
    ASSERT_EQ(::stat(null.c_str(), &status), 0);
    EXPECT_EQ(status.st_rdev, makedev(1, 3));
    expect_only(dir.path(), 1);
  }
}

TEST(OutputTargets, AFifoWithAReaderGetsTheBytesAndStaysAFifo) {
  for (const auto& command : commands_writing_to("")) {
    const TempDir dir;
    const std::filesystem::path fifo = dir / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The reader is open before the command starts; the pipe holds what the command writes
    // (outputs here are far below the pipe's 64 KiB).
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    ASSERT_EQ(::fcntl(reader, F_SETPIPE_SZ, 1 << 20), 1 << 20);
    std::vector<std::string> args = command;
    args.back() = fifo.string();
    const ProcessResult result = run_process(directly(args), allow_root);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    std::string received(1 << 20, '\0');
    const ssize_t n = ::read(reader, received.data(), received.size());
    ::close(reader);
    ASSERT_GT(n, 0);
    received.resize(static_cast<std::size_t>(n));
    // What `-` (standard output) gets is what the FIFO got: one writer for both.
    args.back() = "-";
    const ProcessResult to_stdout = run_process(directly(args), allow_root);
    ASSERT_EQ(to_stdout.exit_code, 0) << describe(to_stdout);
    EXPECT_EQ(received, to_stdout.out);
    EXPECT_FALSE(std::filesystem::exists("-"));
    EXPECT_EQ(type_of(fifo), S_IFIFO);
    expect_only(dir.path(), 1);
  }
}

TEST(OutputTargets, AFifoNobodyReadsASocketAndADirectoryAreRefused) {
  const TempDir dir;
  const std::filesystem::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::filesystem::path socket_path = dir / "sock";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  std::filesystem::create_directory(dir / "folder");
  const std::vector<std::pair<std::filesystem::path, std::string>> refused{{fifo, "is a FIFO that nobody reads"},
                                                                           {socket_path, "is a socket"},
                                                                           {dir / "folder", "is a directory"}};
  for (const auto& command : commands_writing_to("")) {
    for (const auto& [target, why] : refused) {
      std::vector<std::string> args = command;
      args.back() = target.string();
      const ProcessResult result = run_process(directly(args), allow_root);
      EXPECT_EQ(result.exit_code, 2) << describe(result);
      EXPECT_THAT(result.err, StartsWith("fabricbench: error: " + target.string() + " " + why + ": outputs are "));
    }
  }
  ::close(listener);
  EXPECT_EQ(type_of(fifo), S_IFIFO);
  EXPECT_EQ(type_of(socket_path), S_IFSOCK);
  EXPECT_EQ(type_of(dir / "folder"), S_IFDIR);
  expect_only(dir.path(), 3);
}

// A run publishes its results as it measures, so `-` cannot be its results path; it is refused
// before anything is measured, and no file named `-` appears.
TEST(OutputTargets, ARunRefusesStandardOutputAndDevicesAsResultsFiles) {
  const TempDir dir;
  for (const std::string& target : {std::string("-"), std::string("/dev/null")}) {
    const ProcessResult result = run_process(directly({"run", "all_reduce", "-e", "1K", "-n", "2", "--csv", target,
                                                       "--json", (dir / "r.json").string()}),
                                             allow_root);
    EXPECT_EQ(result.exit_code, 2) << describe(result);
    EXPECT_THAT(result.err, HasSubstr(target));
  }
  EXPECT_FALSE(std::filesystem::exists("-"));
  struct stat status {};
  ASSERT_EQ(::stat("/dev/null", &status), 0);
  EXPECT_TRUE(S_ISCHR(status.st_mode));
}

// An output given `-` owns standard output: a pipe gets that output alone, parsed whole, and what a
// person reads (tables, notes) goes to standard error; the same bytes as when written to a file.
TEST(OutputTargets, AnOutputGivenStandardOutputHasItAloneAndTheConsoleMovesToStandardError) {
  const TempDir dir;
  const std::vector<std::vector<std::string>> commands{
      {"compare", results_sample, results_sample, "--json", "-"},
      {"diagnose", "--results", results_sample, "--json", "-"},
      {"topo", "analyze", healthy_spec, "--json", "-"},
  };
  for (const std::vector<std::string>& command : commands) {
    const ProcessResult to_stdout = run_process(directly(command), allow_root);
    ASSERT_EQ(to_stdout.exit_code, 0) << describe(to_stdout);
    EXPECT_TRUE(nlohmann::json::accept(to_stdout.out)) << command[0] << ":\n" << to_stdout.out;
    EXPECT_FALSE(to_stdout.err.empty()) << command[0] << ": the console lines belong on standard error";
    std::vector<std::string> to_file = command;
    to_file.back() = (dir / (command[0] + ".json")).string();
    const ProcessResult written = run_process(directly(to_file), allow_root);
    ASSERT_EQ(written.exit_code, 0) << describe(written);
    EXPECT_EQ(read_text_file(dir / (command[0] + ".json")), to_stdout.out) << command[0];
    EXPECT_EQ(written.out, to_stdout.err) << command[0] << ": the console is the same, on the other stream";
  }
  // Two outputs on one stream would interleave two formats.
  const ProcessResult both =
      run_process(directly({"compare", results_sample, results_sample, "--csv", "-", "--json", "-"}), allow_root);
  EXPECT_EQ(both.exit_code, 2) << describe(both);
  EXPECT_EQ(both.err,
            "fabricbench: error: --csv and --json both name standard output (-), which carries one of them\n");
  EXPECT_EQ(both.out, "");
}

}  // namespace
}  // namespace fb
