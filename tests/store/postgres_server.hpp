#pragma once
// A PostgreSQL server of its own for the services tests: a fresh cluster (Debian's postgresql
// package) in a temporary directory on a loopback port, run by the `postgres` user when the test
// runs as root (postgres refuses root), ended with the test. With a password, connections over TCP
// must give it (scram-sha-256). It can be stopped and started again on the same port and data.

#include "integration/fabricbench_runs.hpp"
#include "store/run_store.hpp"
#include "support/temp_dir.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <glob.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fb::testing {

// A TCP port on loopback nobody listens on now (the kernel's pick; released for the server to take).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("no free loopback port");
  ::close(fd);
  return ntohs(address.sin_port);
}

inline std::string first_match(const std::string& pattern) {
  glob_t found{};
  std::string path;
  if (::glob(pattern.c_str(), 0, nullptr, &found) == 0 && found.gl_pathc > 0) path = found.gl_pathv[found.gl_pathc - 1];
  ::globfree(&found);
  return path;
}

class PostgresServer {
 public:
  explicit PostgresServer(std::string password = "") : password_(std::move(password)) {
    bin_ = first_match("/usr/lib/postgresql/*/bin");
    if (bin_.empty()) return;
    std::filesystem::permissions(dir_.path(), std::filesystem::perms::owner_all | std::filesystem::perms::group_exec |
                                                  std::filesystem::perms::others_exec);
    const std::filesystem::path data = dir_ / "data";
    std::filesystem::create_directories(data);
    const std::filesystem::path password_file = dir_ / "password";
    std::ofstream(password_file) << password_ << "\n";
    if (::geteuid() == 0) {
      const passwd* postgres = ::getpwnam("postgres");
      if (!postgres) return;
      for (const std::filesystem::path& owned : {dir_.path(), data, password_file})
        if (::chown(owned.c_str(), postgres->pw_uid, postgres->pw_gid) != 0) return;
      as_user_ = {"/usr/sbin/runuser", "-u", "postgres", "--"};
    }
    std::vector<std::string> init{bin_ + "/initdb", "-D", data.string(), "-U", "fabricbench", "--no-sync"};
    if (password_.empty()) {
      init.insert(init.end(), {"-A", "trust"});
    } else {
      init.insert(init.end(),
                  {"--auth-local=trust", "--auth-host=scram-sha-256", "--pwfile=" + password_file.string()});
    }
    const ProcessResult result = run_process(command(init), {}, std::chrono::seconds(120));
    if (result.exit_code != 0) {
      problem_ = "initdb failed: " + describe(result);
      return;
    }
    port_ = free_port();
    start();
  }

  // Starts the server on its port and waits until it takes connections; url() is empty when it
  // did not come up (problem() says why).
  void start() {
    server_ = std::make_unique<ChildProcess>(
        command({bin_ + "/postgres", "-D", (dir_ / "data").string(), "-p", std::to_string(port_), "-k",
                 dir_.path().string(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"}));
    url_ = url_for("postgres");
    for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(std::chrono::milliseconds(200))) {
      try {
        store::RunStore probe(url_);
        return;
      } catch (const std::exception& e) { problem_ = e.what(); }
    }
    url_.clear();
    // What the server said about it (a refusal to start is on its stderr).
    const ProcessResult ended = server_->wait(std::chrono::seconds(0));
    problem_ += "; the server said: " + ended.out + ended.err;
  }
  // Kills the server and every backend of it (a crash, as far as the clients can tell) and returns
  // once they are gone. The postmaster is killed alone, for runuser to reap: killed together with
  // runuser (the session kill), it stayed a zombie that nothing reaps where PID 1 does not, and its
  // pid in postmaster.pid made the next start refuse ("lock file already exists"). Its backends run
  // in sessions of their own, out of the session kill's reach, and hold the shared memory the next
  // start checks.
  void stop() {
    const pid_t postmaster = postmaster_pid();
    const std::vector<pid_t> backends = children_of(postmaster);
    ::kill(postmaster, SIGKILL);
    for (const pid_t backend : backends) ::kill(backend, SIGKILL);
    server_->wait(std::chrono::seconds(30));
    server_.reset();
    for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
         std::ranges::any_of(backends, alive) && std::chrono::steady_clock::now() < deadline;)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  bool installed() const { return !first_match("/usr/lib/postgresql/*/bin/postgres").empty(); }
  // postgresql://fabricbench[:PASSWORD]@127.0.0.1:PORT/postgres
  const std::string& url() const { return url_; }
  std::string url_for(const std::string& database, bool with_password = true) const {
    return fmt::format("postgresql://fabricbench{}@127.0.0.1:{}/{}",
                       with_password && !password_.empty() ? ":" + password_ : "", port_, database);
  }
  int port() const { return port_; }
  const std::string& bin() const { return bin_; }
  const std::string& problem() const { return problem_; }

 private:
  std::vector<std::string> command(std::vector<std::string> argv) const {
    argv.insert(argv.begin(), as_user_.begin(), as_user_.end());
    return argv;
  }

  // The first line of postmaster.pid; the spawned process itself when it is no runuser.
  pid_t postmaster_pid() const {
    if (as_user_.empty()) return server_->pid();
    std::ifstream file(dir_ / "data" / "postmaster.pid");
    pid_t pid = 0;
    file >> pid;
    return pid > 0 ? pid : server_->pid();
  }

  // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
  static std::optional<std::pair<char, pid_t>> state_and_parent(pid_t pid) {
    std::ifstream file(fmt::format("/proc/{}/stat", pid));
    const std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    char state = 0;
    long parent = 0;
    if (close == std::string::npos || std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &parent) != 2)
      return std::nullopt;
    return std::pair{state, static_cast<pid_t>(parent)};
  }
  static bool alive(pid_t pid) {
    const auto found = state_and_parent(pid);
    return found && found->first != 'Z' && found->first != 'X';
  }
  static std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> children;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || !std::ranges::all_of(name, [](char c) { return c >= '0' && c <= '9'; })) continue;
      const pid_t pid = static_cast<pid_t>(std::stol(name));
      const auto found = state_and_parent(pid);
      if (found && found->second == parent) children.push_back(pid);
    }
    return children;
  }

  TempDir dir_;
  std::string password_;
  std::string bin_;
  std::vector<std::string> as_user_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> server_;
  std::string url_;
  std::string problem_;
};

}  // namespace fb::testing
