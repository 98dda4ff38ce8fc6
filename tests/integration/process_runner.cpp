#include "process_runner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace fb::testing {
namespace {

// Output goes to anonymous temporary files rather than pipes: nothing has to drain them while the
// command runs, and nothing is left on disk.
std::string read_all(std::FILE* file) {
  std::string text;
  std::rewind(file);
  char block[4096];
  for (std::size_t n; (n = std::fread(block, 1, sizeof block, file)) > 0;) text.append(block, n);
  return text;
}

// /proc/PID/stat, or nothing for a process that exited after /proc was listed: reading its stat
// then fails (ESRCH), which an ifstream turns into an exception in the middle of a scan.
std::optional<std::string> process_stat(const char* pid) {
  const std::string path = std::string("/proc/") + pid + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[1024];  // a stat line is a few hundred bytes
  ssize_t n = 0;
  do n = ::read(fd, buffer, sizeof buffer);
  while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return std::string(buffer, static_cast<std::size_t>(n));
}

// Live (not zombie) processes whose session is `session`, read from /proc/PID/stat.
std::vector<pid_t> live_processes_in_session(pid_t session) {
  std::vector<pid_t> pids;
  DIR* proc = ::opendir("/proc");
  if (!proc) throw std::runtime_error("cannot list /proc");
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    const std::optional<std::string> read = process_stat(entry->d_name);
    if (!read) continue;
    const std::string& stat = *read;
    // "pid (comm) state ppid pgrp session ...": comm may hold spaces, so parse after the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0, sid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld %ld %ld", &state, &ppid, &pgrp, &sid) != 4) continue;
    if (sid == session && state != 'Z' && state != 'X') pids.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return pids;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment)
    : out_(std::tmpfile()), err_(std::tmpfile()) {
  if (!out_ || !err_) throw std::runtime_error("cannot create capture files");
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<char*> environment;
  for (char** entry = environ; *entry; ++entry) environment.push_back(*entry);
  for (const auto& entry : extra_environment) environment.push_back(const_cast<char*>(entry.c_str()));
  environment.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&files, ::fileno(out_.get()), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&files, ::fileno(err_.get()), STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  const int error = ::posix_spawn(&pid_, args[0], &files, &attributes, args.data(), environment.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  if (error != 0) throw std::runtime_error("cannot start " + argv.at(0) + ": " + std::strerror(error));
}

ChildProcess::~ChildProcess() {
  // A destructor must not throw; a process that survives SIGKILL is reported, not fatal here.
  try {
    kill_session();
  } catch (const std::exception& e) { std::fprintf(stderr, "ChildProcess: %s\n", e.what()); }
}

bool ChildProcess::reap(bool block) {
  if (reaped_) return true;
  pid_t result;
  do result = ::waitpid(pid_, &status_, block ? 0 : WNOHANG);
  while (result < 0 && errno == EINTR);
  reaped_ = result == pid_;
  return reaped_;
}

void ChildProcess::kill_session() {
  // The session id is the id of the process that started it.
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);;) {
    const std::vector<pid_t> live = live_processes_in_session(pid_);
    if (live.empty()) break;
    for (pid_t pid : live) ::kill(pid, SIGKILL);
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("processes survive SIGKILL");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  reap(true);
}

void ChildProcess::signal_session_at_once(int signal_number) {
  const std::vector<pid_t> members = live_processes_in_session(pid_);
  for (pid_t pid : members) ::kill(pid, SIGSTOP);
  for (pid_t pid : members) ::kill(pid, signal_number);
  for (pid_t pid : members) ::kill(pid, SIGCONT);
}

ProcessResult ChildProcess::wait(std::chrono::seconds timeout) {
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!reap(false)) {
    if (std::chrono::steady_clock::now() > deadline) {
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Ranks that outlive their launcher are killed too, whether it timed out or not.
  kill_session();
  if (WIFEXITED(status_)) result.exit_code = WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) result.signal = WTERMSIG(status_);
  result.out = read_all(out_.get());
  result.err = read_all(err_.get());
  return result;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment,
                          std::chrono::seconds timeout) {
  return ChildProcess(argv, extra_environment).wait(timeout);
}

std::string describe(const ProcessResult& result) {
  return "exit " + std::to_string(result.exit_code) + (result.timed_out ? " (timed out)" : "") + "\n--- stdout\n" +
         result.out + "\n--- stderr\n" + result.err;
}

}  // namespace fb::testing
