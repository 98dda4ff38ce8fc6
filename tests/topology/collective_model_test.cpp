#include "topology/collective_model.hpp"

#include "topology/cluster_spec.hpp"

#include "common/errors.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

namespace fb::topo {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

ClusterSpec dgx_h100(int nodes) {
  ClusterSpec spec;  // 8 H100, 18 NVLink4 over 4 NVSwitches, PCIe Gen5 x16, 8 NICs on 4 switches
  spec.node.count = nodes;
  spec.node.nic_link = *infiniband(4, "NDR");
  if (nodes > 1) {
    spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}};
    spec.fabric.switch_link = spec.node.nic_link;
  }
  return spec;
}

CollectiveModel model_of(const ClusterSpec& spec, int nodes = 0, int gpus_per_node = 0) {
  const Graph graph = build_cluster(spec);
  return model_collectives(graph, place_ranks(graph, nodes, gpus_per_node));
}

TEST(CollectiveModel, OneH100NodeRingRunsAtNvlinksEffectiveRate) {
  const CollectiveModel model = model_of(dgx_h100(1));
  EXPECT_EQ(model.ranks, 8);
  EXPECT_EQ(model.compute_capability, 90);
  EXPECT_TRUE(model.nvswitch);
  // 18 NVLink4 lanes at NCCL's 20.6 GB/s, not the datasheet's 25.
  EXPECT_NEAR(model.ring_gbps, 18 * 20.6, 1e-9);
  EXPECT_NE(model.ring_limit.find("NVLink4"), std::string::npos) << model.ring_limit;
  EXPECT_EQ(model.channels, 32);
}

TEST(CollectiveModel, SmallMessagesCostLaunchPlusNcclsLatencyFigures) {
  const CollectiveModel model = model_of(dgx_h100(1));
  const Prediction tiny = predict(model, op_by_name("all_reduce"), 8);
  EXPECT_EQ(tiny.algorithm, Algorithm::ring);
  EXPECT_EQ(tiny.protocol, Protocol::ll);
  // launch 1.422 + ring LL base 6.6 + 2(p-1) = 14 NVLink steps of 0.6 us, and 8 B at LL's rate.
  const double bytes_us = 8 / (std::min(141.0, 0.5 * 18 * 20.6) / (2 * 7 / 8.0) * 1e3);
  EXPECT_NEAR(tiny.time_us, 1.422 + 6.6 + 14 * 0.6 + bytes_us, 1e-9);
  // NCCL_PROTO=Simple alone: NVLS (25 us in the switch) beats the Simple ring's 14 steps.
  const Prediction simple_only = predict(model, op_by_name("all_reduce"), 8, {std::nullopt, Protocol::simple});
  EXPECT_EQ(simple_only.algorithm, Algorithm::nvls);
  EXPECT_NEAR(simple_only.time_us, 1.422 + 25, 0.01);
  // NCCL_ALGO=Ring NCCL_PROTO=Simple: 8.4 + 14 x 3.4.
  const Prediction simple = predict(model, op_by_name("all_reduce"), 8, {Algorithm::ring, Protocol::simple});
  EXPECT_EQ(simple.protocol, Protocol::simple);
  EXPECT_GT(simple.time_us, 1.422 + 8.4 + 14 * 3.4);
  EXPECT_LT(simple.time_us, 1.422 + 8.4 + 14 * 3.4 + 0.01);
}

// NVLS's pipeline fill is two loops of chunks whose size NCCL halves below 64, 8 and 2 loops: at
// each threshold the chunk doubles going up, so the fill steps up and busbw dips, but time must
// never fall as the size grows. Checked on every size a sixteenth of an octave apart and on each
// side of every threshold, one 8-H100 node and one 72-GPU NVL72 domain.
TEST(CollectiveModel, NvlsAllReduceTimeNeverFallsAsTheSizeGrows) {
  ClusterSpec rack = dgx_h100(1);
  rack.node.gpus = 72;
  rack.node.nvlink_generation = 5;
  rack.node.nvswitches = 18;
  rack.node.nics = 72;
  // Concurrent chunks (channels x heads) and the chunk sizes NCCL steps through.
  for (const auto& [spec, concurrent_chunks] : {std::pair{dgx_h100(1), 16 * 8}, std::pair{rack, 24 * 32}}) {
    const CollectiveModel model = model_of(spec);
    std::set<std::uint64_t> sizes;
    for (double bytes = 1024; bytes <= 16.0 * GiB; bytes *= std::pow(2.0, 1.0 / 16)) {
      sizes.insert(static_cast<std::uint64_t>(bytes));
    }
    for (const std::uint64_t loops_chunk : {64 * 65536ULL, 8 * 32768ULL, 2 * 16384ULL, 64 * 131072ULL}) {
      const std::uint64_t threshold = loops_chunk * static_cast<std::uint64_t>(concurrent_chunks);
      sizes.insert({threshold - 1, threshold, threshold + 1});
    }
    double previous_us = 0;
    std::uint64_t previous_bytes = 0;
    for (const std::uint64_t bytes : sizes) {
      const Prediction nvls = predict(model, op_by_name("all_reduce"), bytes, {Algorithm::nvls, std::nullopt});
      EXPECT_GE(nvls.time_us, previous_us) << model.ranks << " GPUs: " << bytes << " B after " << previous_bytes;
      previous_us = nvls.time_us;
      previous_bytes = bytes;
    }
  }
}

TEST(CollectiveModel, NvlsLiftsAllReduceButNotAllGather) {
  const CollectiveModel model = model_of(dgx_h100(1));
  const Prediction all_reduce = predict(model, op_by_name("all_reduce"), 8 * GiB);
  EXPECT_EQ(all_reduce.algorithm, Algorithm::nvls);
  // 2(g-1)/(g+1) x 370.8 x 0.82 (fitted): each GPU sends S + S/g through its NVLinks to the switches.
  const double nvls_gbps = 2 * 7 / 9.0 * 18 * 20.6 * FittedConstants{}.nvls_efficiency_hopper;
  EXPECT_NEAR(all_reduce.busbw_gbps, nvls_gbps, 0.01 * nvls_gbps);
  const Prediction all_gather = predict(model, op_by_name("all_gather"), 8 * GiB);
  EXPECT_EQ(all_gather.algorithm, Algorithm::ring);
  EXPECT_NEAR(all_gather.busbw_gbps, 18 * 20.6, 0.01 * 18 * 20.6);
  const Prediction ring = predict(model, op_by_name("all_reduce"), 8 * GiB, {Algorithm::ring, std::nullopt});
  EXPECT_EQ(ring.algorithm, Algorithm::ring);
  EXPECT_NEAR(ring.busbw_gbps, 18 * 20.6, 0.01 * 18 * 20.6);
}

// 8 H100 with NCCL_ALGO=NVLS (nccl#1455) follow S + S/g from 5 to 8 GPUs; one GB200 NVL72 rack
// does not grow from 8 to 72 (811 and 834.6 GB/s), so past 8 GPUs the model holds NVLS at its
// 8-GPU rate, says so, and still checks the link bound of the whole domain.
TEST(CollectiveModel, NvlsGrowsWithTheDomainUpToEightGpusAndHoldsThereAfter) {
  const auto nvls_at = [](int gpus) {
    ClusterSpec spec = dgx_h100(1);
    spec.node.gpus = gpus;
    spec.node.nvlink_generation = 5;
    spec.node.nvswitches = 18;
    spec.node.nics = gpus;
    return predict(model_of(spec), op_by_name("all_reduce"), 8 * GiB, {Algorithm::nvls, std::nullopt});
  };
  // At 8 GiB the domains differ beyond the rate only by NVLS's pipeline fill: two loops of 24
  // channels x the domain's heads (its GPUs, at most 32) x 128 KiB chunks.
  const auto fill_share = [](int gpus) {
    return 8.0 * GiB / (8.0 * GiB + 2.0 * 24 * std::min(gpus, 32) * 128 * 1024.0);
  };
  const Prediction five = nvls_at(5);
  const Prediction eight = nvls_at(8);
  EXPECT_NEAR(eight.busbw_gbps / five.busbw_gbps, (2 * 7 / 9.0) / (2 * 4 / 6.0) * fill_share(8) / fill_share(5), 0.002);
  EXPECT_TRUE(eight.assumption.empty()) << eight.assumption;
  EXPECT_EQ(eight.channels, 24);  // NCCL's CTAs for NVLS on Blackwell inside one domain (16 on Hopper)
  for (const int gpus : {9, 16, 36, 72}) {
    const Prediction wide = nvls_at(gpus);
    EXPECT_NEAR(wide.busbw_gbps / eight.busbw_gbps, fill_share(gpus) / fill_share(8), 0.002) << gpus << " GPUs";
    EXPECT_NE(wide.assumption.find(fmt::format("NVLS all_reduce on {} GPUs of one NVLink domain reaches what it does "
                                               "on 8",
                                               gpus)),
              std::string::npos)
        << wide.assumption;
    // The bound stays the traffic S + S/g of all the domain's GPUs: 2(g-1)/(g+1) x a GPU's NVLink.
    EXPECT_NEAR(wide.bound_gbps / eight.bound_gbps, (2.0 * (gpus - 1) / (gpus + 1)) / (2 * 7 / 9.0), 1e-9);
  }
}

TEST(CollectiveModel, ForcedAlgorithmsThatCannotRunAreRefused) {
  ClusterSpec a100 = dgx_h100(1);
  a100.node.nvlink_generation = 3;
  a100.node.nvlinks_per_gpu = 12;
  a100.node.nvswitches = 6;
  const CollectiveModel ampere = model_of(a100);
  EXPECT_EQ(ampere.compute_capability, 80);
  // NVLS needs sm_90; PAT one GPU per node; NVLS-tree several nodes.
  EXPECT_THROW(predict(ampere, op_by_name("all_reduce"), GiB, {Algorithm::nvls, std::nullopt}), InputError);
  EXPECT_THROW(predict(ampere, op_by_name("all_gather"), GiB, {Algorithm::pat, std::nullopt}), InputError);
  EXPECT_THROW(predict(model_of(dgx_h100(1)), op_by_name("all_reduce"), GiB, {Algorithm::nvls_tree, std::nullopt}),
               InputError);
  EXPECT_EQ(predict(ampere, op_by_name("all_reduce"), GiB).algorithm, Algorithm::ring);
}

TEST(CollectiveModel, TwoNodesRunOneRailPerNicAndTreesCrossOnce) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  const CollectiveModel model = model_collectives(graph, place_ranks(graph, 2, 8));
  EXPECT_EQ(model.nodes, 2);
  EXPECT_EQ(model.rails, 8);
  EXPECT_EQ(model.channels, 16);
  // Each rail's NDR port carries 0.95 of 50 GB/s (47.5), below the GPU's PCIe Gen5 x16 (48).
  EXPECT_NEAR(model.net_gbps, 8 * 50 * 0.95, 1e-6);
  EXPECT_NEAR(model.ring_gbps, 8 * 50 * 0.95, 1e-6);
  EXPECT_NE(model.net_limit.find("IB NDR"), std::string::npos) << model.net_limit;
  // A 2-node NVLS-tree sends each node's data across once: busbw above the NICs, up to NVLS.
  const Prediction large = predict(model, op_by_name("all_reduce"), 8 * GiB);
  EXPECT_EQ(large.algorithm, Algorithm::nvls_tree);
  EXPECT_GT(large.busbw_gbps, model.net_gbps * 1.2);
  // Without NVLS the tree still beats the ring at 2 nodes, capped by the node's NVLink ring.
  const Prediction tree = predict(model, op_by_name("all_reduce"), 8 * GiB, {Algorithm::tree, Protocol::simple});
  EXPECT_NEAR(tree.busbw_gbps, 0.92 * 18 * 20.6, 0.01 * 0.92 * 18 * 20.6);
  // all_gather has no tree: the ring's rate.
  EXPECT_EQ(predict(model, op_by_name("all_gather"), 8 * GiB).algorithm, Algorithm::ring);
}

TEST(CollectiveModel, FewerNicsThanGpusExitThroughTheGpusNearEachNic) {
  // 8 A100, 4 HDR NICs, one per PCIe switch shared with two GPUs: every rail enters and leaves
  // through its own switch's GPUs, so all four NICs carry a ring (none shares, none idles).
  ClusterSpec spec = dgx_h100(3);
  spec.node.nvlink_generation = 3;
  spec.node.nvlinks_per_gpu = 12;
  spec.node.nvswitches = 6;
  spec.node.pcie_generation = 4;
  spec.node.nics = 4;
  spec.node.nic_link = *infiniband(4, "HDR");
  spec.fabric.switch_link = spec.node.nic_link;
  const CollectiveModel model = model_of(spec);
  EXPECT_EQ(model.rails, 4);
  EXPECT_NEAR(model.ring_gbps, 4 * 25 * 0.95, 1e-6);
}

TEST(CollectiveModel, PortsAreRailsNotAPool) {
  // 32x 100G EFA (AWS p5): 32 rails of one port each, four behind each GPU pair's PCIe switch.
  ClusterSpec p5 = dgx_h100(4);
  p5.node.nics = 32;
  p5.node.nic_link = *network_by_rate(LinkType::efa, 100000);
  p5.fabric.switch_link = p5.node.nic_link;
  const CollectiveModel efa = model_of(p5);
  EXPECT_EQ(efa.rails, 32);
  EXPECT_NEAR(efa.net_gbps, 32 * 12.5 * 0.89, 1e-6);
  // Half the GPUs: NCCL still uses every NIC through PXN, each rail at one port's rate.
  ClusterSpec eight_ports = p5;
  eight_ports.node.nics = 8;
  eight_ports.node.nic_link = *network_by_rate(LinkType::efa, 400000);
  eight_ports.fabric.switch_link = eight_ports.node.nic_link;
  EXPECT_EQ(model_of(eight_ports).rails, 8);
  EXPECT_NEAR(model_of(eight_ports).net_gbps, 8 * 50 * 0.89, 1e-6);
}

TEST(CollectiveModel, An800GNicOnPcieGen5IsLimitedByPcieAndSaysSo) {
  ClusterSpec nic_400 = dgx_h100(2);
  nic_400.node.nic_link = *network_by_rate(LinkType::roce, 400000);
  nic_400.fabric.switch_link = nic_400.node.nic_link;
  ClusterSpec nic_800 = nic_400;
  nic_800.node.nic_link = *network_by_rate(LinkType::roce, 800000);
  nic_800.fabric.switch_link = nic_800.node.nic_link;
  const CollectiveModel slow = model_of(nic_400);
  const CollectiveModel fast = model_of(nic_800);
  EXPECT_NEAR(slow.net_gbps, 8 * 50 * 0.92, 1e-6);
  EXPECT_NE(slow.net_limit.find("RoCE"), std::string::npos) << slow.net_limit;
  // 800G (92 GB/s effective) behind a PCIe Gen5 x16 slot: the slot's 48 GB/s limits each rail.
  EXPECT_NEAR(fast.net_gbps, 8 * 48.0, 1e-6);
  EXPECT_NE(fast.net_limit.find("PCIe Gen5"), std::string::npos) << fast.net_limit;
}

TEST(CollectiveModel, PatServesOneGpuPerNodeAndAlltoallCrossesTheFabric) {
  const CollectiveModel one_per_node = model_of(dgx_h100(16), 16, 1);
  EXPECT_EQ(one_per_node.ranks_per_node, 1);
  const Prediction small = predict(one_per_node, op_by_name("all_gather"), 16 * 1024);
  EXPECT_EQ(small.algorithm, Algorithm::pat);
  const CollectiveModel full = model_of(dgx_h100(4));
  const Prediction alltoall = predict(full, op_by_name("alltoall"), GiB);
  EXPECT_EQ(alltoall.algorithm, Algorithm::p2p);
  EXPECT_EQ(alltoall.protocol, Protocol::simple);
  // Each GPU sends 3/4 of its data off-node; the node's 8 ports at 47.5 GB/s carry it.
  const double p = 32;
  const double expected_busbw = (p - 1) / p / (8.0 * 24 / 32 / (8 * 47.5));
  EXPECT_NEAR(alltoall.busbw_gbps, expected_busbw, 0.02 * expected_busbw);
}

// nccl-tests' gather and scatter are grouped sends to or from the root: the root's node's shares
// cross its NVLink, the other nodes' shares its one NIC (PXN puts them on the root's rail), so
// busbw = (p-1)/p x rate / share = 47.5 x 31/24 on 4 nodes of 8 and the root's NVLink in one node.
TEST(CollectiveModel, GatherAndScatterFunnelThroughTheRootsNicAndNvlink) {
  const CollectiveModel four_nodes = model_of(dgx_h100(4));
  for (const std::string_view name : {"gather", "scatter"}) {
    SCOPED_TRACE(name);
    const Prediction prediction = predict(four_nodes, op_by_name(name), GiB);
    EXPECT_EQ(prediction.algorithm, Algorithm::p2p);
    EXPECT_NEAR(prediction.busbw_gbps, 47.5 * 31 / 24, 0.02 * 47.5 * 31 / 24);
    EXPECT_NE(prediction.limit.find("root's NIC port"), std::string::npos) << prediction.limit;
  }
  const CollectiveModel one_node = model_of(dgx_h100(1));
  const Prediction local = predict(one_node, op_by_name("gather"), GiB);
  EXPECT_NEAR(local.busbw_gbps, one_node.gpu_nvlink_gbps, 0.02 * one_node.gpu_nvlink_gbps);
  EXPECT_EQ(local.limit, "NVLink of the root GPU");
  // Small messages pay one posted receive per peer on top of one send's latency.
  EXPECT_GT(predict(four_nodes, op_by_name("gather"), 1024).time_us,
            predict(four_nodes, op_by_name("sendrecv"), 1024).time_us);
}

// NCCL's reduce is broadcast's ring chain run towards the root; OSU's vector variants with equal
// counts move what their plain ops move.
TEST(CollectiveModel, ReduceAndVectorVariantsShareTheirCounterpartsFormulas) {
  const CollectiveModel model = model_of(dgx_h100(2));
  const auto same = [&](std::string_view a, std::string_view b, std::uint64_t bytes) {
    const Prediction pa = predict(model, op_by_name(a), bytes);
    const Prediction pb = predict(model, op_by_name(b), bytes);
    EXPECT_EQ(pa.algorithm, pb.algorithm) << a << " " << b;
    EXPECT_EQ(pa.protocol, pb.protocol) << a << " " << b;
    EXPECT_DOUBLE_EQ(pa.time_us, pb.time_us) << a << " " << b << " " << bytes;
  };
  for (const std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{1} << 20, GiB}) {
    same("reduce", "broadcast", bytes);
    same("allgatherv", "all_gather", bytes);
    same("alltoallv", "alltoall", bytes);
  }
  EXPECT_EQ(predict(model, op_by_name("reduce"), GiB).algorithm, Algorithm::ring);
}

TEST(CollectiveModel, ARingAcrossThousandsOfNodesWarns) {
  ClusterSpec spec = dgx_h100(512);
  spec.node.nics = 1;
  spec.node.gpus = 1;
  spec.node.nvlinks_per_gpu = 0;
  spec.node.nvswitches = 0;
  spec.node.pcie_switches = 1;
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 1.0}, {SwitchTier::spine, 64, 1.0}};
  const CollectiveModel model = model_of(spec);
  const Prediction forced = predict(model, op_by_name("all_reduce"), GiB, {Algorithm::ring, std::nullopt});
  EXPECT_NE(forced.warning.find("no one runs that"), std::string::npos);
  const Prediction chosen = predict(model, op_by_name("all_reduce"), GiB);
  EXPECT_NE(chosen.algorithm, Algorithm::ring);
  EXPECT_TRUE(chosen.warning.empty());
}

TEST(CollectiveModel, PlacementDecidesWhetherAlltoallMeetsTheTaper) {
  // 32 DGX H100 on 2:1 leaves of 4 nodes (760 GB/s of uplinks for 1,520 GB/s of NIC ports). 8
  // packed nodes fill two leaves and send 4/7 of their alltoall traffic up; 8 spread nodes have a
  // leaf each, whose uplinks outrun the node.
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");
  const CollectiveModel packed = model_collectives(graph, place_ranks(graph, 8, 8));
  const CollectiveModel spread = model_collectives(graph, place_ranks(graph, 8, 8, {Placement::Kind::spread, {}}));
  const Prediction packed_alltoall = predict(packed, op_by_name("alltoall"), GiB);
  const Prediction spread_alltoall = predict(spread, op_by_name("alltoall"), GiB);
  EXPECT_LT(packed_alltoall.busbw_gbps, 0.9 * spread_alltoall.busbw_gbps);
  EXPECT_NE(packed_alltoall.limit.find("uplinks"), std::string::npos) << packed_alltoall.limit;
  EXPECT_EQ(spread_alltoall.limit.find("uplinks"), std::string::npos) << spread_alltoall.limit;
  // Named hosts, in rank order.
  const std::vector<VertexId> named = place_ranks(graph, 0, 2, {Placement::Kind::hosts, {"node00007", "node00003"}});
  ASSERT_EQ(named.size(), 4u);
  EXPECT_EQ(graph.vertex(graph.vertex(named.front()).host).name, "node00007");
  EXPECT_THROW(place_ranks(graph, 0, 8, {Placement::Kind::hosts, {"node99999"}}), InputError);
}

// docs/examples/h100-128-taper2.yaml: 128 DGX H100 on leaves of 5 nodes (40 NDR ports down, 21
// up: 997.5 GB/s of uplinks per leaf at 47.5 GB/s effective per port).
Graph taper2_h100_128() {
  ClusterSpec spec = dgx_h100(128);
  spec.fabric.tiers = {{SwitchTier::leaf, 64, 2.0}, {SwitchTier::spine, 64, 1.0}};
  return build_cluster(spec);
}

std::vector<std::vector<VertexId>> place(const Graph& graph, std::vector<JobPlacement> jobs) {
  return place_jobs(graph, jobs);
}

std::string host_of(const Graph& graph, VertexId rank) { return graph.vertex(graph.vertex(rank).host).name; }

TEST(CollectiveModel, JobsNeverShareAHost) {
  const Graph graph = test::parse_sample("dgx_h100_pod.yaml");  // 32 hosts
  const Placement spread{Placement::Kind::spread, {}};
  // A packed job after another takes the next free hosts; a spread one spaces over the free ones;
  // one of 0 nodes takes what the others leave.
  const auto jobs = place(graph, {{4, 8, {}}, {4, 8, {}}, {4, 1, spread}, {0, 2, {}}});
  EXPECT_EQ(host_of(graph, jobs[0].front()), "node00001");
  EXPECT_EQ(host_of(graph, jobs[1].front()), "node00005");
  ASSERT_EQ(jobs[2].size(), 4u);  // free: node00009 ... node00032, every sixth
  EXPECT_EQ(host_of(graph, jobs[2][0]), "node00009");
  EXPECT_EQ(host_of(graph, jobs[2][1]), "node00015");
  EXPECT_EQ(host_of(graph, jobs[2][3]), "node00027");
  EXPECT_EQ(jobs[3].size(), 2u * (32 - 12));
  std::set<std::string> hosts;
  for (const auto& job : jobs) {
    for (const VertexId rank : job) hosts.insert(host_of(graph, rank));
  }
  EXPECT_EQ(hosts.size(), 32u);
  // Named hosts are reserved before packed jobs place theirs, wherever they come in the list.
  const auto named = place(graph, {{2, 8, {}}, {0, 8, {Placement::Kind::hosts, {"node00001"}}}});
  EXPECT_EQ(host_of(graph, named[0].front()), "node00002");
  try {
    place(graph, {{0, 8, {Placement::Kind::hosts, {"node00003", "node00004"}}},
                  {0, 8, {Placement::Kind::hosts, {"node00005", "node00004"}}}});
    ADD_FAILURE() << "overlapping host lists were accepted";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "placement: host node00004 is named by job 1 and job 2: jobs never share a host");
  }
  try {
    place(graph, {{20, 8, {}}, {13, 8, {}}});
    ADD_FAILURE() << "45 nodes placed on 32";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "the topology has 32 hosts with GPUs, 20 taken by other jobs: too few for the 13 nodes "
                               "job 2 asks for");
  }
}

TEST(CollectiveModel, AnAlltoallJobOnTheSameLeavesTakesItsShareOfTheUplinks) {
  // All_reduce on 64 nodes spread (node00001, 00003, ...) and alltoall packed on the 64 left free:
  // every leaf holds both. Leaf 2 (node00006-00010) has job 1 on two nodes, job 2 on three. Its
  // downlinks carry job 1's ring into node00007 (8 rails, a flow each) and, of each job 2 node's
  // alltoall (its pairs weigh its 8 NICs), the 61 of 63 peers outside the leaf: per unit of weight
  // 997.5 / (8 + 3 x 8 x 61/63), 8 rails of it for the ring.
  const Graph graph = taper2_h100_128();
  const Placement spread{Placement::Kind::spread, {}};
  const auto jobs = place(graph, {{64, 8, spread}, {64, 8, {}}});
  EXPECT_EQ(host_of(graph, jobs[1].front()), "node00002");
  const CollectiveModel alone = model_collectives(graph, jobs[0]);
  ModelOptions options;
  options.sharing_jobs.push_back({"job 2 (alltoall)", jobs[1], *sharing_pattern_of(op_by_name("alltoall"))});
  const CollectiveModel shared = model_collectives(graph, jobs[0], options);
  EXPECT_NEAR(alone.ring_gbps, 8 * 47.5, 1e-9);
  const double ring_gbps = 8 * 997.5 / (8 + 3 * 8 * 61 / 63.0);
  EXPECT_NEAR(shared.ring_gbps, ring_gbps, 1e-6);  // 255.46: 0.672 of alone
  EXPECT_NEAR(shared.net_gbps, ring_gbps, 1e-6);
  EXPECT_EQ(shared.ring_limit, "leaf0002 uplinks, coming down (997.5 GB/s), shared with job 2 (alltoall)");
  ASSERT_EQ(shared.sharing.size(), 1u);
  EXPECT_EQ(shared.sharing.front(), "job 2 (alltoall): its all-pairs exchange over 64 nodes (4032 fabric flows) runs "
                                    "throughout");
  // A forced ring's latency (1,022 steps) is the same; its bytes take 380 / 255.46 as long.
  const Prediction ring_alone = predict(alone, op_by_name("all_reduce"), GiB, {Algorithm::ring, Protocol::simple});
  const Prediction ring_shared = predict(shared, op_by_name("all_reduce"), GiB, {Algorithm::ring, Protocol::simple});
  const double busbw_factor = 2 * 511 / 512.0;
  EXPECT_NEAR(ring_shared.time_us - ring_alone.time_us, GiB * busbw_factor * (1 / ring_gbps - 1 / 380.0) / 1e3, 1e-3);
  EXPECT_NE(ring_shared.limit.find("shared with job 2"), std::string::npos) << ring_shared.limit;
  const Prediction chosen = predict(shared, op_by_name("all_reduce"), GiB);
  EXPECT_LT(chosen.busbw_gbps, predict(alone, op_by_name("all_reduce"), GiB).busbw_gbps);
  // An all_reduce job beside it instead crosses each leaf once per rail: the ring keeps its ports' rate.
  options.sharing_jobs.front().pattern = *sharing_pattern_of(op_by_name("all_reduce"));
  EXPECT_NEAR(model_collectives(graph, jobs[0], options).ring_gbps, 8 * 47.5, 1e-9);
}

TEST(CollectiveModel, AJobThatSharesNoLinkIsUnchangedToTheDigit) {
  // 60 packed nodes fill leaves 1-12; an alltoall on the 68 others stays on leaves 13-26, and a
  // two-tier fat tree's leaf-spine links each belong to one leaf.
  const Graph graph = taper2_h100_128();
  const auto jobs = place(graph, {{60, 8, {}}, {68, 8, {}}});
  const CollectiveModel alone = model_collectives(graph, jobs[0]);
  ModelOptions options;
  options.sharing_jobs.push_back({"job 2 (alltoall)", jobs[1], SharingPattern::all_pairs});
  const CollectiveModel shared = model_collectives(graph, jobs[0], options);
  EXPECT_EQ(shared.ring_gbps, alone.ring_gbps);
  EXPECT_EQ(shared.ring_limit, alone.ring_limit);
  EXPECT_EQ(shared.net_gbps, alone.net_gbps);
  EXPECT_EQ(shared.tree_net_gbps, alone.tree_net_gbps);
  EXPECT_EQ(shared.tree_limit, alone.tree_limit);
  EXPECT_EQ(shared.alltoall_node_gbps, alone.alltoall_node_gbps);
  EXPECT_EQ(shared.alltoall_limit, alone.alltoall_limit);
  EXPECT_EQ(shared.sendrecv_gbps, alone.sendrecv_gbps);
  for (const char* op : {"all_reduce", "all_gather", "alltoall", "sendrecv"}) {
    EXPECT_EQ(predict(shared, op_by_name(op), GiB).time_us, predict(alone, op_by_name(op), GiB).time_us) << op;
  }
  // A job on one node shares nothing with the others, whatever they send.
  const auto one = place(graph, {{1, 8, {}}, {127, 8, {}}});
  options.sharing_jobs.front().ranks = one[1];
  const CollectiveModel single = model_collectives(graph, one[0], options);
  EXPECT_EQ(single.ring_gbps, model_collectives(graph, one[0]).ring_gbps);
  EXPECT_EQ(single.sharing, std::vector<std::string>{"job 2 (alltoall): shares no link with a job on one node"});
  // The model knows no other job's traffic inside a host.
  options.sharing_jobs.front().ranks = {one[0].back()};
  EXPECT_THROW(model_collectives(graph, one[0], options), InputError);
}

TEST(CollectiveModel, PredictedRowHasNcclTestsSemanticsAndSaysHow) {
  const CollectiveModel model = model_of(dgx_h100(1));
  const std::uint64_t bytes = GiB;
  const Prediction prediction = predict(model, op_by_name("all_reduce"), bytes);
  const ResultRow row = predicted_row(model, prediction, op_by_name("all_reduce"), bytes, "run", "t");
  EXPECT_EQ(row.backend, "model");
  EXPECT_EQ(row.count, bytes / 4);
  EXPECT_DOUBLE_EQ(row.time_median_us, prediction.time_us);
  EXPECT_DOUBLE_EQ(row.algbw_gbps, static_cast<double>(bytes) / prediction.time_us / 1e3);
  ASSERT_TRUE(row.busbw_gbps);
  EXPECT_NEAR(*row.busbw_gbps, row.algbw_gbps * 2 * 7 / 8.0, 1e-9);
  EXPECT_EQ(row.model_algorithm, "nvls");
  EXPECT_EQ(row.model_protocol, "Simple");
  EXPECT_EQ(row.model_channels, 16);
  EXPECT_FALSE(row.model_limit.empty());
  const ResultRow gather = predicted_row(model, predict(model, op_by_name("all_gather"), bytes),
                                         op_by_name("all_gather"), bytes, "run", "t");
  EXPECT_EQ(gather.count, bytes / 4 / 8);
  EXPECT_EQ(gather.redop, "none");
}

// The model's formulas are reached from the catalog only: every op that names a modelled collective
// is predicted with the catalog's busbw factor and count semantics, each formula set by one op
// (and OSU's vector variants, which share theirs), and every other op is refused. Every collective
// of the catalog is modelled, so a new one is a decision here rather than a silent gap.
TEST(CollectiveModel, CoversExactlyTheCatalogsModelledCollectives) {
  const CollectiveModel model = model_of(dgx_h100(2));
  std::set<ModelledCollective> formula_sets;
  std::set<std::string_view> collectives_not_modelled;
  for (const OpTraits& op : all_ops()) {
    SCOPED_TRACE(op.name);
    if (op.modelled_as == ModelledCollective::none) {
      if (op.op_class == OpClass::collective) collectives_not_modelled.insert(op.name);
      EXPECT_EQ(modelled_op(op.name), nullptr);
      EXPECT_THROW(predict(model, op, GiB), InputError);
      EXPECT_THROW(candidates(model, op, GiB), InputError);
      continue;
    }
    EXPECT_EQ(op.op_class, OpClass::collective);
    const bool vector_variant = op.name == "allgatherv" || op.name == "alltoallv";
    EXPECT_TRUE(formula_sets.insert(op.modelled_as).second != vector_variant) << "formulas shared unexpectedly";
    EXPECT_EQ(modelled_op(op.name), &op);
    const ResultRow row = predicted_row(model, predict(model, op, GiB), op, GiB, "run", "t");
    EXPECT_EQ(row.op, op.name);
    ASSERT_TRUE(row.busbw_gbps);
    EXPECT_DOUBLE_EQ(*row.busbw_gbps, row.algbw_gbps * *busbw_factor_for(op, 16));
    EXPECT_EQ(row.count, count_per_rank(op, GiB, 4, 16));
    EXPECT_EQ(row.redop, op.takes_redop ? "sum" : "none");
    EXPECT_EQ(row.root.has_value(), op.takes_root);
  }
  // all_reduce, all_gather, reduce_scatter, broadcast, reduce, gather, scatter, alltoall, sendrecv
  EXPECT_EQ(formula_sets.size(), 9u);
  EXPECT_EQ(collectives_not_modelled, std::set<std::string_view>{});
}

TEST(CollectiveModel, NamesParseAsNcclSpellsThem) {
  EXPECT_EQ(algorithm_from_string("NVLSTree"), Algorithm::nvls_tree);
  EXPECT_EQ(algorithm_from_string("CollnetDirect"), Algorithm::collnet_direct);
  EXPECT_EQ(algorithm_from_string("ring"), Algorithm::ring);
  EXPECT_EQ(protocol_from_string("ll128"), Protocol::ll128);
  EXPECT_EQ(protocol_from_string("Simple"), Protocol::simple);
  EXPECT_FALSE(algorithm_from_string("butterfly"));
  EXPECT_FALSE(protocol_from_string("LL64"));
}

TEST(CollectiveModel, RejectsOneRankAndTooManyNodes) {
  const Graph graph = build_cluster(dgx_h100(1));
  const std::vector<VertexId> one{graph.find("node00001/GPU0")};
  EXPECT_THROW(model_collectives(graph, one), InputError);
  EXPECT_THROW(place_ranks(graph, 2, 8), InputError);
  EXPECT_THROW(place_ranks(graph, 1, 9), InputError);
}

// Without the alltoall figures (what a prediction of another collective asks for) the model
// skips exactly them: every figure another collective reads is the full model's, bit for bit.
TEST(CollectiveModel, WithoutAlltoallOnlyTheAlltoallFiguresAreLeftOut) {
  const Graph graph = build_cluster(dgx_h100(4));
  const std::vector<VertexId> ranks = place_ranks(graph, 4, 0);
  const CollectiveModel full = model_collectives(graph, ranks);
  ModelOptions options;
  options.alltoall = false;
  const CollectiveModel lean = model_collectives(graph, ranks, options);
  EXPECT_GT(full.alltoall_node_gbps, 0);
  EXPECT_GT(full.local_all_pairs_gbps, 0);
  EXPECT_TRUE(std::isnan(lean.alltoall_node_gbps));
  EXPECT_TRUE(std::isnan(lean.local_all_pairs_gbps));
  EXPECT_TRUE(lean.alltoall_limit.empty());
  EXPECT_EQ(lean.ring_gbps, full.ring_gbps);
  EXPECT_EQ(lean.ring_limit, full.ring_limit);
  EXPECT_EQ(lean.net_gbps, full.net_gbps);
  EXPECT_EQ(lean.net_limit, full.net_limit);
  EXPECT_EQ(lean.intra_gbps, full.intra_gbps);
  EXPECT_EQ(lean.tree_net_gbps, full.tree_net_gbps);
  EXPECT_EQ(lean.tree_limit, full.tree_limit);
  EXPECT_EQ(lean.sendrecv_gbps, full.sendrecv_gbps);
  EXPECT_EQ(lean.sendrecv_limit, full.sendrecv_limit);
  EXPECT_EQ(lean.gpu_nic_gbps, full.gpu_nic_gbps);
  EXPECT_EQ(lean.net_latency_us, full.net_latency_us);
  EXPECT_EQ(lean.assumptions, full.assumptions);
}

// Without the trees and the neighbour exchange (what alltoall and every op but all_reduce and
// sendrecv ask for) only their figures are left out; NaN, so a collective that read them would fail
// its bound check instead of printing a number.
TEST(CollectiveModel, WithoutTreesOrSendrecvOnlyTheirFiguresAreLeftOut) {
  const Graph graph = build_cluster(dgx_h100(4));
  const std::vector<VertexId> ranks = place_ranks(graph, 4, 0);
  const CollectiveModel full = model_collectives(graph, ranks);
  ModelOptions options;
  options.trees = false;
  options.sendrecv = false;
  const CollectiveModel lean = model_collectives(graph, ranks, options);
  EXPECT_NEAR(full.sendrecv_gbps, 50 * 0.95, 1e-6);
  EXPECT_GT(full.tree_net_gbps, 0);
  EXPECT_TRUE(std::isnan(lean.tree_net_gbps));
  EXPECT_TRUE(lean.tree_limit.empty());
  EXPECT_TRUE(std::isnan(lean.sendrecv_gbps));
  EXPECT_TRUE(lean.sendrecv_limit.empty());
  EXPECT_EQ(lean.ring_gbps, full.ring_gbps);
  EXPECT_EQ(lean.net_gbps, full.net_gbps);
  EXPECT_EQ(lean.intra_gbps, full.intra_gbps);
  EXPECT_EQ(lean.alltoall_node_gbps, full.alltoall_node_gbps);
  EXPECT_EQ(lean.alltoall_limit, full.alltoall_limit);
  EXPECT_EQ(lean.gpu_nic_gbps, full.gpu_nic_gbps);
  EXPECT_EQ(lean.net_latency_us, full.net_latency_us);
  const OpTraits& alltoall = op_by_name("alltoall");
  EXPECT_EQ(predict(lean, alltoall, GiB).time_us, predict(full, alltoall, GiB).time_us);
}

}  // namespace
}  // namespace fb::topo
