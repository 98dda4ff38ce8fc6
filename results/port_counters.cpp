#include "results/port_counters.hpp"

#include "results/json_fields.hpp"
#include "results/repetition.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace fb {

using Json = nlohmann::ordered_json;

const std::vector<std::string_view>& error_counter_names() {
  // counters/: link and receive errors of the IB port (PortCounters attribute). hw_counters/
  // (mlx5): transport retries and sequence errors, which on RoCE stand for the losses the IB
  // counters would count.
  static const std::vector<std::string_view> names{"excessive_buffer_overrun_errors",
                                                   "link_downed",
                                                   "link_error_recovery",
                                                   "local_link_integrity_errors",
                                                   "port_rcv_errors",
                                                   "port_rcv_remote_physical_errors",
                                                   "port_xmit_discards",
                                                   "symbol_error",
                                                   "local_ack_timeout_err",
                                                   "out_of_sequence",
                                                   "packet_seq_err",
                                                   "implied_nak_seq_err"};
  return names;
}

bool is_error_counter(std::string_view name) {
  const auto& names = error_counter_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> PortCounterChange::grown_errors() const {
  std::vector<std::string> grown;
  for (const auto& [name, delta] : deltas)
    if (delta > 0 && is_error_counter(name)) grown.push_back(fmt::format("{} +{}", name, delta));
  return grown;
}

bool PortCounterChange::degraded() const {
  return !grown_errors().empty() || (state_before == "ACTIVE" && state_after != "ACTIVE") || rate_before != rate_after;
}

std::string describe_port_change(const PortCounterChange& change) {
  std::vector<std::string> parts = change.grown_errors();
  if (change.state_before != change.state_after)
    parts.push_back(fmt::format("state {} -> {}", change.state_before, change.state_after));
  if (change.rate_before != change.rate_after)
    parts.push_back(fmt::format("rate {} -> {}", change.rate_before, change.rate_after));
  if (!change.counters_reset.empty())
    parts.push_back(fmt::format("cleared during the run: {}", fmt::join(change.counters_reset, ", ")));
  if (const auto wait = change.deltas.find("port_xmit_wait"); wait != change.deltas.end() && wait->second > 0)
    parts.push_back(fmt::format("port_xmit_wait +{}", wait->second));
  return fmt::format("{} {}: {}{}", change.host, change.port,
                     parts.empty() ? "no errors" : fmt::format("{}", fmt::join(parts, ", ")),
                     change.repetition ? fmt::format(" ({})", repetition_text(*change.repetition)) : "");
}

Json port_counter_change_to_json(const PortCounterChange& change) {
  Json deltas = Json::object();
  for (const auto& [name, delta] : change.deltas) deltas[name] = delta;
  Json json{{"host", change.host},
            {"port", change.port},
            {"state_before", change.state_before},
            {"state_after", change.state_after},
            {"rate_before", change.rate_before},
            {"rate_after", change.rate_after},
            {"deltas", std::move(deltas)},
            {"counters_reset", change.counters_reset},
            {"degraded", change.degraded()}};
  if (change.repetition) json["repetition"] = *change.repetition;
  return json;
}

PortCounterChange port_counter_change_from_json(const Json& json) {
  PortCounterChange change;
  change.host = json_text(json, "host");
  change.port = json_text(json, "port");
  change.state_before = json_text(json, "state_before");
  change.state_after = json_text(json, "state_after");
  change.rate_before = json_text(json, "rate_before");
  change.rate_after = json_text(json, "rate_after");
  const Json& deltas = json_member(json, "deltas");
  if (!deltas.is_object()) throw std::invalid_argument("deltas is not an object");
  for (const auto& [name, value] : deltas.items()) {
    const std::optional<std::uint64_t> delta = json_whole_number<std::uint64_t>(value);
    if (!delta) throw std::invalid_argument(fmt::format("deltas.{} is not a whole number >= 0", name));
    change.deltas.emplace(name, *delta);
  }
  const Json& reset = json_member(json, "counters_reset");
  if (!reset.is_array()) throw std::invalid_argument("counters_reset is not an array");
  for (const Json& name : reset) {
    if (!name.is_string()) throw std::invalid_argument("counters_reset holds a non-string");
    change.counters_reset.push_back(name.get<std::string>());
  }
  if (const auto repetition = json.find("repetition"); repetition != json.end()) {
    const std::optional<int> value = json_whole_number<int>(*repetition);
    if (!value) throw std::invalid_argument("repetition is not a whole number >= 0");
    change.repetition = *value;
  }
  return change;
}

}  // namespace fb
