// libFuzzer target for one topology input format, chosen at build time (FUZZ_TOPOLOGY_FORMAT).
// A malformed input must end in fb::InputError; any other exception, a crash or a sanitizer
// report is a bug.

#include "topology/format_registry.hpp"

#include "common/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fb::topo::SourceText source{"fuzz-input", std::string(reinterpret_cast<const char*>(data), size)};
  try {
    const fb::topo::Graph graph = fb::topo::parse_topology(source, FUZZ_TOPOLOGY_FORMAT);
    // Touch what a parser built, so that dangling indices surface under the sanitizers.
    for (const fb::topo::Link& link : graph.links()) {
      if (link.a >= graph.vertex_count() || link.b >= graph.vertex_count()) __builtin_trap();
    }
  } catch (const fb::InputError&) {
  }
  return 0;
}
