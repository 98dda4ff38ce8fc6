// `--backend nccl`: collectives and point-to-point ops on device buffers through NCCL, one or
// more GPUs per process (-g), bootstrapped over MPI, optionally replayed as CUDA graphs (-G).
// Communicators are non-blocking, so no NCCL call can hold the host: every wait polls, and a
// wait that passes its deadline aborts the communicators and names the op, size and rank. Only
// this (the measuring) thread aborts them: the watchdog asks it to, and ends the process without
// an abort only when the measuring thread does not answer.

#include "benchmarks/core/backend.hpp"
#include "common/errors.hpp"
#include "common/pair_schedule.hpp"
#include "benchmarks/core/pair_measurements.hpp"
#include "benchmarks/core/watchdog.hpp"
#include "benchmarks/cuda/cuda_check.hpp"
#include "benchmarks/cuda/device_memory.hpp"
#include "benchmarks/cuda/gpu_discovery.hpp"
#include "benchmarks/cuda/stream_timing.hpp"
#include "benchmarks/mpi/mpi_job.hpp"
#include "benchmarks/nccl/nccl_check.hpp"
#include "benchmarks/nccl/nccl_completion.hpp"
#include "benchmarks/nccl/nccl_op.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <optional>
#include <thread>

namespace fb {
namespace {

using Clock = std::chrono::steady_clock;

// Creating communicators talks to every rank; at thousands of ranks it takes tens of seconds.
constexpr std::chrono::seconds communicator_setup_deadline{300};
// A stuck process is named by the watchdog (which knows who did not arrive); each rank's own
// deadline is later by this much, so the watchdog's message comes first when it can.
constexpr double own_deadline_extra_s = 10;
// How long the watchdog waits for the measuring thread to abort the communicators before it ends
// the process without an abort (the measuring thread is then stuck inside a CUDA or NCCL call).
constexpr std::chrono::seconds abort_handoff_grace{10};

class NcclBackend final : public Backend {
 public:
  NcclBackend(int& argc, char**& argv, const LaunchOptions& launch) : mpi_(argc, argv) {
    const int gpus_per_process = launch.gpus_per_process;
    const int first_device = agree_on_first_device(gpus_per_process);

    std::vector<std::string> rank_hosts;
    for (const std::string& host : mpi_.process_hosts()) rank_hosts.insert(rank_hosts.end(), gpus_per_process, host);
    placement_ = placement_of(std::move(rank_hosts), mpi_.rank() * gpus_per_process);

    for (int j = 0; j < gpus_per_process; ++j) streams_.emplace_back(first_device + j);
    for (int j = 0; j < gpus_per_process; ++j)
      gpus_.push_back({first_device + j, placement_.rank + j, nullptr, streams_[static_cast<std::size_t>(j)].get()});
    create_communicators();

    // Runs on the watchdog thread. Aborting there would race the measuring thread, which may be
    // polling the same communicators (a use after free, or a second abort): it says what happens
    // next, then asks the measuring thread, which aborts at its next poll and ends the process.
    const auto hand_abort_to_measuring_thread = [this](const std::string& message) {
      fmt::print(stderr,
                 "fabricbench: {}; aborting the NCCL communicators and ending the job "
                 "(without the abort if rank {} does not answer within {} s)\n",
                 message, mpi_.rank(), abort_handoff_grace.count());
      abort_requested_.store(true);
      std::this_thread::sleep_for(abort_handoff_grace);
      exit_on_timeout(fmt::format("rank {} did not abort its NCCL communicators within {} s: ending it without",
                                  mpi_.rank(), abort_handoff_grace.count()));
    };
    watchdog_ = std::make_unique<Watchdog>(mpi_.rank(), mpi_.process_hosts(), WatchdogSettings{}, mpi_.broadcaster(),
                                           hand_abort_to_measuring_thread);
    job_control_ =
        std::make_unique<MpiJobControl>(mpi_, *watchdog_, gpus_per_process, [this] { abort_communicators(); });
  }

  ~NcclBackend() override {
    job_control_.reset();
    watchdog_.reset();
    for (NcclGpu& gpu : gpus_)
      if (gpu.comm) ncclCommDestroy(gpu.comm);
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string_view name() const override { return "nccl"; }
  const RankPlacement& placement() const override { return placement_; }

  std::map<std::string, std::string> library_versions() const override {
    std::map<std::string, std::string> versions = mpi_.library_versions();
    int version = 0;
    FB_NCCL_CHECK(ncclGetVersion(&version));
    versions["nccl"] = fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
    versions["cuda"] = cuda_versions();
    for (const NcclGpu& gpu : gpus_) {
      const GpuDescription description = describe_gpu(gpu.device);
      versions[fmt::format("gpu{}", gpu.device)] =
          fmt::format("{} ({}, NUMA node {})", description.name, description.pci_bus_id, description.numa_node);
    }
    return versions;
  }

  std::vector<Placement> placements_of(const OpTraits& op) const override {
    if (op.op_class == OpClass::device_copy) return {};
    // A pair pattern runs wherever its point-to-point primitive does.
    const auto& primitive = op.pair_primitive.empty() ? op.name : op.pair_primitive;
    const NcclOpImplementation* implementation = NcclOpRegistry::instance().find(primitive);
    if (!implementation) return {};
    if (implementation->unavailable_because) {
      const std::string reason = implementation->unavailable_because();
      if (!reason.empty())
        throw UsageError(fmt::format("{} is not available in the nccl backend: {}", op.name, reason));
    }
    return implementation->placements;
  }

  // NCCL moves every type the catalog has, the 16-bit floats included.
  void require_supported(DataType) const override {}

  Measurement measure(const BenchmarkCase& benchmark_case) override {
    const LocalRun local = run_locally(benchmark_case, {},
                                       fmt::format("{} {} B {} ({})", benchmark_case.op->name, benchmark_case.bytes,
                                                   name_of(benchmark_case.placement), name_of(benchmark_case.dtype)));
    // The time of an iteration is the time of its slowest GPU, over all processes.
    std::vector<double> local_seconds(local.unit_seconds_by_gpu.front().size(), 0.0);
    for (const std::vector<double>& gpu_seconds : local.unit_seconds_by_gpu)
      for (std::size_t i = 0; i < local_seconds.size(); ++i)
        local_seconds[i] = std::max(local_seconds[i], gpu_seconds[i]);
    std::optional<std::uint64_t> local_wrong;
    if (benchmark_case.check)
      local_wrong = std::accumulate(local.wrong_by_gpu.begin(), local.wrong_by_gpu.end(), std::uint64_t{0});
    Measurement measurement = mpi_.slowest_rank_measurement(local_seconds, local_wrong);
    watchdog_->end_case();
    return measurement;
  }

  std::vector<Measurement> measure_pairs(const BenchmarkCase& benchmark_case,
                                         std::span<const RankPair> pairs) override {
    const LocalRun local = run_locally(benchmark_case, pairs,
                                       fmt::format("{} {} B, {} pair{} at once", benchmark_case.op->name,
                                                   benchmark_case.bytes, pairs.size(), pairs.size() == 1 ? "" : "s"));
    // Every NCCL rank's times to rank 0, every rank's wrong count to all; a process's GPUs are
    // consecutive ranks.
    const std::size_t samples = local.unit_seconds_by_gpu.front().size();
    std::vector<double> own_seconds;
    for (const std::vector<double>& gpu_seconds : local.unit_seconds_by_gpu)
      own_seconds.insert(own_seconds.end(), gpu_seconds.begin(), gpu_seconds.end());
    std::vector<std::uint64_t> own_wrong = local.wrong_by_gpu;
    own_wrong.resize(gpus_.size(), 0);
    const MpiJob::RankResults all = mpi_.gather_rank_results(own_seconds, own_wrong);
    const std::span<const std::uint64_t> wrong = benchmark_case.check ? all.wrong : std::span<const std::uint64_t>();
    std::vector<Measurement> measurements = pair_measurements(pairs, all.unit_seconds, samples, wrong);
    watchdog_->end_case();
    return measurements;
  }

  JobControl& job() override { return *job_control_; }

 private:
  // What this process measured of a case: per GPU, its times per unit and its wrong elements.
  struct LocalRun {
    std::vector<std::vector<double>> unit_seconds_by_gpu;
    std::vector<std::uint64_t> wrong_by_gpu;  // empty when not checked
  };

  // Runs the case on this process's GPUs (`pairs`: a pair pattern's round, measured at once).
  // Leaves the watchdog armed; the caller ends the case after combining the processes' results.
  LocalRun run_locally(const BenchmarkCase& benchmark_case, std::span<const RankPair> pairs, std::string label) {
    const NcclOpImplementation* implementation = NcclOpRegistry::instance().find(benchmark_case.op->name);
    if (!implementation) throw std::logic_error("measure() called for an op the plan should have refused");
    label_ = std::move(label);
    step_deadline_s_ = benchmark_case.step_deadline_s;
    const int warmups = benchmark_case.warmup_iterations;
    const bool graphs = benchmark_case.graph_launches > 0;
    const int samples = graphs ? benchmark_case.graph_launches : benchmark_case.iterations;
    const int ops_per_sample = graphs ? benchmark_case.iterations : 1;
    watchdog_->begin_case(label_, step_deadline_s_ * std::max({warmups, samples * ops_per_sample, 1}));

    const NcclOpContext context{gpus_, placement_.nranks, pairs, [this] { settle(pace_of(true)); }};
    const std::unique_ptr<NcclOpCase> op_case = implementation->factory(benchmark_case, context);

    watchdog_->step(CasePhase::warmup);
    op_case->fill_inputs();
    for (int i = 0; i < warmups; ++i) op_case->enqueue_iteration();
    wait(warmups + 1);
    mpi_.barrier();

    watchdog_->step(CasePhase::timed);
    IterationTimer timer(streams_, samples);
    // Collectives are enqueued back to back, as nccl-tests does. Pairs measured together would
    // drift apart that way, the pair that gets ahead leaving the others to finish alone on links
    // they should share, so each of their samples starts when every process has finished the
    // previous one (the first one follows the barrier above).
    const auto align_pairs = [&](int sample) {
      if (pairs.empty() || sample == 0) return;
      wait(ops_per_sample);
      watchdog_->step(CasePhase::timed, static_cast<std::uint32_t>(sample));
      mpi_.barrier();
    };
    if (graphs) {
      const std::vector<CudaGraphExec> captured = capture(*op_case, benchmark_case.iterations);
      // Capture and instantiation take each process a different time; the replays start together,
      // as the iterations do without graphs (nccl-tests meets at a barrier here too).
      mpi_.barrier();
      for (int i = 0; i < samples; ++i) {
        align_pairs(i);
        timer.record_start(i);
        for (std::size_t g = 0; g < gpus_.size(); ++g) captured[g].launch(gpus_[g].stream);
        timer.record_stop(i);
      }
    } else {
      for (int i = 0; i < samples; ++i) {
        align_pairs(i);
        timer.record_start(i);
        op_case->enqueue_iteration();
        timer.record_stop(i);
      }
    }
    wait(pairs.empty() ? samples * ops_per_sample : ops_per_sample);
    LocalRun local;
    local.unit_seconds_by_gpu = timer.seconds_by_stream();
    const double units = static_cast<double>(op_case->units_per_iteration()) * ops_per_sample;
    for (std::vector<double>& gpu_seconds : local.unit_seconds_by_gpu)
      for (double& seconds : gpu_seconds) seconds /= units;

    if (benchmark_case.check) {
      watchdog_->step(CasePhase::check);
      op_case->fill_inputs();
      op_case->enqueue_iteration();
      wait(1);
      for (std::size_t g = 0; g < gpus_.size(); ++g) local.wrong_by_gpu.push_back(op_case->count_wrong(g));
    }
    watchdog_->step(CasePhase::gather);
    return local;
  }

  // Every process checks its GPUs and all learn the outcome together, so a host without GPUs
  // ends the whole job with its name instead of leaving the others waiting for it.
  int agree_on_first_device(int gpus_per_process) {
    std::string problem;
    int first_device = 0;
    try {
      const int visible = require_visible_gpus("nccl", gpus_per_process);
      // Either every process sees the host's GPUs and takes its own share (nccl-tests' rule), or
      // the launcher gave each process exactly its own (CUDA_VISIBLE_DEVICES per process).
      if (visible >= mpi_.local_size() * gpus_per_process)
        first_device = mpi_.local_rank() * gpus_per_process;
      else if (visible != gpus_per_process)
        problem = fmt::format("{} processes on this host at -g {} need {} GPUs and it has {}", mpi_.local_size(),
                              gpus_per_process, mpi_.local_size() * gpus_per_process, visible);
    } catch (const NoDeviceError& e) { problem = e.what(); }
    const std::optional<int> failed_rank = mpi_.first_rank_not_ok(problem.empty());
    if (!problem.empty())
      throw NoDeviceError(fmt::format("rank {} on {}: {}", mpi_.rank(), host_of(mpi_.rank()), problem));
    if (failed_rank)
      throw NoDeviceError(
          fmt::format("rank {} on {} has no usable GPU for the nccl backend", *failed_rank, host_of(*failed_rank)));
    return first_device;
  }

  const std::string& host_of(int process_rank) const {
    return mpi_.process_hosts().at(static_cast<std::size_t>(process_rank));
  }

  void create_communicators() {
    ncclUniqueId id{};
    if (mpi_.rank() == 0) FB_NCCL_CHECK(ncclGetUniqueId(&id));
    mpi_.broadcast_from_rank_zero(std::as_writable_bytes(std::span(&id, 1)));
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    FB_NCCL_CHECK(ncclGroupStart());
    for (NcclGpu& gpu : gpus_) {
      const ScopedDevice on(gpu.device);
      FB_NCCL_CHECK(ncclCommInitRankConfig(&gpu.comm, placement_.nranks, id, gpu.rank, &config));
    }
    FB_NCCL_CHECK(ncclGroupEnd());
    label_ = "creating the NCCL communicators";
    settle_within(communicator_setup_deadline, pace_of(false));
  }

  // Non-blocking communicators report ncclInProgress until a call has been taken up. Inside a case
  // the wait spins (nccl_completion.hpp: a sleep there would be timed).
  void settle(PollPace pace) {
    settle_within(std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(step_deadline_s_ + own_deadline_extra_s)),
                  pace);
  }

  void settle_within(Clock::duration deadline, PollPace pace) {
    const Clock::time_point give_up_at = Clock::now() + deadline;
    CommunicatorPolling polling;
    polling.state = [this](std::size_t g) {
      ncclResult_t state = ncclSuccess;
      FB_NCCL_CHECK(ncclCommGetAsyncError(gpus_[g].comm, &state));
      return state;
    };
    polling.past_deadline = [give_up_at] { return Clock::now() > give_up_at; };
    polling.stop_requested = [this] { return abort_requested_.load(std::memory_order_relaxed); };
    const SettleOutcome outcome = settle_communicators(gpus_.size(), pace, with_real_pauses(std::move(polling)));
    switch (outcome.kind) {
      case SettleOutcome::Kind::settled: return;
      case SettleOutcome::Kind::stopped: abort_for_watchdog();
      case SettleOutcome::Kind::failed: throw_async_error(gpus_[outcome.communicator], outcome.state);
      case SettleOutcome::Kind::timed_out: {
        const NcclGpu& gpu = gpus_[outcome.communicator];
        abort_communicators();
        throw TimeoutError(fmt::format("{}: NCCL did not take the call within the deadline on rank {} (GPU {} of {}); "
                                       "communicators aborted",
                                       label_, gpu.rank, gpu.device, host_of(mpi_.rank())));
      }
    }
  }

  // Every poll of a wait checks whether the watchdog asked for the abort; this thread does it.
  void honour_abort_request() {
    if (abort_requested_.load(std::memory_order_relaxed)) abort_for_watchdog();
  }

  // The watchdog has already said why; the communicators go before the process, or NCCL's proxy
  // threads keep the job alive.
  [[noreturn]] void abort_for_watchdog() {
    abort_communicators();
    exit_on_timeout(fmt::format("rank {}: NCCL communicators aborted", mpi_.rank()));
  }

  // An asynchronous error: the communicators are aborted and it is thrown, naming rank and GPU.
  [[noreturn]] void throw_async_error(const NcclGpu& gpu, ncclResult_t state) {
    const std::string detail = ncclGetLastError(gpu.comm);
    abort_communicators();
    throw NcclError(fmt::format("{}: NCCL reported {} on rank {} (GPU {} of {}){}{}; communicators aborted", label_,
                                ncclGetErrorString(state), gpu.rank, gpu.device, host_of(mpi_.rank()),
                                detail.empty() ? "" : ": ", detail));
  }

  void check_async_errors() {
    honour_abort_request();
    for (const NcclGpu& gpu : gpus_) {
      ncclResult_t state = ncclSuccess;
      FB_NCCL_CHECK(ncclCommGetAsyncError(gpu.comm, &state));
      if (state != ncclSuccess && state != ncclInProgress) throw_async_error(gpu, state);
    }
  }

  // Waits for `steps` enqueued steps of the current case, checking NCCL for asynchronous errors.
  void wait(int steps) {
    const double deadline_s = step_deadline_s_ * std::max(steps, 1) + own_deadline_extra_s;
    wait_for_streams(
        streams_, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s)),
        [this] { check_async_errors(); }, [this] { abort_communicators(); },
        [&] {
          return fmt::format("{}: did not complete within {:.1f} s on rank {} ({} GPU{} of {}); communicators aborted",
                             label_, deadline_s, placement_.rank, gpus_.size(), gpus_.size() == 1 ? "" : "s",
                             host_of(mpi_.rank()));
        });
  }

  std::vector<CudaGraphExec> capture(NcclOpCase& op_case, int iterations) {
    for (const NcclGpu& gpu : gpus_) {
      const ScopedDevice on(gpu.device);
      FB_CUDA_CHECK(cudaStreamBeginCapture(gpu.stream, cudaStreamCaptureModeThreadLocal));
    }
    std::vector<cudaGraph_t> graphs(gpus_.size(), nullptr);
    try {
      for (int i = 0; i < iterations; ++i) op_case.enqueue_iteration();
    } catch (...) {
      // Ends the captures unchecked: the error already on its way out is the one to report.
      for (std::size_t g = 0; g < gpus_.size(); ++g) cudaStreamEndCapture(gpus_[g].stream, &graphs[g]);
      throw;
    }
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      const ScopedDevice on(gpus_[g].device);
      FB_CUDA_CHECK(cudaStreamEndCapture(gpus_[g].stream, &graphs[g]));
    }
    std::vector<CudaGraphExec> executables;
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      const ScopedDevice on(gpus_[g].device);
      executables.emplace_back(graphs[g]);
    }
    return executables;
  }

  void abort_communicators() {
    for (NcclGpu& gpu : gpus_) {
      if (!gpu.comm) continue;
      ncclCommAbort(gpu.comm);
      gpu.comm = nullptr;
    }
  }

  MpiJob mpi_;  // first: MPI is finalized after everything else is gone
  RankPlacement placement_;
  std::vector<CudaStream> streams_;
  std::vector<NcclGpu> gpus_;
  std::unique_ptr<Watchdog> watchdog_;
  std::unique_ptr<MpiJobControl> job_control_;
  std::string label_;
  double step_deadline_s_ = 30;
  // Set by the watchdog thread, acted on by this one (the communicators' only user).
  std::atomic<bool> abort_requested_{false};
};

const Registrar<BackendRegistration> registrar{
    {"nccl",
     "device buffers through NCCL, one process per GPU (or -g GPUs per process)",
     [](int& argc, char**& argv, const LaunchOptions& launch) -> std::unique_ptr<Backend> {
       return std::make_unique<NcclBackend>(argc, argv, launch);
     },
     {.several_gpus_per_process = true, .cuda_graphs = true}}};

}  // namespace
}  // namespace fb
