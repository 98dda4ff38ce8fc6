#include "doctor/pci_config.hpp"

#include <array>
#include <utility>

namespace fb::doctor {
namespace {

std::uint32_t read_le32(std::span<const std::uint8_t> bytes, std::size_t offset) {
  return static_cast<std::uint32_t>(bytes[offset]) | static_cast<std::uint32_t>(bytes[offset + 1]) << 8 |
         static_cast<std::uint32_t>(bytes[offset + 2]) << 16 | static_cast<std::uint32_t>(bytes[offset + 3]) << 24;
}

}  // namespace

std::optional<std::size_t> find_extended_capability(std::span<const std::uint8_t> config, std::uint16_t id) {
  // Each header is 32 bits: capability id (15:0), version (19:16), next offset (31:20). A
  // corrupt list could point backwards or at itself; a list of 4-byte-aligned headers in 4 KiB
  // can hold at most (4096 - 256) / 4 entries, so more steps than that means a loop.
  constexpr std::size_t max_entries = (4096 - extended_config_offset) / 4;
  std::size_t offset = extended_config_offset;
  for (std::size_t step = 0; step < max_entries; ++step) {
    if (offset < extended_config_offset || offset + 4 > config.size()) return std::nullopt;
    const std::uint32_t header = read_le32(config, offset);
    // All zeros: no extended capabilities; all ones: the function did not answer.
    if (header == 0 || header == 0xffffffffu) return std::nullopt;
    if ((header & 0xffffu) == id) return offset;
    offset = (header >> 20) & 0xffcu;
    if (offset == 0) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::uint16_t> acs_control_register(std::span<const std::uint8_t> config) {
  const std::optional<std::size_t> capability = find_extended_capability(config, acs_capability_id);
  if (!capability || *capability + 8 > config.size()) return std::nullopt;
  return static_cast<std::uint16_t>(config[*capability + 6] | config[*capability + 7] << 8);
}

std::vector<std::string> acs_redirect_flags(std::uint16_t control) {
  // Bit positions of the ACS Control register (PCIe base specification, 7.7.8.3).
  constexpr std::array<std::pair<std::uint16_t, const char*>, 4> redirecting{
      {{1u << 0, "SV"}, {1u << 2, "RR"}, {1u << 3, "CR"}, {1u << 4, "UF"}}};
  std::vector<std::string> set;
  for (const auto& [bit, name] : redirecting)
    if (control & bit) set.emplace_back(name);
  return set;
}

}  // namespace fb::doctor
