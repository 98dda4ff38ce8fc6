// NCCL's topology dump (NCCL_TOPO_DUMP_FILE):
//
//   <system version="1">
//     <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
//       <pci busid="0000:1a:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
//         <pci busid="0000:1b:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
//           <gpu dev="0" sm="90" rank="0" gdr="1">
//             <nvlink target="0000:05:00.0" count="18" tclass="0x068000"/>
//           </gpu>
//         </pci>
//         <pci busid="0000:1c:00.0" class="0x020700" ...><nic><net name="mlx5_0" .../></nic></pci>
//       </pci>
//     </cpu>
//   </system>
//
// Capacities follow NCCL's own arithmetic: PCIe width x GT/s code / 80, NVLink count x the
// per-SM constant. A PCIe width of 0 (virtual machines report it) is taken as a nominal x16.
// The host is named after the file: the dump carries only a hash of the host name.

#include "topology/format_registry.hpp"
#include "topology/input_error.hpp"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <map>

namespace fb::topo {
namespace {

constexpr std::string_view nvswitch_class = "0x068000";

class NcclXmlReader {
 public:
  NcclXmlReader(const SourceText& source) : source_(source), host_name_(host_name_from_path(source.path)) {}

  Graph read() {
    pugi::xml_document document;
    const pugi::xml_parse_result parsed = document.load_buffer(source_.text.data(), source_.text.size());
    if (!parsed) {
      throw_input_error(source_.path, line_at(static_cast<std::size_t>(std::max<std::ptrdiff_t>(parsed.offset, 0))),
                        "well-formed XML", parsed.description());
    }
    const pugi::xml_node system = document.child("system");
    if (!system) throw_input_error(source_.path, 1, "a <system> root element", "none");
    host_ = graph_.add_vertex(VertexKind::host, host_name_);
    std::vector<VertexId> cpus;
    for (const pugi::xml_node cpu : system.children("cpu")) {
      const int numa = integer(cpu, "numaid", -1);
      const int ordinal = numa >= 0 ? numa : static_cast<int>(cpus.size());
      const VertexId cpu_vertex =
          graph_.add_vertex(VertexKind::cpu, fmt::format("{}/CPU{}", host_name_, ordinal), host_, ordinal);
      const LinkSpec smp = smp_link(cpu.attribute("vendor").as_string(), integer(cpu, "modelid", 0));
      for (const VertexId earlier : cpus) graph_.add_link(earlier, cpu_vertex, smp);
      cpus.push_back(cpu_vertex);
      read_children(cpu, cpu_vertex, 0);
    }
    if (cpus.empty()) throw_input_error(source_.path, line_of(system), "at least one <cpu> in <system>", "none");
    for (const PendingNvlink& nvlink : nvlinks_) add_nvlink(nvlink);
    return std::move(graph_);
  }

 private:
  struct PendingNvlink {
    pugi::xml_node element;
    VertexId gpu;
    std::string gpu_busid;
    int sm;
  };

  // Real PCIe trees are a handful of bridges deep; the limit keeps hostile input off the stack.
  static constexpr int max_pci_depth = 32;

  void read_children(const pugi::xml_node parent, VertexId attach_to, int depth) {
    for (const pugi::xml_node child : parent.children()) {
      const std::string_view name = child.name();
      if (name == "pci") {
        if (depth >= max_pci_depth) {
          throw_input_error(source_.path, line_of(child), fmt::format("<pci> nested at most {} deep", max_pci_depth),
                            "deeper nesting");
        }
        read_pci(child, attach_to, depth + 1);
      } else if (name == "nic") {
        read_nic(child, attach_to, nominal_pcie(), true);
      }
    }
  }

  void read_pci(const pugi::xml_node pci, VertexId parent, int depth) {
    const std::string busid = pci.attribute("busid").as_string();
    if (busid.empty()) throw_input_error(source_.path, line_of(pci), "a busid attribute on <pci>", "none");
    const auto [link, nominal] = pcie_link(pci);
    if (const pugi::xml_node gpu = pci.child("gpu")) {
      const int dev = integer(gpu, "dev", -1);
      if (dev < 0) throw_input_error(source_.path, line_of(gpu), "a dev attribute >= 0 on <gpu>", "none");
      const VertexId gpu_vertex = graph_.add_vertex(VertexKind::gpu, fmt::format("{}/GPU{}", host_name_, dev), host_, dev);
      graph_.add_link(gpu_vertex, parent, link, nominal);
      gpu_of_busid_[busid] = gpu_vertex;
      const int sm = integer(gpu, "sm", 0);
      for (const pugi::xml_node nvlink : gpu.children("nvlink")) nvlinks_.push_back({nvlink, gpu_vertex, busid, sm});
    } else if (const pugi::xml_node nic = pci.child("nic")) {
      read_nic(nic, parent, link, nominal);
    } else if (pci.child("pci")) {
      const int ordinal = switch_count_++;
      const VertexId bridge =
          graph_.add_vertex(VertexKind::pcie_switch, fmt::format("{}/PCIe{}", host_name_, ordinal), host_, ordinal);
      graph_.add_link(bridge, parent, link, nominal);
      read_children(pci, bridge, depth);
    }
  }

  void read_nic(const pugi::xml_node nic, VertexId parent, const LinkSpec& link, bool nominal) {
    for (const pugi::xml_node net : nic.children("net")) {
      const std::string name = net.attribute("name").as_string();
      if (name.empty() || name.find('/') != std::string::npos) {
        throw_input_error(source_.path, line_of(net), "a name attribute (a device name) on <net>", quote_input(name));
      }
      const int speed_mbps = integer(net, "speed", 0);
      if (speed_mbps <= 0) {
        throw_input_error(source_.path, line_of(net), "a speed attribute in Mb/s on <net>",
                          quote_input(net.attribute("speed").as_string()));
      }
      const VertexId nic_vertex =
          graph_.add_vertex(VertexKind::nic, host_name_ + "/" + name, host_, integer(net, "dev", -1));
      graph_.set_nic_port(nic_vertex, NicPort{speed_mbps / 1000.0, integer(net, "gdr", 0) == 1});
      graph_.add_link(nic_vertex, parent, link, nominal);
    }
  }

  void add_nvlink(const PendingNvlink& pending) {
    const int count = integer(pending.element, "count", 0);
    const std::optional<LinkSpec> spec = nvlink_by_sm(pending.sm, count);
    if (!spec) {
      throw_input_error(source_.path, line_of(pending.element),
                        "an NVLink count >= 1 on a GPU whose sm NCCL knows (60, 70, 80, 86, 90, 100)",
                        fmt::format("count {} on sm {}", count, pending.sm));
    }
    const std::string target = pending.element.attribute("target").as_string();
    if (pending.element.attribute("tclass").as_string() == nvswitch_class) {
      const VertexId nvswitch = graph_.add_vertex(VertexKind::nvswitch, host_name_ + "/NVSwitch", host_, 0);
      graph_.add_link(pending.gpu, nvswitch, *spec);
      return;
    }
    const auto peer = gpu_of_busid_.find(target);
    if (peer == gpu_of_busid_.end()) {
      throw_input_error(source_.path, line_of(pending.element),
                        "an nvlink target that is a GPU's busid, or tclass 0x068000 (NVSwitch)", quote_input(target));
    }
    // Each GPU lists its peers, so every GPU-to-GPU bond appears twice: keep one.
    if (pending.gpu_busid < target) graph_.add_link(pending.gpu, peer->second, *spec);
  }

  std::pair<LinkSpec, bool> pcie_link(const pugi::xml_node pci) const {
    const std::string speed = pci.attribute("link_speed").as_string();
    double gts = 0;
    std::from_chars(speed.data(), speed.data() + speed.size(), gts);
    const std::optional<int> generation = pcie_generation_from_gts(gts);
    if (!generation) {
      throw_input_error(source_.path, line_of(pci), "a link_speed like \"32.0 GT/s PCIe\"", quote_input(speed));
    }
    const int width = integer(pci, "link_width", 0);
    if (width < 0 || width > 32) {
      throw_input_error(source_.path, line_of(pci), "a link_width from 0 to 32", quote_input(pci.attribute("link_width").as_string()));
    }
    return {*pcie_by_generation(*generation, width == 0 ? 16 : width), width == 0};
  }

  static LinkSpec nominal_pcie() { return *pcie_by_generation(4, 16); }

  int integer(const pugi::xml_node node, const char* attribute, int fallback) const {
    const pugi::xml_attribute value = node.attribute(attribute);
    if (!value) return fallback;
    const std::string_view text = value.as_string();
    int parsed = 0;
    const bool hex = text.starts_with("0x");
    const char* begin = text.data() + (hex ? 2 : 0);
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), parsed, hex ? 16 : 10);
    if (ec != std::errc{} || end != text.data() + text.size()) {
      throw_input_error(source_.path, line_of(node), fmt::format("an integer {} attribute on <{}>", attribute, node.name()),
                        quote_input(text));
    }
    return parsed;
  }

  std::size_t line_of(const pugi::xml_node node) const {
    return line_at(static_cast<std::size_t>(std::max<std::ptrdiff_t>(node.offset_debug(), 0)));
  }

  std::size_t line_at(std::size_t offset) const {
    offset = std::min(offset, source_.text.size());
    return 1 + static_cast<std::size_t>(std::count(source_.text.begin(), source_.text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  }

  const SourceText& source_;
  std::string host_name_;
  Graph graph_;
  VertexId host_ = no_vertex;
  int switch_count_ = 0;
  std::map<std::string, VertexId> gpu_of_busid_;
  std::vector<PendingNvlink> nvlinks_;
};

Graph parse_nccl_topo_xml(const SourceText& source) { return NcclXmlReader(source).read(); }

int sniff_nccl_topo_xml(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  if (head.find("<system") == std::string_view::npos) return 0;
  return head.find("<cpu") != std::string_view::npos ? 95 : 70;
}

const bool registered = register_topology_format(
    {"nccl-xml", "NCCL topology dump (NCCL_TOPO_DUMP_FILE XML)", sniff_nccl_topo_xml, parse_nccl_topo_xml});

}  // namespace
}  // namespace fb::topo
