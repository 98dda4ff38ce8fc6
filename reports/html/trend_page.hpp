#pragma once
// `history --html`: one series of the run store over time as a self-contained HTML page in the
// report's style: the value of every run drawn by gnuplot, the baseline it is judged against, the
// runs of each change, and the table of runs.

#include "diagnosis/drift.hpp"

#include <string>

namespace fb {

// Throws std::runtime_error when gnuplot is missing or fails.
std::string render_trend_page(const diagnosis::RunSeries& series, const diagnosis::SeriesDrift& drift);

}  // namespace fb
