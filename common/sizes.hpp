#pragma once
// Message sizes and sweeps with nccl-tests semantics: -b min, -e max, -f factor or -i increment.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fb {

// "8", "64K", "32M", "1G", "1.5M": K, M, G, T (either case) and KiB ... TiB are binary multiples,
// as nccl-tests reads its sizes; KB, MB, GB, TB are decimal (10^3 ...), as the SI prefixes say. A
// fraction must make whole bytes. Throws UsageError.
std::uint64_t parse_size_bytes(std::string_view text);

// "8", "64K", "1.5M": compact, for table rows and messages.
std::string format_size_bytes(std::uint64_t bytes);

struct SweepSpec {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 32ull << 20;
  std::uint64_t step_factor = 2;            // geometric sweep, used when no increment is set
  std::optional<std::uint64_t> step_bytes;  // linear sweep (-i)
  bool min_given = true;                    // false: min_bytes is the default, not a -b typed
};

// Checks the spec on its own (before the rank count is known). Throws UsageError.
void validate_sweep(const SweepSpec& spec);

// How many sizes the sweep holds, counted without building the list (a linear sweep of -i 4 up to
// 4G is a billion sizes: its memory is checked before any is allocated). Throws UsageError.
std::uint64_t sweep_size_count(const SweepSpec& spec);

// Every size of the sweep, ascending. Each size must be a multiple of `unit_bytes` (element size,
// times the rank count for whole-buffer ops); a sweep that would produce another size is rejected
// with a UsageError that says which flag to change.
std::vector<std::uint64_t> expand_sweep(const SweepSpec& spec, std::uint64_t unit_bytes,
                                        std::string_view unit_description);

}  // namespace fb
