#pragma once
// Whole numbers read from JSON without undefined conversions: nlohmann's get<int>() of 1e300 or
// of -1 into an unsigned type converts out of range. Used by the results readers.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <utility>

namespace fb {

// The value when it is an integer that `Integer` can hold; empty for anything else (a fraction,
// a number out of range, a string).
template <class Integer>
std::optional<Integer> json_whole_number(const nlohmann::ordered_json& value) {
  if (value.is_number_unsigned() && std::in_range<Integer>(value.get<std::uint64_t>()))
    return static_cast<Integer>(value.get<std::uint64_t>());
  if (value.is_number_integer() && std::in_range<Integer>(value.get<std::int64_t>()))
    return static_cast<Integer>(value.get<std::int64_t>());
  return std::nullopt;
}

}  // namespace fb
