#pragma once
// Whole files as text: inputs that must exist (an error naming the file) and system files that
// may be missing or refuse to be read (sysfs, procfs).

#include <filesystem>
#include <optional>
#include <string>

namespace fb {

// The whole file; throws InputError "PATH: cannot open: REASON" when it cannot be opened.
std::string read_text_file(const std::filesystem::path& path);

// The whole file; empty when it cannot be opened or read.
std::optional<std::string> read_text(const std::filesystem::path& path);

}  // namespace fb
