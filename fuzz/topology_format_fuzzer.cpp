// libFuzzer target for every registered topology input format: each input is read by every
// format in the registry and by the auto-detection, so a new format is fuzzed without a list to
// edit. A malformed input must end in fb::InputError; any other exception, a crash or a sanitizer
// report is a bug.

#include "topology/format_registry.hpp"

#include "common/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

void parse_as(const fb::topo::SourceText& source, std::string_view format_name) {
  try {
    const fb::topo::Graph graph = fb::topo::parse_topology(source, format_name);
    // Touch what a parser built, so that dangling indices surface under the sanitizers.
    for (const fb::topo::Link& link : graph.links()) {
      if (link.a >= graph.vertex_count() || link.b >= graph.vertex_count()) __builtin_trap();
    }
  } catch (const fb::InputError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fb::topo::SourceText source{"fuzz-input", std::string(reinterpret_cast<const char*>(data), size)};
  for (const fb::topo::TopologyFormat& format : fb::topo::TopologyFormatRegistry::instance().entries())
    parse_as(source, format.name);
  parse_as(source, "auto");
  return 0;
}
