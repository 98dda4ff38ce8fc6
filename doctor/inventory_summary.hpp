#pragma once
// A host's inventory in a few lines a person reads on paper (the acceptance record): device counts
// and models, link training, RDMA ports, versions. Counting and naming only; the doctor's checks
// judge.

#include "doctor/host_inventory.hpp"

#include <string>
#include <utility>
#include <vector>

namespace fb::doctor {

// Attribute and value, in a fixed order: OS, CPU, memory, GPUs, GPU PCIe links, NICs, RDMA ports, NIC firmware,
// GPUDirect RDMA,
// NVIDIA driver, CUDA, NCCL, MPI library, kernel. "none" where a host has none of a device, "not
// found" where a version could not be read.
std::vector<std::pair<std::string, std::string>> summarize_inventory(const HostInventory& inventory);

}  // namespace fb::doctor
