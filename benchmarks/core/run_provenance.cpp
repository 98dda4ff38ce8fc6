#include "benchmarks/core/run_provenance.hpp"

#include "benchmarks/core/backend.hpp"
#include "common/build_info.hpp"
#include "common/host_environment.hpp"
#include "benchmarks/core/result_builder.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <chrono>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <random>

extern char** environ;

namespace fb {

Provenance collect_provenance(const Backend& backend, std::string run_id, std::string command_line) {
  Provenance p;
  p.run_id = std::move(run_id);
  p.tool_version = tool_version();
  p.git_revision = git_revision();
  p.start_time = utc_timestamp_now();
  p.command_line = std::move(command_line);
  p.backend = std::string(backend.name());
  const RankPlacement& placement = backend.placement();
  p.nranks = placement.nranks;
  p.nodes = placement.nodes;
  p.ranks_per_node = placement.ranks_per_node;
  p.rank_hosts = placement.rank_hosts;
  if (utsname host{}; ::uname(&host) == 0) p.kernel = fmt::format("{} {} {}", host.sysname, host.release, host.machine);
  p.libraries = backend.library_versions();
  if (const std::optional<HostPagesReport> pages = backend.host_buffer_pages()) p.host_buffer_pages = pages->describe();
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view text = *entry;
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    if (is_relevant_environment_variable(text.substr(0, equals)))
      p.environment.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return p;
}

}  // namespace fb
