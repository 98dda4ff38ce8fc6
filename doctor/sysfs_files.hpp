#pragma once
// Small readers for sysfs and procfs attribute files: one value per file, a trailing newline,
// and files that may be missing, unreadable or say "Unknown".

#include "common/text_file.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fb::doctor {

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

}  // namespace fb::doctor
