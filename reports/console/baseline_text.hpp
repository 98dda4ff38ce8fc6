#pragma once
// A judgement against the run store's baseline (diagnosis/baseline.hpp) on the console: one line
// per measurement and the verdict line.

#include "diagnosis/baseline.hpp"

#include <ostream>
#include <string>

namespace fb {

void print_baseline(std::ostream& out, const diagnosis::BaselineVerdict& verdict, const std::string& description);

}  // namespace fb
