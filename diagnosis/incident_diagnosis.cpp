#include "diagnosis/incident_diagnosis.hpp"

#include "common/errors.hpp"
#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace fb::diagnosis {

using topo::Graph;
using topo::LinkId;
using topo::VertexId;
using topo::VertexKind;
using topo::no_vertex;
namespace {

// "pairwise 1048576 B round 4": what the run was measuring.
std::string case_of(const Incident& incident) {
  std::string text = fmt::format("{} {} B", incident.op, incident.bytes);
  if (incident.round) text += fmt::format(" round {}", *incident.round);
  return text;
}

// What one timeout shows: who was silent, who was behind, which pairs stalled.
class TimeoutEvidence {
 public:
  explicit TimeoutEvidence(const Incident& incident) {
    for (const IncidentRank& rank : incident.ranks_not_arrived) {
      not_arrived_.insert(rank.rank);
      if (!rank.answered) silent_by_host_[rank.host].push_back(rank.rank);
    }
    for (const auto* ranks : {&incident.ranks_not_arrived, &incident.ranks_arrived})
      for (const IncidentRank& rank : *ranks) {
        if (rank.answered) answered_hosts_.insert(rank.host);
        hosts_.insert(rank.host);
        if (rank.rank == 0) coordinator_host_ = rank.host;
      }
    for (const IncidentPair& pair : incident.pairs_in_flight)
      if (not_arrived_.contains(pair.src_rank) || not_arrived_.contains(pair.dst_rank)) stalled_pairs_.push_back(&pair);
  }

  const std::map<std::string, std::vector<int>>& silent_by_host() const { return silent_by_host_; }
  bool answered_on(const std::string& host) const { return answered_hosts_.contains(host); }
  const std::string& coordinator_host() const { return coordinator_host_; }

  // Every host other than rank 0's was silent, and there were at least two of them: rank 0's host
  // is the one cut off.
  bool only_coordinator_host_answered() const {
    return hosts_.size() >= 3 && answered_hosts_ == std::set<std::string>{coordinator_host_};
  }

  bool every_stalled_pair_touches(const std::string& host) const {
    return std::all_of(stalled_pairs_.begin(), stalled_pairs_.end(),
                       [&](const IncidentPair* pair) { return pair->src_host == host || pair->dst_host == host; });
  }

  // The hosts that every stalled pair touches; empty when no pair stalled.
  std::set<std::string> hosts_common_to_stalled_pairs() const {
    if (stalled_pairs_.empty()) return {};
    std::set<std::string> common{stalled_pairs_.front()->src_host, stalled_pairs_.front()->dst_host};
    std::erase_if(common, [&](const std::string& host) { return !every_stalled_pair_touches(host); });
    return common;
  }

  // "; every stalled pair touches h00003" when pairs were in flight.
  std::string stalled_pairs_note(const std::string& host) const {
    if (stalled_pairs_.empty()) return "";
    return every_stalled_pair_touches(host) ? fmt::format("; every stalled pair touches {}", host)
                                            : fmt::format("; not every stalled pair touches {}", host);
  }

 private:
  std::set<int> not_arrived_;
  std::map<std::string, std::vector<int>> silent_by_host_;
  std::set<std::string> answered_hosts_;
  std::set<std::string> hosts_;
  std::string coordinator_host_;
  std::vector<const IncidentPair*> stalled_pairs_;
};

class IncidentDiagnoser {
 public:
  explicit IncidentDiagnoser(const Graph& graph) : graph_(graph) {}

  void add(const Incident& incident) {
    if (incident.kind != "timeout") return;
    const TimeoutEvidence evidence(incident);
    const std::string where = case_of(incident);

    if (!incident.links_lost.empty()) {
      std::map<std::string, std::vector<const IncidentLink*>> lost_by_host;
      for (const IncidentLink& link : incident.links_lost) lost_by_host[link.host].push_back(&link);
      for (const auto& [host, links] : lost_by_host) {
        std::vector<std::string> names;
        std::set<int> seen_by;
        for (const IncidentLink* link : links) {
          names.push_back(link->link);
          seen_by.insert(link->ranks.begin(), link->ranks.end());
        }
        add_failed_link(incident, host, links.front()->link,
                        fmt::format("{}: {} of {} went down during the run (seen by {}){}", where,
                                    fmt::join(names, ", "), host, describe_ranks({seen_by.begin(), seen_by.end()}),
                                    evidence.stalled_pairs_note(host)));
      }
      return;
    }
    if (evidence.silent_by_host().size() == 1) {
      const auto& [host, ranks] = *evidence.silent_by_host().begin();
      if (!evidence.answered_on(host) && evidence.every_stalled_pair_touches(host)) {
        add_failed_link(incident, host, "",
                        fmt::format("{}: no rank on {} answered ({}){}", where, host, describe_ranks(ranks),
                                    evidence.stalled_pairs_note(host)));
        return;
      }
    }
    if (evidence.only_coordinator_host_answered()) {
      const std::string& host = evidence.coordinator_host();
      add_failed_link(incident, host, "",
                      fmt::format("{}: no rank outside {} answered rank 0, which runs there", where, host));
      return;
    }
    if (evidence.silent_by_host().empty()) {
      if (const std::set<std::string> common = evidence.hosts_common_to_stalled_pairs(); common.size() == 1) {
        const std::string& host = *common.begin();
        add_failed_link(incident, host, "", fmt::format("{}: every stalled pair touches {}", where, host));
        return;
      }
    }
    add_stalled_ranks(incident, where);
  }

  std::vector<Finding> findings() && { return std::move(findings_); }

 private:
  // The NIC named by the lost link ("eth0", "mlx5_0/1" -> HOST/mlx5_0) when the topology has it,
  // else the NIC host-memory traffic leaves through, as the diagnosis of pair rows routes it.
  VertexId nic_of(const std::string& host, const std::string& lost_link) const {
    const VertexId named = graph_.find(host + "/" + lost_link.substr(0, lost_link.find('/')));
    if (!lost_link.empty() && named != no_vertex && graph_.vertex(named).kind == VertexKind::nic) return named;
    if (const std::optional<VertexId> nic = first_nic_of_host(graph_, host)) return *nic;
    throw InputError(fmt::format("host {} of an incident is not a host with a NIC in the topology", host));
  }

  void add_failed_link(const Incident& incident, const std::string& host, const std::string& lost_link,
                       std::string evidence) {
    const VertexId nic = nic_of(host, lost_link);
    std::vector<LinkId> cables;
    for (const LinkId link : graph_.links_of(nic))
      if (graph_.vertex(graph_.link(link).other_end(nic)).kind == VertexKind::fabric_switch) cables.push_back(link);
    if (cables.empty())
      throw InputError(
          fmt::format("NIC {} of an incident's host has no link to a switch in the topology", graph_.vertex(nic).name));
    Finding finding;
    finding.kind = "failed_link";
    finding.link = cables.front();
    finding.parallel_links.assign(cables.begin() + 1, cables.end());
    finding.subject = link_name(graph_, cables.front()) + ": down or unreachable";
    if (!finding.parallel_links.empty())
      finding.subject += fmt::format(", or one of {} parallel links", finding.parallel_links.size());
    finding.host = host;
    finding.confidence = 1;
    finding.evidence = {std::move(evidence), incident.message};
    findings_.push_back(std::move(finding));
  }

  void add_stalled_ranks(const Incident& incident, const std::string& where) {
    std::map<std::string, std::vector<int>> ranks_by_host;
    for (const IncidentRank& rank : incident.ranks_not_arrived) ranks_by_host[rank.host].push_back(rank.rank);
    std::vector<std::string> parts;
    for (const auto& [host, ranks] : ranks_by_host)
      parts.push_back(fmt::format("{} on {}", describe_ranks(ranks), host));
    Finding finding;
    finding.kind = "stalled_ranks";
    finding.subject = parts.empty() ? "every rank, at the same step" : fmt::format("{}", fmt::join(parts, ", "));
    finding.confidence = ranks_by_host.empty() ? 0 : 1.0 / static_cast<double>(ranks_by_host.size());
    finding.evidence = {fmt::format("{} at {}: {}; no single host's link explains it", where, incident.step,
                                    parts.empty() ? "the transport did not complete a step that every rank reached"
                                                  : "these ranks did not arrive"),
                        incident.message};
    findings_.push_back(std::move(finding));
  }

  const Graph& graph_;
  std::vector<Finding> findings_;
};

}  // namespace

std::vector<Finding> diagnose_incidents(const Graph& graph, std::span<const Incident> incidents) {
  IncidentDiagnoser diagnoser(graph);
  for (const Incident& incident : incidents) diagnoser.add(incident);
  return std::move(diagnoser).findings();
}

}  // namespace fb::diagnosis
