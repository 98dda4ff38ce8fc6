#include "cli/fabric_flags.hpp"

namespace fb::cli {

void add_fabric_flags(CLI::App& sub, FabricSources& sources) {
  sub.add_option("--topology", sources.topology,
                 "topology files, merged (YAML spec, topo -m, NCCL XML, ibnetdiscover, ...); without one, slow hosts "
                 "are found by the median absolute deviation among their peers");
  sub.add_option("--format", sources.topology_format, "topology format, or auto to detect it")->capture_default_str();
  sub.add_option("--routes", sources.routes_path,
                 "the fabric's forwarding tables (dump_fts, ibroute or OpenSM's opensm-lfts.dump; needs the fabric's "
                 "ibnetdiscover output among --topology): each pair on the path its packets take");
  sub.add_option("--routes-format", sources.routes_format, "forwarding table format, or auto to detect it")
      ->capture_default_str();
  sub.add_option("--job-mix", sources.job_mix,
                 "the jobs a fault's cost is predicted for, OP:SIZE,... across every node (default "
                 "all_reduce:1G,alltoall:1G); findings are ranked by it");
}

}  // namespace fb::cli
