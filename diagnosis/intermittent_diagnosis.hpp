#pragma once
// Diagnosis across the repetitions of a soak run (`run --repeat`, `--duration`): pairs that are
// slow in some repetitions and not in others, the mark of a flapping link or a neighbour's load.

#include "results/result_row.hpp"
#include "diagnosis/diagnosis.hpp"

#include <span>
#include <vector>

namespace fb::diagnosis {

// Pair rows (is_pair_bandwidth_row) that carry a repetition, of runs with at least two
// repetitions. In each repetition a pair is slow when its bandwidth is under settings.slow_ratio
// of the median of that repetition's pairs of the same op, size and concurrency. A pair slow in
// some repetitions but not all is intermittent. Where one host is in every intermittent pair of a
// run (and there are at least two such pairs), one intermittent_host finding names it (host set);
// otherwise each pair is an intermittent_pair finding naming no host. Confidence: the share of the
// repetitions in which the pair (or the host's pairs) were slow, against the slowest one.
std::vector<Finding> diagnose_intermittent(std::span<const ResultRow> rows, const DiagnosisSettings& settings = {});

}  // namespace fb::diagnosis
