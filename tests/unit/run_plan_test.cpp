#include "benchmarks/core/backend.hpp"
#include "common/errors.hpp"
#include "benchmarks/core/run_plan.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Plans only: implements what plan_run asks of a backend, like the MPI backend does (broadcast
// in place only, no 16-bit floats), and fails the test if anything tries to measure.
class PlanningBackend final : public Backend {
 public:
  // `hosts` names the host of every rank; by default each rank has a host of its own.
  explicit PlanningBackend(int nranks, std::vector<std::string> hosts = {}) {
    placement_.nranks = nranks;
    if (hosts.empty())
      for (int rank = 0; rank < nranks; ++rank) hosts.push_back("h" + std::to_string(rank));
    placement_.rank_hosts = std::move(hosts);
  }
  std::string_view name() const override { return "fake"; }
  const RankPlacement& placement() const override { return placement_; }
  std::map<std::string, std::string> library_versions() const override { return {}; }
  std::vector<Placement> placements_of(const OpTraits& op) const override {
    if (op.name == "broadcast") return {Placement::in_place};
    if (!op.has_in_place) return {Placement::out_of_place};
    return {Placement::out_of_place, Placement::in_place};
  }
  void require_supported(DataType dtype) const override {
    if (dtype == DataType::half || dtype == DataType::bfloat16) throw UsageError("no 16-bit floats in fake");
  }
  Measurement measure(const BenchmarkCase&) override {
    ADD_FAILURE() << "planning measured something";
    return {};
  }
  std::vector<Measurement> measure_pairs(const BenchmarkCase&, std::span<const RankPair>) override {
    ADD_FAILURE() << "planning measured something";
    return {};
  }
  JobControl& job() override { return job_; }
  std::vector<DeviceRoute> device_routes(const OpTraits&) const override { return routes; }
  bool times_to_min_time() const override { return honours_min_time; }

  std::vector<DeviceRoute> routes;  // what a GPU backend would list for device copies
  bool honours_min_time = true;

 private:
  RankPlacement placement_;
  SingleProcessJob job_;
};

RunOptions options_for(std::vector<std::string> ops) {
  RunOptions options;
  options.op_names = std::move(ops);
  return options;
}

std::vector<std::uint64_t> sizes_of(const PlannedOp& planned) {
  std::vector<std::uint64_t> sizes;
  for (const auto& cases : planned.cases_by_size) sizes.push_back(cases.front().bytes);
  return sizes;
}

std::string usage_error_of(const RunOptions& options, const PlanningBackend& backend) {
  try {
    plan_run(options, backend);
  } catch (const UsageError& e) { return e.what(); }
  ADD_FAILURE() << "plan accepted";
  return {};
}

std::string usage_error_of(const RunOptions& options, int nranks) {
  return usage_error_of(options, PlanningBackend(nranks));
}

TEST(PlanRun, UnknownOp) {
  EXPECT_THAT(usage_error_of(options_for({"allreduce"}), 4), HasSubstr("unknown op 'allreduce'"));
}

TEST(PlanRun, PointToPointNeedsTwoRanks) {
  EXPECT_THAT(usage_error_of(options_for({"latency"}), 1), HasSubstr("at least 2 ranks"));
}

TEST(PlanRun, RootMustBeARank) {
  RunOptions options = options_for({"broadcast"});
  options.root = 4;
  EXPECT_THAT(usage_error_of(options, 4), HasSubstr("-r 4"));
  options.root = 3;
  EXPECT_EQ(plan_run(options, PlanningBackend(4)).front().cases_by_size.front().front().root, 3);
}

TEST(PlanRun, AllGatherSizeMustDivideByTypeAndRanks) {
  RunOptions options = options_for({"all_gather"});
  options.min_bytes = "24";
  options.max_bytes = "1K";
  const std::string message = usage_error_of(options, 4);
  EXPECT_THAT(message, HasSubstr("-b 24 is not a multiple of 16 bytes"));
  EXPECT_THAT(message, HasSubstr("float x 4 ranks"));
}

TEST(PlanRun, HalfIsRefusedByTheBackend) {
  RunOptions options = options_for({"all_reduce"});
  options.dtype = "half";
  EXPECT_THAT(usage_error_of(options, 2), HasSubstr("16-bit"));
}

TEST(PlanRun, InPlaceLatencyDoesNotExist) {
  RunOptions options = options_for({"latency"});
  options.placement = "in-place";
  EXPECT_THAT(usage_error_of(options, 2), HasSubstr("latency has no in-place form"));
}

TEST(PlanRun, DefaultMinimumRoundsUpToTheOpsUnit) {
  RunOptions options = options_for({"all_gather", "all_reduce"});
  options.max_bytes = "64";
  const auto plan = plan_run(options, PlanningBackend(4));
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_THAT(sizes_of(plan[0]), ElementsAre(16u, 32u, 64u));
  EXPECT_THAT(sizes_of(plan[1]), ElementsAre(8u, 16u, 32u, 64u));
}

TEST(PlanRun, CasesCarryCountsAndFlags) {
  RunOptions options = options_for({"all_gather"});
  options.min_bytes = "1K";
  options.max_bytes = "4K";
  options.dtype = "double";
  options.iterations = 7;
  options.warmup_iterations = 2;
  options.check = 0;
  const PlannedOp planned = plan_run(options, PlanningBackend(4)).front();
  ASSERT_EQ(planned.cases_by_size.size(), 3u);
  const BenchmarkCase& first = planned.cases_by_size[0][0];
  EXPECT_EQ(first.bytes, 1024u);
  EXPECT_EQ(first.count, 1024u / 8 / 4);
  EXPECT_EQ(first.dtype, DataType::float64);
  EXPECT_EQ(first.iterations, 7);
  EXPECT_EQ(first.warmup_iterations, 2);
  EXPECT_FALSE(first.check);
  EXPECT_EQ(planned.cases_by_size[2][0].count, 4096u / 8 / 4);
}

TEST(PlanRun, BothPlacementsGiveTwoCasesPerSizeExceptBroadcast) {
  RunOptions options = options_for({"all_reduce", "broadcast", "bw"});
  options.min_bytes = "8";
  options.max_bytes = "32";
  const auto plan = plan_run(options, PlanningBackend(2));
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_THAT(plan[0].placements, ElementsAre(Placement::out_of_place, Placement::in_place));
  for (const auto& cases : plan[0].cases_by_size) {
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].placement, Placement::out_of_place);
    EXPECT_EQ(cases[1].placement, Placement::in_place);
  }
  EXPECT_THAT(plan[1].placements, ElementsAre(Placement::in_place));
  for (const auto& cases : plan[1].cases_by_size) EXPECT_EQ(cases.size(), 1u);
  EXPECT_THAT(plan[2].placements, ElementsAre(Placement::out_of_place));
}

TEST(PlanRun, ExplicitPlacementThatExistsIsHonoured) {
  RunOptions options = options_for({"all_reduce"});
  options.placement = "in-place";
  options.max_bytes = "8";
  EXPECT_THAT(plan_run(options, PlanningBackend(2)).front().placements, ElementsAre(Placement::in_place));
}

TEST(ValidateRunOptions, RejectsBadFlagsBeforeTheRankCountIsKnown) {
  const auto rejects = [](auto change) {
    RunOptions options = options_for({"all_reduce"});
    change(options);
    EXPECT_THROW(validate_run_options(options), UsageError);
  };
  rejects([](RunOptions& o) { o.op_names.clear(); });
  rejects([](RunOptions& o) { o.min_bytes = "1M", o.max_bytes = "1K"; });
  rejects([](RunOptions& o) { o.min_bytes = "0"; });
  rejects([](RunOptions& o) { o.min_bytes = "-8"; });
  rejects([](RunOptions& o) { o.dtype = "float7"; });
  rejects([](RunOptions& o) { o.redop = "avg"; });
  rejects([](RunOptions& o) { o.iterations = 0; });
  rejects([](RunOptions& o) { o.check = 2; });
  rejects([](RunOptions& o) { o.src_rank = o.dst_rank = 1; });
  rejects([](RunOptions& o) { o.placement = "sideways"; });
  EXPECT_NO_THROW(validate_run_options(options_for({"all_reduce"})));
}

TEST(PlanRun, PairPatternsNeedTwoHostsUnlessRanksArePaired) {
  const PlanningBackend one_host(4, {"a", "a", "a", "a"});
  EXPECT_THAT(usage_error_of(options_for({"pairwise"}), one_host), HasSubstr("--pair-endpoints ranks"));
  RunOptions options = options_for({"pairwise"});
  options.pair_endpoints = "ranks";
  EXPECT_EQ(plan_run(options, one_host).front().pair_rounds.size(), 6u);  // 3 rounds, both directions
}

TEST(PlanRun, PairPatternsUseTheFirstRankOfEachHost) {
  const PlanningBackend two_per_host(4, {"a", "a", "b", "b"});
  const PlannedOp planned = plan_run(options_for({"pairwise"}), two_per_host).front();
  ASSERT_EQ(planned.pair_rounds.size(), 2u);
  EXPECT_THAT(planned.pair_rounds[0].pairs, ElementsAre(RankPair{0, 2}));
  EXPECT_THAT(planned.pair_rounds[1].pairs, ElementsAre(RankPair{2, 0}));
  // A step is a window of messages, so its deadline allows for the whole window.
  const BenchmarkCase& largest = planned.cases_by_size.back().front();
  RunOptions fixed = options_for({"concurrent"});
  fixed.timeout_s = 7;
  EXPECT_GT(largest.step_deadline_s, 30.0);
  EXPECT_EQ(plan_run(fixed, two_per_host).front().cases_by_size.front().front().step_deadline_s, 7.0);
}

// `run pairwise --pairs FILE`: the confirm round `diagnose --plan-confirm` wrote, on the hosts'
// first ranks, round by round.
TEST(PlanRun, PairsFileChoosesThePairsOfPairwise) {
  const testing::TempDir dir;
  const std::filesystem::path pairs = dir / "confirm.txt";
  std::ofstream(pairs) << "# confirm round\nb c\na d\n\n# round 2\nd b\n";
  const PlanningBackend two_per_host(8, {"a", "a", "b", "b", "c", "c", "d", "d"});
  RunOptions options = options_for({"pairwise"});
  options.pairs_file = pairs.string();
  const PlannedOp planned = plan_run(options, two_per_host).front();
  ASSERT_EQ(planned.pair_rounds.size(), 2u);
  EXPECT_THAT(planned.pair_rounds[0].pairs, ElementsAre(RankPair{2, 4}, RankPair{0, 6}));
  EXPECT_THAT(planned.pair_rounds[1].pairs, ElementsAre(RankPair{6, 2}));
  EXPECT_EQ(planned.pair_rounds[1].round, 2);

  std::ofstream(pairs) << "a z\n";
  EXPECT_THAT(usage_error_of(options, two_per_host), HasSubstr("host z"));
  options.op_names = {"concurrent"};
  EXPECT_THAT(usage_error_of(options, two_per_host), HasSubstr("concurrent measures its own cut"));
  options.op_names = {"pairwise"};
  options.pair_endpoints = "ranks";
  EXPECT_THAT(usage_error_of(options, two_per_host), HasSubstr("--pair-endpoints hosts"));
  options.pair_endpoints = "hosts";
  std::ofstream(pairs) << "a b c\n";
  EXPECT_THROW(plan_run(options, two_per_host), InputError);
}

TEST(PlanRun, UnknownCutIsRefused) {
  RunOptions options = options_for({"concurrent"});
  options.cut = "diagonal";
  EXPECT_THAT(usage_error_of(options, 4), HasSubstr("--cut 'diagonal'"));
}

TEST(DeviceCopyPlan, OneRoundPerRouteAndUnavailableRoutesSetAside) {
  PlanningBackend backend(1);
  backend.routes = {{{0, 1}, {}}, {{0, 2}, "no peer access from GPU0 to GPU2"}, {{1, 0}, {}}};
  RunOptions options = options_for({"d2d_ce"});
  options.max_bytes = "1K";
  const auto plan = plan_run(options, backend);
  ASSERT_EQ(plan.size(), 1u);
  ASSERT_EQ(plan[0].pair_rounds.size(), 2u);
  EXPECT_EQ(plan[0].pair_rounds[0].pairs, (std::vector<RankPair>{{0, 1}}));
  EXPECT_EQ(plan[0].pair_rounds[1].pairs, (std::vector<RankPair>{{1, 0}}));
  EXPECT_EQ(plan[0].pair_rounds[1].round, 2);
  ASSERT_EQ(plan[0].unavailable_routes.size(), 1u);
  EXPECT_EQ(plan[0].unavailable_routes[0].endpoints, (RankPair{0, 2}));
  EXPECT_EQ(plan[0].placements, std::vector<Placement>{Placement::out_of_place});
}

TEST(DeviceCopyPlan, NoRouteAtAllIsAUsageError) {
  // A peer matrix on a one-GPU machine has nothing to measure.
  EXPECT_THAT(usage_error_of(options_for({"d2d_sm"}), PlanningBackend(1)), HasSubstr("has no route on this machine"));
}

TEST(DeviceCopyPlan, GraphReplaysLengthenTheStepDeadline) {
  PlanningBackend backend(2);
  RunOptions options = options_for({"all_reduce"});
  options.max_bytes = "8";
  options.timeout_s = 2;
  options.iterations = 10;
  const double eager_deadline_s = plan_run(options, backend)[0].cases_by_size[0][0].step_deadline_s;
  options.launch.graph_launches = 3;
  const BenchmarkCase graphed = plan_run(options, backend)[0].cases_by_size[0][0];
  EXPECT_EQ(graphed.graph_launches, 3);
  // One step replays a graph of all 10 iterations.
  EXPECT_DOUBLE_EQ(graphed.step_deadline_s, 10 * eager_deadline_s);
}

TEST(BackendCapabilities, GpuLaunchOptionsNeedABackendThatHasThem) {
  const BackendRegistration host_only{"host", "", {}, {}};
  const BackendRegistration gpus{"gpus", "", {}, {.several_gpus_per_process = true, .cuda_graphs = true}};
  const auto error_of = [](const BackendRegistration& backend, LaunchOptions launch) -> std::string {
    try {
      backend.require_supported(launch);
    } catch (const UsageError& e) { return e.what(); }
    return {};
  };
  EXPECT_EQ(error_of(host_only, {}), "");
  EXPECT_THAT(error_of(host_only, {.gpus_per_process = 2}), HasSubstr("-g 2: the host backend"));
  EXPECT_THAT(error_of(host_only, {.graph_launches = 5}), HasSubstr("-G 5: the host backend"));
  EXPECT_EQ(error_of(gpus, {.gpus_per_process = 8, .graph_launches = 5}), "");
  EXPECT_THAT(error_of(gpus, {.gpus_per_process = 0}), HasSubstr("-g 0 must be at least 1"));
  EXPECT_THAT(error_of(gpus, {.graph_launches = -1}), HasSubstr("-G -1 must not be negative"));
}

// -n auto: point-to-point ops and pair patterns fill --min-time by default; collectives keep -n.
TEST(PlanRun, PointToPointAndPairPatternsRunToMinTimeByDefaultCollectivesDoNot) {
  RunOptions options = options_for({"latency", "pairwise", "all_reduce"});
  options.max_bytes = "64";
  options.min_time_s = 0.25;
  options.max_auto_iterations = 5000;
  const std::vector<PlannedOp> plan = plan_run(options, PlanningBackend(4));
  ASSERT_EQ(plan.size(), 3u);
  for (const PlannedOp& planned : plan) {
    const BenchmarkCase& first = planned.cases_by_size.front().front();
    SCOPED_TRACE(std::string(planned.op->name));
    EXPECT_EQ(first.iterations, 20);
    if (planned.op->name == "all_reduce") {
      EXPECT_EQ(first.min_time_s, 0);
    } else {
      EXPECT_EQ(first.min_time_s, 0.25);
      EXPECT_EQ(first.max_iterations, 5000);
    }
  }
}

TEST(PlanRun, ACountOrAutoAppliesToEveryOp) {
  RunOptions options = options_for({"latency", "all_reduce"});
  options.max_bytes = "64";
  options.auto_iterations = false;
  for (const PlannedOp& planned : plan_run(options, PlanningBackend(2)))
    EXPECT_EQ(planned.cases_by_size.front().front().min_time_s, 0) << planned.op->name;
  options.auto_iterations = true;
  for (const PlannedOp& planned : plan_run(options, PlanningBackend(2)))
    EXPECT_EQ(planned.cases_by_size.front().front().min_time_s, 0.1) << planned.op->name;
}

TEST(PlanRun, AutoOnABackendWithoutItIsRefusedAndTheDefaultStaysFixed) {
  PlanningBackend backend(2);
  backend.honours_min_time = false;
  RunOptions options = options_for({"latency"});
  options.max_bytes = "64";
  EXPECT_EQ(plan_run(options, backend).front().cases_by_size.front().front().min_time_s, 0);
  options.auto_iterations = true;
  EXPECT_EQ(usage_error_of(options, backend), "-n auto is not available on the fake backend; give -n a count");
}

TEST(PlanRun, AutoBoundsMustMakeSense) {
  RunOptions options = options_for({"latency"});
  options.max_auto_iterations = 10;
  EXPECT_THAT(usage_error_of(options, PlanningBackend(2)), HasSubstr("--max-iters 10 must be at least the 20"));
  options.max_auto_iterations = 100;
  options.min_time_s = 0;
  EXPECT_EQ(usage_error_of(options, PlanningBackend(2)), "--min-time 0 must be a finite number of seconds above 0");
  options.min_time_s = std::numeric_limits<double>::infinity();
  EXPECT_EQ(usage_error_of(options, PlanningBackend(2)), "--min-time inf must be a finite number of seconds above 0");
}

// A NaN deadline never passes, an infinite one never ends a hung job: -T nan and -T inf were
// accepted.
TEST(PlanRun, TheTimeoutMustBeFinite) {
  RunOptions options = options_for({"all_reduce"});
  options.timeout_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(usage_error_of(options, PlanningBackend(2)), "-T nan must be a finite number of seconds");
  options.timeout_s = std::numeric_limits<double>::infinity();
  EXPECT_EQ(usage_error_of(options, PlanningBackend(2)), "-T inf must be a finite number of seconds");
  options.timeout_s = 30;
  EXPECT_NO_THROW(plan_run(options, PlanningBackend(2)));
}

}  // namespace

}  // namespace fb
