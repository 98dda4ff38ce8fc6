#include "benchmarks/core/memory_budget.hpp"

#include "common/dtype.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "results/result_row.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fb {
namespace {

std::optional<std::uint64_t> read_number(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    std::size_t used = 0;
    const std::uint64_t value = std::stoull(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) { return std::nullopt; }
}

std::optional<std::uint64_t> mem_available_bytes(const std::filesystem::path& root) {
  std::ifstream meminfo(root / "proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

// The cgroup of this process in the hierarchy that has the memory controller, relative to its
// mount, and the names of that controller's limit and usage files.
struct MemoryCgroup {
  std::filesystem::path mount;
  std::string path;
  const char* limit_file;
  const char* usage_file;
};

std::optional<MemoryCgroup> memory_cgroup(const std::filesystem::path& root) {
  std::ifstream cgroups(root / "proc/self/cgroup");
  std::optional<MemoryCgroup> unified;
  for (std::string line; std::getline(cgroups, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path".
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');)
      if (name == "memory")
        return MemoryCgroup{root / "sys/fs/cgroup/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes"};
    if (controllers.empty() && line.starts_with("0:"))
      unified = MemoryCgroup{root / "sys/fs/cgroup", path, "memory.max", "memory.current"};
  }
  return unified;
}

}  // namespace

std::optional<AvailableMemory> available_memory(const std::filesystem::path& root) {
  const std::optional<std::uint64_t> mem_available = mem_available_bytes(root);
  if (!mem_available) return std::nullopt;
  AvailableMemory available{*mem_available, "MemAvailable"};
  const std::optional<MemoryCgroup> cgroup = memory_cgroup(root);
  if (!cgroup) return available;
  // A limit anywhere up the tree binds this process; usage is counted where the limit is set.
  std::filesystem::path relative = std::filesystem::path(cgroup->path).relative_path();
  for (;;) {
    const std::filesystem::path dir = cgroup->mount / relative;
    const std::optional<std::uint64_t> limit = read_number(dir / cgroup->limit_file);
    // cgroup v1 writes "no limit" as a number near 2^63.
    if (limit && *limit < (std::uint64_t{1} << 62)) {
      const std::uint64_t usage = read_number(dir / cgroup->usage_file).value_or(0);
      const std::uint64_t left = *limit > usage ? *limit - usage : 0;
      if (left < available.bytes)
        available = {left, fmt::format("the cgroup {} {} of {} B, {} B used", ("/" / relative).string(),
                                       cgroup->limit_file, *limit, usage)};
    }
    if (relative.empty()) break;
    relative = relative.has_parent_path() && relative.parent_path() != relative ? relative.parent_path()
                                                                                : std::filesystem::path();
  }
  return available;
}

// An upper estimate of what one message in flight holds besides its buffer: an MPI request handle
// and the request object behind it (a few hundred bytes in Open MPI and MPICH).
constexpr std::uint64_t bytes_per_message_in_flight = 1024;

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one memory term per op layout (send, receive, scratch, in flight), each stated beside its case
RankMemoryNeed rank_memory_need(const std::vector<PlannedOp>& plan, int rank, int nranks, bool buffers_in_host_memory) {
  RankMemoryNeed need;
  for (const PlannedOp& planned : plan)
    for (const std::vector<BenchmarkCase>& cases : planned.cases_by_size)
      for (const BenchmarkCase& c : cases) {
        // Send and receive buffers: each at most the whole size (all_gather's receive buffer, and
        // alltoall's both, are the size; every other op's are one rank's count).
        const std::uint64_t buffer_bytes =
            buffers_in_host_memory ? 2 * std::max(c.bytes, c.count * size_in_bytes(c.dtype)) : 0;
        // Every rank keeps its times per iteration; rank 0 also the slowest rank's, and for pair
        // patterns every rank's. Under -n auto a size may run up to --max-iters.
        const auto iterations = static_cast<std::uint64_t>(std::max(c.iterations, c.max_iterations));
        const std::uint64_t time_arrays =
            rank == 0 ? iterations * (2 + static_cast<std::uint64_t>(nranks)) : iterations;
        // bw and bibw (and the pair patterns built on them) keep a window of messages in flight
        // each way, each a request handle and the library's request object behind it.
        const bool windowed = c.op->op_class == OpClass::point_to_point || c.op->op_class == OpClass::pair_pattern;
        const std::uint64_t window_bytes =
            windowed ? 2 * static_cast<std::uint64_t>(c.window) * bytes_per_message_in_flight : 0;
        const std::uint64_t bytes = buffer_bytes + time_arrays * sizeof(double) + window_bytes;
        if (bytes > need.bytes)
          need = {bytes, fmt::format("{} at {} B ({}, {}{})", c.op->name, c.bytes, name_of(c.dtype),
                                     c.max_iterations > c.iterations ? fmt::format("--max-iters {}", c.max_iterations)
                                                                     : fmt::format("-n {}", c.iterations),
                                     windowed ? fmt::format(", -W {}", c.window) : "")};
      }
  return need;
}

std::uint64_t size_list_bytes(std::uint64_t sizes, std::uint64_t placements) {
  const std::uint64_t per_size = sizeof(std::uint64_t) + sizeof(std::vector<BenchmarkCase>) +
                                 placements * (sizeof(BenchmarkCase) + sizeof(ResultRow));
  return sizes > UINT64_MAX / per_size ? UINT64_MAX : sizes * per_size;
}

void require_memory_for_sizes(const SweepSpec& sweep, std::uint64_t placements,
                              const std::optional<AvailableMemory>& available) {
  const std::uint64_t sizes = sweep_size_count(sweep);
  const std::uint64_t bytes = size_list_bytes(sizes, placements);
  if (!available || bytes <= available->bytes) return;
  throw UsageError(fmt::format("-b {} to -e {} {} makes {} sizes, whose plan and rows need {} B of memory per rank, "
                               "more than the {} B available ({}); raise {} or narrow -b/-e",
                               sweep.min_bytes, sweep.max_bytes,
                               sweep.step_bytes ? fmt::format("in steps of -i {}", *sweep.step_bytes)
                                                : fmt::format("by -f {}", sweep.step_factor),
                               sizes, bytes, available->bytes, available->source, sweep.step_bytes ? "-i" : "-f"));
}

void require_memory_for(const std::vector<PlannedOp>& plan, int rank, int nranks, const std::string& host,
                        const std::vector<int>& ranks_on_host, bool buffers_in_host_memory,
                        const AvailableMemory& available) {
  std::uint64_t host_bytes = 0;
  RankMemoryNeed largest;
  for (int local_rank : ranks_on_host) {
    const RankMemoryNeed need = rank_memory_need(plan, local_rank, nranks, buffers_in_host_memory);
    host_bytes += need.bytes;
    if (local_rank == rank || largest.largest_case.empty()) largest = need;
  }
  if (host_bytes <= available.bytes) return;
  throw UsageError(fmt::format("{} needs {} B of memory per rank ({} B for the {} rank{} on {}), more than the {} B "
                               "available there ({}); lower -e, -n, --max-iters or -W, or run fewer ranks per node",
                               largest.largest_case, largest.bytes, host_bytes, ranks_on_host.size(),
                               ranks_on_host.size() == 1 ? "" : "s", host, available.bytes, available.source));
}

NodeMemoryCheck check_node_memory(const std::vector<PlannedOp>& plan, const RankPlacement& placement,
                                  bool buffers_in_host_memory, const std::optional<AvailableMemory>& available) {
  const std::string& host = placement.rank_hosts.at(static_cast<std::size_t>(placement.rank));
  std::vector<int> ranks_on_host;
  for (int rank = 0; rank < placement.nranks; ++rank)
    if (placement.rank_hosts.at(static_cast<std::size_t>(rank)) == host) ranks_on_host.push_back(rank);
  NodeMemoryCheck check;
  check.first_rank_of_node = ranks_on_host.front() == placement.rank;
  if (!available) return check;
  try {
    require_memory_for(plan, placement.rank, placement.nranks, host, ranks_on_host, buffers_in_host_memory, *available);
  } catch (const UsageError& e) { check.error = e.what(); }
  return check;
}

}  // namespace fb
