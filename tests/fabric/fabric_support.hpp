#pragma once
// What every emulated-fabric test needs: the script, its fabrics' namespaces, and the removal of
// the fabrics a killed run left behind (scripts/emulated-fabric.sh, docs/emulated-fabric.md).

#include "fabricbench_runs.hpp"
#include "process_runner.hpp"
#include "results/result_row.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fb::fabric_support {

namespace fs = std::filesystem;
using testing::lines_of;
using testing::ProcessResult;
using testing::run_process;

// The emulated fabric's exit status for "cannot create network namespaces here".
inline constexpr int fabric_unavailable = 77;

// Fabrics of this test program are named fbt<pid>: unique among concurrent runs, and a leftover
// of a killed run is recognisable by its dead pid.
inline const std::string fabric_prefix_head = "fbt";
// Where emulated-fabric.sh records each fabric it creates (one directory per prefix).
inline const fs::path fabric_state_dir = "/run/fabricbench-emulated-fabric";

inline std::vector<std::string> namespaces_with_prefix(const std::string& prefix) {
  const ProcessResult listed = run_process({IP_BINARY, "netns", "list"});
  std::vector<std::string> found;
  for (const std::string& line : lines_of(listed.out)) {
    const std::string name = line.substr(0, line.find(' '));
    if (name.starts_with(prefix + "-")) found.push_back(name);
  }
  return found;
}

inline ProcessResult fabric_script(const std::vector<std::string>& args) {
  std::vector<std::string> argv{EMULATED_FABRIC_SCRIPT};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, {}, std::chrono::seconds(120));
}

// Whether `pid` is a running process. A killed run that its parent has not reaped yet is a zombie:
// dead for this purpose, although kill(pid, 0) still finds it.
inline bool process_alive(long pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // "pid (comm) state ...": comm may hold spaces, so the state follows the last ')'.
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Removes the fabrics of earlier runs of this program that were killed before their TearDown
// (a ctest timeout sends SIGKILL): every fbt<pid> fabric whose process is gone, found by its
// namespaces or by the state the script keeps for it.
inline void remove_fabrics_of_dead_runs() {
  std::vector<std::string> names;
  for (const std::string& line : lines_of(run_process({IP_BINARY, "netns", "list"}).out)) names.push_back(line);
  std::error_code no_state;
  for (const auto& entry : fs::directory_iterator(fabric_state_dir, no_state)) {
    names.push_back(entry.path().filename().string());
  }
  const std::regex ours("^" + fabric_prefix_head + "([0-9]+)(-|$)");
  std::set<std::string> stale;
  for (const std::string& name : names) {
    std::smatch match;
    if (!std::regex_search(name, match, ours)) continue;
    if (!process_alive(std::stol(match[1]))) stale.insert(fabric_prefix_head + match[1].str());
  }
  for (const std::string& prefix : stale) fabric_script({"down", "--prefix", prefix});
}

// Rates in Mbit/s, the unit the fabric is set in.
inline double mbit_of(const ResultRow& row) { return row.algbw_gbps * 8000; }

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.at(values.size() / 2);
}

// A fabric brought up per case under a prefix of this process, always taken down again: in
// TearDown (which also runs after a failed assertion) and, for a killed run, by the next run.
class FabricCase : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the emulated fabric needs root (network namespaces, tc)";
    remove_fabrics_of_dead_runs();
    owns_prefix_ = true;
    fabric_script({"down", "--prefix", prefix_});
  }

  void TearDown() override {
    if (!owns_prefix_) return;
    const ProcessResult down = fabric_script({"down", "--prefix", prefix_});
    EXPECT_EQ(down.exit_code, 0) << testing::describe(down);
    EXPECT_THAT(namespaces_with_prefix(prefix_), ::testing::IsEmpty()) << "namespaces left behind";
  }

  // `emulated-fabric.sh up` under this case's prefix with `options`; skips the case where
  // namespaces cannot be made, and fails it unless exactly `namespaces` were made (`what` says which).
  void bring_up(const std::vector<std::string>& options, std::size_t namespaces, const std::string& what) {
    std::vector<std::string> args{"up", "--prefix", prefix_};
    args.insert(args.end(), options.begin(), options.end());
    const ProcessResult result = fabric_script(args);
    if (result.exit_code == fabric_unavailable) GTEST_SKIP() << result.err;
    ASSERT_EQ(result.exit_code, 0) << testing::describe(result);
    ASSERT_EQ(namespaces_with_prefix(prefix_).size(), namespaces) << what;
  }

  // The command line of `fabricbench ARGS...` on `nranks` hosts under the real mpirun, launched by
  // the script on this case's fabric; `mpirun_args` go to mpirun itself.
  std::vector<std::string> across_hosts(int nranks, const std::vector<std::string>& args,
                                        const std::vector<std::string>& mpirun_args = {}) const {
    std::vector<std::string> argv{EMULATED_FABRIC_SCRIPT, "mpirun", "--prefix", prefix_, "-np", std::to_string(nranks)};
    argv.insert(argv.end(), mpirun_args.begin(), mpirun_args.end());
    argv.push_back(FABRICBENCH_BINARY);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  const std::string prefix_ = fabric_prefix_head + std::to_string(::getpid());
  bool owns_prefix_ = false;
};

}  // namespace fb::fabric_support
