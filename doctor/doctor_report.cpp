#include "doctor/doctor_report.hpp"

#include "doctor/inventory_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fb::doctor {
namespace {

// Left-aligned columns as wide as their widest cell; the last column is not padded.
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(header.size());
  for (std::size_t column = 0; column < header.size(); ++column) {
    widths[column] = header[column].size();
    for (const auto& row : rows) widths[column] = std::max(widths[column], row[column].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t column = 0; column < cells.size(); ++column) {
      if (column + 1 == cells.size())
        line += cells[column];
      else
        line += fmt::format("{:<{}}  ", cells[column], widths[column]);
    }
    out << line << '\n';
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string numa_cell(const std::optional<int>& numa_node) { return numa_node ? std::to_string(*numa_node) : "-"; }

std::string link_cell(const std::optional<PciLink>& link, bool current) {
  if (!link) return "-";
  const std::optional<double> speed_gts = current ? link->current_speed_gts : link->max_speed_gts;
  const std::optional<int> width_lanes = current ? link->current_width_lanes : link->max_width_lanes;
  return fmt::format("{} x{}", speed_gts ? fmt::format("{:g} GT/s", *speed_gts) : "?",
                     width_lanes ? std::to_string(*width_lanes) : "?");
}

std::string gpudirect_cell(const GpuDirectRdma& rdma) {
  if (rdma.nvidia_peermem_loaded) return "nvidia_peermem";
  if (rdma.nv_peer_mem_loaded) return "nv_peer_mem";
  if (rdma.dma_buf_possible()) return "dma-buf";
  return "no";
}

void print_hosts(std::ostream& out, std::span<const HostInventory> hosts) {
  std::vector<std::vector<std::string>> rows;
  for (const HostInventory& host : hosts) {
    const auto active =
        std::count_if(host.ib_ports.begin(), host.ib_ports.end(), [](const IbPort& p) { return p.active(); });
    rows.push_back({host.host, std::to_string(host.gpus.size()), std::to_string(host.nics.size()),
                    fmt::format("{}/{}", active, host.ib_ports.size()), or_dash(host.versions.nvidia_driver.version),
                    or_dash(host.versions.cuda.version), or_dash(host.versions.nccl.version),
                    or_dash(host.versions.mpi_library.version), gpudirect_cell(host.gpudirect_rdma)});
  }
  print_table(out, {"host", "GPUs", "NICs", "ports up", "driver", "CUDA", "NCCL", "MPI", "GPUDirect RDMA"}, rows);
}

void print_devices(std::ostream& out, std::span<const HostInventory> hosts) {
  std::vector<std::vector<std::string>> rows;
  for (const HostInventory& host : hosts) {
    for (std::size_t i = 0; i < host.gpus.size(); ++i) {
      const Gpu& gpu = host.gpus[i];
      rows.push_back({host.host, fmt::format("GPU{}", i), gpu.pci_address, numa_cell(gpu.numa_node),
                      link_cell(gpu.link, true), link_cell(gpu.link, false), gpu.model});
    }
    for (std::size_t i = 0; i < host.nics.size(); ++i) {
      const Nic& nic = host.nics[i];
      std::vector<std::string> names = nic.rdma_devices;
      names.insert(names.end(), nic.net_devices.begin(), nic.net_devices.end());
      rows.push_back({host.host, fmt::format("NIC{}", i), nic.pci_address, numa_cell(nic.numa_node),
                      link_cell(nic.link, true), link_cell(nic.link, false),
                      fmt::format("{} {} {}", nic.vendor_device,
                                  nic.kind == NicKind::infiniband ? "InfiniBand" : "Ethernet", fmt::join(names, " "))});
    }
    for (const IbPort& port : host.ib_ports)
      rows.push_back({host.host, "port " + port.display_name(), or_dash(port.pci_address), "-", or_dash(port.state),
                      or_dash(port.physical_state), fmt::format("{} {}", port.rate, port.link_layer)});
  }
  print_table(out, {"host", "device", "PCI", "NUMA", "link now", "link max", "model / names / rate"}, rows);
}

}  // namespace

void print_doctor_report(std::ostream& out, std::span<const HostInventory> hosts, std::span<const Flag> findings,
                         bool show_devices) {
  print_hosts(out, hosts);
  if (show_devices) {
    out << '\n';
    print_devices(out, hosts);
  }
  if (!findings.empty()) {
    out << '\n';
    std::vector<std::vector<std::string>> rows;
    for (const Flag& finding : findings)
      rows.push_back({std::string(name_of(finding.severity)), finding.host.empty() ? "(all)" : finding.host,
                      finding.subject, finding.message});
    print_table(out, {"severity", "host", "subject", "finding"}, rows);
  }
  const auto errors =
      std::count_if(findings.begin(), findings.end(), [](const Flag& f) { return f.severity == Severity::error; });
  const auto warnings =
      std::count_if(findings.begin(), findings.end(), [](const Flag& f) { return f.severity == Severity::warning; });
  out << fmt::format("\ndoctor: {} host{}, {} error{}, {} warning{}\n", hosts.size(), hosts.size() == 1 ? "" : "s",
                     errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

nlohmann::json doctor_report_json(std::span<const HostInventory> hosts, std::span<const Flag> findings) {
  nlohmann::json json_findings = nlohmann::json::array();
  for (const Flag& finding : findings)
    json_findings.push_back({{"severity", name_of(finding.severity)},
                             {"host", finding.host},
                             {"subject", finding.subject},
                             {"message", finding.message}});
  return {{"schema", doctor_report_schema},
          {"hosts", nlohmann::json(std::vector<HostInventory>(hosts.begin(), hosts.end()))},
          {"findings", json_findings},
          {"failed", has_errors(findings)}};
}

}  // namespace fb::doctor
