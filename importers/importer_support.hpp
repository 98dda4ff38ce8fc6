#pragma once
// Helpers shared by the importers of other tools' logs. Line and token scanning is the foundation's
// (common/text_scan.hpp), FILE:LINE errors too (common/input_error.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

struct ResultSet;

// A number from a log used as a size or a count: empty unless whole, not negative and below 2^63,
// so converting it to an integer is defined.
std::optional<std::uint64_t> whole_number(double value);

// An iteration count as a row holds it: exact up to the largest int (2^31 - 1); a larger count
// (Google Benchmark runs fast bodies billions of times) is held as that largest int, and
// `assumptions` says so, naming `where` and the count the log printed.
int row_iterations(std::uint64_t printed, std::string_view where, std::vector<std::string>& assumptions);

// The result of a file that holds one run. Not `return {results}`: a braced list's elements are
// const and would be copied, rows and all.
std::vector<ResultSet> one_run(ResultSet results);

// Sets the run ids of several runs read from one file apart: "ID-run1", "ID-run2", ...; a single
// run keeps ID.
void number_runs(std::vector<ResultSet>& runs);

// Consecutive runs of one test (the same command, environment, op, ranks, hosts and sizes, as a
// loop in a job script writes them) become one result set whose rows carry their `repetition` (0, 1, ...), instead of a
// set (and a pair of files) per run; runs that differ stay apart. Moves rows, linear in their count.
void keep_repetitions_together(std::vector<ResultSet>& runs);

// Decimal GB/s from a size and a time: bytes / (time_us * 1e-6) / 1e9.
double gbps_from(std::uint64_t bytes, double time_us);

}  // namespace fb
