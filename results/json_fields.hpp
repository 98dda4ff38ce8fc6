#pragma once
// Fields of the results JSON read with a checked type: a missing key, a wrong type or a number out
// of range is std::invalid_argument naming the key (the readers put the file and entry in front),
// never nlohmann's undefined conversions (get<int>() of 1e300, of -1 into an unsigned type).

#include "common/errors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
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
// imports fewer than 10. A document nested deeper is refused while it is parsed, before anything
// recursive (a dump for a message, a conversion) can walk it: 100,000 levels exhausted the stack.
inline constexpr int max_json_depth = 64;

// A parser callback for nlohmann's parse(text, callback) that throws InputError "ORIGIN: JSON
// nested deeper than 64 levels" and otherwise hands every event to `then` (none: keep all).
template <class Json>
typename Json::parser_callback_t depth_limited(
    std::string origin, std::function<bool(int, typename Json::parse_event_t, Json&)> then = {}) {
  return [origin = std::move(origin), then = std::move(then)](int depth, typename Json::parse_event_t event,
                                                              Json& parsed) {
    if (depth > max_json_depth)
      throw InputError(fmt::format("{}: JSON nested deeper than {} levels", origin, max_json_depth));
    return then ? then(depth, event, parsed) : true;
  };
}

}  // namespace fb
