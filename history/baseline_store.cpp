#include "history/baseline_store.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <set>

namespace fb::history {
namespace {

std::set<std::string> hosts_of(const ResultSet& results) {
  std::set<std::string> hosts(results.provenance.rank_hosts.begin(), results.provenance.rank_hosts.end());
  for (const ResultRow& row : results.rows) {
    if (!row.src_host.empty()) hosts.insert(row.src_host);
    if (!row.dst_host.empty()) hosts.insert(row.dst_host);
  }
  hosts.erase("");
  return hosts;
}

struct Selection {
  bool accepted_only = false;
  std::size_t count = 20;
};

// "accepted", "accepted:N", "last", "last:N"; empty for a list of run ids.
std::optional<Selection> parse_selection(const std::string& spec) {
  const std::string word = spec.substr(0, spec.find(':'));
  if (word != "accepted" && word != "last") return std::nullopt;
  Selection selection{.accepted_only = word == "accepted", .count = 20};
  if (spec.size() > word.size()) {
    const std::string number = spec.substr(word.size() + 1);
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), selection.count);
    if (ec != std::errc{} || end != number.data() + number.size() || selection.count == 0)
      throw UsageError(
          fmt::format("--baseline {}: the count after '{}:' must be a whole number of runs >= 1", spec, word));
  }
  return selection;
}

// "ID[,ID...]": those runs, none of them judged, every one in the store.
std::vector<ResultSet> listed_runs(store::RunStore& store, const std::string& spec,
                                   const std::set<std::string>& judged_ids, const std::string& url) {
  std::vector<ResultSet> runs;
  std::size_t begin = 0;
  while (begin <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', begin), spec.size());
    const std::string id = spec.substr(begin, end - begin);
    begin = end + 1;
    if (id.empty()) throw UsageError(fmt::format("--baseline {}: an empty run id", spec));
    if (judged_ids.contains(id))
      throw UsageError(fmt::format("--baseline {}: run {} is one of the runs judged", spec, id));
    std::optional<ResultSet> run = store.run(id);
    if (!run) throw InputError(fmt::format("run store {} has no run {} (fabricbench history lists them)", url, id));
    runs.push_back(std::move(*run));
  }
  return runs;
}

}  // namespace

store::RunStore open_store(const BaselineOptions& options, bool create) {
  const store::StoreUrl url =
      store::StoreUrl::parse(options.store.empty() ? std::string(default_store_path) : options.store);
  if (!create && !url.is_server() && !std::filesystem::exists(url.path()))
    throw InputError(fmt::format("no run store at {} for the baseline (run --store {} or history ingest DIR --store "
                                 "{} records one)",
                                 url, url, url));
  return store::RunStore(url);
}

LoadedBaseline load_baseline(store::RunStore& store, const BaselineOptions& options,
                             std::span<const LoadedResults> judged) {
  std::set<std::string> judged_ids;
  std::set<std::string> judged_hosts;
  for (const LoadedResults& set : judged) {
    judged_ids.insert(set.results.provenance.run_id);
    judged_hosts.merge(hosts_of(set.results));
  }
  const std::string& url = store.name();
  LoadedBaseline baseline;
  const std::optional<Selection> selection = parse_selection(options.spec);
  if (!selection) {
    baseline.runs = listed_runs(store, options.spec, judged_ids, url);
    baseline.description = fmt::format("run{} {} in {}", baseline.runs.size() == 1 ? "" : "s", options.spec, url);
    return baseline;
  }
  for (const std::string& id : store.recent_run_ids(selection->accepted_only)) {
    if (baseline.runs.size() == selection->count) break;
    if (judged_ids.contains(id)) continue;
    std::optional<ResultSet> run = store.run(id);
    if (!run) continue;  // removed since the list was read
    const std::set<std::string> hosts = hosts_of(*run);
    const bool same_cluster = judged_hosts.empty() || std::any_of(hosts.begin(), hosts.end(), [&](const auto& host) {
                                return judged_hosts.contains(host);
                              });
    if (same_cluster) baseline.runs.push_back(std::move(*run));
  }
  baseline.description =
      fmt::format("the last {} {}runs{} in {}: {} found", selection->count, selection->accepted_only ? "accepted " : "",
                  judged_hosts.empty() ? "" : " sharing a host with the judged runs", url, baseline.runs.size());
  return baseline;
}

diagnosis::BaselineVerdict judge_baseline(store::RunStore& store, const BaselineOptions& options,
                                          std::span<const LoadedResults> judged, std::string& description) {
  const LoadedBaseline baseline = load_baseline(store, options, judged);
  description = baseline.description;
  return diagnosis::judge_against_baseline(all_rows(judged), baseline.runs, options.settings);
}

void record_judged(store::RunStore& store, std::span<const LoadedResults> judged, const std::string& judged_by,
                   diagnosis::Decision decision, const std::string& statement, std::ostream& out) {
  // The store keeps decisions in lower case ("pass"), as recent_run_ids looks them up.
  std::string stored_decision(diagnosis::name_of(decision));
  for (char& c : stored_decision) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t recorded = 0;
  for (const LoadedResults& set : judged) {
    if (set.results.provenance.run_id.empty()) continue;
    store.record(set.results, set.source.string());
    store.record_verdict(set.results.provenance.run_id, judged_by, stored_decision, statement);
    ++recorded;
  }
  out << fmt::format("# recorded {} run{} and the verdict {} in the run store\n", recorded, recorded == 1 ? "" : "s",
                     diagnosis::name_of(decision));
}

}  // namespace fb::history
