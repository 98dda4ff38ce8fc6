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
// the CPU of its NUMA node; NUMA nodes are joined by SMP links; NV# is a bond of # NVLink4 links,
// and GPUs that are all NV#-connected to each other sit on an NVSwitch. The matrix gives no
// PCIe widths: PCIe links are nominal Gen4 x16. The host is named after the file.

#include "topology/format_registry.hpp"
#include "topology/input_error.hpp"
#include "topology/text_scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

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
  long long count = 0;
  if (token.starts_with("NV") && parse_non_negative(token.substr(2), count) && count >= 1 && count <= 64) {
    return Cell{Relation::nvlink, static_cast<int>(count)};
  }
  return std::nullopt;
}

// nvidia-smi colours the header on a terminal; a captured file may keep the escapes.
std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

bool is_device_name(std::string_view name) {
  long long ordinal = 0;
  return (name.starts_with("GPU") && parse_non_negative(name.substr(3), ordinal)) ||
         (name.starts_with("NIC") && parse_non_negative(name.substr(3), ordinal)) || name.starts_with("mlx5_");
}

struct Matrix {
  std::vector<std::string> devices;           // column order
  std::vector<std::vector<Cell>> cells;       // [row][column]
  std::vector<std::optional<int>> numa_node;  // GPU rows with a NUMA Affinity value
  std::map<std::string, std::string> nic_names;
};

Matrix read_matrix(const SourceText& source, const std::string& text) {
  Matrix matrix;
  const std::vector<NumberedLine> lines = split_lines(text);
  std::size_t i = 0;
  while (i < lines.size() && trim(lines[i].text).empty()) ++i;
  if (i == lines.size()) throw_input_error(source.path, 1, "a header row starting with GPU0", "an empty file");
  const NumberedLine& header = lines[i];
  std::optional<std::size_t> numa_column;
  std::size_t column = 0;
  for (const std::string_view field : split_fields(header.text, '\t')) {
    if (field.empty()) continue;
    if (is_device_name(field)) {
      matrix.devices.emplace_back(field);
    } else if (field == "NUMA Affinity") {
      numa_column = column;
    }
    ++column;
  }
  if (matrix.devices.empty() || !matrix.devices.front().starts_with("GPU")) {
    throw_input_error(source.path, header.number, "a header row starting with GPU0", quote_input(header.text));
  }
  const std::size_t device_count = matrix.devices.size();
  for (++i; i < lines.size(); ++i) {
    const std::string_view row_text = lines[i].text;
    if (trim(row_text).empty() || trim(row_text).starts_with("Legend")) break;
    std::vector<std::string_view> fields;
    for (const std::string_view field : split_fields(row_text, '\t')) {
      if (!field.empty()) fields.push_back(field);
    }
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
    std::optional<int> numa;
    // Affinity columns follow the relations; the NUMA one holds a node id or N/A.
    if (numa_column && fields.size() > 1 + device_count + 1 && matrix.devices[row].starts_with("GPU")) {
      long long value = 0;
      const std::string_view numa_text = fields[1 + device_count + 1];
      if (parse_non_negative(numa_text, value) && value < 1024) {
        numa = static_cast<int>(value);
      } else if (numa_text != "N/A") {
        throw_input_error(source.path, lines[i].number, "a NUMA node id or N/A", quote_input(numa_text));
      }
    }
    matrix.cells.push_back(std::move(cells));
    matrix.numa_node.push_back(numa);
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
    if (legend.starts_with("NIC") && colon != std::string_view::npos && is_device_name(legend.substr(0, colon))) {
      const std::string_view name = trim(legend.substr(colon + 1));
      if (name.empty() || name.find('/') != std::string_view::npos) {
        throw_input_error(source.path, lines[i].number, "a NIC device name", quote_input(name));
      }
      matrix.nic_names[std::string(legend.substr(0, colon))] = name;
    }
  }
  return matrix;
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

Graph parse_nvidia_smi_topo(const SourceText& source) {
  const Matrix matrix = read_matrix(source, strip_ansi(source.text));
  const std::size_t n = matrix.devices.size();
  const std::string host_name = host_name_from_path(source.path);
  Graph graph;
  const VertexId host = graph.add_vertex(VertexKind::host, host_name);

  std::vector<VertexId> device(n);
  std::vector<bool> is_gpu(n);
  for (std::size_t d = 0; d < n; ++d) {
    const std::string& label = matrix.devices[d];
    is_gpu[d] = label.starts_with("GPU");
    const auto legend = matrix.nic_names.find(label);
    const std::string name = legend != matrix.nic_names.end() ? legend->second : label;
    long long ordinal = -1;
    parse_non_negative(std::string_view(label).substr(label.starts_with("mlx5_") ? 5 : 3), ordinal);
    device[d] = graph.add_vertex(is_gpu[d] ? VertexKind::gpu : VertexKind::nic, host_name + "/" + name, host,
                                 static_cast<int>(ordinal));
  }
  // NUMA node of each device: a GPU's own column, else that of a GPU it shares a NUMA node with.
  std::vector<int> numa(n, 0);
  for (std::size_t d = 0; d < n; ++d) {
    if (matrix.numa_node[d]) {
      numa[d] = *matrix.numa_node[d];
      continue;
    }
    for (std::size_t g = 0; g < n; ++g) {
      const Relation relation = matrix.cells[d][g].relation;
      const bool same_numa = relation == Relation::node || relation == Relation::phb || relation == Relation::pxb ||
                             relation == Relation::pix;
      if (is_gpu[g] && matrix.numa_node[g] && same_numa) {
        numa[d] = *matrix.numa_node[g];
        break;
      }
    }
  }
  std::map<int, VertexId> cpu_of_numa;
  for (std::size_t d = 0; d < n; ++d) {
    if (!cpu_of_numa.contains(numa[d])) {
      cpu_of_numa[numa[d]] =
          graph.add_vertex(VertexKind::cpu, fmt::format("{}/CPU{}", host_name, numa[d]), host, numa[d]);
    }
  }
  const LinkSpec smp = smp_link("", 0);
  for (auto a = cpu_of_numa.begin(); a != cpu_of_numa.end(); ++a) {
    for (auto b = std::next(a); b != cpu_of_numa.end(); ++b) graph.add_link(a->second, b->second, smp, true);
  }
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
      graph.add_link(device[d], cpu_of_numa[numa[d]], pcie, true);
      continue;
    }
    auto [it, inserted] = switch_of_root.try_emplace(root, no_vertex);
    if (inserted) {
      const int ordinal = static_cast<int>(switch_of_root.size()) - 1;
      it->second = graph.add_vertex(VertexKind::pcie_switch, fmt::format("{}/PCIe{}", host_name, ordinal), host, ordinal);
      graph.add_link(it->second, cpu_of_numa[numa[root]], pcie, true);
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
  std::vector<std::size_t> nvlinked_gpus;
  for (const std::size_t g : gpus) {
    for (const std::size_t peer : gpus) widest_bond[g] = std::max(widest_bond[g], matrix.cells[g][peer].nvlink_count);
    if (widest_bond[g] > 0) nvlinked_gpus.push_back(g);
  }
  bool on_nvswitch = nvlinked_gpus.size() >= 3;
  for (const std::size_t a : nvlinked_gpus) {
    for (const std::size_t b : nvlinked_gpus) {
      if (a != b && matrix.cells[a][b].nvlink_count != std::min(widest_bond[a], widest_bond[b])) on_nvswitch = false;
    }
  }
  if (on_nvswitch) {
    const VertexId nvswitch = graph.add_vertex(VertexKind::nvswitch, host_name + "/NVSwitch", host, 0);
    for (const std::size_t g : nvlinked_gpus) {
      graph.add_link(device[g], nvswitch, *nvlink_by_generation(4, widest_bond[g]));
    }
  } else {
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      for (std::size_t j = i + 1; j < gpus.size(); ++j) {
        const int bond = matrix.cells[gpus[i]][gpus[j]].nvlink_count;
        if (bond > 0) graph.add_link(device[gpus[i]], device[gpus[j]], *nvlink_by_generation(4, bond));
      }
    }
  }
  return graph;
}

int sniff_nvidia_smi_topo(std::string_view text) {
  const std::string head = strip_ansi(text.substr(0, 4096));
  for (const NumberedLine& line : split_lines(head)) {
    if (trim(line.text).empty()) continue;
    const std::vector<std::string_view> tokens = split_whitespace(line.text);
    return !tokens.empty() && tokens.front() == "GPU0" ? 90 : 0;
  }
  return 0;
}

const bool registered = register_topology_format(
    {"nvidia-smi", "nvidia-smi topo -m matrix (GPUs, NICs, NV#/PIX/PXB/PHB/NODE/SYS, affinities)",
     sniff_nvidia_smi_topo, parse_nvidia_smi_topo});

}  // namespace
}  // namespace fb::topo
