// Answers the collective model must never give: a prediction faster than the link that limits it
// allows, or faster than a GPU's own links can move the op's bytes; and a larger job predicted
// faster than a smaller one on the same fabric (odd node counts and NCCL's shifted second tree).

#include "topology/collective_model.hpp"

#include "topology/cluster_spec.hpp"
#include "topology/format_registry.hpp"

#include "common/errors.hpp"
#include "common/op_catalog.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fb::topo {
namespace {

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = KiB * KiB;
constexpr std::uint64_t GiB = MiB * KiB;

Graph load(const std::string& path) { return load_topology({path}); }

std::vector<std::string> shipped_designs() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(DOCS_EXAMPLES_DIR)) {
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path().string());
  }
  for (const char* sample : {"dgx_h100_pod.yaml", "pcie_box.yaml", "ethernet_pair.yaml"}) {
    paths.push_back(test::sample_path(sample));
  }
  return paths;
}

// What a GPU can move at all: the sum of its links' effective rates, the slowest rank's.
double gpu_io_gbps(const Graph& graph, const std::vector<VertexId>& ranks) {
  double slowest = std::numeric_limits<double>::max();
  for (const VertexId rank : ranks) {
    double sum = 0;
    for (const LinkId l : graph.links_of(rank)) sum += graph.link(l).spec.capacity_gbps;
    slowest = std::min(slowest, sum);
  }
  return slowest;
}

// busbw no algorithm can beat with a GPU that moves `io` GB/s: all_reduce must send and receive
// its buffer once even when the switches reduce (busbw = 2(p-1)/p x algbw); every other op moves
// at most busbw's worth through each GPU (nccl-tests' factors are chosen so).
double physical_busbw_bound(const OpTraits& op, int ranks, double io_gbps) {
  const double p = ranks;
  return op.modelled_as == ModelledCollective::all_reduce ? 2 * (p - 1) / p * io_gbps : io_gbps;
}

void expect_within_bounds(const Graph& graph, const std::vector<VertexId>& ranks, const CollectiveModel& model,
                          const std::string& where) {
  const double io_gbps = gpu_io_gbps(graph, ranks);
  for (const OpTraits& op : all_ops()) {
    if (op.modelled_as == ModelledCollective::none) continue;
    for (std::uint64_t bytes = 64 * KiB; bytes <= 4 * GiB; bytes *= 16) {
      const std::uint64_t sized = bytes * static_cast<std::uint64_t>(model.ranks);  // whole-buffer ops divide
      for (const Prediction& candidate : candidates(model, op, sized)) {
        const std::string what =
            fmt::format("{} {} {} {} B: {:.2f} GB/s, bound {:.2f} ({})", where, op.name, name_of(candidate.algorithm),
                        sized, candidate.busbw_gbps, candidate.bound_gbps, candidate.limit);
        EXPECT_GT(candidate.bound_gbps, 0) << what;
        EXPECT_LE(candidate.busbw_gbps, candidate.bound_gbps * (1 + 1e-9)) << what;
        if (model.gpu_ranks) {
          EXPECT_LE(candidate.busbw_gbps, physical_busbw_bound(op, model.ranks, io_gbps) * (1 + 1e-9)) << what;
        }
      }
    }
  }
}

TEST(ModelBounds, NoPredictionOnAShippedDesignBeatsItsLimitingLinkOrItsGpusLinks) {
  for (const std::string& path : shipped_designs()) {
    const Graph graph = load(path);
    for (const int nodes : {1, 2, 3, 5, 16}) {
      std::vector<VertexId> ranks;
      try {
        ranks = place_ranks(graph, nodes, 0);
      } catch (const InputError&) {
        continue;  // a design with fewer hosts
      }
      const CollectiveModel model = model_collectives(graph, ranks);
      expect_within_bounds(graph, ranks, model, fmt::format("{} on {} nodes", path, nodes));
    }
  }
}

// The PCIe box: 4 GPUs behind each CPU, the sockets joined by one SMP link. alltoall sends 16 of
// its 64 pair shares each way across it, while a ring crosses it once each way: the socket link,
// not a GPU's PCIe path, bounds alltoall (it was predicted 2.3x faster than this).
TEST(ModelBounds, PcieOnlyAlltoallIsHeldToItsSocketLink) {
  const Graph graph = load(test::sample_path("pcie_box.yaml"));
  const std::vector<VertexId> ranks = place_ranks(graph, 1, 0);
  const CollectiveModel model = model_collectives(graph, ranks);
  double smp_gbps = 0;
  for (const Link& link : graph.links()) {
    if (link.spec.type == LinkType::smp) smp_gbps = link.spec.capacity_gbps;
  }
  ASSERT_GT(smp_gbps, 0);
  const std::uint64_t bytes = 8 * GiB;
  const Prediction alltoall = predict(model, op_by_name("alltoall"), bytes);
  // 4 x 4 shares of bytes/8 cross each way: time >= 16 x bytes/8 / smp; busbw = 7/8 bytes / time.
  const double bound_gbps = 7.0 / 8.0 * 8 * smp_gbps / 16;
  EXPECT_LE(alltoall.busbw_gbps, bound_gbps * (1 + 1e-9)) << alltoall.limit;
  EXPECT_GT(alltoall.busbw_gbps, 0.9 * bound_gbps) << alltoall.limit;
  EXPECT_NE(alltoall.limit.find("SMP"), std::string::npos) << alltoall.limit;
}

// NCCL's second tree is the first mirrored for an even node count and shifted by one node for an
// odd one (src/graph/trees.cc): a mirror of an odd count keeps the same nodes interior in both
// trees and doubles their edges. On a non-blocking fabric with the same nodes, one more node never
// makes a collective faster.
TEST(ModelBounds, OneMoreNodeIsNeverFasterOnTheSameFabric) {
  const Graph graph = load(std::string(DOCS_EXAMPLES_DIR) + "/h100-roce400.yaml");
  const std::vector<std::optional<Algorithm>> all_reduce_algorithms{std::nullopt, Algorithm::ring, Algorithm::tree,
                                                                    Algorithm::nvls_tree};
  struct Case {
    const char* op;
    std::optional<Algorithm> algorithm;
  };
  std::vector<Case> cases;
  for (const auto& algorithm : all_reduce_algorithms) cases.push_back({"all_reduce", algorithm});
  for (const char* op : {"all_gather", "reduce_scatter", "broadcast", "alltoall"}) cases.push_back({op, std::nullopt});
  std::vector<CollectiveModel> models;
  for (int nodes = 2; nodes <= 33; ++nodes) models.push_back(model_collectives(graph, place_ranks(graph, nodes, 0)));
  for (const Case& c : cases) {
    const OpTraits& op = op_by_name(c.op);
    for (const std::uint64_t per_rank : {MiB, 64 * MiB, GiB}) {
      for (std::size_t n = 0; n + 1 < models.size(); ++n) {
        // Equal bytes per call; whole-buffer ops need a multiple of the rank count.
        const std::uint64_t bytes = per_rank * 8 * 33 * 32;
        const Prediction smaller = predict(models[n], op, bytes, {c.algorithm, std::nullopt});
        const Prediction larger = predict(models[n + 1], op, bytes, {c.algorithm, std::nullopt});
        EXPECT_GE(larger.time_us, smaller.time_us * (1 - 1e-9))
            << c.op << " " << (c.algorithm ? name_of(*c.algorithm) : "auto") << " " << bytes
            << " B: " << models[n + 1].nodes << " nodes " << larger.time_us << " us (" << name_of(larger.algorithm)
            << ") vs " << models[n].nodes << " nodes " << smaller.time_us << " us (" << name_of(smaller.algorithm)
            << ")";
      }
    }
  }
}

TEST(ModelBounds, TheSecondTreeOfAnOddCountIsShiftedSoItsEdgesSpreadAsAnEvenCountsDo) {
  const Graph graph = load(std::string(DOCS_EXAMPLES_DIR) + "/h100-roce400.yaml");
  const CollectiveModel five = model_collectives(graph, place_ranks(graph, 5, 0));
  const CollectiveModel six = model_collectives(graph, place_ranks(graph, 6, 0));
  // Each node is interior in at most one tree: its NIC ports carry what an even count's do.
  EXPECT_NEAR(five.tree_net_gbps / (4 * 39.0 / 40), six.tree_net_gbps / (4 * 47.0 / 48), 1e-6 * six.tree_net_gbps);
}

}  // namespace
}  // namespace fb::topo
