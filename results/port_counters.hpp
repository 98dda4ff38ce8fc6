#pragma once
// How each InfiniBand/RoCE port of the job changed while a run measured: its counters (from
// /sys/class/infiniband/DEV/ports/N/counters and hw_counters) and its link, read before the first
// size and after the last. Only the JSON results file carries them (a "port_counters" array next
// to "rows"); the CSV names the ports whose errors grew in comment lines.

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

struct PortCounterChange {
  std::string host;
  std::string port;          // "mlx5_0/1"
  std::string state_before;  // "ACTIVE"; "absent" when the port was not there at that time
  std::string state_after;
  std::string rate_before;  // "400 Gb/sec (4X NDR)"
  std::string rate_after;
  // Counter -> growth over the run, for every counter read both times and either named by
  // error_counter_names() or port_xmit_wait, or grown. A counter the port lacks is absent: not
  // available, never 0.
  std::map<std::string, std::uint64_t> deltas;
  // Counters that read lower after than before (cleared during the run, as `perfquery -R` does):
  // their growth is not known.
  std::vector<std::string> counters_reset;
  // Soak runs read the counters at the start and end of every repetition: the repetition these
  // deltas belong to. Empty: read before and after the whole run.
  std::optional<int> repetition;

  // The error counters that grew, "symbol_error +12" each, in name order.
  std::vector<std::string> grown_errors() const;
  // An error counter grew, or the link left ACTIVE or changed its rate.
  bool degraded() const;

  bool operator==(const PortCounterChange&) const = default;
};

// The counters whose growth means a bad link, cable, transceiver or lost packets (port_xmit_wait,
// congestion, is not among them): the nine IB port counters and the RDMA retransmission counters
// of hw_counters.
const std::vector<std::string_view>& error_counter_names();
bool is_error_counter(std::string_view name);

// "h1 mlx5_0/1: symbol_error +12, link_downed +1; state ACTIVE -> DOWN": one line, for CSV
// comments, run output and findings.
std::string describe_port_change(const PortCounterChange& change);

nlohmann::ordered_json port_counter_change_to_json(const PortCounterChange& change);
// Throws std::exception naming the key that is missing or has the wrong type.
PortCounterChange port_counter_change_from_json(const nlohmann::ordered_json& json);

}  // namespace fb
