// `rocm-smi --showtopo` (AMD Instinct GPUs): the tables it prints one after the other, each under
// a "=== title ===" banner, and the GPUs' NUMA nodes. `--showtopoweight`, `--showtopohops`,
// `--showtopotype` and `--showtoponuma` print one of them each; any subset is read.
//
//   ================================ Weight between two GPUs =================================
//          GPU0         GPU1
//   GPU0   0            15
//   =============================== Link Type between two GPUs ===============================
//   GPU0   0            XGMI
//   ======================================= Numa Nodes =======================================
//   GPU[0]          : (Topology) Numa Node: 0
//
// Which pairs are joined directly by xGMI: the link type says xGMI, and the weight is one xGMI
// hop (the driver counts 15 per hop; AMD's amd-smi documentation). The hops table is not used for
// that: rocm-smi reports 1 for every xGMI pair, direct or not (hwloc issue #775). Pairs of type
// PCIE reach each other through their CPUs. The tables name no GPU model, and the xGMI rate
// differs between MI300X (64 GB/s per link and direction) and MI250X (50): unless a model is named
// in the file (`rocm-smi --showproductname` pasted above), the rate is undecided and said so.
// PCIe widths, and the count of links per pair, are not in the output either: assumed and stated.

#include "topology/format_registry.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fb::topo {
namespace {

// One GPU-by-GPU table: cells[i][j] as printed.
struct Table {
  std::size_t line = 0;
  std::vector<std::vector<std::string>> cells;
};

struct Tables {
  std::optional<Table> weight;
  std::optional<Table> link_type;
  std::map<int, int> numa;  // GPU -> NUMA node, as stated
  std::size_t gpu_count = 0;
};

std::optional<int> gpu_ordinal(std::string_view token) {
  if (!token.starts_with("GPU")) return std::nullopt;
  const std::optional<std::int64_t> value = to_integer(token.substr(3));
  if (!value || *value < 0 || *value > 4096) return std::nullopt;
  return static_cast<int>(*value);
}

// "GPU[3]          : (Topology) Numa Node: 1" (older releases: "GPU 3          : ...").
void read_numa_line(const SourceText& source, const NumberedLine& line, std::string_view text, Tables& tables) {
  constexpr std::string_view key = "(Topology) Numa Node:";
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos) return;
  const std::size_t open = text.find_first_of("[ ", 3);
  const std::size_t close = text.find_first_of("] :", open + 1);
  // -1 until read: a GPU index is never negative (a NUMA node of -1 means none, and is kept).
  std::int64_t gpu = -1;
  if (open != std::string_view::npos && close != std::string_view::npos) {
    gpu = to_integer(trim(text.substr(open + 1, close - open - 1))).value_or(-1);
  }
  const std::optional<std::int64_t> node = to_integer(trim(text.substr(at + key.size())));
  if (gpu < 0 || gpu > 4096 || !node) {
    throw_input_error(source.path, line.number, "\"GPU[N] : (Topology) Numa Node: M\"", quote_input(text));
  }
  tables.numa[static_cast<int>(gpu)] = static_cast<int>(std::clamp<std::int64_t>(*node, -1, 1 << 20));
}

// A table row "GPU3   15   0   15 ..." into `table`; the header line ("GPU0 GPU1 ...") is skipped.
void read_table_row(const SourceText& source, const NumberedLine& line, std::string_view text,
                    const std::string& section, Table& table) {
  const std::vector<std::string_view> tokens = split_whitespace(text);
  const std::optional<int> row = gpu_ordinal(tokens.front());
  if (!row || tokens.size() < 2 || gpu_ordinal(tokens[1])) return;
  if (static_cast<std::size_t>(*row) != table.cells.size()) {
    throw_input_error(source.path, line.number, fmt::format("row GPU{} of the {} table", table.cells.size(), section),
                      quote_input(tokens.front()));
  }
  table.cells.emplace_back(tokens.begin() + 1, tokens.end());
}

// Every table square, and all of one size: that size is the GPU count.
void check_table_shapes(const SourceText& source, Tables& tables) {
  for (std::optional<Table>* table : {&tables.weight, &tables.link_type}) {
    // A banner with no rows under it (a cut paste) is no table: the other table or the NUMA lines
    // may still size the GPUs, and an empty one must not be read at their indices.
    if (*table && (*table)->cells.empty()) table->reset();
    if (!*table) continue;
    const std::size_t n = (*table)->cells.size();
    for (std::size_t r = 0; r < n; ++r) {
      if ((*table)->cells[r].size() != n) {
        throw_input_error(source.path, (*table)->line, fmt::format("{} cells in row GPU{} of a {}-GPU table", n, r, n),
                          fmt::format("{}", (*table)->cells[r].size()));
      }
    }
    if (tables.gpu_count != 0 && tables.gpu_count != n) {
      throw_input_error(source.path, (*table)->line, fmt::format("the {} GPUs of the table above", tables.gpu_count),
                        fmt::format("{} GPUs", n));
    }
    tables.gpu_count = n;
  }
  if (tables.gpu_count == 0 && !tables.numa.empty()) {
    tables.gpu_count = static_cast<std::size_t>(tables.numa.rbegin()->first) + 1;
  }
}

Tables read_tables(const SourceText& source) {
  Tables tables;
  std::string section;
  std::optional<Table>* current = nullptr;
  for (const NumberedLine& line : split_lines(source.text)) {
    const std::string_view text = trim(line.text);
    if (text.starts_with("=")) {
      // A rule of '=' alone (no title) has no first other character: it opens an untitled section.
      const std::string_view title = trim(text.substr(std::min(text.find_first_not_of('='), text.size())));
      section = std::string(trim(title.substr(0, title.find('='))));
      current = section.starts_with("Weight")      ? &tables.weight
                : section.starts_with("Link Type") ? &tables.link_type
                                                   : nullptr;
      if (current != nullptr) *current = Table{line.number, {}};
    } else if (section == "Numa Nodes" && text.starts_with("GPU")) {
      read_numa_line(source, line, text, tables);
    } else if (current != nullptr && !text.empty()) {
      read_table_row(source, line, text, section, **current);
    }
  }
  check_table_shapes(source, tables);
  return tables;
}

// The weight the driver gives one xGMI hop.
constexpr int one_xgmi_hop_weight = 15;

// Each GPU on the CPU of its NUMA node over nominal PCIe; the CPUs joined by nominal SMP links.
std::vector<VertexId> add_gpus(Graph& graph, VertexId host, const std::string& host_name, const Tables& tables,
                               std::vector<std::string>& assumptions) {
  std::map<int, VertexId> cpu_of_numa;
  std::vector<VertexId> gpus(tables.gpu_count);
  std::size_t without_numa = 0;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    gpus[g] = graph.add_vertex(VertexKind::gpu, fmt::format("{}/GPU{}", host_name, g), host, static_cast<int>(g));
    const auto stated = tables.numa.find(static_cast<int>(g));
    const bool known = stated != tables.numa.end() && stated->second >= 0;
    const int numa = known ? stated->second : 0;
    without_numa += known ? 0 : 1;
    auto [cpu, inserted] = cpu_of_numa.try_emplace(numa, no_vertex);
    if (inserted) cpu->second = graph.add_vertex(VertexKind::cpu, fmt::format("{}/CPU{}", host_name, numa), host, numa);
    graph.add_link(gpus[g], cpu->second, *pcie_by_generation(4, 16), true);
  }
  if (without_numa > 0) {
    assumptions.push_back(fmt::format("{} GPU(s) with no NUMA node stated (no Numa Nodes table, or -1): placed on NUMA "
                                      "node 0",
                                      without_numa));
  }
  std::vector<VertexId> cpus;
  for (const auto& [numa, cpu] : cpu_of_numa) cpus.push_back(cpu);
  for (std::size_t a = 0; a < cpus.size(); ++a) {
    for (std::size_t b = a + 1; b < cpus.size(); ++b) graph.add_link(cpus[a], cpus[b], smp_link("", 0), true);
  }
  if (cpus.size() > 1) assumptions.push_back("the CPU model is not in the file: links between NUMA nodes are nominal");
  return gpus;
}

// The pairs joined directly by xGMI: by link type where printed, else by a weight of one xGMI hop.
std::vector<std::pair<std::size_t, std::size_t>> direct_xgmi_pairs(const Tables& tables,
                                                                   std::vector<std::string>& assumptions) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::size_t indirect = 0;
  for (std::size_t a = 0; a < tables.gpu_count; ++a) {
    for (std::size_t b = a + 1; b < tables.gpu_count; ++b) {
      // 0: no weight table, or a cell that is not a number.
      const std::int64_t weight = tables.weight ? to_integer(tables.weight->cells[a][b]).value_or(0) : 0;
      const bool is_xgmi = tables.link_type ? tables.link_type->cells[a][b] == "XGMI" : weight == one_xgmi_hop_weight;
      if (!is_xgmi) continue;
      if (weight != 0 && weight != one_xgmi_hop_weight) {
        ++indirect;  // xGMI through another GPU: its links carry it
      } else {
        pairs.emplace_back(a, b);
      }
    }
  }
  if (!tables.link_type && tables.weight) {
    assumptions.push_back("no Link Type table: pairs of weight 15 (one xGMI hop) taken as xGMI, the rest as PCIe");
  }
  if (tables.link_type && !tables.weight && !pairs.empty()) {
    assumptions.push_back("no Weight table: every XGMI pair taken as one direct link (the weight tells a direct link "
                          "from a path through another GPU)");
  }
  if (indirect > 0) {
    assumptions.push_back(fmt::format("{} XGMI pair(s) weigh more than one xGMI hop: reached through another GPU, no "
                                      "link of their own",
                                      indirect));
  }
  return pairs;
}

// One xGMI link per pair, at the rate of a GPU model named in the file, else undecided.
void add_xgmi_links(Graph& graph, const SourceText& source, const std::vector<VertexId>& gpus,
                    const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                    std::vector<std::string>& assumptions) {
  if (pairs.empty()) return;
  const std::optional<std::string_view> family = xgmi_family_of_gpu_model(source.text);
  const LinkSpec spec = *xgmi_link(family.value_or("MI250X"));
  std::string undecided;
  if (family) {
    assumptions.push_back(fmt::format("xGMI links read at the {} rate, from the GPU model named in the file", *family));
  } else {
    undecided = fmt::format(
        "{}: an xGMI link is {:.0f} GB/s per direction on MI300X, MI325X and MI308X, {:.0f} GB/s on MI250X, MI250 "
        "and MI210, and rocm-smi --showtopo names no GPU model: undecided (paste rocm-smi --showproductname above "
        "the tables to state it)",
        source.path, xgmi_link("MI300X")->capacity_gbps, spec.capacity_gbps);
    assumptions.push_back(undecided +
                          "; modelled at the lower rate, and expectations that depend on it withheld (n/a)");
  }
  assumptions.push_back("rocm-smi states no count of xGMI links per pair: each directly joined pair taken as one link");
  for (const auto& [a, b] : pairs) {
    const LinkId l = graph.add_link(gpus[a], gpus[b], spec);
    if (!undecided.empty()) graph.mark_undecided(l, undecided);
  }
}

Graph parse_rocm_smi_topo(const SourceText& source) {
  const Tables tables = read_tables(source);
  if (tables.gpu_count == 0) {
    throw_input_error(source.path, 1, "a \"Weight\", \"Link Type\" or \"Numa Nodes\" table of rocm-smi --showtopo",
                      "none");
  }
  std::vector<std::string> assumptions;
  const std::string host_name = host_name_from_path(source.path);
  Graph graph;
  const VertexId host = graph.add_vertex(VertexKind::host, host_name);
  const std::vector<VertexId> gpus = add_gpus(graph, host, host_name, tables, assumptions);
  add_xgmi_links(graph, source, gpus, direct_xgmi_pairs(tables, assumptions), assumptions);
  assumptions.push_back("PCIe widths and rates are not in the file: PCIe links are nominal Gen4 x16");
  for (const std::string& assumption : assumptions) {
    graph.add_assumption(fmt::format("{}: {}", source.path, assumption));
  }
  return graph;
}

// The banners are rocm-smi's own; nvidia-smi's matrix has none of them.
int sniff_rocm_smi_topo(std::string_view text) {
  const std::string_view head = text.substr(0, 16384);
  if (head.find(" between two GPUs ") != std::string_view::npos) return 98;
  if (head.find("(Topology) Numa Node:") != std::string_view::npos) return 95;
  return 0;
}

const Registrar<TopologyFormat> registrar{
    {"rocm-smi", "rocm-smi --showtopo (or --showtopoweight/--showtopotype/--showtoponuma): AMD GPUs, xGMI links, NUMA",
     sniff_rocm_smi_topo, parse_rocm_smi_topo}};

}  // namespace
}  // namespace fb::topo
