#pragma once
// Runs a command for a test: stdout and stderr captured separately, the exit status, and a
// deadline after which the command and everything it started are killed, so a hung mpirun fails
// its test instead of hanging CI.
//
// The command runs in a session of its own. Killing "everything it started" goes by that session,
// not by process group: Open MPI puts every rank it launches in a process group of its own, so
// signalling mpirun's group would leave the ranks running.

#include <sys/types.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace fb::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  int signal = 0;      // the signal that ended it, 0 when it exited
  bool timed_out = false;
  std::string out;
  std::string err;
};

class ChildProcess {
 public:
  // Starts argv[0] (a path, not looked up in PATH) with this process's environment plus
  // `extra_environment` entries ("NAME=value").
  explicit ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment = {});
  ~ChildProcess();  // kills whatever is still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits for the command to end, killing it and its session at the deadline.
  ProcessResult wait(std::chrono::seconds timeout);

  // SIGKILLs every live process of the command's session and returns once none is left.
  void kill_session();

  // Sends `signal_number` to every process of the command's session (the launcher and its ranks)
  // while all of them are stopped, then lets them go on: the signal is pending in each before any
  // of them can take another step, so the job cannot finish what it was doing in the meantime.
  void signal_session_at_once(int signal_number);

  // The process started (argv[0]), to signal it.
  pid_t pid() const { return pid_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  using CaptureFile = std::unique_ptr<std::FILE, FileCloser>;

  bool reap(bool block);

  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  CaptureFile out_;
  CaptureFile err_;
};

// Starts the command and waits for it.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment = {},
                          std::chrono::seconds timeout = std::chrono::seconds(120));

// Exit status and both outputs, for assertion messages.
std::string describe(const ProcessResult& result);

}  // namespace fb::testing
