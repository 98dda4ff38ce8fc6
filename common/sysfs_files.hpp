#pragma once
// Small readers for sysfs and procfs attribute files: one value per file, a trailing newline,
// and files that may be missing, unreadable or say "Unknown".

#include "common/text_file.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fb {

// The whole attribute file; empty when it cannot be read or is not a regular file. sysfs and
// procfs attributes are regular files: a FIFO or a device in their place (a --sysfs-root made by
// hand, or by someone else) would block the read for ever, so it is opened without waiting and
// refused.
std::optional<std::string> read_system_file(const std::filesystem::path& path);

// The first line without surrounding white space; empty when the file cannot be read.
std::optional<std::string> read_first_line(const std::filesystem::path& path);

// A decimal ("16", "-1") or 0x-prefixed hexadecimal ("0x030200") integer file.
std::optional<long> read_integer(const std::filesystem::path& path);

// `path` with every symlink resolved; empty when it does not exist.
std::optional<std::filesystem::path> resolve(const std::filesystem::path& path);

// Names of the entries of `dir`, sorted (sysfs lists them in no particular order).
std::vector<std::string> sorted_entries(const std::filesystem::path& dir);

// `absolute` ("/sys/bus/pci") joined under `root`.
std::filesystem::path under_root(const std::filesystem::path& root, const std::filesystem::path& absolute);

// One InfiniBand/RoCE port: "mlx5_0/1" and its directory .../class/infiniband/mlx5_0/ports/1.
struct RdmaPort {
  std::string device;  // "mlx5_0"
  int number = 0;      // 1
  std::string name;    // "mlx5_0/1"
  std::filesystem::path dir;
};

// Every port under `infiniband_class` (a .../class/infiniband directory), ordered by device, then
// port number ("10" after "9"). None when the directory is absent (a host without RDMA). The one
// reader of the port list: `doctor` samples these ports' counters, the watchdog their state.
std::vector<RdmaPort> rdma_ports(const std::filesystem::path& infiniband_class);

// A port's state or phys_state file without the kernel's numeric prefix: "4: ACTIVE" -> "ACTIVE",
// "5: LinkUp" -> "LinkUp"; empty when it cannot be read.
std::string read_port_state(const std::filesystem::path& state_file);

}  // namespace fb
