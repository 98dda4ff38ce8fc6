// fabricbench's point-to-point latency (8 B) and bandwidth (4 MiB) against bare MPI loops written
// the way osu_latency and osu_bw write them, measured in the same job and interleaved, so both see
// the same machine state. Run with: mpirun -np 2 build/perf/micro/p2p_reference_benchmark [base]
//
// Both sides send from buffers on the same pages: huge pages as `fabricbench run` asks for by
// default, or base pages with the argument `base` (`--host-pages base`); the pages move the
// bandwidth of both by a third on this machine, so a comparison across them compares pages.
//
// The reference reports the mean over its loop (as OSU does); fabricbench reports the median of
// per-iteration times, and beside it their mean (time_mean_us), which is OSU's number: the latency
// is compared both ways. Each is taken per repetition and the table shows the median over
// repetitions.

#include "common/op_catalog.hpp"
#include "benchmarks/core/host_buffer.hpp"
#include "benchmarks/core/result_builder.hpp"
#include "benchmarks/mpi/mpi_backend.hpp"
#include "benchmarks/mpi/mpi_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace {

constexpr int repetitions = 15;
constexpr int latency_iterations = 2000;
constexpr int latency_warmup = 200;
constexpr std::uint64_t latency_bytes = 8;
constexpr int bandwidth_iterations = 20;
constexpr int bandwidth_warmup = 2;
constexpr std::uint64_t bandwidth_bytes = 4ull << 20;
constexpr int window = 64;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// osu_latency: half the round trip, averaged over the loop. Returns microseconds.
double reference_latency_us(int rank) {
  std::vector<char> send(latency_bytes, 'a');
  std::vector<char> recv(latency_bytes);
  const int peer = 1 - rank;
  double start = 0;
  for (int i = 0; i < latency_warmup + latency_iterations; ++i) {
    if (i == latency_warmup) start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(send.data(), latency_bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(recv.data(), latency_bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recv.data(), latency_bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send.data(), latency_bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) * 1e6 / (2.0 * latency_iterations);
}

// osu_bw: windows of non-blocking sends, each acknowledged. Returns GB/s.
double reference_bandwidth_gbps(int rank, fb::HostPages pages) {
  fb::HostBuffer<char> buffer(bandwidth_bytes, pages);
  std::fill_n(buffer.data(), buffer.size(), 'a');
  std::vector<MPI_Request> requests(window);
  int ack = 0;
  const int peer = 1 - rank;
  double start = 0;
  for (int i = 0; i < bandwidth_warmup + bandwidth_iterations; ++i) {
    if (i == bandwidth_warmup) start = MPI_Wtime();
    for (auto& request : requests) {
      if (rank == 0)
        MPI_Isend(buffer.data(), bandwidth_bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &request);
      else
        MPI_Irecv(buffer.data(), bandwidth_bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &request);
    }
    MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
    if (rank == 0)
      MPI_Recv(&ack, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
      MPI_Send(&ack, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
  }
  const double seconds = MPI_Wtime() - start;
  return static_cast<double>(bandwidth_bytes) * window * bandwidth_iterations / seconds / 1e9;
}

fb::ResultRow fabricbench_row(fb::MpiBackend& backend, std::string_view op, std::uint64_t bytes, int iterations,
                              int warmup) {
  fb::BenchmarkCase benchmark_case;
  benchmark_case.op = &fb::op_by_name(op);
  benchmark_case.dtype = fb::DataType::int8;
  benchmark_case.bytes = bytes;
  benchmark_case.count = bytes;
  benchmark_case.iterations = iterations;
  benchmark_case.warmup_iterations = warmup;
  benchmark_case.window = window;
  benchmark_case.check = false;  // the references do not validate either
  const fb::Measurement measurement = backend.measure(benchmark_case);
  if (backend.placement().rank != 0) return {};
  return fb::make_result_row(benchmark_case, measurement, {"reference", "mpi", backend.placement()});
}

}  // namespace

int main(int argc, char** argv) {
  const fb::HostPages pages = argc > 1 && std::string_view(argv[1]) == fb::name_of(fb::HostPages::base)
                                  ? fb::HostPages::base
                                  : fb::HostPages::huge;
  fb::MpiBackend backend(argc, argv, fb::LaunchOptions{.host_pages = pages});
  const int rank = backend.placement().rank;
  if (backend.placement().nranks != 2) {
    if (rank == 0) fmt::print(stderr, "p2p_reference_benchmark: run it with exactly 2 ranks (mpirun -np 2)\n");
    return 2;
  }
  std::vector<double> reference_latency, fabricbench_latency, fabricbench_latency_mean, reference_bandwidth,
      fabricbench_bandwidth;
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    MPI_Barrier(MPI_COMM_WORLD);
    reference_latency.push_back(reference_latency_us(rank));
    const fb::ResultRow latency =
        fabricbench_row(backend, "latency", latency_bytes, latency_iterations, latency_warmup);
    fabricbench_latency.push_back(latency.time_median_us);
    fabricbench_latency_mean.push_back(latency.time_mean_us.value_or(0));
    MPI_Barrier(MPI_COMM_WORLD);
    reference_bandwidth.push_back(reference_bandwidth_gbps(rank, pages));
    fabricbench_bandwidth.push_back(
        fabricbench_row(backend, "bw", bandwidth_bytes, bandwidth_iterations, bandwidth_warmup).algbw_gbps);
  }
  if (rank == 0) {
    const double latency_ref = median(reference_latency), latency_fb = median(fabricbench_latency);
    const double bandwidth_ref = median(reference_bandwidth), bandwidth_fb = median(fabricbench_bandwidth);
    fmt::print("# {} repetitions, medians over repetitions; host buffers: {}\n", repetitions,
               backend.host_buffer_pages()->describe());
    fmt::print("{:<24} {:>12} {:>12} {:>8}\n", "measurement", "reference", "fabricbench", "ratio");
    const double latency_fb_mean = median(fabricbench_latency_mean);
    fmt::print("{:<24} {:>12.3f} {:>12.3f} {:>8.3f}\n", "latency 8 B (us)", latency_ref, latency_fb,
               latency_fb / latency_ref);
    fmt::print("{:<24} {:>12.3f} {:>12.3f} {:>8.3f}\n", "latency 8 B mean (us)", latency_ref, latency_fb_mean,
               latency_fb_mean / latency_ref);
    fmt::print("{:<24} {:>12.2f} {:>12.2f} {:>8.3f}\n", "bandwidth 4 MiB (GB/s)", bandwidth_ref, bandwidth_fb,
               bandwidth_fb / bandwidth_ref);
  }
  return 0;
}
