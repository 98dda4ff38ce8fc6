#include "html/pairwise_matrix.hpp"

#include "core/robust_statistics.hpp"

#include <fmt/format.h>

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

std::vector<PairwiseMatrix> build_pairwise_matrices(std::span<const ResultRow> rows) {
  std::map<std::string, std::uint64_t> largest_by_op;
  for (const ResultRow& row : rows)
    if (has_endpoints(row)) largest_by_op[row.op] = std::max(largest_by_op[row.op], row.bytes);

  std::vector<PairwiseMatrix> matrices;
  for (const auto& [op, bytes] : largest_by_op) {
    std::set<Endpoint> endpoints;
    std::map<std::pair<Endpoint, Endpoint>, std::vector<double>> cells;
    for (const ResultRow& row : rows) {
      if (row.op != op || row.bytes != bytes || !has_endpoints(row)) continue;
      const Endpoint src = endpoint_of(row.src_rank, row.src_host);
      const Endpoint dst = endpoint_of(row.dst_rank, row.dst_host);
      endpoints.insert(src);
      endpoints.insert(dst);
      cells[{src, dst}].push_back(row.algbw_gbps);
    }
    PairwiseMatrix matrix;
    matrix.op = op;
    matrix.bytes = bytes;
    const std::vector<Endpoint> ordered(endpoints.begin(), endpoints.end());
    for (const Endpoint& e : ordered) matrix.endpoints.push_back(e.second);
    matrix.algbw_gbps.assign(ordered.size(), std::vector<std::optional<double>>(ordered.size()));
    std::vector<double> measured;
    for (std::size_t s = 0; s < ordered.size(); ++s) {
      for (std::size_t d = 0; d < ordered.size(); ++d) {
        const auto cell = cells.find({ordered[s], ordered[d]});
        if (cell == cells.end()) continue;
        matrix.algbw_gbps[s][d] = median_of(cell->second);
        measured.push_back(*matrix.algbw_gbps[s][d]);
      }
    }
    matrix.median_gbps = median_of(measured);
    matrices.push_back(std::move(matrix));
  }
  return matrices;
}

}  // namespace fb
