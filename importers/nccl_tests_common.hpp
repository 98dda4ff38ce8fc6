#pragma once
// What the nccl-tests text and JSON importers share: the op a test binary measures, and the rank
// count implied by the bus bandwidth when the log does not list the ranks.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// "all_gather_perf", "./build/all_gather_perf_mpi", "rccl-tests/all_reduce_perf" -> the op;
// empty when the name is not a test binary of a known op.
std::optional<std::string> op_from_test_program(std::string_view program);

// The op from a file name that contains a test name (all_reduce_perf_2x8.log).
std::optional<std::string> op_from_file_name(const std::filesystem::path& path);

// One measured size as printed: algbw and busbw with the precision of their printed digits.
struct PrintedBandwidth {
  double algbw_gbps;
  double busbw_gbps;
  double rounding_gbps;  // half a unit of the last printed digit
};

// The rank counts (2..4096) whose busbw factor for `op` reproduces every printed busbw from its
// algbw within rounding. One candidate: the count; none or several (broadcast's factor is 1 at
// any count; tiny bandwidths print as 0.00): empty.
std::optional<int> ranks_from_bus_ratio(std::string_view op, const std::vector<PrintedBandwidth>& sizes);

// Whether `nranks` reproduces the printed busbw of the largest sizes; true when no size carries
// a bandwidth to tell (all 0.00).
bool bus_ratio_fits(std::string_view op, int nranks, const std::vector<PrintedBandwidth>& sizes);

// Half a unit of the last digit of a printed number: "22.14" -> 0.005, "191408" -> 0.5.
double printed_rounding(std::string_view token);

// The time statistics nccl-tests does not print unless asked for per-iteration timing.
inline constexpr std::string_view nccl_tests_unreported_statistics = "time_min_us time_p99_us time_max_us time_cv";

}  // namespace fb
