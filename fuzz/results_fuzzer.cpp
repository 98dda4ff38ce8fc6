// libFuzzer target for a results file reader (FUZZ_RESULTS_PARSER: parse_results_json or
// parse_results_csv). A malformed file must end in fb::InputError; any other exception, a crash
// or a sanitizer report is a bug.

#include "common/errors.hpp"
#include "results/results_io.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const fb::ResultSet results =
        fb::FUZZ_RESULTS_PARSER(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
    // What was read must write back out: the writers see every field the readers accepted.
    (void)fb::results_to_csv(results);
    (void)fb::results_to_json(results);
  } catch (const fb::InputError&) {}
  return 0;
}
