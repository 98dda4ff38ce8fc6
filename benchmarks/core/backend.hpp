#pragma once
// A backend runs benchmark cases on some transport (MPI host buffers, NCCL device buffers, CUDA
// copies) and returns timings. It knows nothing of tables or files. What its ranks do as a job
// (agree, gather, abort) is its JobControl. Backends register themselves by name;
// `fabricbench run --backend NAME` picks one.

#include "benchmarks/core/benchmark_case.hpp"
#include "benchmarks/core/host_pages.hpp"
#include "benchmarks/core/job_control.hpp"
#include "common/rank_placement.hpp"
#include "common/registry.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// Device copies (op class device_copy): which memory is read and which is written. Endpoints are
// GPU ordinals of this process, or host_memory for pinned host memory on the GPU's NUMA node.
inline constexpr int host_memory = -1;

struct DeviceRoute {
  RankPair endpoints;
  // Why the route cannot be measured ("no peer access from GPU0 to GPU1"); empty when it can.
  std::string unavailable_reason;
};

// How the processes of a run drive GPUs (nccl-tests' -g and -G) and back host buffers; backends
// without GPUs take the GPU defaults only, which run_command checks before the backend starts.
struct LaunchOptions {
  int gpus_per_process = 1;
  int graph_launches = 0;                  // 0: ops are launched one by one; N: each timed sample replays a CUDA graph
  std::string watchdog_interface{};        // WatchdogSettings::interface_name
  HostPages host_pages = HostPages::huge;  // backends whose buffers are host memory
};

struct BackendCapabilities {
  bool several_gpus_per_process = false;
  bool cuda_graphs = false;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  virtual const RankPlacement& placement() const = 0;

  // Library name -> version, for provenance ("MPI library" -> "Open MPI v4.1.4 ...").
  virtual std::map<std::string, std::string> library_versions() const = 0;

  // The placements this backend implements `op` in; empty when it does not implement the op.
  virtual std::vector<Placement> placements_of(const OpTraits& op) const = 0;

  // Throws UsageError saying why when this backend cannot move `dtype`. Every rank decides
  // identically, so no communication is needed.
  virtual void require_supported(DataType dtype) const = 0;

  // Whether the send and receive buffers of a case are host memory (checked against each node's
  // available memory before the run) rather than device memory.
  virtual bool buffers_in_host_memory() const { return false; }
  // Where buffers are host memory: which pages back them, as the kernel granted them.
  virtual std::optional<HostPagesReport> host_buffer_pages() const { return std::nullopt; }

  // Device copy ops: every route the op measures on this machine, in the order to run them.
  virtual std::vector<DeviceRoute> device_routes(const OpTraits& /*op*/) const { return {}; }

  // Measures one case. Collective over all ranks of the backend.
  virtual Measurement measure(const BenchmarkCase& benchmark_case) = 0;

  // Runs the point-to-point `benchmark_case` on every pair at the same time (ranks in no pair
  // idle) and returns one measurement per pair, in `pairs` order, each with its `pair` set.
  // Collective over all ranks; times are filled on the reporting rank only.
  virtual std::vector<Measurement> measure_pairs(const BenchmarkCase& benchmark_case,
                                                 std::span<const RankPair> pairs) = 0;

  // Whether measure() and measure_pairs() honour BenchmarkCase::min_time_s (-n auto).
  virtual bool times_to_min_time() const { return false; }

  // The job this backend's ranks form: agreeing, gathering, aborting, the watchdog's reports.
  virtual JobControl& job() = 0;
};

using BackendFactory = std::function<std::unique_ptr<Backend>(int& argc, char**& argv, const LaunchOptions&)>;

// What `--backend NAME` picks; each backend registers one with a Registrar<BackendRegistration>.
struct BackendRegistration {
  static constexpr std::string_view registry_kind = "backend";
  std::string name;
  std::string summary;
  BackendFactory factory;
  BackendCapabilities capabilities{};

  // Throws UsageError when `launch` asks for what this backend cannot do.
  void require_supported(const LaunchOptions& launch) const;
};

// The backends of this build; at(name) throws UsageError naming them.
using BackendRegistry = Registry<BackendRegistration>;

}  // namespace fb
