#pragma once
// The console view of a predicted sweep (topo predict): the model's rates and assumptions on
// stderr, and its rows as a table for a person at a terminal.

#include "topology/predicted_sweep.hpp"

#include <ostream>

namespace fb {

// One line of the model's rates, the other jobs on the fabric and the warnings, on stderr.
void print_model_summary(const topo::PredictedSweep& sweep);

// --explain: the placement's rates, the NCCL figures used, and per size the algorithm, protocol,
// channels and limiting link, then the warnings; on stderr.
void print_model_explanation(const topo::PredictedSweep& sweep);

// The rows as a table for a terminal: size, time, busbw, algorithm, protocol and limiting link.
void print_prediction_table(std::ostream& out, const topo::PredictedSweep& sweep);

}  // namespace fb
