#pragma once
// Topology input formats register themselves here, one source file each (topology/formats/).
// Adding a format is adding a file: nothing central lists them.

#include "common/registry.hpp"
#include "topology/graph.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fb::topo {

// What the user states about the machines that a format cannot carry (`--nvlink-gen`).
struct ReaderHints {
  std::optional<int> nvlink_generation;  // NV# in nvidia-smi topo -m counts links of this generation
};

// An input file's text and the path it came from (for messages, and as the host name for
// single-machine formats that do not name their host).
struct SourceText {
  SourceText() = default;
  SourceText(std::string path_, std::string text_, ReaderHints hints_ = {})
      : path(std::move(path_)), text(std::move(text_)), hints(hints_) {}

  std::string path;
  std::string text;
  ReaderHints hints;
};

struct TopologyFormat {
  static constexpr std::string_view registry_kind = "topology format";
  std::string name;  // what --format takes: "nvidia-smi", "nccl-xml", ...
  std::string summary;
  // How sure the format is that `text` is its own, 0 (not mine) to 100 (certainly mine).
  std::function<int(std::string_view text)> sniff;
  // Throws fb::InputError "FILE:LINE: expected ..., got ..." on malformed input.
  std::function<Graph(const SourceText& source)> parse;
};

// Filled by a Registrar<TopologyFormat> in each format's file. Its name order breaks ties between
// equally sure sniffs.
using TopologyFormatRegistry = Registry<TopologyFormat>;

// The named format, or ("auto") the format whose sniff is most certain of `source`, sniffed with
// its framing peeled (common/text_framing.hpp).
const TopologyFormat& resolve_topology_format(const SourceText& source, std::string_view format_name = "auto");

// Parses with the named format, or ("auto") with the format whose sniff is most certain. What
// wrapped the file (a prompt, quoting, timestamps, CRLF, ...) is peeled first and recorded once as
// an assumption on the graph; errors name the file's own lines.
Graph parse_topology(const SourceText& source, std::string_view format_name = "auto");

// The text of a topology file; InputError when it cannot be read.
SourceText read_topology_source(const std::string& path, const ReaderHints& hints = {});

// Reads and parses each file and merges them into one graph, in order.
Graph load_topology(const std::vector<std::string>& paths, std::string_view format_name = "auto",
                    const ReaderHints& hints = {});

// "/data/dgx01.topo.txt" -> "dgx01": the host name single-machine inputs take from their file.
std::string host_name_from_path(std::string_view path);

}  // namespace fb::topo
