#pragma once
// "Did you mean": the known name closest to one the user mistyped (a command, a flag, a key).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// The edit distance (insertions, deletions, substitutions, transpositions of neighbours).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name in `known` nearest to `typed`, if it is near enough to be a slip of the keyboard: at
// most 2 edits, or a third of the typed length for long names. Ties go to the first in `known`.
std::optional<std::string> closest_spelling(std::string_view typed, const std::vector<std::string>& known);

// "; did you mean 'NAME'?" for closest_spelling, or "" when none is close.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

}  // namespace fb
