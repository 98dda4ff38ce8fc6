#pragma once
// Diagnosis of incidents: runs the watchdog ended because a step made no progress. Where the
// watchdog's evidence singles out one host, the finding names that host's cable into the fabric
// in the topology; where it does not, it names the hosts and ranks involved and no link.

#include "results/incident.hpp"
#include "diagnosis/diagnosis.hpp"
#include "topology/graph.hpp"

#include <span>
#include <vector>

namespace fb::diagnosis {

// One finding per timeout, in order of the evidence that decides it:
//  - a host's network link went down during the run (the ranks on it saw it): failed_link for the
//    link of that NIC, or of the host's first NIC when the topology has no NIC of that name;
//  - every rank of one host went silent, and every stalled pair touches that host: failed_link;
//  - no rank outside rank 0's host answered rank 0: failed_link of rank 0's host;
//  - every stalled pair touches one host (all ranks answered): failed_link;
//  - otherwise stalled_ranks, naming the hosts and ranks that did not arrive, and no link.
// A failed_link finding's link is the NIC's cable to its switch (more cables of that NIC, as in a
// bond, are its parallel links). Throws InputError when a host it must name has no NIC cabled
// to a switch in the topology.
std::vector<Finding> diagnose_incidents(const topo::Graph& graph, std::span<const Incident> incidents);

}  // namespace fb::diagnosis
