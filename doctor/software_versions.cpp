#include "doctor/software_versions.hpp"

#include "common/sysfs_files.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

namespace fb::doctor {
namespace {

namespace fs = std::filesystem;

DetectedVersion nvidia_driver(const fs::path& root) {
  const fs::path banner_path = under_root(root, "/proc/driver/nvidia/version");
  if (const auto banner = read_first_line(banner_path)) {
    if (std::string version = driver_version_from_banner(*banner); !version.empty())
      return {std::move(version), banner_path.string()};
  }
  const fs::path module_version = under_root(root, "/sys/module/nvidia/version");
  if (const auto version = read_first_line(module_version); version && !version->empty())
    return {*version, module_version.string()};
  return {};
}

// `#define NAME VALUE` in a header, as an integer.
std::optional<long> header_define(const std::string& header, const std::string& name) {
  const std::regex define("#define[ \t]+" + name + "[ \t]+([0-9]+)");
  std::smatch match;
  if (!std::regex_search(header, match, define)) return std::nullopt;
  return std::stol(match[1].str());
}

const std::vector<fs::path> include_dirs{"/usr/local/cuda/include", "/usr/include"};

DetectedVersion cuda_toolkit(const fs::path& root) {
  // CUDA 11.1 and later describe themselves in version.json; the runtime header has the version
  // of every release, as major * 1000 + minor * 10.
  const fs::path manifest_path = under_root(root, "/usr/local/cuda/version.json");
  if (const auto manifest = read_text(manifest_path)) {
    const nlohmann::json parsed = nlohmann::json::parse(*manifest, nullptr, false);
    if (parsed.is_object() && parsed.contains("cuda") && parsed["cuda"].contains("version") &&
        parsed["cuda"]["version"].is_string())
      return {parsed["cuda"]["version"].get<std::string>(), manifest_path.string()};
  }
  for (const fs::path& dir : include_dirs) {
    const fs::path header_path = under_root(root, dir / "cuda_runtime_api.h");
    const auto header = read_text(header_path);
    if (!header) continue;
    if (const auto code = header_define(*header, "CUDART_VERSION"))
      return {std::to_string(*code / 1000) + "." + std::to_string(*code % 1000 / 10), header_path.string()};
  }
  return {};
}

// Where the dynamic loader would look for libnccl: LD_LIBRARY_PATH first, then the usual
// system, CUDA and NCCL install directories.
std::vector<fs::path> library_dirs() {
  std::vector<fs::path> dirs;
  if (const char* search_path = std::getenv("LD_LIBRARY_PATH")) {
    std::istringstream entries(search_path);
    for (std::string entry; std::getline(entries, entry, ':');)
      if (!entry.empty() && fs::path(entry).is_absolute()) dirs.emplace_back(entry);
  }
  for (const char* dir :
       {"/usr/local/cuda/lib64", "/usr/local/cuda/lib", "/usr/local/nccl/lib", "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"})
    dirs.emplace_back(dir);
  return dirs;
}

DetectedVersion nccl(const fs::path& root) {
  // Packages install libnccl.so.2.28.9 and link libnccl.so.2 to it: the full file name is the
  // version that runs. Some installs (the Python wheel) ship only libnccl.so.2; then the header
  // says which release it is, and failing that the major version is all there is to tell.
  static const std::regex full_name(R"(libnccl\.so\.([0-9]+\.[0-9]+\.[0-9]+))");
  static const std::regex major_name(R"(libnccl\.so\.([0-9]+))");
  DetectedVersion major_only;
  for (const fs::path& dir : library_dirs()) {
    const fs::path rooted_dir = under_root(root, dir);
    for (const std::string& name : sorted_entries(rooted_dir)) {
      std::smatch match;
      if (std::regex_match(name, match, full_name)) return {match[1].str(), (rooted_dir / name).string()};
      if (major_only.version.empty() && std::regex_match(name, match, major_name))
        major_only = {match[1].str(), (rooted_dir / name).string()};
    }
  }
  for (const fs::path& dir : include_dirs) {
    const fs::path header_path = under_root(root, dir / "nccl.h");
    const auto header = read_text(header_path);
    if (!header) continue;
    const auto major = header_define(*header, "NCCL_MAJOR");
    const auto minor = header_define(*header, "NCCL_MINOR");
    const auto patch = header_define(*header, "NCCL_PATCH");
    if (major && minor && patch)
      return {std::to_string(*major) + "." + std::to_string(*minor) + "." + std::to_string(*patch),
              header_path.string()};
  }
  return major_only;
}

}  // namespace

std::string driver_version_from_banner(std::string_view banner) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..." or
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ...".
  static const std::regex version(R"((^|\s)([0-9]+(\.[0-9]+)+)(\s|$))");
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(banner.begin(), banner.end(), match, version)) return {};
  return match[2].str();
}

SoftwareVersions detect_software_versions(const fs::path& root) {
  SoftwareVersions versions;
  versions.nvidia_driver = nvidia_driver(root);
  versions.cuda = cuda_toolkit(root);
  versions.nccl = nccl(root);
  return versions;
}

}  // namespace fb::doctor
