#include "diagnosis/intermittent_diagnosis.hpp"

#include "common/robust_statistics.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace fb::diagnosis {
namespace {

// What is measured alike in every repetition.
using Series = std::tuple<std::string, std::string, std::uint64_t, int>;  // run, op, bytes, concurrent flows
using Pair = std::pair<std::string, std::string>;                         // source host, destination host

struct SlowRepetition {
  int repetition = 0;
  double measured_gbps = 0;
  double median_gbps = 0;
};

struct PairHistory {
  std::set<int> repetitions;  // every repetition that measured it
  std::vector<SlowRepetition> slow;
};

}  // namespace

// NOLINTNEXTLINE(readability-function-cognitive-complexity): groups repetitions, then judges each group against its own spread; the evidence lines are built where the numbers are
std::vector<Finding> diagnose_intermittent(std::span<const ResultRow> rows, const DiagnosisSettings& settings) {
  std::map<std::pair<Series, int>, std::vector<const ResultRow*>> by_repetition;
  for (const ResultRow& row : rows)
    if (is_pair_bandwidth_row(row) && row.repetition)
      by_repetition[{{row.run_id, row.op, row.bytes, row.concurrent_flows.value_or(1)}, *row.repetition}].push_back(
          &row);

  std::map<Series, std::map<Pair, PairHistory>> histories;
  for (const auto& [key, group] : by_repetition) {
    std::vector<double> bandwidths;
    for (const ResultRow* row : group) bandwidths.push_back(row->algbw_gbps);
    const double median = median_of(bandwidths);
    for (const ResultRow* row : group) {
      PairHistory& history = histories[key.first][{row->src_host, row->dst_host}];
      history.repetitions.insert(key.second);
      if (row->algbw_gbps < settings.slow_ratio * median) history.slow.push_back({key.second, row->algbw_gbps, median});
    }
  }

  std::vector<Finding> findings;
  for (const auto& [series, pairs] : histories) {
    const auto& [run_id, op, bytes, flows] = series;
    std::vector<std::pair<Pair, const PairHistory*>> intermittent;
    for (const auto& [pair, history] : pairs)
      if (history.repetitions.size() >= 2 && !history.slow.empty() && history.slow.size() < history.repetitions.size())
        intermittent.emplace_back(pair, &history);
    if (intermittent.empty()) continue;

    // Init-captures: clang 14 cannot capture a structured binding.
    const auto evidence_of = [&run = run_id, &op_name = op, size = bytes](const Pair& pair,
                                                                          const PairHistory& history) {
      std::vector<std::string> slow;
      for (const SlowRepetition& s : history.slow)
        slow.push_back(fmt::format("{}: {:.4g} GB/s (median {:.4g})", s.repetition, s.measured_gbps, s.median_gbps));
      return fmt::format("{} -> {}: slow in {} of {} repetitions of {} {} B in run {}: {}", pair.first, pair.second,
                         history.slow.size(), history.repetitions.size(), op_name, size, run, fmt::join(slow, ", "));
    };
    const auto fill_numbers = [](Finding& finding, const std::vector<const PairHistory*>& histories_of) {
      std::vector<double> measured, typical;
      std::size_t slow = 0, total = 0;
      for (const PairHistory* history : histories_of) {
        for (const SlowRepetition& s : history->slow) {
          measured.push_back(s.measured_gbps);
          typical.push_back(s.median_gbps);
        }
        slow += history->slow.size();
        total += history->repetitions.size();
      }
      finding.set_bandwidth_gbps(median_of(typical), median_of(measured));
      finding.confidence = static_cast<double>(slow) / static_cast<double>(total);
    };

    std::set<std::string> common{intermittent.front().first.first, intermittent.front().first.second};
    for (const auto& [pair, history] : intermittent)
      std::erase_if(common,
                    [&ends = pair](const std::string& host) { return ends.first != host && ends.second != host; });
    if (intermittent.size() >= 2 && common.size() == 1) {
      Finding finding;
      finding.kind = "intermittent_host";
      finding.host = *common.begin();
      std::set<int> slow_repetitions;
      std::vector<const PairHistory*> of_host;
      for (const auto& [pair, history] : intermittent) {
        finding.evidence.push_back(evidence_of(pair, *history));
        of_host.push_back(history);
        for (const SlowRepetition& s : history->slow) slow_repetitions.insert(s.repetition);
      }
      finding.subject = fmt::format("{}: {} pairs slow in repetition{} {} only", finding.host, intermittent.size(),
                                    slow_repetitions.size() == 1 ? "" : "s", fmt::join(slow_repetitions, ", "));
      fill_numbers(finding, of_host);
      findings.push_back(std::move(finding));
      continue;
    }
    for (const auto& [pair, history] : intermittent) {
      Finding finding;
      finding.kind = "intermittent_pair";
      finding.subject = fmt::format("{} -> {}: slow in {} of {} repetitions", pair.first, pair.second,
                                    history->slow.size(), history->repetitions.size());
      finding.evidence.push_back(evidence_of(pair, *history));
      fill_numbers(finding, {history});
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

}  // namespace fb::diagnosis
