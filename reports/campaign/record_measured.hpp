#pragma once
// What the record shows beside its checks: each measuring stage's own curves (a collective stage's
// busbw per size, a pair stage's pairs, a concurrent stage's pairs alone against all at once), and
// the findings, facts the check table does not state: peaks, the slowest pair and its share of the
// median pair, what running the pairs at once costs them, the widest interval and the narrowest
// margin a verdict rests on. Descriptive numbers from the rows and the verdicts: nothing is judged
// here.

#include "reports/campaign/campaign_record.hpp"
#include "reports/html/gnuplot.hpp"

#include <string>
#include <vector>

namespace fb {

// The plots of one stage's rows: one of its collective rows (busbw per size, a line per op) and
// one of its pair rows (at one size: every pair's bandwidth, a line per number of pairs in flight;
// over several sizes: the median and the slowest pair per size). None for a stage without rows.
std::vector<LogLogPlot> stage_plots(const RecordStage& stage);

// The findings as sentences of plain text, in the order the record lists them (stages in the
// plan's order, then the checks).
std::vector<std::string> record_findings(const CampaignRecord& record);

}  // namespace fb
