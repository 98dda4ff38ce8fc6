#pragma once
// A repetition as a person reads it, "repetition 1" for the first (the field's 0). The field (CSV,
// JSON) counts from 0 and keeps doing so, the schema being stable; every text a person reads
// counts from 1, as the rounds of a pair pattern do, so "round 1" and "repetition 1" are both the
// first. Text a person holds against the rows says the field's value beside it, where a bare
// number could be read as the field's.

#include <fmt/format.h>

#include <string>

namespace fb {

inline int repetition_number(int repetition) { return repetition + 1; }

// "repetition 2" for the field's 1.
inline std::string repetition_text(int repetition) {
  return fmt::format("repetition {}", repetition_number(repetition));
}

}  // namespace fb
