// The PostgreSQL run store against a real server (Debian's postgresql, started by the test):
//   - a password given in the URL, in ?password=, in PGPASSWORD or a passfile connects, and after a
//     real MPI run, a list, a trend, a drift judgement and an ingest, no file, no table and no
//     console line holds it;
//   - four writers on a fresh database (the schema created by whoever comes first) all succeed;
//   - a writer that holds the store's lock makes the others give up at the lock timeout, and a
//     server that takes the connection but never answers ends the command at connect_timeout;
//   - a restarted server is connected again;
//   - a host whose cable is stepped down, flagged and drained, then repaired, is cleared: the drain
//     list and the degraded gauge empty again, the change kept as history.

#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "integration/fabricbench_runs.hpp"
#include "results/atomic_file.hpp"
#include "results/results_io.hpp"
#include "store/postgres_server.hpp"
#include "store/run_store.hpp"
#include "store/schema.hpp"
#include "support/nightly_runs.hpp"
#include "support/temp_dir.hpp"
#include "support/text_lines.hpp"

#include <sys/stat.h>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <thread>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ChildProcess;
using testing::describe;
using testing::directly;
using testing::PostgresServer;
using testing::ProcessResult;
using testing::run_process;

constexpr std::string_view password = "Pw-4f9c-Zq";

// A run of `rows` all_reduce rows, its own id.
ResultSet small_run(const std::string& run_id, int day) {
  ResultSet results;
  results.provenance.run_id = run_id;
  results.provenance.start_time = fmt::format("2026-11-{:02}T02:00:00Z", day);
  results.provenance.command_line = "fabricbench run all_reduce";
  results.provenance.rank_hosts = {"node1", "node2"};
  for (int i = 0; i < 4; ++i) {
    ResultRow row;
    row.run_id = run_id;
    row.backend = "mpi";
    row.op = "all_reduce";
    row.nranks = 2;
    row.bytes = 1024U << i;
    row.busbw_gbps = row.algbw_gbps = 5.0 + i;
    row.time_median_us = 10.0 + i;
    results.rows.push_back(row);
  }
  return results;
}

// Every regular file under `dir`, whole.
std::string all_files(const std::filesystem::path& dir) {
  std::string text;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) text += read_text_file(entry.path()) + "\n";
  return text;
}

TEST(PostgresStore, APasswordReachesTheServerAndNoFileTableOrLine) {
  PostgresServer server{std::string(password)};
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  testing::TempDir dir;
  const std::filesystem::path out = dir / "out";
  const std::string url = server.url();
  std::string console;
  const auto fabricbench = [&](const std::vector<std::string>& args, const std::vector<std::string>& environment = {}) {
    const ProcessResult result = run_process(directly(args), environment);
    console += result.out + result.err;
    return result;
  };
  const ProcessResult run =
      run_process(testing::under_mpirun(2, FABRICBENCH_BINARY,
                                        {"run", "all_reduce", "-b", "64K", "-e", "256K", "-f", "4", "-n", "3", "-w",
                                         "1", "-D", (out / "results").string(), "--store", url}),
                  testing::allow_root);
  console += run.out + run.err;
  ASSERT_EQ(run.exit_code, 0) << describe(run);
  EXPECT_THAT(run.out, HasSubstr(fmt::format("# recorded in the run store postgresql://fabricbench:***@127.0.0.1:{}/"
                                             "postgres",
                                             server.port())));
  // The results files say which store the run went to, without the password.
  for (const auto& entry : std::filesystem::directory_iterator(out / "results")) {
    if (entry.path().extension() == ".json") {
      EXPECT_THAT(read_results_json(entry.path()).provenance.command_line,
                  HasSubstr("'postgresql://fabricbench:***@127.0.0.1:"));
    }
  }
  EXPECT_EQ(fabricbench({"history", "--store", url}).exit_code, 0);
  EXPECT_EQ(
      fabricbench({"history", "--store", url, "--op", "all_reduce", "--json", (out / "trend.json").string()}).exit_code,
      0);
  EXPECT_EQ(fabricbench({"history", "drift", "--store", url, "--json", (out / "drift.json").string(),
                         "--prometheus-textfile", (out / "metrics").string()})
                .exit_code,
            0);
  const ProcessResult again = fabricbench({"history", "ingest", (out / "results").string(), "--store", url});
  EXPECT_THAT(again.out, HasSubstr("0 runs added, 0 updated (grew since), 1 already recorded"));

  // The other ways to give it: ?password=, PGPASSWORD, a passfile; none is printed either.
  const std::string bare = server.url_for("postgres", false);
  EXPECT_EQ(fabricbench({"history", "--store", fmt::format("{}?password={}", bare, password)}).exit_code, 0);
  EXPECT_EQ(fabricbench({"history", "--store", bare}, {fmt::format("PGPASSWORD={}", password)}).exit_code, 0);
  testing::TempDir secrets;  // the user's own file: outside what is searched
  const std::filesystem::path passfile = secrets / "pgpass";
  std::ofstream(passfile) << fmt::format("127.0.0.1:{}:*:fabricbench:{}\n", server.port(), password);
  ::chmod(passfile.c_str(), 0600);
  EXPECT_EQ(fabricbench({"history", "--store", fmt::format("{}?passfile={}", bare, passfile.string())}).exit_code, 0);
  // Without one the server refuses, and a wrong one is not printed either.
  const ProcessResult refused = fabricbench({"history", "--store", bare}, {"PGPASSFILE=/nonexistent"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("password"));
  const ProcessResult wrong =
      fabricbench({"history", "--store", server.url_for("postgres", false) + "?password=Wrong-4f9c-Pw"});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_THAT(wrong.err, Not(HasSubstr("Wrong-4f9c")));

  // Every table, dumped.
  const ProcessResult dump = run_process({server.bin() + "/pg_dump", "-h", "127.0.0.1", "-p",
                                          std::to_string(server.port()), "-U", "fabricbench", "postgres"},
                                         {fmt::format("PGPASSWORD={}", password)});
  ASSERT_EQ(dump.exit_code, 0) << describe(dump);
  ASSERT_THAT(dump.out, HasSubstr("COPY public.runs"));
  ASSERT_THAT(dump.out, HasSubstr("postgresql://fabricbench:***@127.0.0.1"));  // the command line, redacted
  const std::string files = all_files(out);
  for (const std::string_view secret : {password, std::string_view("4f9c")}) {
    EXPECT_EQ(files.find(secret), std::string::npos) << "a file holds " << secret;
    EXPECT_EQ(dump.out.find(secret), std::string::npos) << "a table holds " << secret;
    EXPECT_EQ(console.find(secret), std::string::npos) << "the console shows " << secret << ":\n" << console;
  }
}

// The life of a drift finding in a shared store: node3's cable loses 10% at night22 and is
// repaired at night27. Judged after night25 the change is open, node3 drained (exit 7) and its
// gauges say degraded; judged after night35 it was cleared three runs in its band after the repair
// (night29), nothing is drained, the gauges say healthy, and `history --host` keeps the dates.
TEST(PostgresStore, ARepairedHostIsClearedAndLeavesTheDrainList) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  const std::string url = server.url();
  testing::TempDir dir;
  const auto judge = [&](const std::string& name) {
    const ProcessResult drift = run_process(
        directly({"history", "drift", "--store", url, "--drain-list", (dir / (name + "-drain.txt")).string(),
                  "--prometheus-textfile", (dir / (name + "-metrics")).string()}));
    return drift;
  };
  const auto ingest = [&](int nights) {
    const std::filesystem::path folder = dir / fmt::format("nights{}", nights);
    testing::write_nightly_runs(folder, {.nights = nights, .degraded_night = 22, .repaired_night = 27});
    const ProcessResult result = run_process(directly({"history", "ingest", folder.string(), "--store", url}));
    ASSERT_EQ(result.exit_code, 0) << describe(result);
  };

  ingest(26);
  const ProcessResult open = judge("open");
  EXPECT_EQ(open.exit_code, 7) << describe(open);
  EXPECT_THAT(open.out, HasSubstr("busbw 0.900 x baseline since run night22"));
  EXPECT_THAT(testing::lines_of(read_text_file(dir / "open-drain.txt")),
              ::testing::Contains(::testing::StartsWith("node3\t")));
  EXPECT_THAT(read_text_file(dir / "open-metrics" / "fabricbench.prom"),
              HasSubstr("fabricbench_host_degraded{host=\"node3\"} 1\n"));

  ingest(36);  // nights 00 to 25 again (already recorded) and ten more, repaired from night27
  const ProcessResult cleared = judge("cleared");
  EXPECT_EQ(cleared.exit_code, 0) << describe(cleared);
  EXPECT_THAT(cleared.out, Not(HasSubstr("drift    host node3")));
  const std::vector<std::string> drained = testing::lines_of(read_text_file(dir / "cleared-drain.txt"));
  ASSERT_FALSE(drained.empty());
  for (const std::string& line : drained) EXPECT_TRUE(line.starts_with("#")) << "still drained: " << line;
  EXPECT_THAT(read_text_file(dir / "cleared-metrics" / "fabricbench.prom"),
              HasSubstr("fabricbench_host_degraded{host=\"node3\"} 0\n"));
  // The host's series keeps the change with both ends of its life: began at night22, cleared at
  // night29, the third run back in its band.
  const ProcessResult trend =
      run_process(directly({"history", "--store", url, "--host", "node3", "--json", (dir / "node3.json").string()}));
  ASSERT_EQ(trend.exit_code, 0) << describe(trend);
  // Five degraded runs (alternating +-0.5%) against the healthy baseline: 0.905.
  EXPECT_THAT(trend.out, ::testing::ContainsRegex("night22 .* change began \\(lower 0.905 x baseline\\)"));
  EXPECT_THAT(trend.out, ::testing::ContainsRegex("night29 .* cleared: 3 runs in a row within 1.5 spreads"));
  const nlohmann::json changes = nlohmann::json::parse(read_text_file(dir / "node3.json")).at("changes");
  ASSERT_EQ(changes.size(), 1U) << changes.dump(1);
  EXPECT_EQ(changes[0].at("began_run_id"), "night22");
  EXPECT_FALSE(changes[0].at("open").get<bool>());
  EXPECT_EQ(changes[0].at("cleared_run_id"), "night29");
  EXPECT_EQ(changes[0].at("cleared_start_time"), "2026-11-30T02:00:00Z");
  EXPECT_THAT(trend.out, HasSubstr("cleared"));
}

TEST(PostgresStore, FourWritersOnAFreshDatabaseAllSucceed) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  store::open_database(server.url())->execute("CREATE DATABASE fresh");
  const std::string url = server.url_for("fresh");
  testing::TempDir dir;
  constexpr int writers = 4;
  constexpr int runs_each = 15;
  for (int w = 0; w < writers; ++w)
    for (int i = 0; i < runs_each; ++i) {
      const std::filesystem::path folder = dir / fmt::format("writer{}", w);
      std::filesystem::create_directories(folder);
      const ResultSet run = small_run(fmt::format("w{}-{:02}", w, i), 1 + i);
      write_file_atomically(folder / (run.provenance.run_id + ".json"), results_to_json(run));
    }
  // Each writer ingests its runs one process at a time, all four at once from the first (the
  // database has no schema yet: they race to create it).
  std::vector<std::unique_ptr<ChildProcess>> running;
  for (int w = 0; w < writers; ++w)
    running.push_back(std::make_unique<ChildProcess>(std::vector<std::string>{
        "/bin/sh", "-c",
        fmt::format(
            "failed=0; for f in '{}'/*.json; do '{}' history ingest \"$f\" --store '{}' || failed=$((failed+1)); "
            "done; echo failed=$failed",
            (dir / fmt::format("writer{}", w)).string(), FABRICBENCH_BINARY, url)}));
  for (auto& writer : running) {
    const ProcessResult result = writer->wait(std::chrono::seconds(240));
    EXPECT_THAT(result.out, HasSubstr("failed=0")) << describe(result);
  }
  store::RunStore store(url);
  EXPECT_EQ(store.runs().size(), static_cast<std::size_t>(writers * runs_each));
  EXPECT_EQ(store.schema_version(), store::newest_schema_version());
}

TEST(PostgresStore, AWriterHoldingTheLockMakesOthersGiveUpAtTheLockTimeout) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  testing::TempDir dir;
  write_file_atomically(dir / "a.json", results_to_json(small_run("a", 1)));
  store::RunStore created(server.url());
  // A writer paused inside its transaction (stopped, or waiting on something of its own).
  const std::unique_ptr<store::Database> holder = store::open_database(server.url());
  holder->begin_exclusive();
  const std::string url = server.url() + "?options=-c%20lock_timeout%3D2s";
  const auto began = std::chrono::steady_clock::now();
  const ProcessResult waited = run_process(directly({"history", "ingest", (dir / "a.json").string(), "--store", url}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_EQ(waited.exit_code, static_cast<int>(ExitCode::timeout)) << describe(waited);
  EXPECT_THAT(waited.err, HasSubstr("lock timeout"));
  EXPECT_THAT(waited.err, HasSubstr("another writer held the store's write lock"));
  EXPECT_LT(seconds, 60);
  EXPECT_TRUE(created.runs().empty());
  // Once it lets go, the same ingest goes through.
  holder->execute("ROLLBACK");
  const ProcessResult after = run_process(directly({"history", "ingest", (dir / "a.json").string(), "--store", url}));
  EXPECT_EQ(after.exit_code, 0) << describe(after);
  EXPECT_EQ(created.runs().size(), 1U);
}

TEST(PostgresStore, AServerThatNeverAnswersEndsTheCommandAtConnectTimeoutAndKeepsTheFiles) {
  // Takes the TCP connection (the kernel completes it for the backlog) and never says a word.
  const int port = testing::free_port();
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  testing::TempDir dir;
  const std::filesystem::path results = dir / "results";
  std::filesystem::create_directories(results);
  write_file_atomically(results / "earlier.json", results_to_json(small_run("earlier", 1)));
  const std::string url = fmt::format("postgresql://fabricbench@127.0.0.1:{}/postgres?connect_timeout=2", port);
  const auto began = std::chrono::steady_clock::now();
  const ProcessResult ingest = run_process(directly({"history", "ingest", results.string(), "--store", url}));
  const ProcessResult measured = run_process(directly(
      {"run", "all_reduce", "-b", "1K", "-e", "1K", "-n", "2", "-w", "1", "-D", results.string(), "--store", url}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ::close(listener);
  EXPECT_EQ(ingest.exit_code, static_cast<int>(ExitCode::timeout)) << describe(ingest);
  EXPECT_THAT(ingest.err, HasSubstr("no answer from the server within connect_timeout (2 s"));
  EXPECT_NE(measured.exit_code, 0) << describe(measured);
  EXPECT_THAT(measured.err, HasSubstr("no answer from the server within connect_timeout (2 s"));
  EXPECT_LT(seconds, 60);  // two commands, each ended at its 2 s (per address libpq tries)
  // The files there are as they were, and the refused run wrote none.
  EXPECT_EQ(read_results_json(results / "earlier.json").provenance.run_id, "earlier");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(results), {}), 1);
}

TEST(PostgresStore, ARestartedServerIsConnectedAgain) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  store::RunStore store(server.url());
  EXPECT_EQ(store.record(small_run("before", 1), "test"), store::RecordOutcome::added);
  server.stop();
  server.start();
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start again: " << server.problem();
  // The store's connection died with the server: the next statement connects once more.
  EXPECT_EQ(store.record(small_run("after", 2), "test"), store::RecordOutcome::added);
  EXPECT_EQ(store.runs().size(), 2U);
}

// A server lost while a run measures: the run ends non-zero, names the command that records it
// later, and its results files hold every row; run once the server is back, that command records
// the run as the files have it.
TEST(PostgresStore, AServerLostDuringARunLeavesTheFilesAndTheCommandThatRecordsThem) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  const std::string url = server.url();
  testing::TempDir dir;
  const std::filesystem::path results = dir / "results";
  ChildProcess run({FABRICBENCH_BINARY, "run", "all_reduce", "-b", "1K", "-e", "128M", "-n", "5", "-w", "1", "-D",
                    results.string(), "--store", url});
  // The first size on disk: the run is measuring, connected to the store since it began.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const auto measuring = [&] {
    if (!std::filesystem::exists(results)) return false;
    for (const auto& entry : std::filesystem::directory_iterator(results))
      if (entry.path().extension() == ".csv") return true;
    return false;
  };
  while (!measuring() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(measuring()) << "the run wrote no results file";
  server.stop();
  const ProcessResult ended = run.wait(std::chrono::seconds(240));
  ASSERT_NE(ended.exit_code, 0) << describe(ended);
  const std::string marker = "the results files keep the run: ";
  const std::size_t at = ended.err.find(marker);
  ASSERT_NE(at, std::string::npos) << describe(ended);
  const std::string command = ended.err.substr(at + marker.size(), ended.err.find('\n', at) - at - marker.size());
  EXPECT_THAT(command, ::testing::StartsWith("fabricbench history ingest '" + results.string() + "/"));
  EXPECT_THAT(command,
              HasSubstr(fmt::format("--store 'postgresql://fabricbench@127.0.0.1:{}/postgres'", server.port())));
  std::vector<ResultSet> written;
  for (const auto& entry : std::filesystem::directory_iterator(results))
    if (entry.path().extension() == ".json") written.push_back(read_results_json(entry.path()));
  ASSERT_EQ(written.size(), 1U);
  EXPECT_EQ(written[0].rows.size(), 36U);  // 1K to 128M: 18 sizes, out-of-place and in-place

  server.start();
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start again: " << server.problem();
  const ProcessResult recorded = run_process(
      {"/bin/sh", "-c", std::string(FABRICBENCH_BINARY) + command.substr(std::string("fabricbench").size())});
  ASSERT_EQ(recorded.exit_code, 0) << describe(recorded);
  EXPECT_THAT(recorded.out, HasSubstr("1 runs added"));
  const std::optional<ResultSet> stored = store::RunStore(url).run(written[0].provenance.run_id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->rows, written[0].rows);
}

// A role that may only read (a dashboard's, an auditor's) lists the runs, draws a series and judges
// drift: a store it cannot write is read, never created or migrated, and a write is refused with
// the server's own reason.
TEST(PostgresStore, ARoleThatMayOnlySelectListsAndJudgesTheStore) {
  PostgresServer server;
  if (!server.installed()) GTEST_SKIP() << "PostgreSQL is not installed (Debian package postgresql)";
  ASSERT_FALSE(server.url().empty()) << "PostgreSQL did not start: " << server.problem();
  testing::TempDir dir;
  testing::write_nightly_runs(dir / "nights");
  ASSERT_EQ(run_process(directly({"history", "ingest", (dir / "nights").string(), "--store", server.url()})).exit_code,
            0);
  const std::unique_ptr<store::Database> admin = store::open_database(server.url());
  admin->execute("CREATE ROLE reader LOGIN");
  admin->execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader");
  const std::string reader = fmt::format("postgresql://reader@127.0.0.1:{}/postgres", server.port());

  const ProcessResult listed = run_process(directly({"history", "--store", reader}));
  ASSERT_EQ(listed.exit_code, 0) << describe(listed);
  EXPECT_THAT(listed.out, HasSubstr("night29"));
  const ProcessResult drift = run_process(directly({"history", "drift", "--store", reader}));
  EXPECT_EQ(drift.exit_code, 0) << describe(drift);
  EXPECT_THAT(drift.out, HasSubstr("busbw 0.900 x baseline since run night22"));
  // Its one write is refused by the server, and the store keeps its 30 runs.
  write_file_atomically(dir / "new.json", results_to_json(small_run("new", 5)));
  const ProcessResult ingest =
      run_process(directly({"history", "ingest", (dir / "new.json").string(), "--store", reader}));
  EXPECT_NE(ingest.exit_code, 0) << describe(ingest);
  EXPECT_THAT(ingest.err, HasSubstr("permission denied"));
  EXPECT_EQ(store::RunStore(server.url()).runs().size(), 30U);
}

}  // namespace
}  // namespace fb
