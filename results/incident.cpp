#include "results/incident.hpp"

#include "results/incident_json.hpp"
#include "results/json_fields.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace fb {
namespace {

using Json = nlohmann::ordered_json;

double number(const Json& object, const char* key) {
  const Json& value = json_member(object, key);
  if (!value.is_number()) throw std::invalid_argument(fmt::format("{} is not a number", key));
  return value.get<double>();
}

// Whole numbers only, and within the type: a conversion from anything else would be undefined.
template <class Integer>
Integer whole_number(const Json& value, const char* key) {
  if (const std::optional<Integer> whole = json_whole_number<Integer>(value)) return *whole;
  throw std::invalid_argument(fmt::format("{} is not a whole number in range", key));
}

const Json& array(const Json& object, const char* key) {
  const Json& value = json_member(object, key);
  if (!value.is_array()) throw std::invalid_argument(fmt::format("{} is not an array", key));
  return value;
}

Json ranks_to_json(const std::vector<IncidentRank>& ranks) {
  Json json = Json::array();
  for (const IncidentRank& rank : ranks)
    json.push_back(
        {{"rank", rank.rank}, {"host", rank.host}, {"answered", rank.answered}, {"position", rank.position}});
  return json;
}

std::vector<IncidentRank> ranks_from_json(const Json& object, const char* key) {
  std::vector<IncidentRank> ranks;
  for (const Json& rank : array(object, key))
    ranks.push_back({whole_number<int>(json_member(rank, "rank"), "rank"), json_text(rank, "host"),
                     json_flag(rank, "answered"), json_text(rank, "position")});
  return ranks;
}

std::vector<int> ranks_of(const Json& object, const char* key) {
  std::vector<int> ranks;
  for (const Json& rank : array(object, key)) ranks.push_back(whole_number<int>(rank, key));
  return ranks;
}

}  // namespace

std::string describe_ranks(const std::vector<int>& ranks) {
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

std::string describe_incident(const Incident& incident) {
  std::string where = fmt::format("{} in {} {} B", incident.kind, incident.op, incident.bytes);
  if (incident.round) where += fmt::format(" round {}", *incident.round);
  std::string who;
  for (const IncidentRank& rank : incident.ranks_not_arrived)
    who += fmt::format("{}rank {} on {} {}", who.empty() ? "" : ", ", rank.rank, rank.host,
                       rank.answered ? "still at " + rank.position : "did not answer");
  if (who.empty()) who = "every rank arrived at the same step";
  for (const IncidentLink& link : incident.links_lost)
    who += fmt::format("; {} of {} went down ({})", link.link, link.host, describe_ranks(link.ranks));
  return fmt::format("{} at {}: {}", where, incident.step, who);
}

Json incident_to_json(const Incident& incident) {
  Json pairs = Json::array();
  for (const IncidentPair& pair : incident.pairs_in_flight)
    pairs.push_back({{"src_rank", pair.src_rank},
                     {"dst_rank", pair.dst_rank},
                     {"src_host", pair.src_host},
                     {"dst_host", pair.dst_host}});
  Json links = Json::array();
  for (const IncidentLink& link : incident.links_lost)
    links.push_back({{"host", link.host}, {"link", link.link}, {"ranks", link.ranks}});
  return Json{{"kind", incident.kind},
              {"op", incident.op},
              {"case_label", incident.case_label},
              {"bytes", incident.bytes},
              {"dtype", incident.dtype},
              {"in_place", incident.in_place},
              {"step", incident.step},
              {"round", incident.round ? Json(*incident.round) : Json(nullptr)},
              {"pairs_in_flight", std::move(pairs)},
              {"ranks_not_arrived", ranks_to_json(incident.ranks_not_arrived)},
              {"ranks_arrived", ranks_to_json(incident.ranks_arrived)},
              {"links_lost", std::move(links)},
              {"deadline_s", incident.deadline_s},
              {"stalled_s", incident.stalled_s},
              {"message", incident.message},
              {"timestamp", incident.timestamp}};
}

Incident incident_from_json(const Json& json) {
  Incident incident;
  incident.kind = json_text(json, "kind");
  incident.op = json_text(json, "op");
  incident.case_label = json_text(json, "case_label");
  incident.bytes = whole_number<std::uint64_t>(json_member(json, "bytes"), "bytes");
  incident.dtype = json_text(json, "dtype");
  incident.in_place = json_flag(json, "in_place");
  incident.step = json_text(json, "step");
  if (const Json& round = json_member(json, "round"); !round.is_null())
    incident.round = whole_number<int>(round, "round");
  for (const Json& pair : array(json, "pairs_in_flight"))
    incident.pairs_in_flight.push_back({whole_number<int>(json_member(pair, "src_rank"), "src_rank"),
                                        whole_number<int>(json_member(pair, "dst_rank"), "dst_rank"),
                                        json_text(pair, "src_host"), json_text(pair, "dst_host")});
  incident.ranks_not_arrived = ranks_from_json(json, "ranks_not_arrived");
  incident.ranks_arrived = ranks_from_json(json, "ranks_arrived");
  for (const Json& link : array(json, "links_lost"))
    incident.links_lost.push_back({json_text(link, "host"), json_text(link, "link"), ranks_of(link, "ranks")});
  incident.deadline_s = number(json, "deadline_s");
  incident.stalled_s = number(json, "stalled_s");
  incident.message = json_text(json, "message");
  incident.timestamp = json_text(json, "timestamp");
  return incident;
}

}  // namespace fb
