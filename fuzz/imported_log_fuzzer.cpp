// libFuzzer target for `fabricbench import`: every registered importer (nccl-tests, OSU, Google
// Benchmark) that recognises the input parses it. A malformed or truncated log must end in
// fb::InputError; any other exception, a crash or a sanitizer report is a bug.

#include "common/errors.hpp"
#include "importers/importer_registry.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // OSU collective logs need the rank count from the user; give one so their parser runs too.
    (void)fb::import_log_text(text, "fuzz-input", {.nranks = 4});
  } catch (const fb::InputError&) {}
  return 0;
}
