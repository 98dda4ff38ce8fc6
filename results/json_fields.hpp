#pragma once
// Fields of the results JSON read with a checked type: a missing key, a wrong type or a number out
// of range is std::invalid_argument naming the key (the readers put the file and entry in front),
// never nlohmann's undefined conversions (get<int>() of 1e300, of -1 into an unsigned type).

#include "common/errors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
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

inline const nlohmann::ordered_json& json_member(const nlohmann::ordered_json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) throw std::invalid_argument(fmt::format("missing {}", key));
  return object.at(key);
}

inline std::string json_text(const nlohmann::ordered_json& object, const char* key) {
  const nlohmann::ordered_json& value = json_member(object, key);
  if (!value.is_string()) throw std::invalid_argument(fmt::format("{} is not a string", key));
  return value.get<std::string>();
}

inline bool json_flag(const nlohmann::ordered_json& object, const char* key) {
  const nlohmann::ordered_json& value = json_member(object, key);
  if (!value.is_boolean()) throw std::invalid_argument(fmt::format("{} is not true or false", key));
  return value.get<bool>();
}

// The deepest nesting of any JSON fabricbench reads: its own files nest 4 levels, the logs it
// imports fewer than 10. A document nested deeper is refused while it is parsed (streamed_json.hpp),
// before anything recursive (a dump for a message, a conversion) can walk it: 100,000 levels
// exhausted the stack.
inline constexpr int max_json_depth = 64;

}  // namespace fb
