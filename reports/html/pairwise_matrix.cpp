#include "reports/html/pairwise_matrix.hpp"

#include "common/op_catalog.hpp"
#include "common/robust_statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace fb {
namespace {

// Sort key first (rank order, then host name), display text second.
using Endpoint = std::pair<std::pair<int, std::string>, std::string>;

Endpoint endpoint_of(const std::optional<int>& rank, const std::string& host) {
  if (rank) return {{*rank, host}, host.empty() ? std::to_string(*rank) : fmt::format("{} ({})", *rank, host)};
  return {{-1, host}, host};
}

bool has_endpoints(const ResultRow& row) {
  return (row.src_rank && row.dst_rank) || (!row.src_host.empty() && !row.dst_host.empty());
}

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): picks the size and metric per op and fills the host-by-host matrix in one pass
std::vector<PairwiseMatrix> build_pairwise_matrices(std::span<const ResultRow> rows) {
  const auto is_latency = [](const std::string& op) {
    const OpTraits* traits = find_op(op);
    return traits && reports_latency(*traits);
  };
  // Bandwidth shows at the largest size, latency at the smallest.
  std::map<std::string, std::uint64_t> size_by_op;
  for (const ResultRow& row : rows) {
    const OpTraits* traits = find_op(row.op);
    if (!has_endpoints(row) || (traits && measures_contention(*traits))) continue;
    const auto [entry, inserted] = size_by_op.try_emplace(row.op, row.bytes);
    if (!inserted)
      entry->second = is_latency(row.op) ? std::min(entry->second, row.bytes) : std::max(entry->second, row.bytes);
  }

  std::vector<PairwiseMatrix> matrices;
  for (const auto& [op, bytes] : size_by_op) {
    PairwiseMatrix matrix;
    matrix.op = op;
    matrix.bytes = bytes;
    matrix.latency = is_latency(op);
    std::set<Endpoint> endpoints;
    std::map<std::pair<Endpoint, Endpoint>, std::vector<double>> cells;
    for (const ResultRow& row : rows) {
      if (row.op != op || row.bytes != bytes || !has_endpoints(row)) continue;
      const Endpoint src = endpoint_of(row.src_rank, row.src_host);
      const Endpoint dst = endpoint_of(row.dst_rank, row.dst_host);
      endpoints.insert(src);
      endpoints.insert(dst);
      cells[{src, dst}].push_back(matrix.latency ? row.time_median_us : row.algbw_gbps);
    }
    if (endpoints.size() < 3) continue;
    const std::vector<Endpoint> ordered(endpoints.begin(), endpoints.end());
    for (const Endpoint& e : ordered) matrix.endpoints.push_back(e.second);
    matrix.values.assign(ordered.size(), std::vector<std::optional<double>>(ordered.size()));
    std::vector<double> measured;
    for (std::size_t s = 0; s < ordered.size(); ++s) {
      for (std::size_t d = 0; d < ordered.size(); ++d) {
        const auto cell = cells.find({ordered[s], ordered[d]});
        if (cell == cells.end()) continue;
        matrix.values[s][d] = median_of(cell->second);
        measured.push_back(*matrix.values[s][d]);
      }
    }
    matrix.median = median_of(measured);
    matrices.push_back(std::move(matrix));
  }
  return matrices;
}

}  // namespace fb
