// libFuzzer target for `fabricbench accept` thresholds files (YAML). A malformed file must end in
// fb::InputError; any other exception, a crash or a sanitizer report is a bug.

#include "diagnosis/thresholds.hpp"
#include "common/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)fb::diagnosis::parse_thresholds(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
  } catch (const fb::InputError&) {}
  return 0;
}
