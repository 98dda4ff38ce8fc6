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
// per-SM constant. The host is named after the file: the dump carries only a hash of the host name.
//
// Hint files (NCCL_TOPO_FILE, as cloud images ship them: Azure ND/NC, AWS p4d/p5/g5) describe
// devices by PCI class alone, with no <gpu> or <nic> element and often no link_speed: NCCL
// completes them from sysfs on the machine. Here a class-only GPU (0x0302xx, or a 0x0300xx display
// controller from NVIDIA or AMD) or NIC (0x0207xx InfiniBand, 0x0200xx Ethernet) is modelled, its
// ordinal from PCI bus id order; whatever had to be assumed (a link rate, an ordinal, a bridge
// rate) is recorded on the graph.

#include "topology/format_registry.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace fb::topo {
namespace {

constexpr std::string_view nvswitch_class = "0x068000";
// What NCCL takes for a <net> whose speed is missing or not positive.
constexpr int nccl_default_net_mbps = 10000;
// Real machines have a few NUMA nodes (8 on a two-socket NPS4 AMD box); NCCL joins every pair,
// so the bound keeps a hostile file from asking for millions of SMP links.
constexpr std::size_t max_cpus = 256;

enum class PciClass { gpu, infiniband_nic, ethernet_nic, bridge, other, unstated };

PciClass pci_class(const pugi::xml_node pci) {
  const std::string_view code = pci.attribute("class").as_string();
  if (code.empty()) return PciClass::unstated;
  const std::string_view vendor = pci.attribute("vendor").as_string();
  if (code.starts_with("0x0302")) return PciClass::gpu;
  // A display controller is a GPU only from a GPU vendor: servers also carry a BMC's VGA chip.
  if (code.starts_with("0x0300") && (vendor == "0x10de" || vendor == "0x1002")) return PciClass::gpu;
  if (code.starts_with("0x0207")) return PciClass::infiniband_nic;
  if (code.starts_with("0x0200")) return PciClass::ethernet_nic;
  if (code.starts_with("0x0604")) return PciClass::bridge;
  return PciClass::other;
}

// What a stated <pci> link gave: the spec, whether the capacity is nominal, and the stated GT/s
// (none when the element states no usable rate).
struct PciLink {
  LinkSpec spec;
  bool nominal = false;
  std::optional<double> stated_gts;
  int stated_width = 0;
};

class NcclXmlReader {
 public:
  NcclXmlReader(const SourceText& source) : source_(source), host_name_(host_name_from_path(source.path)) {}

  Graph read() {
    pugi::xml_document document;
    const pugi::xml_parse_result parsed = document.load_buffer(source_.text.data(), source_.text.size());
    if (!parsed) {
      throw_input_error(source_.path,
                        line_number_at(source_.text,
                                       static_cast<std::size_t>(std::max<std::ptrdiff_t>(parsed.offset, 0))),
                        "well-formed XML", parsed.description());
    }
    if (const pugi::xml_node graphs = document.child("graphs")) {
      throw_input_error(source_.path, line_of(graphs), "a topology dump (NCCL_TOPO_DUMP_FILE, <system> root)",
                        "an NCCL graph file (<graphs>, NCCL_GRAPH_DUMP_FILE): it records the rings and trees "
                        "NCCL chose, not the machine");
    }
    const pugi::xml_node system = document.child("system");
    if (!system) throw_input_error(source_.path, 1, "a <system> root element", "none");
    number_class_only_devices(system);
    host_ = graph_.add_vertex(VertexKind::host, host_name_);
    std::vector<VertexId> cpus;
    for (const pugi::xml_node cpu : system.children("cpu")) {
      if (cpus.size() == max_cpus) {
        throw_input_error(source_.path, line_of(cpu), fmt::format("at most {} <cpu> (NUMA nodes)", max_cpus), "more");
      }
      const int numa = integer(cpu, "numaid", -1);
      const int ordinal = numa >= 0 ? numa : static_cast<int>(cpus.size());
      if (numa < 0) {
        assume(fmt::format("a <cpu> without a NUMA id (numaid {}) is taken as NUMA node {}",
                           quote_input(cpu.attribute("numaid").as_string()), ordinal));
      }
      const VertexId cpu_vertex =
          graph_.add_vertex(VertexKind::cpu, fmt::format("{}/CPU{}", host_name_, ordinal), host_, ordinal);
      const std::string_view vendor = cpu.attribute("vendor").as_string();
      if (vendor.empty() && !cpus.empty()) {
        assume("the CPUs state no vendor: the links between NUMA nodes are nominal");
      }
      const LinkSpec smp = smp_link(vendor, integer(cpu, "modelid", 0));
      for (const VertexId earlier : cpus) graph_.add_link(earlier, cpu_vertex, smp, vendor.empty());
      cpus.push_back(cpu_vertex);
      read_children(cpu, cpu_vertex, 0);
    }
    if (cpus.empty()) throw_input_error(source_.path, line_of(system), "at least one <cpu> in <system>", "none");
    for (const PendingNvlink& nvlink : nvlinks_) add_nvlink(nvlink);
    report_unstated_links();
    if (!unclassified_busids_.empty()) {
      if (gpu_of_busid_.empty() && nic_count_ == 0) {
        throw_input_error(source_.path, line_of(system), "GPUs or NICs (a <gpu>, a <nic>, or a PCI class)",
                          fmt::format("{} <pci> listed by bus id only ({}, ...): a hint file NCCL completes from "
                                      "the machine's sysfs, with nothing to model without it",
                                      unclassified_busids_.size(), unclassified_busids_.front()));
      }
      assume(fmt::format("{} <pci> state no class ({}, ...): left out of the model", unclassified_busids_.size(),
                         unclassified_busids_.front()));
    }
    if (gpu_of_busid_.empty()) assume("the file names no GPU (no <gpu>, no GPU PCI class): the host has none here");
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

  void assume(const std::string& text) { graph_.add_assumption(fmt::format("{}: {}", source_.path, text)); }

  // Class-only devices carry no ordinal: number GPUs and NICs each in PCI bus id order, the order
  // CUDA enumerates identical GPUs in and the kernel names NICs in.
  void number_class_only_devices(const pugi::xml_node system) {
    std::set<std::string> gpu_busids;
    std::set<std::string> nic_busids;
    for (const pugi::xpath_node found : system.select_nodes("//pci")) {
      const pugi::xml_node pci = found.node();
      if (pci.child("gpu") || pci.child("nic")) continue;
      const PciClass kind = pci_class(pci);
      const std::string busid = pci.attribute("busid").as_string();
      if (kind == PciClass::gpu) gpu_busids.insert(busid);
      if (kind == PciClass::infiniband_nic || kind == PciClass::ethernet_nic) nic_busids.insert(busid);
    }
    for (const std::string& busid : gpu_busids)
      class_only_ordinal_[busid] = static_cast<int>(class_only_ordinal_.size());
    const std::size_t gpu_count = class_only_ordinal_.size();
    for (const std::string& busid : nic_busids) {
      class_only_ordinal_[busid] = static_cast<int>(class_only_ordinal_.size() - gpu_count);
    }
    if (!gpu_busids.empty() || !nic_busids.empty()) {
      assume(fmt::format("{} GPU(s) and {} NIC(s) known by PCI class only (a hint file): GPU and NIC ordinals follow "
                         "PCI bus id order, NICs are named NIC0..., their port rates are not available",
                         gpu_busids.size(), nic_busids.size()));
    }
  }

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
    const PciClass kind = pci_class(pci);
    if (const pugi::xml_node gpu = pci.child("gpu")) {
      const PciLink link = pcie_link(pci);
      const int dev = integer(gpu, "dev", -1);
      if (dev < 0) throw_input_error(source_.path, line_of(gpu), "a dev attribute >= 0 on <gpu>", "none");
      const int sm = integer(gpu, "sm", 0);
      const VertexId gpu_vertex = add_gpu(busid, dev, parent, link);
      for (const pugi::xml_node nvlink : gpu.children("nvlink")) nvlinks_.push_back({nvlink, gpu_vertex, busid, sm});
    } else if (const pugi::xml_node nic = pci.child("nic")) {
      const PciLink link = pcie_link(pci);
      read_nic(nic, parent, link.spec, link.nominal);
    } else if (pci.child("pci")) {
      const int ordinal = switch_count_++;
      const VertexId bridge =
          graph_.add_vertex(VertexKind::pcie_switch, fmt::format("{}/PCIe{}", host_name_, ordinal), host_, ordinal);
      read_children(pci, bridge, depth);
      const PciLink link = bridge_link(pci, busid);
      graph_.add_link(bridge, parent, link.spec, link.nominal);
    } else if (kind == PciClass::gpu) {
      add_gpu(busid, class_only_ordinal_.at(busid), parent, pcie_link(pci));
    } else if (kind == PciClass::infiniband_nic || kind == PciClass::ethernet_nic) {
      const PciLink link = pcie_link(pci);
      const int ordinal = class_only_ordinal_.at(busid);
      const VertexId nic_vertex =
          graph_.add_vertex(VertexKind::nic, fmt::format("{}/NIC{}", host_name_, ordinal), host_, ordinal);
      graph_.add_link(nic_vertex, parent, link.spec, link.nominal);
      ++nic_count_;
    } else if (kind == PciClass::unstated) {
      unclassified_busids_.push_back(busid);
    }
  }

  VertexId add_gpu(const std::string& busid, int dev, VertexId parent, const PciLink& link) {
    const VertexId gpu_vertex =
        graph_.add_vertex(VertexKind::gpu, fmt::format("{}/GPU{}", host_name_, dev), host_, dev);
    graph_.add_link(gpu_vertex, parent, link.spec, link.nominal);
    graph_.set_pci_bus_id(gpu_vertex, busid);
    gpu_of_busid_[busid] = gpu_vertex;
    return gpu_vertex;
  }

  void read_nic(const pugi::xml_node nic, VertexId parent, const LinkSpec& link, bool nominal) {
    for (const pugi::xml_node net : nic.children("net")) {
      const std::string name = net.attribute("name").as_string();
      if (name.empty() || name.find('/') != std::string::npos) {
        throw_input_error(source_.path, line_of(net), "a name attribute (a device name) on <net>", quote_input(name));
      }
      // speed="" reads as absent, as NCCL's attribute parsing takes it.
      const std::string_view speed_text = net.attribute("speed").as_string();
      int speed_mbps = speed_text.empty() ? 0 : integer(net, "speed", 0);
      if (speed_mbps <= 0) {
        // NCCL itself (ncclTopoAddNet) takes a missing or non-positive speed as 10000 Mb/s: some
        // NICs report -1. The model does the same, and says so once for all such <net>.
        if (unstated_net_speeds_++ == 0)
          first_unstated_net_speed_ =
              fmt::format("{} on line {}, {}", name, line_of(net),
                          speed_text.empty() ? std::string("no speed")
                                             : fmt::format("speed {}", quote_input(speed_text)));
        speed_mbps = nccl_default_net_mbps;
      }
      const VertexId nic_vertex =
          graph_.add_vertex(VertexKind::nic, host_name_ + "/" + name, host_, integer(net, "dev", -1));
      graph_.set_nic_port(nic_vertex, NicPort{speed_mbps / 1000.0, integer(net, "gdr", 0) == 1});
      graph_.add_link(nic_vertex, parent, link, nominal);
      ++nic_count_;
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
    if (target == pending.gpu_busid) {
      // Azure NC A100 v4 ships such links: a GPU bonded to itself carries no traffic between GPUs.
      self_nvlink_busids_.push_back(pending.gpu_busid);
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

  // A PCIe link as the element states it. Hint files and virtual machines leave the rate out
  // (link_speed absent or "", link_width absent or 0): NCCL then reads sysfs, so the model takes
  // a nominal Gen4 x16 and counts the elements for one warning.
  PciLink pcie_link(const pugi::xml_node pci) {
    const PciLink link = stated_pcie_link(pci);
    if (!link.stated_gts) ++unstated_speed_count_;
    if (link.stated_width == 0) ++unstated_width_count_;
    return link;
  }

  PciLink stated_pcie_link(const pugi::xml_node pci) const {
    const std::string speed = pci.attribute("link_speed").as_string();
    PciLink link;
    int generation = 4;
    if (speed.empty()) {
      link.nominal = true;
    } else {
      double gts = 0;
      std::from_chars(speed.data(), speed.data() + speed.size(), gts);
      const std::optional<int> stated = pcie_generation_from_gts(gts);
      if (!stated) {
        throw_input_error(source_.path, line_of(pci), "a link_speed like \"32.0 GT/s PCIe\"", quote_input(speed));
      }
      generation = *stated;
      link.stated_gts = gts;
    }
    const int width = integer(pci, "link_width", 0);
    if (width < 0 || width > 32) {
      throw_input_error(source_.path, line_of(pci), "a link_width from 0 to 32",
                        quote_input(pci.attribute("link_width").as_string()));
    }
    if (width == 0) link.nominal = true;
    link.stated_width = width;
    link.spec = *pcie_by_generation(generation, width == 0 ? 16 : width);
    return link;
  }

  // A bridge's uplink. Hypervisors emulate the bridges above passed-through devices and report
  // them at PCIe Gen1 x1 (2.5 GT/s, width 1 or 0; IBM Cloud's H100 VSI): taken at face value every
  // GPU would sit behind 0.19 GB/s. Such a bridge above faster devices takes its devices' link.
  PciLink bridge_link(const pugi::xml_node pci, const std::string& busid) {
    PciLink link = pcie_link(pci);
    const bool gen1_x1 = link.stated_gts && *link.stated_gts < 2.6 && link.stated_width <= 1;
    if (!gen1_x1) return link;
    std::optional<PciLink> fastest_child;
    for (const pugi::xml_node child : pci.children("pci")) {
      const PciLink child_link = stated_pcie_link(child);
      if (child_link.stated_gts && *child_link.stated_gts > *link.stated_gts &&
          (!fastest_child || child_link.spec.capacity_gbps > fastest_child->spec.capacity_gbps)) {
        fastest_child = child_link;
      }
    }
    if (!fastest_child) return link;
    if (emulated_bridges_.empty()) {
      emulated_bridges_ =
          fmt::format("{} (2.5 GT/s x{} above devices at {} GT/s, taken as {} x{})", busid, link.stated_width,
                      *fastest_child->stated_gts, fastest_child->spec.technology, fastest_child->spec.lane_count);
    }
    ++emulated_bridge_count_;
    fastest_child->nominal = true;
    return *fastest_child;
  }

  void report_unstated_links() {
    if (unstated_net_speeds_ > 0) {
      assume(fmt::format("{} <net> state no positive speed (first: {}): taken as {} Mb/s ({} Gb/s), as NCCL does",
                         unstated_net_speeds_, first_unstated_net_speed_, nccl_default_net_mbps,
                         nccl_default_net_mbps / 1000));
    }
    if (emulated_bridge_count_ > 0) {
      assume(fmt::format("{} PCIe bridge(s) state PCIe Gen1 x1 above faster devices, a hypervisor's emulated "
                         "bridges: each taken at its devices' rate, nominal (first: {})",
                         emulated_bridge_count_, emulated_bridges_));
    }
    if (!self_nvlink_busids_.empty()) {
      assume(fmt::format("{} <nvlink> target their own GPU ({}, ...): left out, they join no two GPUs",
                         self_nvlink_busids_.size(), self_nvlink_busids_.front()));
    }
    if (unstated_speed_count_ > 0) {
      assume(fmt::format("{} PCIe link(s) state no link_speed (NCCL reads it from sysfs): taken as PCIe Gen4",
                         unstated_speed_count_));
    }
    if (unstated_width_count_ > 0) {
      assume(fmt::format("{} PCIe link(s) state no link_width or width 0 (virtual machines do): taken as x16",
                         unstated_width_count_));
    }
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
      throw_input_error(source_.path, line_of(node),
                        fmt::format("an integer {} attribute on <{}>", attribute, node.name()), quote_input(text));
    }
    return parsed;
  }

  std::size_t line_of(const pugi::xml_node node) const {
    return line_number_at(source_.text, static_cast<std::size_t>(std::max<std::ptrdiff_t>(node.offset_debug(), 0)));
  }

  const SourceText& source_;
  std::string host_name_;
  Graph graph_;
  VertexId host_ = no_vertex;
  int switch_count_ = 0;
  std::size_t nic_count_ = 0;
  std::size_t unstated_speed_count_ = 0;
  std::size_t unstated_width_count_ = 0;
  std::size_t unstated_net_speeds_ = 0;
  std::string first_unstated_net_speed_;  // the first such <net>, described
  std::map<std::string, VertexId> gpu_of_busid_;
  std::map<std::string, int> class_only_ordinal_;
  std::vector<std::string> unclassified_busids_;
  std::vector<std::string> self_nvlink_busids_;
  std::size_t emulated_bridge_count_ = 0;
  std::string emulated_bridges_;  // the first one, described
  std::vector<PendingNvlink> nvlinks_;
};

Graph parse_nccl_topo_xml(const SourceText& source) { return NcclXmlReader(source).read(); }

int sniff_nccl_topo_xml(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  // A graph file is claimed so that the reader can say what it is.
  if (head.find("<graphs") != std::string_view::npos) return 90;
  if (head.find("<system") == std::string_view::npos) return 0;
  return head.find("<cpu") != std::string_view::npos ? 95 : 70;
}

const Registrar<TopologyFormat> registrar{
    {"nccl-xml", "NCCL topology dump (NCCL_TOPO_DUMP_FILE XML)", sniff_nccl_topo_xml, parse_nccl_topo_xml}};

}  // namespace
}  // namespace fb::topo
