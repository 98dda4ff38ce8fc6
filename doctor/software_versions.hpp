#pragma once
// Versions of the GPU software stack as the system shows them, without loading CUDA or NCCL:
// a host whose driver or library is broken must still be reported.

#include "doctor/host_inventory.hpp"

#include <filesystem>
#include <string_view>

namespace fb::doctor {

// The NVIDIA driver, CUDA toolkit and NCCL versions found under `root`; mpi_library stays empty.
SoftwareVersions detect_software_versions(const std::filesystem::path& root);

// "535.129.03" from the first line of /proc/driver/nvidia/version, empty when it holds none.
std::string driver_version_from_banner(std::string_view banner);

}  // namespace fb::doctor
