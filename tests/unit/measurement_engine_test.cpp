// The measuring engine on a fake backend: what reaches the sink, in which order, with which
// numbers, on the reporting rank and on the others.

#include "benchmarks/core/backend.hpp"
#include "benchmarks/core/measurement_engine.hpp"
#include "benchmarks/core/run_plan.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr double seconds_per_byte = 1e-9;

// Four ranks, two on each of two hosts, timed deterministically: a case of B bytes takes
// {2, 1, 4} x B ns per iteration out of place and twice that in place (median 2 B ns: 0.5 GB/s
// algbw), a pair src -> dst (1 + src) x B ns. Like the real backends, times reach the reporting
// rank only and wrong elements every rank.
class FakeBackend final : public Backend, public JobControl {
 public:
  explicit FakeBackend(int rank) : placement_(placement_of({"node-a", "node-a", "node-b", "node-b"}, rank)) {}

  std::string_view name() const override { return "fake"; }
  const RankPlacement& placement() const override { return placement_; }
  std::map<std::string, std::string> library_versions() const override { return {}; }
  std::vector<Placement> placements_of(const OpTraits& op) const override {
    if (!op.has_in_place) return {Placement::out_of_place};
    return {Placement::out_of_place, Placement::in_place};
  }
  void require_supported(DataType) const override {}

  Measurement measure(const BenchmarkCase& benchmark_case) override {
    measured.push_back(
        fmt::format("{} {} {}", benchmark_case.op->name, benchmark_case.bytes, name_of(benchmark_case.placement)));
    if (benchmark_case.bytes == stall_at_bytes && stall_handler_) stall_handler_(stall);
    if (benchmark_case.bytes == fail_at_bytes) throw std::runtime_error("the link went down");
    Measurement measurement;
    const double t = static_cast<double>(benchmark_case.bytes) * seconds_per_byte *
                     (benchmark_case.placement == Placement::in_place ? 2 : 1);
    if (placement_.rank == 0) measurement.unit_seconds = {2 * t, t, 4 * t};
    measurement.wrong = wrong_by_bytes.contains(benchmark_case.bytes) ? wrong_by_bytes.at(benchmark_case.bytes) : 0;
    return measurement;
  }

  std::vector<Measurement> measure_pairs(const BenchmarkCase& benchmark_case,
                                         std::span<const RankPair> pairs) override {
    std::vector<Measurement> measurements;
    for (const RankPair& pair : pairs) {
      measured.push_back(
          fmt::format("{} {} {}->{}", benchmark_case.op->name, benchmark_case.bytes, pair.src, pair.dst));
      Measurement measurement;
      if (placement_.rank == 0)
        measurement.unit_seconds = {static_cast<double>(benchmark_case.bytes) * seconds_per_byte * (1 + pair.src)};
      measurement.wrong = 0;
      measurement.pair = pair;
      measurements.push_back(measurement);
    }
    return measurements;
  }

  // This rank's answer combined with the other ranks' scripted ones (all yes when none are left).
  bool all_agree(bool local_ok) override {
    bool others_ok = true;
    if (!others_agree.empty()) {
      others_ok = others_agree.front();
      others_agree.pop_front();
    }
    return local_ok && others_ok;
  }
  int reporting_rank_value(int value) override { return value; }  // this fake is the reporting rank
  std::vector<std::string> gather_at_reporting_rank(const std::string& local) override { return {local}; }
  [[noreturn]] void abort_all(int) override { std::abort(); }
  JobControl& job() override { return *this; }
  void set_stall_handler(StallHandler handler) override { stall_handler_ = std::move(handler); }
  bool has_stall_handler() const { return static_cast<bool>(stall_handler_); }
  void report_stall() const { stall_handler_(stall); }

  std::vector<std::string> measured;                      // every case and pair, in order
  std::map<std::uint64_t, std::uint64_t> wrong_by_bytes;  // sizes whose validation fails
  std::deque<bool> others_agree;
  std::uint64_t fail_at_bytes = 0;   // measure() throws at this size
  std::uint64_t stall_at_bytes = 0;  // the watchdog reports `stall` during this size
  StallReport stall;

 private:
  RankPlacement placement_;
  StallHandler stall_handler_;
};

// Every event as a line, and the rows of every size.
class RecordingSink final : public RowSink {
 public:
  void run_started(const Provenance& provenance) override { events.push_back("run " + provenance.run_id); }
  void repetition_started(int repetition) override { events.push_back(fmt::format("repetition {}", repetition)); }
  void op_started(const PlannedOp& planned) override { events.push_back(fmt::format("op {}", planned.op->name)); }
  void rounds_started(const PlannedOp& planned, std::uint64_t bytes) override {
    events.push_back(fmt::format("rounds of {} {}", planned.op->name, bytes));
  }
  void round_done(std::size_t rounds_done) override { events.push_back(fmt::format("round {} done", rounds_done)); }
  void row_measured(const ResultRow& row) override { events.push_back(fmt::format("row {} {}", row.op, row.bytes)); }
  void size_done(const PlannedOp& planned, std::span<const ResultRow> rows) override {
    events.push_back(fmt::format("size {} {}: {} rows", planned.op->name, rows.front().bytes, rows.size()));
    sizes.emplace_back(rows.begin(), rows.end());
  }
  void sweep_done() override { events.push_back("sweep done"); }
  void incident(const Incident& incident) override {
    events.push_back(fmt::format("incident {} {}", incident.op, incident.bytes));
    incidents.push_back(incident);
  }
  void port_counters_read(const std::vector<PortCounterChange>& changes) override {
    events.push_back(changes.size() == 1 && changes.front().repetition
                         ? fmt::format("port counters: 1 of repetition {}", *changes.front().repetition)
                         : fmt::format("port counters: {}", changes.size()));
  }

  std::vector<std::string> events;
  std::vector<std::vector<ResultRow>> sizes;
  std::vector<Incident> incidents;
};

// One port that gathered symbol errors; counts how often it is read, as the real watch is on every rank.
class FakePortCounters final : public PortCounterSource {
 public:
  void read_before() override { ++reads; }
  std::vector<PortCounterChange> changes_since_before() override {
    ++reads;
    PortCounterChange change;
    change.host = "node-b";
    change.port = "mlx5_0/1";
    change.deltas = {{"symbol_error", 12}};
    return {change};
  }
  int reads = 0;
};

std::vector<PlannedOp> plan_of(std::vector<std::string> ops, const Backend& backend, const std::string& min_bytes,
                               const std::string& max_bytes) {
  RunOptions options;
  options.op_names = std::move(ops);
  options.min_bytes = min_bytes;
  options.max_bytes = max_bytes;
  options.pair_endpoints = "ranks";
  return plan_run(options, backend);
}

MeasurementSettings settings_of(int repeat = 0) {
  MeasurementSettings settings;
  settings.provenance.run_id = "run-1";
  settings.repeat = repeat;
  return settings;
}

TEST(MeasurementEngine, CollectiveRowsArriveSizeBySizeWithTheBusbwOfTheirTimes) {
  FakeBackend backend(0);
  RecordingSink sink;
  FakePortCounters ports;
  const std::vector<PlannedOp> plan = plan_of({"all_reduce"}, backend, "1K", "2K");
  const MeasurementOutcome outcome = MeasurementEngine(backend, sink, settings_of()).run(plan, ports);

  EXPECT_THAT(sink.events, ElementsAre("run run-1", "op all_reduce", "row all_reduce 1024", "row all_reduce 1024",
                                       "size all_reduce 1024: 2 rows", "row all_reduce 2048", "row all_reduce 2048",
                                       "size all_reduce 2048: 2 rows", "sweep done", "port counters: 1"));
  ASSERT_EQ(sink.sizes.size(), 2u);
  for (const std::vector<ResultRow>& rows : sink.sizes) {
    ASSERT_EQ(rows.size(), 2u);
    const double bytes = static_cast<double>(rows[0].bytes);
    // Out of place the median is 2 B ns: 0.5 GB/s, busbw x 2(n-1)/n = 1.5 on 4 ranks.
    EXPECT_FALSE(rows[0].in_place);
    EXPECT_DOUBLE_EQ(rows[0].time_median_us, 2 * bytes * 1e-3);
    // Beside the median, the mean OSU prints: (2 + 1 + 4) / 3 B ns.
    ASSERT_TRUE(rows[0].time_mean_us.has_value());
    EXPECT_DOUBLE_EQ(*rows[0].time_mean_us, 7.0 / 3 * bytes * 1e-3);
    EXPECT_DOUBLE_EQ(rows[0].algbw_gbps, 0.5);
    EXPECT_DOUBLE_EQ(*rows[0].busbw_gbps, 0.75);
    EXPECT_TRUE(rows[1].in_place);
    EXPECT_DOUBLE_EQ(rows[1].algbw_gbps, 0.25);
    EXPECT_DOUBLE_EQ(*rows[1].busbw_gbps, 0.375);
    for (const ResultRow& row : rows) {
      EXPECT_EQ(row.run_id, "run-1");
      EXPECT_EQ(row.backend, "fake");
      EXPECT_EQ(row.nranks, 4);
      EXPECT_EQ(row.nodes, 2);
      EXPECT_EQ(row.iterations, 3);
      EXPECT_EQ(row.wrong, std::optional<std::uint64_t>(0));
      EXPECT_FALSE(row.repetition);  // one sweep: not a soak run
    }
  }
  EXPECT_EQ(outcome.wrong_elements, 0u);
  EXPECT_EQ(ports.reads, 2);
}

TEST(MeasurementEngine, RepetitionsAreNumberedEverySweepIsSummarizedAndPortsReadAroundEach) {
  FakeBackend backend(0);
  RecordingSink sink;
  FakePortCounters ports;
  const std::vector<PlannedOp> plan = plan_of({"broadcast"}, backend, "8", "8");
  MeasurementEngine(backend, sink, settings_of(3)).run(plan, ports);

  EXPECT_THAT(sink.events,
              ElementsAre("run run-1", "repetition 0", "op broadcast", "row broadcast 8", "row broadcast 8",
                          "size broadcast 8: 2 rows", "sweep done", "port counters: 1 of repetition 0", "repetition 1",
                          "op broadcast", "row broadcast 8", "row broadcast 8", "size broadcast 8: 2 rows",
                          "sweep done", "port counters: 1 of repetition 1", "repetition 2", "op broadcast",
                          "row broadcast 8", "row broadcast 8", "size broadcast 8: 2 rows", "sweep done",
                          "port counters: 1 of repetition 2"));
  std::vector<std::optional<int>> repetitions;
  for (const auto& rows : sink.sizes)
    for (const ResultRow& row : rows) repetitions.push_back(row.repetition);
  EXPECT_THAT(repetitions, ElementsAre(0, 0, 1, 1, 2, 2));
  // Before and after each sweep: an error burst is tied to the repetition it happened in.
  EXPECT_EQ(ports.reads, 6);
}

TEST(MeasurementEngine, PairRoundsReportTheirProgressAndEveryPairARow) {
  FakeBackend backend(0);
  RecordingSink sink;
  FakePortCounters ports;
  // Every rank an endpoint: 4 endpoints pair up 3 ways, each run in both directions: 6 rounds of 2.
  const std::vector<PlannedOp> plan = plan_of({"pairwise"}, backend, "1K", "1K");
  MeasurementEngine(backend, sink, settings_of()).run(plan, ports);

  ASSERT_EQ(sink.sizes.size(), 1u);
  const std::vector<ResultRow>& rows = sink.sizes[0];
  ASSERT_EQ(rows.size(), 12u);
  std::vector<std::string> expected_events{"run run-1", "op pairwise", "rounds of pairwise 1024"};
  std::map<std::pair<int, int>, int> pair_counts;
  for (std::size_t index = 0; index < rows.size(); ++index) {
    const ResultRow& row = rows[index];
    const int round = static_cast<int>(index / 2) + 1;
    EXPECT_EQ(row.round, round);
    EXPECT_EQ(row.concurrent_flows, 2);
    EXPECT_EQ(row.op, "pairwise");
    ++pair_counts[{*row.src_rank, *row.dst_rank}];
    EXPECT_EQ(row.src_host, *row.src_rank < 2 ? "node-a" : "node-b");
    EXPECT_EQ(row.dst_host, *row.dst_rank < 2 ? "node-a" : "node-b");
    // (1 + src) x 1024 ns for 1024 bytes: 1 / (1 + src) GB/s.
    EXPECT_DOUBLE_EQ(row.algbw_gbps, 1.0 / (1 + *row.src_rank));
    expected_events.push_back("row pairwise 1024");
    if (index % 2 == 1) expected_events.push_back(fmt::format("round {} done", round));
  }
  EXPECT_EQ(pair_counts.size(), 12u);  // every ordered pair of the 4 ranks once
  expected_events.insert(expected_events.end(), {"size pairwise 1024: 12 rows", "sweep done", "port counters: 1"});
  EXPECT_EQ(sink.events, expected_events);
}

TEST(MeasurementEngine, ANonReportingRankMeasuresAlikeAndSendsNothing) {
  FakeBackend reporting(0);
  FakeBackend other(1);
  // Rank 0 decides when the sweeps end: the others' own answer is always yes.
  other.others_agree = {true, false};
  other.wrong_by_bytes = reporting.wrong_by_bytes = {{16, 3}};
  RecordingSink reporting_sink;
  RecordingSink other_sink;
  FakePortCounters reporting_ports;
  FakePortCounters other_ports;
  const std::vector<PlannedOp> plan = plan_of({"all_reduce", "pairwise"}, reporting, "8", "16");
  std::uint64_t other_wrong = 0;
  {
    MeasurementSettings other_settings;  // no provenance: only the reporting rank has one
    other_settings.repeat = 2;
    MeasurementEngine engine(other, other_sink, other_settings);
    EXPECT_FALSE(other.has_stall_handler());
    other_wrong = engine.run(plan, other_ports).wrong_elements;
  }
  const MeasurementOutcome outcome =
      MeasurementEngine(reporting, reporting_sink, settings_of(2)).run(plan, reporting_ports);

  EXPECT_THAT(other_sink.events, IsEmpty());
  EXPECT_EQ(other.measured, reporting.measured);  // the same collective calls, in the same order
  // Port counters are read on every rank, around each of the two sweeps, as on the reporting one.
  EXPECT_EQ(other_ports.reads, 4);
  EXPECT_EQ(reporting_ports.reads, 4);
  // 16 bytes, both placements, both sweeps: 3 wrong elements each time, known on every rank.
  EXPECT_EQ(outcome.wrong_elements, 12u);
  EXPECT_EQ(other_wrong, 12u);
}

TEST(MeasurementEngine, AFailingBackendCallLeavesEveryCompletedSizeDelivered) {
  FakeBackend backend(0);
  backend.fail_at_bytes = 4096;
  RecordingSink sink;
  FakePortCounters ports;
  const std::vector<PlannedOp> plan = plan_of({"all_reduce"}, backend, "1K", "8K");
  EXPECT_THROW(MeasurementEngine(backend, sink, settings_of()).run(plan, ports), std::runtime_error);

  ASSERT_EQ(sink.sizes.size(), 2u);
  EXPECT_EQ(sink.sizes[0].front().bytes, 1024u);
  EXPECT_EQ(sink.sizes[1].front().bytes, 2048u);
  EXPECT_EQ(sink.events.back(), "size all_reduce 2048: 2 rows");  // no summary, no port counters
  EXPECT_EQ(backend.measured.back(), "all_reduce 4096 out-of-place");
}

TEST(MeasurementEngine, WrongElementsAreCountedPerRowAndOverTheRun) {
  FakeBackend backend(0);
  backend.wrong_by_bytes = {{2048, 7}};
  RecordingSink sink;
  FakePortCounters ports;
  const std::vector<PlannedOp> plan = plan_of({"all_reduce"}, backend, "1K", "4K");
  const MeasurementOutcome outcome = MeasurementEngine(backend, sink, settings_of()).run(plan, ports);

  std::vector<std::uint64_t> wrong;
  for (const auto& rows : sink.sizes)
    for (const ResultRow& row : rows) wrong.push_back(row.wrong.value());
  EXPECT_THAT(wrong, ElementsAre(0, 0, 7, 7, 0, 0));
  EXPECT_EQ(outcome.wrong_elements, 14u);
}

TEST(MeasurementEngine, TheWatchdogsIncidentNamesTheCaseInFlightWhileTheEngineLives) {
  FakeBackend backend(0);
  backend.stall_at_bytes = 2048;
  backend.fail_at_bytes = 2048;  // the job ends after the handler ran
  backend.stall.case_label = "all_reduce 2048 B out-of-place (float)";
  backend.stall.deadline_s = 3;
  backend.stall.ranks = {{0, "node-a", true, "gathering times", true, {}},
                         {2, "node-b", false, "", false, {"mlx5_0/1"}}};
  RecordingSink sink;
  FakePortCounters ports;
  const std::vector<PlannedOp> plan = plan_of({"all_reduce"}, backend, "1K", "4K");
  {
    MeasurementEngine engine(backend, sink, settings_of());
    EXPECT_THROW(engine.run(plan, ports), std::runtime_error);
  }
  // A stall reported once the engine is gone reaches no sink.
  backend.report_stall();

  ASSERT_EQ(sink.incidents.size(), 1u);
  const Incident& incident = sink.incidents[0];
  EXPECT_EQ(incident.op, "all_reduce");
  EXPECT_EQ(incident.bytes, 2048u);
  EXPECT_FALSE(incident.in_place);
  EXPECT_EQ(incident.deadline_s, 3);
  ASSERT_EQ(incident.ranks_not_arrived.size(), 1u);
  EXPECT_EQ(incident.ranks_not_arrived[0].rank, 2);
  ASSERT_EQ(incident.links_lost.size(), 1u);
  EXPECT_EQ(incident.links_lost[0].host, "node-b");
  // The incident comes after the rows of the completed size and before anything of its own.
  EXPECT_THAT(sink.events, ElementsAre("run run-1", "op all_reduce", "row all_reduce 1024", "row all_reduce 1024",
                                       "size all_reduce 1024: 2 rows", "incident all_reduce 2048"));
}

TEST(MeasurementEngine, RowsAreAnnotatedBeforeAnySinkSeesThem) {
  FakeBackend backend(0);
  RecordingSink sink;
  FakePortCounters ports;
  MeasurementSettings settings = settings_of();
  settings.annotate_row = [](ResultRow& row) { row.expected_busbw_gbps = 1.0; };
  MeasurementEngine(backend, sink, std::move(settings)).run(plan_of({"all_reduce"}, backend, "1K", "1K"), ports);
  ASSERT_EQ(sink.sizes.size(), 1u);
  for (const ResultRow& row : sink.sizes[0]) EXPECT_EQ(row.expected_busbw_gbps, 1.0);
}

}  // namespace
}  // namespace fb
