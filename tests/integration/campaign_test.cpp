// `fabricbench campaign` end to end: the shipped CPU plan under a real 4-rank mpirun, killed in
// the middle of a stage and run again; and a run with a stressed rank whose noise a fixed margin
// on the median would pass, judged INCONCLUSIVE.

#include "fabricbench_runs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace fb::testing {
namespace {

using ::testing::HasSubstr;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A check's name as the record escapes it.
std::string as_html(std::string text) {
  for (std::size_t at = text.find('>'); at != std::string::npos; at = text.find('>', at)) text.replace(at, 1, "&gt;");
  return text;
}

nlohmann::json read_json(const std::filesystem::path& path) { return nlohmann::json::parse(read_file(path)); }

class CampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("fb-campaign-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "thresholds");
    std::filesystem::copy_file(std::filesystem::path(FABRICBENCH_PLANS_DIR) / "cpu-mpi.yaml", dir_ / "cpu-mpi.yaml");
    std::filesystem::copy_file(std::filesystem::path(FABRICBENCH_PLANS_DIR) / "thresholds" / "cpu-mpi.yaml",
                               dir_ / "thresholds" / "cpu-mpi.yaml");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> campaign(int nranks, const std::string& plan, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"campaign", (dir_ / plan).string(), "-D", results().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return under_mpirun(nranks, FABRICBENCH_BINARY, args);
  }
  std::filesystem::path results() const { return dir_ / "results"; }

  // The state file as it stands; empty until the campaign wrote it.
  nlohmann::json state() const {
    const std::string text = read_file(results() / "campaign-state.json");
    return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
  }

  std::filesystem::path dir_;
};

std::string status_of(const nlohmann::json& state, const std::string& stage) {
  if (!state.contains("stages") || !state["stages"].contains(stage)) return "";
  return state["stages"][stage]["status"].get<std::string>();
}

TEST_F(CampaignTest, CpuPlanKilledMidStageResumesAndLeavesEveryOutput) {
  // The plan's collectives stage takes well under a second on a quiet machine, less than it takes
  // to see it running: with 100 times its iterations it is seen under way (the rows it makes are
  // the same in number). The signal then reaches every process of the job, as a scheduler ending a
  // job sends it, while all of them are stopped: signalled through mpirun alone, the stage could
  // complete under load before mpirun passed the signal on.
  std::string plan = read_file(dir_ / "cpu-mpi.yaml");
  const std::size_t iterations = plan.find("    iterations: 20\n");
  ASSERT_NE(iterations, std::string::npos) << "the collectives stage of cpu-mpi.yaml changed";
  plan.replace(iterations, std::string_view("    iterations: 20").size(), "    iterations: 2000");
  std::ofstream(dir_ / "cpu-mpi.yaml") << plan;
  // First run: SIGTERM to the job once the collectives stage is under way.
  {
    ChildProcess first(campaign(4, "cpu-mpi.yaml", {"--no-pdf"}), allow_root);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    while (status_of(state(), "collectives") != "running" && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(status_of(state(), "collectives"), "running") << state().dump(2);
    first.signal_session_at_once(SIGTERM);
    const ProcessResult killed = first.wait(std::chrono::seconds(60));
    EXPECT_NE(killed.exit_code, 0) << describe(killed);
  }
  const nlohmann::json after_kill = state();
  ASSERT_EQ(status_of(after_kill, "doctor"), "completed") << after_kill.dump(2);
  ASSERT_EQ(status_of(after_kill, "pairwise"), "completed");
  ASSERT_EQ(status_of(after_kill, "concurrent"), "completed");
  EXPECT_EQ(status_of(after_kill, "collectives"), "running");
  EXPECT_FALSE(std::filesystem::exists(results() / "summary.json"));

  // Second run: the completed stages are skipped (same attempt, same finish time), the
  // interrupted one runs again in a new attempt folder, and every output is written.
  const ProcessResult second = run_process(campaign(4, "cpu-mpi.yaml"), allow_root, std::chrono::seconds(280));
  ASSERT_TRUE(second.exit_code == 0 || second.exit_code == 6) << describe(second);
  for (const std::string stage : {"doctor", "pairwise", "concurrent"})
    EXPECT_THAT(second.out, HasSubstr("# stage " + stage + ": completed at " +
                                      after_kill["stages"][stage]["finished"].get<std::string>() + ", not run again"));
  EXPECT_THAT(second.out, ::testing::Not(HasSubstr("# stage pairwise (pairwise, ")));
  // The stage run again says where it stands in the plan: the fourth of four.
  EXPECT_THAT(second.out, HasSubstr("# stage collectives (collectives, 4 of 4) at"));
  const nlohmann::json final_state = state();
  for (const std::string stage : {"doctor", "pairwise", "concurrent"}) {
    EXPECT_EQ(final_state["stages"][stage]["attempts"], 1) << stage;
    EXPECT_EQ(final_state["stages"][stage]["finished"], after_kill["stages"][stage]["finished"]) << stage;
  }
  EXPECT_EQ(final_state["stages"]["collectives"]["attempts"], 2);
  EXPECT_EQ(final_state["stages"]["collectives"]["status"], "completed");
  EXPECT_EQ(final_state["stages"]["collectives"]["results"], "stages/collectives/attempt-2");
  // The console keeps to one screen: the stage lines, one line per check and the verdict; each
  // stage's tables are in its folder's console.txt (nccl-tests' trailer lines among them).
  EXPECT_LE(lines_of(second.out).size(), 30u) << second.out;
  EXPECT_THAT(second.out, ::testing::Not(HasSubstr("# Avg bus bandwidth")));
  EXPECT_THAT(second.out,
              HasSubstr("its tables in " + (results() / "stages/collectives/attempt-2/console.txt").string()));
  const std::string tables = read_file(results() / "stages/collectives/attempt-2/console.txt");
  EXPECT_LT(tables.find("# all_reduce: peak busbw"), tables.find("# all_gather: peak busbw")) << tables;
  EXPECT_THAT(tables, HasSubstr("# Avg bus bandwidth"));

  const nlohmann::json summary = read_json(results() / "summary.json");
  EXPECT_EQ(summary["schema"], "fabricbench.campaign.v2");
  EXPECT_EQ(summary["system"], "cpu-dev-box");
  EXPECT_EQ(summary["plan"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(summary["verdict"], second.exit_code == 0 ? "PASS" : summary["verdict"].get<std::string>());
  ASSERT_EQ(summary["stages"].size(), 4u);
  // all_reduce and all_gather at 16, 512, 16K, 512K bytes, 10 repetitions each.
  EXPECT_EQ(summary["stages"][3]["rows"], 2 * 4 * 10);
  ASSERT_EQ(summary["checks"].size(), 5u);
  const nlohmann::json& busbw = summary["checks"][0];
  EXPECT_EQ(busbw["name"], "all_reduce busbw at >= 256K");
  ASSERT_EQ(busbw["measurements"].size(), 1u);  // 512K only: 256K and up
  EXPECT_EQ(busbw["measurements"][0]["repetitions"], 10);
  EXPECT_EQ(busbw["measurements"][0]["bytes"], 524288);
  // Four ranks paired two ways each round: every ordered pair of the 4 ranks, 10 repetitions.
  const nlohmann::json& pairs = summary["checks"][3];
  EXPECT_EQ(pairs["measurements"].size(), 12u);
  for (const nlohmann::json& pair : pairs["measurements"]) EXPECT_EQ(pair["repetitions"], 10);

  const std::string junit = read_file(results() / "junit.xml");
  EXPECT_EQ(lines_of(junit).size() > 5, true);
  std::size_t testcases = 0;
  for (std::size_t at = junit.find("<testcase"); at != std::string::npos; at = junit.find("<testcase", at + 1))
    ++testcases;
  EXPECT_EQ(testcases, 5u);
  const std::string drain = read_file(results() / "drain-list.txt");
  EXPECT_THAT(drain, HasSubstr("# fabricbench drain list (campaign"));
  const std::string record = read_file(results() / "record.html");
  for (const nlohmann::json& check : summary["checks"])
    EXPECT_THAT(record, HasSubstr(as_html(check["name"].get<std::string>())));
  EXPECT_THAT(record, HasSubstr(summary["plan"]["sha256"].get<std::string>()));
  // The record binds what it judged: an ID over the plan's, thresholds' and result files' hashes,
  // every result file's hash, and the time the last stage ended.
  EXPECT_THAT(summary["record_id"].get<std::string>(), ::testing::MatchesRegex("[0-9a-f]{12}"));
  EXPECT_THAT(record, HasSubstr("record ID"));
  EXPECT_THAT(record, HasSubstr(summary["record_id"].get<std::string>()));
  EXPECT_EQ(summary["finished_at"], final_state["stages"]["collectives"]["finished"]);
  EXPECT_TRUE(summary["thresholds_when_measured_sha256"].is_null());
  for (const nlohmann::json& stage : summary["stages"]) {
    ASSERT_FALSE(stage["files"].empty()) << stage.dump(2);
    for (const nlohmann::json& file : stage["files"]) {
      EXPECT_TRUE(std::filesystem::exists(results() / file["path"].get<std::string>())) << file.dump();
      EXPECT_THAT(record, HasSubstr(file["sha256"].get<std::string>()));
    }
  }
  // The summary is what its published schema says.
  const ProcessResult valid = run_process(
      {"/usr/bin/python3", "-c",
       "import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
       (results() / "summary.json").string(), FABRICBENCH_SUMMARY_SCHEMA});
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
  EXPECT_THAT(record, HasSubstr("Sign-off"));

  // `accept` on the same rows with the same thresholds at the plan's confidence gives the same
  // verdict and statement per check: both judge with diagnosis::judge_acceptance.
  std::vector<std::string> accept{FABRICBENCH_BINARY, "accept"};
  for (const std::string stage : {"pairwise", "concurrent", "collectives"})
    accept.push_back((results() / final_state["stages"][stage]["results"].get<std::string>()).string());
  const std::filesystem::path accept_json = dir_ / "accept.json";
  accept.insert(accept.end(), {"--thresholds", (dir_ / "thresholds" / "cpu-mpi.yaml").string(), "--confidence", "0.95",
                               "--json", accept_json.string()});
  const ProcessResult accepted = run_process(accept, allow_root);
  EXPECT_EQ(accepted.exit_code, summary["verdict"] == "PASS" ? 0 : 6) << describe(accepted);
  const nlohmann::json judged = read_json(accept_json);
  EXPECT_EQ(judged["verdict"], summary["verdict"]);
  ASSERT_EQ(judged["checks"].size(), summary["checks"].size());
  for (std::size_t c = 0; c < summary["checks"].size(); ++c) {
    EXPECT_EQ(judged["checks"][c]["name"], summary["checks"][c]["name"]);
    EXPECT_EQ(judged["checks"][c]["verdict"], summary["checks"][c]["verdict"]) << summary["checks"][c]["name"];
    EXPECT_EQ(judged["checks"][c]["statement"], summary["checks"][c]["statement"]);
    EXPECT_EQ(judged["checks"][c]["measurements"], summary["checks"][c]["measurements"]);
  }
}

// A rank with a CPU hog pinned to its core: its repetitions spread wide. The limit is then put
// between the median and the lower confidence bound of that spread, where a fixed margin on the
// median passes (median >= limit): the campaign, judging again on the same rows, must say
// INCONCLUSIVE, fail CI, and name the repetitions that would decide.
TEST_F(CampaignTest, StressedRankIsInconclusiveWhereAMedianRulePasses) {
  std::ofstream(dir_ / "noisy.yaml") << R"(system: stressed-box
customer: fabricbench developers
thresholds: thresholds/noisy.yaml
stages:
  - kind: collectives
    ops: [all_reduce]
    min_bytes: 1M
    max_bytes: 1M
    iterations: 10
    repetitions: 10
)";
  const auto write_limit = [&](double gbps) {
    std::ofstream(dir_ / "thresholds" / "noisy.yaml")
        << "checks:\n  - name: all_reduce busbw at 1M\n    kind: min_bandwidth\n    op: all_reduce\n    bytes: 1M\n"
        << "    metric: busbw_gbps\n    at_least_gbps: " << gbps << "\n";
  };
  write_limit(1e-6);
  ProcessResult measured;
  {
    // The hog: a busy shell loop on CPU 0, where --bind-to core puts rank 0.
    ChildProcess hog({"/usr/bin/taskset", "-c", "0", "/bin/sh", "-c", "while :; do :; done"});
    std::vector<std::string> argv{MPIEXEC_BINARY,
                                  "--allow-run-as-root",
                                  "--oversubscribe",
                                  "--bind-to",
                                  "core",
                                  "--map-by",
                                  "core",
                                  "-np",
                                  "2",
                                  FABRICBENCH_BINARY,
                                  "campaign",
                                  (dir_ / "noisy.yaml").string(),
                                  "-D",
                                  results().string(),
                                  "--no-pdf"};
    measured = run_process(argv, allow_root, std::chrono::seconds(240));
    hog.kill_session();
  }
  ASSERT_EQ(measured.exit_code, 0) << describe(measured);
  const nlohmann::json first = read_json(results() / "summary.json");
  const nlohmann::json& m = first["checks"][0]["measurements"][0];
  ASSERT_EQ(m["repetitions"], 10);
  const double median = m["median"].get<double>();
  const double lower = m["lower_bound"].get<double>();
  ASSERT_LT(lower, median) << "ten repetitions beside a hog came out identical";

  const double limit = (lower + median) / 2;
  write_limit(limit);
  const ProcessResult judged =
      run_process(campaign(2, "noisy.yaml", {"--no-pdf"}), allow_root, std::chrono::seconds(120));
  EXPECT_EQ(judged.exit_code, 6) << describe(judged);
  EXPECT_THAT(judged.out, HasSubstr("# stage collectives: completed at"));  // judged again, not measured again
  const nlohmann::json second = read_json(results() / "summary.json");
  const nlohmann::json& check = second["checks"][0];
  EXPECT_GE(median, limit);  // what a coin flip on the median would have passed
  EXPECT_EQ(check["verdict"], "INCONCLUSIVE") << check.dump(2);
  EXPECT_EQ(second["verdict"], "INCONCLUSIVE");
  // Between the bound and the median the estimate names more repetitions than were run, or, as
  // close to the limit as here, none up to its cap of 1000, and says so.
  const std::string statement = check["statement"].get<std::string>();
  if (check["repetitions_needed"].is_null()) {
    EXPECT_THAT(statement, HasSubstr("no run of up to 1000 repetitions is estimated to decide"));
  } else {
    EXPECT_THAT(statement, HasSubstr("repetitions would decide"));
    EXPECT_GT(check["repetitions_needed"].get<int>(), 10);
  }
  EXPECT_THAT(read_file(results() / "junit.xml"), HasSubstr("type=\"inconclusive\""));
  // Judged under thresholds edited after measuring: both hashes on the record, and a note.
  EXPECT_EQ(second["thresholds_when_measured_sha256"], first["thresholds"]["sha256"]);
  EXPECT_NE(second["thresholds"]["sha256"], first["thresholds"]["sha256"]);
  EXPECT_NE(second["record_id"], first["record_id"]);
  EXPECT_THAT(read_file(results() / "record.html"), HasSubstr("The thresholds changed after measuring"));

  // `accept` on the stage's rows agrees with the campaign at every limit: PASS far below the
  // repetitions, INCONCLUSIVE between the bound and the median, FAIL far above them.
  const std::string rows = (results() / second["stages"][0]["results"].get<std::string>()).string();
  const std::vector<std::pair<double, std::string>> limits{{lower / 100, "PASS"},
                                                           {limit, "INCONCLUSIVE"},
                                                           {median * 100, "FAIL"}};
  for (const auto& [at, verdict] : limits) {
    write_limit(at);
    const ProcessResult campaign_verdict =
        run_process(campaign(2, "noisy.yaml", {"--no-pdf"}), allow_root, std::chrono::seconds(120));
    const nlohmann::json campaign_summary = read_json(results() / "summary.json");
    EXPECT_EQ(campaign_summary["verdict"], verdict) << describe(campaign_verdict);
    const ProcessResult accept_verdict =
        run_process({FABRICBENCH_BINARY, "accept", rows, "--thresholds", (dir_ / "thresholds" / "noisy.yaml").string(),
                     "--json", (dir_ / "accept.json").string()},
                    allow_root);
    EXPECT_EQ(accept_verdict.exit_code, campaign_verdict.exit_code) << describe(accept_verdict);
    const nlohmann::json accept_summary = read_json(dir_ / "accept.json");
    EXPECT_EQ(accept_summary["verdict"], verdict);
    EXPECT_EQ(accept_summary["checks"][0]["statement"], campaign_summary["checks"][0]["statement"]);
  }

  // A raw result file edited after its stage ended: the campaign refuses to judge it, in one line
  // naming the file, and leaves the record it wrote before as it was.
  const nlohmann::json before = read_json(results() / "summary.json");
  const std::string csv = before["stages"][0]["files"][0]["path"].get<std::string>();
  std::ofstream(results() / csv, std::ios::app) << "\n";
  const ProcessResult tampered =
      run_process(campaign(2, "noisy.yaml", {"--no-pdf"}), allow_root, std::chrono::seconds(120));
  EXPECT_EQ(tampered.exit_code, 4) << describe(tampered);
  EXPECT_THAT(tampered.err, HasSubstr((results() / csv).string() + ": changed after stage collectives wrote it"));
  EXPECT_EQ(read_json(results() / "summary.json"), before);
}

}  // namespace
}  // namespace fb::testing
