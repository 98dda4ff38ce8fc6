#include "jobs/port_counter_watch.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace fb::jobs {

PortCounterWatch::PortCounterWatch(JobControl& job, RankPlacement placement, std::filesystem::path sysfs_root)
    : job_(job), placement_(std::move(placement)), sysfs_root_(std::move(sysfs_root)) {}

void PortCounterWatch::read_before() { before_ = sample_every_host(); }

std::map<std::string, std::vector<doctor::PortCounterSample>> PortCounterWatch::sample_every_host() {
  const auto& hosts = placement_.rank_hosts;
  const auto rank = static_cast<std::size_t>(placement_.rank);
  // Ranks on one host read the same files: the lowest rank there reads them for all.
  const bool reads = std::find(hosts.begin(), hosts.end(), hosts.at(rank)) == hosts.begin() + placement_.rank;
  const std::string mine = reads ? nlohmann::json(doctor::sample_port_counters(sysfs_root_)).dump() : "";
  std::map<std::string, std::vector<doctor::PortCounterSample>> by_host;
  const std::vector<std::string> gathered = job_.gather_at_reporting_rank(mine);
  for (std::size_t r = 0; r < gathered.size(); ++r)
    if (!gathered[r].empty())
      by_host[hosts.at(r)] = nlohmann::json::parse(gathered[r]).get<std::vector<doctor::PortCounterSample>>();
  return by_host;
}

std::vector<PortCounterChange> PortCounterWatch::changes_since_before() {
  const std::map<std::string, std::vector<doctor::PortCounterSample>> after = sample_every_host();
  std::vector<PortCounterChange> changes;
  std::vector<std::string> hosts_in_rank_order;
  for (const std::string& host : placement_.rank_hosts)
    if (std::find(hosts_in_rank_order.begin(), hosts_in_rank_order.end(), host) == hosts_in_rank_order.end())
      hosts_in_rank_order.push_back(host);
  for (const std::string& host : hosts_in_rank_order) {
    const auto first = before_.find(host);
    const auto last = after.find(host);
    if (first == before_.end() || last == after.end()) continue;
    for (PortCounterChange& change : doctor::port_counter_changes(host, first->second, last->second))
      changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace fb::jobs
