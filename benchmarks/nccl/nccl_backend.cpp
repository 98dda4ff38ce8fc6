// `--backend nccl`: collectives and point-to-point ops on device buffers through NCCL, one or
// more GPUs per process (-g), bootstrapped over MPI, optionally replayed as CUDA graphs (-G).
// Communicators are blocking, as nccl-tests' are: ncclGroupEnd returns with the group's kernels on
// the streams, so nothing but the enqueue sits between a case's timing events (a non-blocking
// communicator launches each group from a thread NCCL starts in ncclGroupEnd, and the host must
// poll until it has, inside the timed window). The host waits for work only on the streams, by
// polling, with NCCL's asynchronous errors checked at every poll. Every deadline ends as the
// watchdog's do: rank 0 asks the ranks where they are, records the incident and the job exits 5.
// Only this (the measuring) thread aborts the communicators: ncclCommAbort frees a communicator
// that another thread may be inside a call on (NCCL src/init.cc: it sets the abort flags, then
// reclaims), so the watchdog asks this thread, and ends the process without the abort when this
// thread does not answer (blocked inside a blocking NCCL call: _Exit frees everything).

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
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <thread>

namespace fb {
namespace {

using Clock = std::chrono::steady_clock;

// Creating communicators talks to every rank; at thousands of ranks it takes tens of seconds.
constexpr std::chrono::seconds communicator_setup_deadline{300};
// Finalizing flushes what is still in flight and meets the other ranks (nccl.h: "globally
// quiescent"); a run that got this far finished every case, so this is generous.
constexpr std::chrono::seconds finalize_deadline{60};
// A stuck process is named by the watchdog (which knows who did not arrive); each rank's own
// deadline is later than the watchdog's by this much, more than rank 0's answer wait and the other
// ranks' grace for rank 0 (WatchdogSettings: 2 s + 5 s), so the watchdog's end comes first.
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
    finalize_communicators();
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
    const int warmups = benchmark_case.warmup_iterations;
    const bool graphs = benchmark_case.graph_launches > 0;
    const int samples = graphs ? benchmark_case.graph_launches : benchmark_case.iterations;
    const int ops_per_sample = graphs ? benchmark_case.iterations : 1;
    // The watchdog's deadline holds for each phase (it is stepped once per phase, once per sample
    // of pairs); every wait of this thread starts after the step it belongs to and ends later.
    phase_deadline_s_ = benchmark_case.step_deadline_s * std::max({warmups, samples * ops_per_sample, 1});
    watchdog_->begin_case(label_, phase_deadline_s_);

    const NcclOpContext context{gpus_, placement_.nranks, pairs};
    const std::unique_ptr<NcclOpCase> op_case = implementation->factory(benchmark_case, context);

    watchdog_->step(CasePhase::warmup);
    op_case->fill_inputs();
    for (int i = 0; i < warmups; ++i) op_case->enqueue_iteration();
    wait();
    mpi_.barrier();

    watchdog_->step(CasePhase::timed);
    IterationTimer timer(streams_, samples);
    // Collectives are enqueued back to back, as nccl-tests does. Pairs measured together would
    // drift apart that way, the pair that gets ahead leaving the others to finish alone on links
    // they should share, so each of their samples starts when every process has finished the
    // previous one (the first one follows the barrier above).
    const auto align_pairs = [&](int sample) {
      if (pairs.empty() || sample == 0) return;
      wait();
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
    wait();
    LocalRun local;
    local.unit_seconds_by_gpu = timer.seconds_by_stream();
    const double units = static_cast<double>(op_case->units_per_iteration()) * ops_per_sample;
    for (std::vector<double>& gpu_seconds : local.unit_seconds_by_gpu)
      for (double& seconds : gpu_seconds) seconds /= units;

    if (benchmark_case.check) {
      watchdog_->step(CasePhase::check);
      // Outputs first: in place, the inputs are then written over the part they share.
      op_case->reset_outputs();
      op_case->fill_inputs();
      op_case->enqueue_iteration();
      wait();
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
    config.blocking = 1;
    label_ = "creating the NCCL communicators";
    // Blocking: ncclGroupEnd returns when every communicator is ready, or never if a rank does
    // not arrive. No case is armed yet, so the guard ends the process then.
    const DeadlineGuard guard(communicator_setup_deadline, [this] { end_stuck_call(communicator_setup_deadline); });
    // Several GPUs of one process: one group, so that their inits meet (NCCL's rule for
    // ncclCommInitRank from one thread).
    FB_NCCL_CHECK(ncclGroupStart());
    for (NcclGpu& gpu : gpus_) {
      const ScopedDevice on(gpu.device);
      FB_NCCL_CHECK(ncclCommInitRankConfig(&gpu.comm, placement_.nranks, id, gpu.rank, &config));
    }
    FB_NCCL_CHECK(ncclGroupEnd());
  }

  // Ends the process when a blocking NCCL call outside a case has not returned by its deadline.
  [[noreturn]] void end_stuck_call(std::chrono::seconds deadline) {
    exit_on_timeout(fmt::format("{}: not done within {} s on rank {} ({}); ending it", label_, deadline.count(),
                                placement_.rank, host_of(mpi_.rank())));
  }

  // At exit, in the order nccl.h gives: ncclCommFinalize flushes what was issued and leaves the
  // communicator ncclInProgress until it is globally quiescent, then ncclCommDestroy frees it
  // locally without blocking. The finalizes are one group: NCCL finalizes several communicators
  // of one process together (an intra-node barrier), and one by one a blocking finalize would
  // wait for the next. A failure ends the process naming the call, file and line.
  void finalize_communicators() noexcept {
    if (std::none_of(gpus_.begin(), gpus_.end(), [](const NcclGpu& gpu) { return gpu.comm != nullptr; })) return;
    try {
      label_ = "finalizing the NCCL communicators";
      const DeadlineGuard guard(finalize_deadline + abort_handoff_grace,
                                [this] { end_stuck_call(finalize_deadline + abort_handoff_grace); });
      FB_NCCL_CHECK(ncclGroupStart());
      for (const NcclGpu& gpu : gpus_) {
        const ScopedDevice on(gpu.device);
        FB_NCCL_CHECK(ncclCommFinalize(gpu.comm));
      }
      FB_NCCL_CHECK(ncclGroupEnd());
      wait_until_quiescent();
      for (NcclGpu& gpu : gpus_) {
        FB_NCCL_CHECK(ncclCommDestroy(gpu.comm));
        gpu.comm = nullptr;
      }
    } catch (const std::exception& e) {
      // A destructor cannot throw: the error line and the runtime exit code, as main would give.
      abort_communicators();
      const std::string line =
          fmt::format("fabricbench: error: rank {} on {}: {}\n", placement_.rank, host_of(mpi_.rank()), e.what());
      std::fputs(line.c_str(), stderr);
      std::_Exit(static_cast<int>(ExitCode::runtime));
    }
  }

  // Polls ncclCommGetAsyncError after ncclCommFinalize until no communicator is in progress.
  void wait_until_quiescent() {
    const Clock::time_point give_up_at = Clock::now() + finalize_deadline;
    CommunicatorPolling polling;
    polling.state = [this](std::size_t g) {
      ncclResult_t state = ncclSuccess;
      FB_NCCL_CHECK(ncclCommGetAsyncError(gpus_[g].comm, &state));
      return state;
    };
    polling.past_deadline = [give_up_at] { return Clock::now() > give_up_at; };
    const SettleOutcome outcome = settle_communicators(gpus_.size(), with_real_pauses(std::move(polling)));
    switch (outcome.kind) {
      case SettleOutcome::Kind::settled: return;
      case SettleOutcome::Kind::failed: throw_async_error(gpus_[outcome.communicator], outcome.state);
      case SettleOutcome::Kind::timed_out: abort_communicators(); end_stuck_call(finalize_deadline);
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

  // Waits for what the current phase of the case enqueued, checking NCCL for asynchronous errors.
  void wait() {
    const double deadline_s = phase_deadline_s_ + own_deadline_extra_s;
    const auto stall = [&] {
      return fmt::format("{}: did not complete within {:.1f} s on rank {} ({} GPU{} of {}); communicators aborted",
                         label_, deadline_s, placement_.rank, gpus_.size(), gpus_.size() == 1 ? "" : "s",
                         host_of(mpi_.rank()));
    };
    wait_for_streams(
        streams_, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s)),
        [this] { check_async_errors(); }, [&] { end_at_own_deadline(stall()); }, stall);
  }

  // This rank's own deadline passed, which the watchdog's should have done first (its thread
  // stuck, or the phase's step took longer than foreseen): it ends as every deadline does, not
  // with an error of its own. The communicators are aborted (this thread is their user), the
  // watchdog is told, and rank 0 asks every rank where it is, records the incident naming them
  // and has every rank end with exit 5; this thread waits for the watchdog's request and ends
  // the process itself only if that does not come.
  [[noreturn]] void end_at_own_deadline(const std::string& message) {
    fmt::print(stderr, "fabricbench: {}\n", message);
    abort_communicators();
    watchdog_->expire();
    const Clock::time_point give_up_at = Clock::now() + 2 * abort_handoff_grace;
    while (Clock::now() < give_up_at) {
      honour_abort_request();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    exit_on_timeout(message);
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
  double phase_deadline_s_ = 30;
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
