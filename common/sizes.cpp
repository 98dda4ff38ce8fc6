#include "common/sizes.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>
#include <string>
#include <fmt/format.h>

namespace fb {

namespace {

// The multiplier a unit stands for, or nothing for a unit that is none.
std::optional<std::uint64_t> multiplier_of(std::string_view unit) {
  constexpr std::string_view binary_letters = "KMGT";
  if (unit.empty() || unit == "B") return 1;
  std::uint64_t binary = 1;
  std::uint64_t decimal = 1;
  for (const char letter : binary_letters) {
    binary <<= 10;
    decimal *= 1000;
    const char lower = static_cast<char>(letter - 'A' + 'a');
    // K, k (nccl-tests' own reading) and KiB: binary; KB: decimal, as the SI prefix says.
    if (unit == std::string_view(&letter, 1) || unit == std::string_view(&lower, 1) ||
        unit == std::string(1, letter) + "iB")
      return binary;
    if (unit == std::string(1, letter) + "B") return decimal;
  }
  return std::nullopt;
}

}  // namespace

std::uint64_t parse_size_bytes(std::string_view text) {
  if (text.empty()) throw UsageError("empty size");
  if (text.front() == '-') throw UsageError(fmt::format("size '{}' is negative", text));
  const auto* end = text.data() + text.size();
  std::uint64_t whole = 0;
  const auto [after_whole, ec] = std::from_chars(text.data(), end, whole);
  if (ec == std::errc::result_out_of_range) throw UsageError(fmt::format("size '{}' is too large", text));
  if (ec != std::errc{} || after_whole == text.data())
    throw UsageError(fmt::format("size '{}' is not a number (examples: 8, 64K, 1.5M, 32MiB, 1GB)", text));
  // A fraction ("1.5M") is read exactly as digits over a power of ten, never through a double.
  std::string_view fraction;
  const char* rest = after_whole;
  if (rest != end && *rest == '.') {
    const char* digits_end = std::find_if(rest + 1, end, [](char c) { return c < '0' || c > '9'; });
    fraction = std::string_view(rest + 1, static_cast<std::size_t>(digits_end - rest - 1));
    rest = digits_end;
  }
  const std::string_view unit(rest, static_cast<std::size_t>(end - rest));
  const std::optional<std::uint64_t> multiplier = multiplier_of(unit);
  if (!multiplier)
    throw UsageError(fmt::format("size '{}' has an unknown unit '{}' (K, M, G, T and KiB ... TiB are binary, KB ... "
                                 "TB decimal)",
                                 text, unit));
  if (whole > UINT64_MAX / *multiplier || fraction.size() > 18)
    throw UsageError(fmt::format("size '{}' is too large", text));
  std::uint64_t bytes = whole * *multiplier;
  if (!fraction.empty()) {
    std::uint64_t numerator = 0;
    std::from_chars(fraction.data(), fraction.data() + fraction.size(), numerator);
    std::uint64_t denominator = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) denominator *= 10;
    // numerator / denominator of the multiplier must be whole bytes: in lowest terms, the
    // denominator divides the multiplier (and the part, below the multiplier, cannot overflow).
    const std::uint64_t common = std::gcd(numerator, denominator);
    if (*multiplier % (denominator / common) != 0)
      throw UsageError(fmt::format("size '{}' is not a whole number of bytes", text));
    const std::uint64_t part_bytes = numerator / common * (*multiplier / (denominator / common));
    if (bytes > UINT64_MAX - part_bytes) throw UsageError(fmt::format("size '{}' is too large", text));
    bytes += part_bytes;
  }
  return bytes;
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
  // A short form only where it is exact (1.5K); a size rounded to whole elements per rank
  // (1,048,320 bytes) keeps its digits rather than read as 1.02e+03K.
  const std::string short_form = fmt::format("{:.3g}", value);
  if (short_form.find('e') == std::string::npos && std::stod(short_form) == value) {
    return fmt::format("{}{}", short_form, units[unit]);
  }
  return fmt::format("{}", bytes);
}

void validate_sweep(const SweepSpec& spec) {
  if (spec.min_bytes == 0) throw UsageError("-b (minimum size) must be greater than 0");
  if (spec.max_bytes == 0) throw UsageError("-e (maximum size) must be greater than 0");
  if (spec.min_bytes > spec.max_bytes)
    throw UsageError(spec.min_given
                         ? fmt::format("-b {} is larger than -e {}", format_size_bytes(spec.min_bytes),
                                       format_size_bytes(spec.max_bytes))
                         : fmt::format("-e {} is smaller than the sweep's first size {} (the default -b)",
                                       format_size_bytes(spec.max_bytes), format_size_bytes(spec.min_bytes)));
  if (spec.step_bytes) {
    if (*spec.step_bytes == 0) throw UsageError("-i (size increment) must be greater than 0");
  } else if (spec.step_factor < 2 && spec.min_bytes != spec.max_bytes) {
    throw UsageError(fmt::format("-f {} would never reach -e; use a factor of at least 2", spec.step_factor));
  }
}

std::uint64_t sweep_size_count(const SweepSpec& spec) {
  validate_sweep(spec);
  if (spec.step_bytes) return (spec.max_bytes - spec.min_bytes) / *spec.step_bytes + 1;
  std::uint64_t count = 0;  // at most 64 sizes: each at least doubles
  for (std::uint64_t bytes = spec.min_bytes; bytes <= spec.max_bytes; ++count) {
    const std::uint64_t step = bytes * (spec.step_factor - 1);
    if (step == 0 || bytes > UINT64_MAX - step) return count + 1;
    bytes += step;
  }
  return count;
}

std::vector<std::uint64_t> expand_sweep(const SweepSpec& spec, std::uint64_t unit_bytes,
                                        std::string_view unit_description) {
  validate_sweep(spec);
  const auto require_multiple = [&](std::uint64_t bytes, std::string_view flag) {
    if (bytes % unit_bytes != 0)
      throw UsageError(
          fmt::format("{} {} is not a multiple of {} bytes ({})", flag, bytes, unit_bytes, unit_description));
  };
  require_multiple(spec.min_bytes, "-b");
  if (spec.step_bytes) require_multiple(*spec.step_bytes, "-i");

  std::vector<std::uint64_t> sizes;
  sizes.reserve(sweep_size_count(spec));
  for (std::uint64_t bytes = spec.min_bytes; bytes <= spec.max_bytes;) {
    sizes.push_back(bytes);
    const std::uint64_t step = spec.step_bytes ? *spec.step_bytes : bytes * (spec.step_factor - 1);
    if (step == 0 || bytes > UINT64_MAX - step) break;
    bytes += step;
  }
  return sizes;
}

}  // namespace fb
