#include "importers/nccl_tests_common.hpp"

#include "common/op_catalog.hpp"

#include <algorithm>
#include <cmath>

namespace fb {

std::optional<std::string> op_from_test_program(std::string_view program) {
  if (const std::size_t slash = program.rfind('/'); slash != std::string_view::npos) program.remove_prefix(slash + 1);
  // Builds with MPI=1 are sometimes installed under a second name (all_gather_perf_mpi).
  if (program.ends_with("_mpi")) program.remove_suffix(4);
  if (!program.ends_with("_perf")) return std::nullopt;
  program.remove_suffix(5);
  if (!find_op(program)) return std::nullopt;
  return std::string(program);
}

std::optional<std::string> op_from_file_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  std::string best;
  for (const OpTraits& op : all_ops())
    if (name.find(std::string(op.name) + "_perf") != std::string::npos && op.name.size() > best.size()) best = op.name;
  if (best.empty()) return std::nullopt;
  return best;
}

double printed_rounding(std::string_view token) {
  const std::size_t dot = token.find('.');
  if (dot == std::string_view::npos || token.find_first_of("eE") != std::string_view::npos) return 0.5;
  return 0.5 * std::pow(10.0, -static_cast<double>(token.size() - dot - 1));
}

namespace {

// The largest bandwidths carry the most significant digits; three of them decide.
std::vector<PrintedBandwidth> deciding_sizes(const std::vector<PrintedBandwidth>& sizes) {
  std::vector<PrintedBandwidth> best;
  for (const PrintedBandwidth& s : sizes)
    if (s.algbw_gbps > 0) best.push_back(s);
  const auto larger = [](const PrintedBandwidth& a, const PrintedBandwidth& b) { return a.algbw_gbps > b.algbw_gbps; };
  const std::size_t kept = std::min<std::size_t>(3, best.size());
  std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(kept), best.end(), larger);
  best.resize(kept);
  return best;
}

bool fits(const OpTraits& op, int nranks, const std::vector<PrintedBandwidth>& best) {
  const std::optional<double> factor = busbw_factor_for(op, nranks);
  if (!factor) return false;
  return std::all_of(best.begin(), best.end(), [&](const PrintedBandwidth& s) {
    // algbw is itself rounded: its error scales with the factor.
    const double tolerance = s.rounding_gbps * (1 + *factor) + 1e-9;
    return std::abs(s.algbw_gbps * *factor - s.busbw_gbps) <= tolerance;
  });
}

}  // namespace

std::optional<int> ranks_from_bus_ratio(std::string_view op_name, const std::vector<PrintedBandwidth>& sizes) {
  const OpTraits* op = find_op(op_name);
  if (!op) return std::nullopt;
  const std::vector<PrintedBandwidth> best = deciding_sizes(sizes);
  if (best.empty()) return std::nullopt;
  std::optional<int> found;
  constexpr int most_ranks = 4096;
  for (int n = 2; n <= most_ranks; ++n) {
    if (!fits(*op, n, best)) continue;
    if (found) return std::nullopt;
    found = n;
  }
  return found;
}

bool bus_ratio_fits(std::string_view op_name, int nranks, const std::vector<PrintedBandwidth>& sizes) {
  const OpTraits* op = find_op(op_name);
  const std::vector<PrintedBandwidth> best = deciding_sizes(sizes);
  if (!op || best.empty() || nranks < 2) return true;
  return fits(*op, nranks, best);
}

}  // namespace fb
