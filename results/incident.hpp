#pragma once
// An incident: a run that could not finish a measurement, recorded in the results beside the rows
// measured before it, so that later stages (diagnose, report) can say what failed and where.
// Only the JSON results file carries incidents (an "incidents" array next to "rows"); the CSV
// names them in comment lines for a person reading it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fb {

struct IncidentRank {
  int rank = 0;
  std::string host;
  bool answered = false;  // false: it did not answer the watchdog at all
  std::string position;   // where it was when it answered ("timed iteration 3"); empty otherwise

  bool operator==(const IncidentRank&) const = default;
};

struct IncidentPair {
  int src_rank = 0;
  int dst_rank = 0;
  std::string src_host;
  std::string dst_host;

  bool operator==(const IncidentPair&) const = default;
};

// A network link of a host that was up when the run started and was down when the watchdog asked.
struct IncidentLink {
  std::string host;
  std::string link;        // the interface or RDMA port: "eth0", "mlx5_0/1"
  std::vector<int> ranks;  // the ranks on that host that reported it

  bool operator==(const IncidentLink&) const = default;
};

struct Incident {
  std::string kind;        // timeout: a step made no progress within its deadline
  std::string op;          // as in the rows: all_reduce, pairwise, ...
  std::string case_label;  // the backend's name for what it ran: "bw 1048576 B, 4 pairs at once"
  std::uint64_t bytes = 0;
  std::string dtype;
  bool in_place = false;
  std::string step;                           // where rank 0 was: "timed iteration 12", "gathering times"
  std::optional<int> round;                   // pair patterns: the round of pairs in flight
  std::vector<IncidentPair> pairs_in_flight;  // pair patterns: every pair of that round
  // Every rank of the job in one of the two: those that held the job back (no answer, or behind
  // the others) and those that had arrived where the job was.
  std::vector<IncidentRank> ranks_not_arrived;
  std::vector<IncidentRank> ranks_arrived;
  std::vector<IncidentLink> links_lost;
  double deadline_s = 0;
  double stalled_s = 0;
  std::string message;    // the line the run printed
  std::string timestamp;  // ISO 8601 UTC

  bool operator==(const Incident&) const = default;
};

// "timeout in pairwise 131072 B round 2: rank 2 on h00003 did not answer, rank 5 on h00006 still
// at timed iteration 3": one line, for CSV comments and messages.
std::string describe_incident(const Incident& incident);

// "rank 2", "ranks 2, 5": how incidents and the findings drawn from them list ranks.
std::string describe_ranks(const std::vector<int>& ranks);

}  // namespace fb
