#include "benchmarks/core/incident_builder.hpp"

#include <map>

namespace fb {

Incident make_timeout_incident(const BenchmarkCase& benchmark_case, const PairRound* round, const StallReport& stall,
                               const RunContext& context) {
  Incident incident;
  incident.kind = "timeout";
  incident.op = std::string(benchmark_case.op->name);
  incident.case_label = stall.case_label;
  incident.bytes = benchmark_case.bytes;
  incident.dtype = std::string(name_of(benchmark_case.dtype));
  incident.in_place = benchmark_case.placement == Placement::in_place;
  incident.step = stall.coordinator_position;
  if (round) {
    incident.round = round->round;
    const auto host_of = [&](int rank) { return context.placement.rank_hosts.at(static_cast<std::size_t>(rank)); };
    for (const RankPair& pair : round->pairs)
      incident.pairs_in_flight.push_back({pair.src, pair.dst, host_of(pair.src), host_of(pair.dst)});
  }
  std::map<std::pair<std::string, std::string>, std::vector<int>> ranks_by_lost_link;
  for (const RankStall& rank : stall.ranks) {
    (rank.arrived ? incident.ranks_arrived : incident.ranks_not_arrived)
        .push_back({rank.rank, rank.host, rank.answered, rank.position});
    for (const std::string& link : rank.links_lost) ranks_by_lost_link[{rank.host, link}].push_back(rank.rank);
  }
  for (auto& [host_and_link, ranks] : ranks_by_lost_link)
    incident.links_lost.push_back({host_and_link.first, host_and_link.second, std::move(ranks)});
  incident.deadline_s = stall.deadline_s;
  incident.stalled_s = stall.stalled_s;
  incident.message = stall.message;
  incident.timestamp = utc_timestamp_now();
  return incident;
}

void CaseInFlight::set(const BenchmarkCase& benchmark_case, const PairRound* round) {
  const std::lock_guard lock(mutex_);
  case_ = benchmark_case;
  round_ = round ? std::optional<PairRound>(*round) : std::nullopt;
}

Incident CaseInFlight::timeout_incident(const StallReport& stall, const RunContext& context) const {
  const std::lock_guard lock(mutex_);
  return make_timeout_incident(case_, round_ ? &*round_ : nullptr, stall, context);
}

}  // namespace fb
