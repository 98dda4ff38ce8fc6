#include "common/sizes.hpp"

#include "common/errors.hpp"

#include <charconv>
#include <fmt/format.h>

namespace fb {

std::uint64_t parse_size_bytes(std::string_view text) {
  if (text.empty()) throw UsageError("empty size");
  if (text.front() == '-') throw UsageError(fmt::format("size '{}' is negative", text));
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [rest, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || rest == text.data())
    throw UsageError(fmt::format("size '{}' is not a number (examples: 8, 64K, 32M, 1G)", text));
  std::uint64_t multiplier = 1;
  const std::string_view suffix(rest, static_cast<std::size_t>(end - rest));
  if (suffix == "K" || suffix == "k" || suffix == "KB" || suffix == "KiB") multiplier = 1ull << 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MB" || suffix == "MiB") multiplier = 1ull << 20;
  else if (suffix == "G" || suffix == "g" || suffix == "GB" || suffix == "GiB") multiplier = 1ull << 30;
  else if (suffix == "T" || suffix == "t" || suffix == "TB" || suffix == "TiB") multiplier = 1ull << 40;
  else if (!suffix.empty() && suffix != "B")
    throw UsageError(fmt::format("size '{}' has an unknown unit '{}' (use K, M, G or T)", text, suffix));
  if (value > UINT64_MAX / multiplier) throw UsageError(fmt::format("size '{}' is too large", text));
  return value * multiplier;
}

std::string format_size_bytes(std::uint64_t bytes) {
  constexpr std::string_view units[] = {"", "K", "M", "G", "T"};
  std::size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<std::uint64_t>(value))) return fmt::format("{}{}", value, units[unit]);
  return fmt::format("{:.3g}{}", value, units[unit]);
}

void validate_sweep(const SweepSpec& spec) {
  if (spec.min_bytes == 0) throw UsageError("-b (minimum size) must be greater than 0");
  if (spec.max_bytes == 0) throw UsageError("-e (maximum size) must be greater than 0");
  if (spec.min_bytes > spec.max_bytes)
    throw UsageError(fmt::format("-b {} is larger than -e {}", format_size_bytes(spec.min_bytes),
                                 format_size_bytes(spec.max_bytes)));
  if (spec.step_bytes) {
    if (*spec.step_bytes == 0) throw UsageError("-i (size increment) must be greater than 0");
  } else if (spec.step_factor < 2 && spec.min_bytes != spec.max_bytes) {
    throw UsageError(fmt::format("-f {} would never reach -e; use a factor of at least 2", spec.step_factor));
  }
}

std::vector<std::uint64_t> expand_sweep(const SweepSpec& spec, std::uint64_t unit_bytes,
                                        std::string_view unit_description) {
  validate_sweep(spec);
  const auto require_multiple = [&](std::uint64_t bytes, std::string_view flag) {
    if (bytes % unit_bytes != 0)
      throw UsageError(fmt::format("{} {} is not a multiple of {} bytes ({})", flag, bytes, unit_bytes,
                                   unit_description));
  };
  require_multiple(spec.min_bytes, "-b");
  if (spec.step_bytes) require_multiple(*spec.step_bytes, "-i");

  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = spec.min_bytes; bytes <= spec.max_bytes;) {
    sizes.push_back(bytes);
    const std::uint64_t step = spec.step_bytes ? *spec.step_bytes : bytes * (spec.step_factor - 1);
    if (step == 0 || bytes > UINT64_MAX - step) break;
    bytes += step;
  }
  return sizes;
}

}  // namespace fb
