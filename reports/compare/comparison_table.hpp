#pragma once
// A comparison of two result sets (diagnosis/comparison.hpp) as the console table `compare` prints
// and as CSV.

#include "diagnosis/comparison.hpp"

#include <ostream>
#include <string>
#include <string_view>

namespace fb {

std::string comparison_to_csv(const diagnosis::Comparison& comparison);
// `compare --json` (docs/schemas/compare.schema.json): per op its geometric mean, regressions and
// sizes too noisy to compare, and every matched row.
std::string comparison_to_json(const diagnosis::Comparison& comparison, std::string_view label_a,
                               std::string_view label_b);
void print_comparison(std::ostream& out, const diagnosis::Comparison& comparison, std::string_view label_a,
                      std::string_view label_b);

}  // namespace fb
