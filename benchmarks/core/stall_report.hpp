#pragma once
// What the watchdog found when a step passed its deadline: where every rank was, which ranks held
// the job back, and which network links went down on their hosts since the job started. The
// backend that owns the watchdog ends the job; the run command records the report first.

#include <functional>
#include <string>
#include <vector>

namespace fb {

// One participant of the watchdog: a process of the job (a rank, or for backends that drive
// several GPUs per process, the process that drives them).
struct RankStall {
  int rank = 0;
  std::string host;
  // False when the rank did not answer rank 0 over the watchdog's side channel in time.
  bool answered = false;
  std::string position;  // "timed iteration 3", "gathering times"; empty when it did not answer
  // False for the ranks that held the job back: those that did not answer, and, when some ranks
  // are further along than others, those furthest behind.
  bool arrived = true;
  // Network interfaces and InfiniBand ports of the rank's host that were up when the job started
  // and are not now ("eth0", "mlx5_0/1"), as the rank saw them when it answered.
  std::vector<std::string> links_lost;
};

struct StallReport {
  std::string case_label;  // what the backend was running: "all_reduce 1048576 B out-of-place (float)"
  double deadline_s = 0;
  double stalled_s = 0;              // how long the step had made no progress
  std::string coordinator_position;  // where rank 0 was
  std::vector<RankStall> ranks;      // every rank, by rank; only the reporting rank itself on others
  std::string message;               // the one-line account the backend prints
};

// Runs on the watchdog's thread, while the measuring thread is blocked, before the job is ended.
using StallHandler = std::function<void(const StallReport&)>;

// The watchdog watches processes, but a backend driving `ranks_per_process` GPUs from each process
// numbers its results by GPU: process p stands for ranks p * ranks_per_process onwards, each with
// the process's account.
StallReport per_device_rank(const StallReport& report, int ranks_per_process);

}  // namespace fb
