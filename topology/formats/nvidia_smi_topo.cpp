// `nvidia-smi topo -m`: a matrix of how each pair of GPUs and NICs is connected.
//
//         GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID
//   GPU0   X      NV18    PIX     0-55,112-167    0               N/A
//   GPU1  NV18     X      NODE    0-55,112-167    0               N/A
//   NIC0  PIX     NODE     X
//
//   NIC Legend:
//     NIC0: mlx5_0
//
// The matrix states relations, not wiring, so the graph is the simplest wiring that produces
// them: devices related by PIX or PXB share a PCIe switch; a switch (or a lone device) hangs off
// the CPU of its NUMA node; NUMA nodes are joined by SMP links; NV# is a bond of # NVLinks, and
// GPUs that are all NV#-connected to each other sit on an NVSwitch. The matrix gives no PCIe
// widths, no CPU model and no NVLink generation: what is assumed for them (and for a NUMA node the
// file does not state) is recorded on the graph. The host is named after the file.

#include "topology/format_registry.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace fb::topo {
namespace {

enum class Relation { self, sys, node, phb, pxb, pix, nvlink };

struct Cell {
  Relation relation = Relation::sys;
  int nvlink_count = 0;
};

std::optional<Cell> parse_cell(std::string_view token) {
  if (token == "X") return Cell{Relation::self, 0};
  if (token == "SYS" || token == "SOC") return Cell{Relation::sys, 0};
  if (token == "NODE") return Cell{Relation::node, 0};
  if (token == "PHB") return Cell{Relation::phb, 0};
  if (token == "PXB") return Cell{Relation::pxb, 0};
  if (token == "PIX") return Cell{Relation::pix, 0};
  if (!token.starts_with("NV")) return std::nullopt;
  if (const std::optional<std::int64_t> count = to_integer(token.substr(2)); count && *count >= 1 && *count <= 64) {
    return Cell{Relation::nvlink, static_cast<int>(*count)};
  }
  return std::nullopt;
}

// The header names the devices (GPU#, NIC# with a legend below, or, from older drivers, the NIC
// device itself: mlx5_0) and then the affinity columns, which start with "CPU Affinity".
bool is_affinity_label(std::string_view token) { return token == "CPU"; }

struct Matrix {
  std::vector<std::string> devices;           // column order
  std::vector<std::vector<Cell>> cells;       // [row][column]
  std::vector<std::optional<int>> numa_node;  // GPU rows with a NUMA Affinity value
  std::vector<std::string> cpu_affinity;      // GPU rows: the CPU list, empty when blank
  std::vector<std::size_t> row_line;          // each device row's line in the file
  std::map<std::string, std::string> nic_names;
  // GPUs whose NUMA Affinity lists several nodes, and the first such cell with its line.
  std::vector<std::string> listed_numa_gpus;
  std::string first_numa_list;
};

// A NUMA Affinity cell: "0", or a list of nodes and ranges ("0,3-9,11-17": GB200 lists the GPU's
// own memory nodes with its CPU's). The nodes in increasing order; empty when the cell is not one.
std::vector<int> numa_nodes_of(std::string_view cell) {
  constexpr std::int64_t most_nodes = 1024;
  std::set<int> nodes;
  for (const std::string_view item : split_fields(cell, ',')) {
    const std::size_t dash = item.find('-');
    const std::optional<std::int64_t> first = to_integer(item.substr(0, dash));
    const std::optional<std::int64_t> last = dash == std::string_view::npos ? first : to_integer(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last >= most_nodes) return {};
    for (std::int64_t node = *first; node <= *last; ++node) nodes.insert(static_cast<int>(node));
  }
  return {nodes.begin(), nodes.end()};
}

// The header's affinity labels, in order: "CPU Affinity", "NUMA Affinity", "GPU NUMA ID".
std::vector<std::string> affinity_labels(const std::vector<std::string_view>& tokens, std::size_t first) {
  std::vector<std::string> labels;
  for (std::size_t t = first; t < tokens.size(); ++t) {
    if (tokens[t] == "Affinity" || tokens[t] == "ID") {
      if (!labels.empty()) labels.back() += " " + std::string(tokens[t]);
    } else if (!labels.empty() && labels.back() == "GPU") {
      labels.back() += " " + std::string(tokens[t]);  // "GPU NUMA ID"
    } else {
      labels.emplace_back(tokens[t]);
    }
  }
  return labels;
}

// Each row's affinity cells. nvidia-smi writes tab-separated columns with a blank cell where a GPU
// has no CPU affinity, so with tabs the cells are positional. A paste from a terminal has spaces
// instead, and a blank cell leaves no token: the values present are then the last columns (the
// CPU list is the one nvidia-smi leaves blank; the NUMA columns always hold a value or N/A).
std::vector<std::string_view> affinity_cells(std::string_view row_text, bool tab_separated, std::size_t device_count,
                                             std::size_t label_count) {
  std::vector<std::string_view> cells;
  if (tab_separated) {
    const std::vector<std::string_view> fields = split_fields(row_text, '\t');
    for (std::size_t f = 1 + device_count; f < fields.size() && cells.size() < label_count; ++f)
      cells.push_back(fields[f]);
  } else {
    const std::vector<std::string_view> tokens = split_whitespace(row_text);
    for (std::size_t t = 1 + device_count; t < tokens.size(); ++t) cells.push_back(tokens[t]);
    if (cells.size() > label_count) cells.resize(label_count);
    cells.insert(cells.begin(), label_count - cells.size(), std::string_view{});
  }
  cells.resize(label_count);
  return cells;
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): finds the matrix among pasted prompts and legends and reads every cell with its line; the layout variants of nvidia-smi versions are in one place
Matrix read_matrix(const SourceText& source, const std::string& text) {
  Matrix matrix;
  const std::vector<NumberedLine> lines = split_lines(text);
  // Pastes often carry the prompt or `nvidia-smi -L` lines above the matrix.
  const auto starts_with_gpu0 = [](std::string_view line) {
    const std::vector<std::string_view> tokens = split_whitespace(line);
    return !tokens.empty() && tokens.front() == "GPU0";
  };
  std::size_t i = 0;
  while (i < lines.size() && !starts_with_gpu0(lines[i].text)) ++i;
  if (i == lines.size()) {
    throw_input_error(source.path, lines.empty() ? 1 : lines.back().number, "a header row naming GPU0, GPU1, ...",
                      "none");
  }
  const NumberedLine& header = lines[i];
  const bool tab_separated = header.text.find('\t') != std::string_view::npos;
  const std::vector<std::string_view> header_tokens = split_whitespace(header.text);
  std::set<std::string_view> device_names;
  std::size_t t = 0;
  for (; t < header_tokens.size() && !is_affinity_label(header_tokens[t]); ++t) {
    const std::string_view name = header_tokens[t];
    if (name.find('/') != std::string_view::npos || !device_names.insert(name).second) {
      throw_input_error(source.path, header.number, "distinct device names in the header", quote_input(name));
    }
    matrix.devices.emplace_back(name);
  }
  const std::vector<std::string> labels = affinity_labels(header_tokens, t);
  const auto label_index = [&](std::string_view label) -> std::optional<std::size_t> {
    const auto found = std::find(labels.begin(), labels.end(), label);
    return found == labels.end() ? std::nullopt : std::optional<std::size_t>(found - labels.begin());
  };
  const std::optional<std::size_t> cpu_column = label_index("CPU Affinity");
  const std::optional<std::size_t> numa_column = label_index("NUMA Affinity");
  const std::size_t device_count = matrix.devices.size();
  for (++i; i < lines.size(); ++i) {
    const std::string_view row_text = lines[i].text;
    if (trim(row_text).empty() || trim(row_text).starts_with("Legend")) break;
    const std::vector<std::string_view> fields = split_whitespace(row_text);
    const std::size_t row = matrix.cells.size();
    if (row >= device_count || fields.empty() || fields[0] != matrix.devices[row]) {
      throw_input_error(source.path, lines[i].number,
                        row < device_count ? "the row of " + matrix.devices[row] : std::string("no more device rows"),
                        quote_input(fields.empty() ? row_text : fields[0]));
    }
    if (fields.size() < 1 + device_count) {
      throw_input_error(source.path, lines[i].number, fmt::format("{} relation columns", device_count),
                        fmt::format("{}", fields.size() - 1));
    }
    std::vector<Cell> cells;
    for (std::size_t c = 0; c < device_count; ++c) {
      const std::optional<Cell> cell = parse_cell(fields[1 + c]);
      if (!cell || (cell->relation == Relation::self) != (c == row)) {
        throw_input_error(source.path, lines[i].number,
                          fmt::format("a link token (X on the diagonal; SYS, NODE, PHB, PXB, PIX or NV#) for {}",
                                      matrix.devices[c]),
                          quote_input(fields[1 + c]));
      }
      cells.push_back(*cell);
    }
    const std::vector<std::string_view> affinity = affinity_cells(row_text, tab_separated, device_count, labels.size());
    std::optional<int> numa;
    if (numa_column && matrix.devices[row].starts_with("GPU")) {
      const std::string_view numa_text = affinity[*numa_column];
      if (const std::vector<int> nodes = numa_nodes_of(numa_text); !nodes.empty()) {
        // The CPU's node comes first: Grace numbers its CPU nodes before the GPUs' memory nodes.
        numa = nodes.front();
        if (nodes.size() > 1) {
          if (matrix.listed_numa_gpus.empty())
            matrix.first_numa_list = fmt::format("{} on line {}", quote_input(numa_text), lines[i].number);
          matrix.listed_numa_gpus.push_back(matrix.devices[row]);
        }
      } else if (numa_text != "N/A" && !numa_text.empty()) {
        throw_input_error(source.path, lines[i].number, "a NUMA node id, a list of them (0,3-9) or N/A",
                          quote_input(numa_text));
      }
    }
    matrix.cells.push_back(std::move(cells));
    matrix.numa_node.push_back(numa);
    matrix.row_line.push_back(lines[i].number);
    matrix.cpu_affinity.emplace_back(cpu_column && matrix.devices[row].starts_with("GPU") ? affinity[*cpu_column] : "");
  }
  if (matrix.cells.size() != device_count) {
    throw_input_error(source.path, i < lines.size() ? lines[i].number : lines.back().number,
                      fmt::format("{} device rows", device_count), fmt::format("{}", matrix.cells.size()));
  }
  for (std::size_t r = 0; r < device_count; ++r) {
    for (std::size_t c = 0; c < device_count; ++c) {
      const Cell& a = matrix.cells[r][c];
      const Cell& b = matrix.cells[c][r];
      if (a.relation != b.relation || a.nvlink_count != b.nvlink_count) {
        throw_input_error(source.path, header.number + 1 + r,
                          fmt::format("the same relation as {}'s row for {}", matrix.devices[c], matrix.devices[r]),
                          "a different one");
      }
    }
  }
  for (; i < lines.size(); ++i) {
    const std::string_view legend = trim(lines[i].text);
    const std::size_t colon = legend.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string label(legend.substr(0, colon));
    if (!label.starts_with("NIC") || !device_names.contains(label)) { continue; }
    const std::string_view name = trim(legend.substr(colon + 1));
    if (name.empty() || name.find('/') != std::string_view::npos) {
      throw_input_error(source.path, lines[i].number, "a NIC device name", quote_input(name));
    }
    matrix.nic_names[label] = name;
  }
  return matrix;
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

bool same_numa_relation(Relation relation) {
  return relation == Relation::node || relation == Relation::phb || relation == Relation::pxb ||
         relation == Relation::pix;
}

// How near a same-NUMA relation is: PIX nearest, NODE farthest.
int nearness(Relation relation) {
  switch (relation) {
    case Relation::pix: return 4;
    case Relation::pxb: return 3;
    case Relation::phb: return 2;
    case Relation::node: return 1;
    default: return 0;
  }
}

std::string_view relation_name(Relation relation) {
  switch (relation) {
    case Relation::pix: return "PIX";
    case Relation::pxb: return "PXB";
    case Relation::phb: return "PHB";
    case Relation::node: return "NODE";
    default: return "SYS";
  }
}

// The NUMA node of a device without one (a NIC) in a group the matrix puts on one NUMA node. The
// GPUs it is related to directly agree: their node. They do not (the matrix puts it with GPUs the
// NUMA Affinity column puts on different nodes, a contradiction): the node of its nearest GPU (PIX
// before PXB, PHB, NODE), or with no nearest one the lowest of theirs. It reaches GPUs only
// through other devices: the lowest of the group's nodes, `stated`. The last two are said in
// `assumptions` with the device's line.
int numa_of_group_member(const Matrix& matrix, std::size_t device, const std::set<int>& stated,
                         std::vector<std::string>& assumptions) {
  int best = 0;
  std::set<int> direct;
  std::set<int> nodes_at_best;
  std::string related;
  for (std::size_t other = 0; other < matrix.devices.size(); ++other) {
    const Relation relation = matrix.cells[device][other].relation;
    if (!matrix.numa_node[other] || !same_numa_relation(relation)) continue;
    const int node = *matrix.numa_node[other];
    direct.insert(node);
    related += fmt::format("{}{} to {} (NUMA {})", related.empty() ? "" : ", ", relation_name(relation),
                           matrix.devices[other], node);
    if (nearness(relation) > best) {
      best = nearness(relation);
      nodes_at_best.clear();
    }
    if (nearness(relation) == best) nodes_at_best.insert(node);
  }
  if (direct.size() == 1) return *direct.begin();
  if (direct.empty()) {
    assumptions.push_back(fmt::format("line {}: {} reaches GPUs of NUMA nodes {} only through other devices: placed "
                                      "on NUMA {}, the lowest",
                                      matrix.row_line[device], matrix.devices[device], fmt::join(stated, ", "),
                                      *stated.begin()));
    return *stated.begin();
  }
  const int chosen = *nodes_at_best.begin();
  assumptions.push_back(fmt::format(
      "line {}: the matrix puts {} on one NUMA node with GPUs the NUMA Affinity column puts on different nodes ({}): "
      "the two contradict each other; placed on NUMA {}, {}",
      matrix.row_line[device], matrix.devices[device], related, chosen,
      nodes_at_best.size() == 1 ? "the node of its nearest GPU" : "the lowest: no GPU is nearer than the others"));
  return chosen;
}

// GPUs the matrix relates as on one NUMA node (NODE, PHB, PXB, PIX) while their NUMA Affinity
// names different nodes: each stays on its stated node, and the contradiction is said with its line.
void report_gpus_on_two_nodes(const Matrix& matrix, std::vector<std::string>& assumptions) {
  for (std::size_t a = 0; a < matrix.devices.size(); ++a) {
    for (std::size_t b = a + 1; b < matrix.devices.size(); ++b) {
      const Relation relation = matrix.cells[a][b].relation;
      if (!matrix.numa_node[a] || !matrix.numa_node[b] || !same_numa_relation(relation) ||
          *matrix.numa_node[a] == *matrix.numa_node[b])
        continue;
      assumptions.push_back(fmt::format(
          "line {}: the matrix relates {} and {} as {} (one NUMA node) but the NUMA Affinity column puts them on "
          "nodes {} and {}: each kept on its stated node",
          matrix.row_line[a], matrix.devices[a], matrix.devices[b], relation_name(relation), *matrix.numa_node[a],
          *matrix.numa_node[b]));
    }
  }
}

// Where each device's CPU is: a NUMA node id, or (for a group of devices SYS to every GPU whose
// NUMA node is known) an ordinal among such remote groups, whose NUMA node the file does not give.
struct Placement {
  std::vector<int> numa;          // per device; -1 for remote groups
  std::vector<int> remote_group;  // per device; -1 unless remote
  int remote_group_count = 0;
  std::vector<std::string> assumptions;
};

// NOLINTNEXTLINE(readability-function-cognitive-complexity): union-find over the NUMA relations, then one placement per device kind; the relations are read once for all
Placement place_devices(const Matrix& matrix, const std::vector<bool>& is_gpu) {
  const std::size_t n = matrix.devices.size();
  // Devices related by NODE/PHB/PXB/PIX share a NUMA node, and so do GPUs with one CPU list.
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = r + 1; c < n; ++c) {
      const bool same_cpus =
          is_gpu[r] && is_gpu[c] && !matrix.cpu_affinity[r].empty() && matrix.cpu_affinity[r] == matrix.cpu_affinity[c];
      if (same_numa_relation(matrix.cells[r][c].relation) || same_cpus)
        parent[find_root(parent, c)] = find_root(parent, r);
    }
  }
  Placement placement{std::vector<int>(n, -1), std::vector<int>(n, -1), 0, {}};
  std::map<std::size_t, std::set<int>> stated_of_root;
  for (std::size_t d = 0; d < n; ++d) {
    if (matrix.numa_node[d]) {
      placement.numa[d] = *matrix.numa_node[d];
      stated_of_root[find_root(parent, d)].insert(*matrix.numa_node[d]);
    }
  }
  if (!stated_of_root.empty()) {
    std::vector<std::string> remote_names;
    std::map<std::size_t, int> remote_of_root;
    for (std::size_t d = 0; d < n; ++d) {
      if (placement.numa[d] >= 0) continue;
      const std::size_t root = find_root(parent, d);
      if (const auto stated = stated_of_root.find(root); stated != stated_of_root.end()) {
        placement.numa[d] = stated->second.size() == 1
                                ? *stated->second.begin()
                                : numa_of_group_member(matrix, d, stated->second, placement.assumptions);
        continue;
      }
      const auto [group, inserted] = remote_of_root.try_emplace(root, static_cast<int>(remote_of_root.size()));
      placement.remote_group[d] = group->second;
      remote_names.push_back(matrix.devices[d]);
    }
    placement.remote_group_count = static_cast<int>(remote_of_root.size());
    if (!remote_names.empty()) {
      std::string names;
      for (const std::string& name : remote_names) names += (names.empty() ? "" : ", ") + name;
      placement.assumptions.push_back(fmt::format(
          "{} SYS to every GPU: their NUMA node is not in the file; placed on {} CPU(s) of unknown NUMA node", names,
          placement.remote_group_count));
    }
    report_gpus_on_two_nodes(matrix, placement.assumptions);
    return placement;
  }
  // No NUMA column (older drivers) or N/A throughout: groups of devices become NUMA nodes, joined
  // while nothing separates them (a SYS relation, or GPUs with different CPU lists).
  std::vector<std::vector<std::size_t>> numa_groups;
  std::map<std::size_t, std::size_t> group_of_root;
  const auto separated = [&](std::size_t a, std::size_t b) {
    const bool different_cpus = is_gpu[a] && is_gpu[b] && !matrix.cpu_affinity[a].empty() &&
                                !matrix.cpu_affinity[b].empty() && matrix.cpu_affinity[a] != matrix.cpu_affinity[b];
    return matrix.cells[a][b].relation == Relation::sys || different_cpus;
  };
  std::vector<std::vector<std::size_t>> components;
  std::map<std::size_t, std::size_t> component_of_root;
  for (std::size_t d = 0; d < n; ++d) {
    const auto [it, inserted] = component_of_root.try_emplace(find_root(parent, d), components.size());
    if (inserted) components.emplace_back();
    components[it->second].push_back(d);
  }
  for (const std::vector<std::size_t>& component : components) {
    auto fits = [&](const std::vector<std::size_t>& group) {
      for (const std::size_t a : group) {
        for (const std::size_t b : component) {
          if (separated(a, b)) return false;
        }
      }
      return true;
    };
    const auto group = std::find_if(numa_groups.begin(), numa_groups.end(), fits);
    if (group == numa_groups.end()) {
      numa_groups.push_back(component);
    } else {
      group->insert(group->end(), component.begin(), component.end());
    }
  }
  for (std::size_t g = 0; g < numa_groups.size(); ++g) {
    for (const std::size_t d : numa_groups[g]) placement.numa[d] = static_cast<int>(g);
  }
  placement.assumptions.push_back(fmt::format(
      "no NUMA node stated (no NUMA Affinity column, or N/A): {} NUMA node(s) numbered from 0 in device order, "
      "told apart by SYS relations and CPU affinity lists",
      numa_groups.size()));
  return placement;
}

// The generation NV# counts: as the user stated it, else from a GPU model named in the file (an
// `nvidia-smi -L` pasted above the matrix), else from the most NVLinks one GPU has: P100 has 4,
// V100 6, A100 12, H100 18. Blackwell (B200, B300, GB200) also has 18, at twice the rate, and is
// told apart only by its model: with 13 to 18 links and nothing naming it, the generation is
// undecided between NVLink4 and NVLink5, and `undecided` says so.
struct NvlinkGeneration {
  int generation = 0;
  std::string undecided;  // empty when stated or read from a GPU model
};

NvlinkGeneration nvlink_generation(const SourceText& source, const std::string& text, int most_links_per_gpu,
                                   std::vector<std::string>& assumptions) {
  if (source.hints.nvlink_generation) return {*source.hints.nvlink_generation, ""};
  if (const std::optional<int> from_model = nvlink_generation_of_gpu_model(text)) {
    assumptions.push_back(fmt::format("NV# read as NVLink{} links, from the GPU model named in the file "
                                      "(state another with --nvlink-gen)",
                                      *from_model));
    return {*from_model, ""};
  }
  const int generation = most_links_per_gpu <= 4 ? 1 : most_links_per_gpu <= 6 ? 2 : most_links_per_gpu <= 12 ? 3 : 4;
  if (generation < 4) {
    assumptions.push_back(fmt::format(
        "NV# read as NVLink{} links: the file names no GPU model, and up to {} NVLinks per GPU fits NVLink{} "
        "(P100 has 4, V100 6, A100 12); state the generation with --nvlink-gen",
        generation, most_links_per_gpu, generation));
    return {generation, ""};
  }
  const LinkSpec four = *nvlink_by_generation(4, most_links_per_gpu);
  const LinkSpec five = *nvlink_by_generation(5, most_links_per_gpu);
  std::string undecided = fmt::format("NV{} is NVLink4 ({:.1f} GB/s per GPU: H100, H200, H800) or NVLink5 ({:.1f} "
                                      "GB/s: B200, B300, GB200), and the file "
                                      "names no GPU model: undecided, state it with --nvlink-gen 4 or 5",
                                      most_links_per_gpu, four.capacity_gbps, five.capacity_gbps);
  assumptions.push_back(fmt::format("{}; modelled at NVLink4's rate, and every expectation that depends on these "
                                    "links is withheld (n/a) until it is stated",
                                    undecided));
  return {generation, std::move(undecided)};
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): builds the graph from the matrix in nvidia-smi's own order (GPUs, NICs, NUMA, NVLink, PCIe relations); each relation's case is short and they share the vertices made before
Graph parse_nvidia_smi_topo(const SourceText& source) {
  // Terminal colours and other framing are peeled before a format reads (common/text_framing.hpp).
  const std::string& text = source.text;
  const Matrix matrix = read_matrix(source, text);
  const std::size_t n = matrix.devices.size();
  const std::string host_name = host_name_from_path(source.path);
  Graph graph;
  const VertexId host = graph.add_vertex(VertexKind::host, host_name);

  std::vector<VertexId> device(n);
  std::vector<bool> is_gpu(n);
  for (std::size_t d = 0; d < n; ++d) {
    const std::string& label = matrix.devices[d];
    std::optional<std::int64_t> ordinal;
    if (label.starts_with("GPU")) ordinal = to_integer(std::string_view(label).substr(3));
    is_gpu[d] = ordinal && *ordinal >= 0;
    const auto legend = matrix.nic_names.find(label);
    const std::string name = legend != matrix.nic_names.end() ? legend->second : label;
    if (!is_gpu[d]) {
      // NIC3 -> 3; an old header's mlx5_3 -> 3; a name without a trailing number has none.
      const std::size_t digits = label.find_last_not_of("0123456789") + 1;
      ordinal = digits == label.size() ? std::nullopt : to_integer(std::string_view(label).substr(digits));
    }
    device[d] = graph.add_vertex(is_gpu[d] ? VertexKind::gpu : VertexKind::nic, host_name + "/" + name, host,
                                 static_cast<int>(ordinal.value_or(-1)));
  }
  const Placement placement = place_devices(matrix, is_gpu);
  std::vector<std::string> assumptions = placement.assumptions;
  if (!matrix.listed_numa_gpus.empty()) {
    std::string names;
    for (const std::string& name : matrix.listed_numa_gpus) names += (names.empty() ? "" : ", ") + name;
    assumptions.push_back(fmt::format("the NUMA Affinity of {} lists several nodes (first: {}): each GPU is placed "
                                      "on the lowest node of its list, its CPU's (the others are GPU memory nodes)",
                                      names, matrix.first_numa_list));
  }
  std::map<int, VertexId> cpu_of_numa;
  std::vector<VertexId> remote_cpus;
  for (std::size_t d = 0; d < n; ++d) {
    if (placement.numa[d] >= 0 && !cpu_of_numa.contains(placement.numa[d])) {
      cpu_of_numa[placement.numa[d]] =
          graph.add_vertex(VertexKind::cpu, fmt::format("{}/CPU{}", host_name, placement.numa[d]), host,
                           placement.numa[d]);
    }
  }
  for (int g = 0; g < placement.remote_group_count; ++g) {
    remote_cpus.push_back(
        graph.add_vertex(VertexKind::cpu, fmt::format("{}/CPU-unknown-NUMA{}", host_name, g), host, -1));
  }
  const auto cpu_of = [&](std::size_t d) {
    return placement.remote_group[d] >= 0 ? remote_cpus[static_cast<std::size_t>(placement.remote_group[d])]
                                          : cpu_of_numa.at(placement.numa[d]);
  };
  std::vector<VertexId> cpus;
  for (const auto& [numa, cpu] : cpu_of_numa) cpus.push_back(cpu);
  cpus.insert(cpus.end(), remote_cpus.begin(), remote_cpus.end());
  const LinkSpec smp = smp_link("", 0);
  for (std::size_t a = 0; a < cpus.size(); ++a) {
    for (std::size_t b = a + 1; b < cpus.size(); ++b) graph.add_link(cpus[a], cpus[b], smp, true);
  }
  if (cpus.size() > 1) assumptions.push_back("the CPU model is not in the file: links between NUMA nodes are nominal");
  // PCIe switches: devices joined by PIX or PXB share one.
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = r + 1; c < n; ++c) {
      const Relation relation = matrix.cells[r][c].relation;
      if (relation == Relation::pix || relation == Relation::pxb) parent[find_root(parent, c)] = find_root(parent, r);
    }
  }
  const LinkSpec pcie = *pcie_by_generation(4, 16);
  std::vector<std::size_t> group_size(n, 0);
  for (std::size_t d = 0; d < n; ++d) ++group_size[find_root(parent, d)];
  std::map<std::size_t, VertexId> switch_of_root;
  for (std::size_t d = 0; d < n; ++d) {
    const std::size_t root = find_root(parent, d);
    if (group_size[root] == 1) {
      graph.add_link(device[d], cpu_of(d), pcie, true);
      continue;
    }
    auto [it, inserted] = switch_of_root.try_emplace(root, no_vertex);
    if (inserted) {
      const int ordinal = static_cast<int>(switch_of_root.size()) - 1;
      it->second =
          graph.add_vertex(VertexKind::pcie_switch, fmt::format("{}/PCIe{}", host_name, ordinal), host, ordinal);
      graph.add_link(it->second, cpu_of(root), pcie, true);
    }
    graph.add_link(device[d], it->second, pcie, true);
  }
  // NVLink: three or more GPUs that all reach each other, each pair by the narrower of the two
  // GPUs' widest bonds, are an NVSwitch system (no GPU has enough links for a full mesh of them);
  // each attaches to the switch by its widest bond. A GPU with no NV# at all (its links down)
  // stays off the switch rather than turning the others into a mesh. Anything else is direct
  // GPU-to-GPU bonds.
  std::vector<std::size_t> gpus;
  for (std::size_t d = 0; d < n; ++d) {
    if (is_gpu[d]) gpus.push_back(d);
  }
  std::vector<int> widest_bond(n, 0);
  std::vector<int> total_links(n, 0);
  std::vector<std::size_t> nvlinked_gpus;
  for (const std::size_t g : gpus) {
    for (const std::size_t peer : gpus) {
      widest_bond[g] = std::max(widest_bond[g], matrix.cells[g][peer].nvlink_count);
      total_links[g] += matrix.cells[g][peer].nvlink_count;
    }
    if (widest_bond[g] > 0) nvlinked_gpus.push_back(g);
  }
  bool on_nvswitch = nvlinked_gpus.size() >= 3;
  for (const std::size_t a : nvlinked_gpus) {
    for (const std::size_t b : nvlinked_gpus) {
      if (a != b && matrix.cells[a][b].nvlink_count != std::min(widest_bond[a], widest_bond[b])) on_nvswitch = false;
    }
  }
  std::string nvlink_undecided;
  if (!nvlinked_gpus.empty()) {
    int most_links_per_gpu = 0;
    for (const std::size_t g : nvlinked_gpus) {
      most_links_per_gpu = std::max(most_links_per_gpu, on_nvswitch ? widest_bond[g] : total_links[g]);
    }
    const NvlinkGeneration nvlink = nvlink_generation(source, text, most_links_per_gpu, assumptions);
    nvlink_undecided = nvlink.undecided;
    const auto bond = [&](int links) {
      const std::optional<LinkSpec> spec = nvlink_by_generation(nvlink.generation, links);
      if (!spec)
        throw_input_error(source.path, 1, "an NVLink generation from 1 to 5", fmt::format("{}", nvlink.generation));
      return *spec;
    };
    if (on_nvswitch) {
      const VertexId nvswitch = graph.add_vertex(VertexKind::nvswitch, host_name + "/NVSwitch", host, 0);
      for (const std::size_t g : nvlinked_gpus) graph.add_link(device[g], nvswitch, bond(widest_bond[g]));
    } else {
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        for (std::size_t j = i + 1; j < gpus.size(); ++j) {
          const int links = matrix.cells[gpus[i]][gpus[j]].nvlink_count;
          if (links > 0) graph.add_link(device[gpus[i]], device[gpus[j]], bond(links));
        }
      }
    }
  }
  if (!nvlink_undecided.empty()) {
    const std::string why = fmt::format("{}: {}", source.path, nvlink_undecided);
    for (LinkId l = 0; l < graph.link_count(); ++l) {
      if (graph.link(l).spec.type == LinkType::nvlink) graph.mark_undecided(l, why);
    }
  }
  assumptions.push_back("PCIe widths and rates are not in the file: PCIe links are nominal Gen4 x16");
  for (const std::string& assumption : assumptions)
    graph.add_assumption(fmt::format("{}: {}", source.path, assumption));
  return graph;
}

// The header may follow a prompt or `nvidia-smi -L` lines: the first line starting GPU0 decides.
int sniff_nvidia_smi_topo(std::string_view text) {
  for (const NumberedLine& line : split_lines(text.substr(0, 4096))) {
    const std::vector<std::string_view> tokens = split_whitespace(line.text);
    if (tokens.empty() || tokens.front() != "GPU0") continue;
    return tokens.size() == 1 || tokens[1] != "X" ? 90 : 0;
  }
  return 0;
}

const Registrar<TopologyFormat> registrar{
    {"nvidia-smi", "nvidia-smi topo -m matrix (GPUs, NICs, NV#/PIX/PXB/PHB/NODE/SYS, affinities)",
     sniff_nvidia_smi_topo, parse_nvidia_smi_topo}};

}  // namespace
}  // namespace fb::topo
