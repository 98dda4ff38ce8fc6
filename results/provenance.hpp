#pragma once
// Where a result set came from: enough to reproduce the run or to explain why two runs differ.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fb {

struct Provenance {
  std::string run_id;
  std::string tool_version;
  std::string git_revision;
  std::string start_time;  // ISO 8601 UTC
  std::string command_line;
  std::string backend;
  int nranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;
  std::vector<std::string> rank_hosts;  // host of every rank, by rank
  // GPUs one host thread drives, launching their kernels in turn (run -g; nccl-tests' nGpus, per
  // each of its nThread threads); empty where the run did not record it.
  std::optional<int> gpus_per_process;
  std::string kernel;  // uname of the reporting rank's host
  // Which pages back the reporting rank's host buffers ("2 MiB transparent huge pages for buffers
  // of 2 MiB and more, ..."); empty where the buffers are device memory.
  std::string host_buffer_pages;
  std::map<std::string, std::string> libraries;    // library -> version
  std::map<std::string, std::string> environment;  // NCCL_*, UCX_*, OMPI_MCA_*, ...
  // What an importer inferred because the log did not say it ("8 ranks from busbw/algbw"): each
  // was also printed as a warning when the log was imported.
  std::vector<std::string> assumptions;

  bool operator==(const Provenance&) const = default;
};

// "node01 (ranks 0-3), node02 (ranks 4-7)": consecutive ranks on one host are folded together.
std::string describe_rank_hosts(const std::vector<std::string>& rank_hosts);

}  // namespace fb
