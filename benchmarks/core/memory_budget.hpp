#pragma once
// Whether a run's buffers fit in the memory of each node before any is allocated: a size that
// cannot fit is refused with a line naming the size and the memory (exit 2), instead of the OOM
// killer ending the job (exit 137) with nothing said.

#include "benchmarks/core/run_plan.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fb {

// The memory this process can still take: the smaller of the kernel's MemAvailable and what its
// cgroup (v2 memory.max, v1 memory.limit_in_bytes, the tightest of its ancestors) leaves.
struct AvailableMemory {
  std::uint64_t bytes = 0;
  std::string source;  // what bounds it: "MemAvailable" or "cgroup /job.slice memory.max 1073741824"
};

// `root` is "/" except in tests, which lay out proc/ and sys/fs/cgroup/ files under it.
// Empty when /proc/meminfo cannot be read.
std::optional<AvailableMemory> available_memory(const std::filesystem::path& root = "/");

// The host memory one rank of the run needs at its largest case: the send and receive buffers
// (host-memory backends only) and the per-iteration times, with rank 0's gathers of every rank's.
struct RankMemoryNeed {
  std::uint64_t bytes = 0;
  std::string largest_case;  // "all_reduce at 8589934592 B (double)"
};
RankMemoryNeed rank_memory_need(const std::vector<PlannedOp>& plan, int rank, int nranks, bool buffers_in_host_memory);

// The host memory a plan's size list takes on every rank before anything is measured: per size and
// placement one case in the plan, and one row in the results rank 0 keeps.
std::uint64_t size_list_bytes(std::uint64_t sizes, std::uint64_t placements);

// Throws UsageError when the size list of `sweep` (placements cases per size) alone cannot fit in
// `available` (unknown: no check), before the list is built: a billion-size -i sweep is refused
// with one line, not ended by std::bad_alloc.
void require_memory_for_sizes(const SweepSpec& sweep, std::uint64_t placements,
                              const std::optional<AvailableMemory>& available);

// Throws UsageError naming the case, the need of `ranks_on_node` ranks and the memory available
// when they cannot all fit.
void require_memory_for(const std::vector<PlannedOp>& plan, int rank, int nranks, const std::string& host,
                        const std::vector<int>& ranks_on_host, bool buffers_in_host_memory,
                        const AvailableMemory& available);

// require_memory_for on this rank's node (the ranks `placement` puts on its host), caught: the
// error is empty when they fit or `available` is unknown. The node's first rank prints it.
struct NodeMemoryCheck {
  std::string error;
  bool first_rank_of_node = false;
};
NodeMemoryCheck check_node_memory(const std::vector<PlannedOp>& plan, const RankPlacement& placement,
                                  bool buffers_in_host_memory, const std::optional<AvailableMemory>& available);

}  // namespace fb
