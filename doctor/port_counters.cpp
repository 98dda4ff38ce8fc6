#include "doctor/port_counters.hpp"

#include "common/sysfs_files.hpp"

#include <algorithm>
#include <charconv>

namespace fb::doctor {
namespace {

namespace fs = std::filesystem;

std::optional<std::uint64_t> read_counter(const fs::path& file) {
  const std::optional<std::string> text = read_first_line(file);
  if (!text || text->empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

// Counters that are not errors but show congestion or traffic: kept even when they did not grow,
// so that 0 reads as "measured, none" beside the error counters.
constexpr std::string_view congestion_counter = "port_xmit_wait";

}  // namespace

std::map<std::string, std::uint64_t> read_port_counters(const fs::path& port_dir) {
  std::map<std::string, std::uint64_t> counters;
  for (const char* group : {"counters", "hw_counters"})
    for (const std::string& name : sorted_entries(port_dir / group))
      if (const std::optional<std::uint64_t> value = read_counter(port_dir / group / name))
        counters.emplace(name, *value);
  return counters;
}

std::vector<PortCounterSample> sample_port_counters(const fs::path& sysfs_root) {
  std::vector<PortCounterSample> samples;
  for (const RdmaPort& port : rdma_ports(under_root(sysfs_root, "/sys/class/infiniband"))) {
    samples.push_back({port.name, read_port_state(port.dir / "state"), read_first_line(port.dir / "rate").value_or(""),
                       read_port_counters(port.dir)});
  }
  return samples;
}

std::map<std::string, std::uint64_t> grown_error_counters(const std::map<std::string, std::uint64_t>& before,
                                                          const std::map<std::string, std::uint64_t>& after) {
  std::map<std::string, std::uint64_t> grown;
  for (const auto& [name, value_after] : after) {
    const auto it = before.find(name);
    if (it != before.end() && value_after > it->second && is_error_counter(name))
      grown.emplace(name, value_after - it->second);
  }
  return grown;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one pass over the union of ports before and after, with each counter's delta, reset or absence
std::vector<PortCounterChange> port_counter_changes(const std::string& host,
                                                    const std::vector<PortCounterSample>& before,
                                                    const std::vector<PortCounterSample>& after) {
  const auto find = [](const std::vector<PortCounterSample>& samples,
                       const std::string& port) -> const PortCounterSample* {
    const auto it =
        std::find_if(samples.begin(), samples.end(), [&](const PortCounterSample& s) { return s.port == port; });
    return it == samples.end() ? nullptr : &*it;
  };
  std::vector<std::string> ports;
  for (const PortCounterSample& sample : before) ports.push_back(sample.port);
  for (const PortCounterSample& sample : after)
    if (!find(before, sample.port)) ports.push_back(sample.port);
  std::vector<PortCounterChange> changes;
  for (const std::string& port : ports) {
    const PortCounterSample* first = find(before, port);
    const PortCounterSample* last = find(after, port);
    PortCounterChange change;
    change.host = host;
    change.port = port;
    change.state_before = first ? first->state : "absent";
    change.state_after = last ? last->state : "absent";
    change.rate_before = first ? first->rate : "";
    change.rate_after = last ? last->rate : "";
    if (first && last) {
      for (const auto& [name, value_after] : last->counters) {
        const auto it = first->counters.find(name);
        if (it == first->counters.end()) continue;
        if (value_after < it->second) {
          change.counters_reset.push_back(name);
          continue;
        }
        const std::uint64_t delta = value_after - it->second;
        if (delta > 0 || is_error_counter(name) || name == congestion_counter) change.deltas.emplace(name, delta);
      }
    }
    changes.push_back(std::move(change));
  }
  return changes;
}

void to_json(nlohmann::json& out, const PortCounterSample& sample) {
  out = {{"port", sample.port}, {"state", sample.state}, {"rate", sample.rate}, {"counters", sample.counters}};
}

void from_json(const nlohmann::json& in, PortCounterSample& sample) {
  sample.port = in.at("port").get<std::string>();
  sample.state = in.at("state").get<std::string>();
  sample.rate = in.at("rate").get<std::string>();
  sample.counters = in.at("counters").get<std::map<std::string, std::uint64_t>>();
}

}  // namespace fb::doctor
