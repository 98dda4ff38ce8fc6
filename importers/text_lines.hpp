#pragma once
// Line-oriented helpers shared by the text-log importers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

struct ResultSet;

struct TextLine {
  int number = 0;  // 1-based, for messages
  std::string_view text;
};

// Splits on '\n', dropping a trailing '\r'. A final line without '\n' is kept.
std::vector<TextLine> split_lines(std::string_view text);

// The line without the prefix `mpirun --tag-output` puts before every line ("[1,0]<stdout>:").
std::string_view without_launcher_tag(std::string_view line);

std::vector<std::string_view> split_whitespace(std::string_view text);
std::string_view trim(std::string_view text);

// Whole-token numbers; empty when the token is not entirely a number.
std::optional<double> to_double(std::string_view token);
std::optional<std::int64_t> to_integer(std::string_view token);

// A number from a log used as a size or a count: empty unless whole, not negative and below 2^63,
// so converting it to an integer is defined.
std::optional<std::uint64_t> whole_number(double value);

// The result of a file that holds one run. Not `return {results}`: a braced list's elements are
// const and would be copied, rows and all.
std::vector<ResultSet> one_run(ResultSet results);

// Sets the run ids of several runs read from one file apart: "ID-run1", "ID-run2", ...; a single
// run keeps ID.
void number_runs(std::vector<ResultSet>& runs);

// Decimal GB/s from a size and a time: bytes / (time_us * 1e-6) / 1e9.
double gbps_from(std::uint64_t bytes, double time_us);

}  // namespace fb
