// `--backend cuda`: copy bandwidth between the memories one process sees, in the spirit of
// nvbandwidth: host to each GPU and back (pinned memory on the GPU's NUMA node), within each GPU,
// and the GPU-to-GPU matrix, each by copy engine and by SM copy kernel.

#include "benchmarks/core/backend.hpp"
#include "common/errors.hpp"
#include "benchmarks/core/result_builder.hpp"
#include "common/host_environment.hpp"
#include "benchmarks/cuda/copy_check.hpp"
#include "benchmarks/cuda/copy_kernel.hpp"
#include "benchmarks/cuda/cuda_check.hpp"
#include "benchmarks/cuda/device_memory.hpp"
#include "benchmarks/cuda/device_pattern.hpp"
#include "benchmarks/cuda/gpu_discovery.hpp"
#include "benchmarks/cuda/stream_timing.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace fb {
namespace {

// The memory at one end of a route: a GPU's, or pinned host memory on that GPU's NUMA node.
class RouteEnd {
 public:
  RouteEnd(int endpoint, const GpuDescription& near_gpu, std::size_t bytes) {
    if (endpoint == host_memory)
      host_.emplace(bytes, cpus_of_numa_node("/sys", near_gpu.numa_node));
    else
      device_ = DeviceBuffer(endpoint, bytes);
  }
  void* data() const { return host_ ? host_->data() : device_.data(); }

 private:
  std::optional<PinnedHostBuffer> host_;
  DeviceBuffer device_;
};

// One direction of a route: the bytes, the memories and the GPU whose stream moves them.
struct CopyDirection {
  int src = 0;
  int dst = 0;
  int worker_gpu = 0;          // the GPU that runs the copy (its copy engine or its SMs)
  unsigned kernel_blocks = 0;  // SM copies: blocks enough to fill the worker's SMs
  std::unique_ptr<RouteEnd> source;
  std::unique_ptr<RouteEnd> destination;
};

class CudaCopyBackend final : public Backend {
 public:
  CudaCopyBackend() {
    const int gpu_count = require_visible_gpus("cuda", 1);
    for (int gpu = 0; gpu < gpu_count; ++gpu) gpus_.push_back(describe_gpu(gpu));
    placement_.rank_hosts = {this_host_name()};
  }

  std::string_view name() const override { return "cuda"; }
  const RankPlacement& placement() const override { return placement_; }

  std::map<std::string, std::string> library_versions() const override {
    std::map<std::string, std::string> versions{{"cuda", cuda_versions()}};
    for (const GpuDescription& gpu : gpus_)
      versions[fmt::format("gpu{}", gpu.ordinal)] =
          fmt::format("{} ({}, NUMA node {})", gpu.name, gpu.pci_bus_id, gpu.numa_node);
    return versions;
  }

  std::vector<Placement> placements_of(const OpTraits& op) const override {
    if (op.op_class != OpClass::device_copy) return {};
    return {Placement::out_of_place};
  }

  // Copies move bytes; the type only sets the size granularity.
  void require_supported(DataType) const override {}

  std::vector<DeviceRoute> device_routes(const OpTraits& op) const override {
    const int count = static_cast<int>(gpus_.size());
    std::vector<DeviceRoute> routes;
    for (int a = 0; a < count; ++a) {
      switch (op.copy_route) {
        case CopyRoute::host_to_device: routes.push_back({{host_memory, a}, {}}); break;
        case CopyRoute::device_to_host: routes.push_back({{a, host_memory}, {}}); break;
        case CopyRoute::device_local: routes.push_back({{a, a}, {}}); break;
        case CopyRoute::device_to_device:
          for (int b = op.bidirectional ? a + 1 : 0; b < count; ++b) {
            if (b == a) continue;
            routes.push_back({{a, b}, peer_access_problem(a, b, op.bidirectional)});
          }
          break;
        case CopyRoute::none: break;
      }
    }
    return routes;
  }

  Measurement measure(const BenchmarkCase& benchmark_case) override {
    throw std::logic_error(
        fmt::format("the cuda backend measures device copies only, not {}", benchmark_case.op->name));
  }

  std::vector<Measurement> measure_pairs(const BenchmarkCase& benchmark_case,
                                         std::span<const RankPair> pairs) override {
    std::vector<Measurement> measurements;
    for (const RankPair& route : pairs) measurements.push_back(measure_route(benchmark_case, route));
    return measurements;
  }

  JobControl& job() override { return job_; }

 private:
  std::string peer_access_problem(int a, int b, bool both_ways) const {
    std::vector<std::pair<int, int>> directions{{a, b}};
    if (both_ways) directions.emplace_back(b, a);
    for (const auto& [from, to] : directions) {
      int can_access = 0;
      FB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, from, to));
      if (!can_access)
        return fmt::format("no peer access from GPU{} to GPU{} (cudaDeviceCanAccessPeer is 0)", from, to);
    }
    return {};
  }

  void enable_peer_access(int from, int to) {
    if (from == to || from == host_memory || to == host_memory) return;
    const ScopedDevice on(from);
    const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();  // the error is sticky until read; it is expected here
      return;
    }
    FB_CUDA_CHECK(status);
  }

  CopyDirection make_direction(int src, int dst, std::size_t bytes) {
    CopyDirection direction;
    direction.src = src;
    direction.dst = dst;
    // Host copies run on their GPU; a peer copy is pushed by its source GPU.
    direction.worker_gpu = src == host_memory ? dst : src;
    direction.kernel_blocks = copy_kernel_blocks(direction.worker_gpu);
    const GpuDescription& near = gpus_.at(static_cast<std::size_t>(direction.worker_gpu));
    direction.source = std::make_unique<RouteEnd>(src, near, bytes);
    direction.destination = std::make_unique<RouteEnd>(dst, near, bytes);
    enable_peer_access(src, dst);
    return direction;
  }

  void enqueue_copy(const OpTraits& op, const CopyDirection& direction, std::size_t bytes, cudaStream_t stream) {
    // A kernel launch goes to the current device, which must be the stream's: CUDA rejects a launch
    // on another device's stream.
    const ScopedDevice on(direction.worker_gpu);
    if (op.copy_engine == CopyEngine::copy_engine) {
      FB_CUDA_CHECK(
          cudaMemcpyAsync(direction.destination->data(), direction.source->data(), bytes, cudaMemcpyDefault, stream));
    } else {
      launch_copy_kernel(direction.destination->data(), direction.source->data(), bytes, direction.kernel_blocks,
                         stream);
    }
  }

  Measurement measure_route(const BenchmarkCase& benchmark_case, RankPair route) {
    const OpTraits& op = *benchmark_case.op;
    const std::size_t bytes = benchmark_case.bytes;
    std::vector<CopyDirection> directions;
    directions.push_back(make_direction(route.src, route.dst, bytes));
    if (op.bidirectional) directions.push_back(make_direction(route.dst, route.src, bytes));

    // The first direction's stream carries the timing events; the other joins it at both ends of
    // every iteration, so one iteration lasts until both directions are done.
    std::vector<CudaStream> streams;
    for (const CopyDirection& direction : directions) streams.emplace_back(direction.worker_gpu);
    const std::span<const CudaStream> timing_stream(streams.data(), 1);
    std::vector<CudaEvent> forks;
    std::vector<CudaEvent> joins;
    for (const CudaStream& stream : streams) {
      forks.emplace_back(streams.front().device());
      joins.emplace_back(stream.device());
    }
    const auto enqueue_iteration = [&] {
      for (std::size_t d = 1; d < directions.size(); ++d) {
        FB_CUDA_CHECK(cudaEventRecord(forks[d].get(), streams.front().get()));
        FB_CUDA_CHECK(cudaStreamWaitEvent(streams[d].get(), forks[d].get(), 0));
      }
      for (std::size_t d = 0; d < directions.size(); ++d) enqueue_copy(op, directions[d], bytes, streams[d].get());
      for (std::size_t d = 1; d < directions.size(); ++d) {
        FB_CUDA_CHECK(cudaEventRecord(joins[d].get(), streams[d].get()));
        FB_CUDA_CHECK(cudaStreamWaitEvent(streams.front().get(), joins[d].get(), 0));
      }
    };
    const auto label = [&] {
      return fmt::format("{} {} -> {} {} B", op.name, device_label(route.src), device_label(route.dst), bytes);
    };
    const auto wait = [&](int steps) {
      const auto deadline = std::chrono::duration<double>(benchmark_case.step_deadline_s * std::max(steps, 1));
      wait_for_streams(streams, std::chrono::duration_cast<std::chrono::steady_clock::duration>(deadline), {}, {}, [&] {
        return fmt::format("{}: {} copies did not complete within {:.1f} s", label(), steps, deadline.count());
      });
    };

    for (int i = 0; i < benchmark_case.warmup_iterations; ++i) enqueue_iteration();
    wait(benchmark_case.warmup_iterations);
    IterationTimer timer(timing_stream, benchmark_case.iterations);
    for (int i = 0; i < benchmark_case.iterations; ++i) {
      timer.record_start(i);
      enqueue_iteration();
      timer.record_stop(i);
    }
    wait(benchmark_case.iterations);

    Measurement measurement;
    measurement.pair = route;
    measurement.unit_seconds = timer.seconds();
    if (benchmark_case.check) measurement.wrong = check_copies(directions, bytes, enqueue_iteration, wait, streams);
    return measurement;
  }

  // Fresh patterns in, destinations reset, one iteration, every destination byte compared on the
  // device (copy_check.hpp says which patterns). Each fill and count runs on its direction's
  // stream with that stream's GPU current.
  template <class Enqueue, class Wait>
  std::uint64_t check_copies(const std::vector<CopyDirection>& directions, std::size_t bytes,
                             Enqueue& enqueue_iteration, Wait& wait, const std::vector<CudaStream>& streams) {
    const CopyCheckPatterns patterns{directions.size()};
    for (std::size_t d = 0; d < directions.size(); ++d) {
      const ScopedDevice on(streams[d].device());
      fill_pattern_on_device(directions[d].source->data(), DataType::uint8, bytes, patterns.source_rank(d), 0,
                             ReduceOp::sum, streams[d].get());
      fill_pattern_on_device(directions[d].destination->data(), DataType::uint8, bytes, patterns.reset_rank(d), 0,
                             ReduceOp::sum, streams[d].get());
    }
    wait(1);
    enqueue_iteration();
    wait(1);
    std::uint64_t wrong = 0;
    for (std::size_t d = 0; d < directions.size(); ++d) {
      const ScopedDevice on(streams[d].device());
      wrong += count_wrong_on_device(directions[d].destination->data(), DataType::uint8, bytes, patterns.expected(d),
                                     streams[d].get());
    }
    return wrong;
  }

  std::vector<GpuDescription> gpus_;
  RankPlacement placement_;
  SingleProcessJob job_;
};

const Registrar<BackendRegistration> registrar{
    {"cuda", "copies between host memory and the GPUs of one process: copy engine and SM kernel",
     [](int&, char**&, const LaunchOptions&) -> std::unique_ptr<Backend> {
       return std::make_unique<CudaCopyBackend>();
     }}};

}  // namespace
}  // namespace fb
