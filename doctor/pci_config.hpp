#pragma once
// Reading a PCIe function's configuration space (the sysfs `config` file): the extended
// capability list and the Access Control Services control register.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fb::doctor {

// Where the extended capabilities begin (PCIe base specification, 7.6).
inline constexpr std::size_t extended_config_offset = 0x100;
inline constexpr std::uint16_t acs_capability_id = 0x000D;

// The offset of the first extended capability with `id`, walking the list from 0x100. Empty when
// the image is too short (unprivileged reads stop at 64 bytes), the list is empty or it has none.
std::optional<std::size_t> find_extended_capability(std::span<const std::uint8_t> config, std::uint16_t id);

// The ACS Control register (capability + 6), empty without an ACS capability.
std::optional<std::uint16_t> acs_control_register(std::span<const std::uint8_t> config);

// Names of the ACS controls set in `control` that make a bridge send peer-to-peer traffic
// upstream instead of straight across: SrcValid, ReqRedir, CmpltRedir, UpstreamFwd ("SV" ...).
std::vector<std::string> acs_redirect_flags(std::uint16_t control);

}  // namespace fb::doctor
