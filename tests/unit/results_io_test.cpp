#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "results/results_io.hpp"
#include "support/temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace fb {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

Provenance sample_provenance() {
  Provenance p;
  p.run_id = "20261122T231504Z-3fa9c1";
  p.tool_version = "0.1.0";
  p.git_revision = "6c85b00-dirty";
  p.start_time = "2026-11-22T23:15:04Z";
  // A newline in a provenance value must not break the CSV's comment header.
  p.command_line = "fabricbench run all_reduce -D 'dir, with \"quotes\"'\nsecond line";
  p.backend = "mpi";
  p.nranks = 3;
  p.nodes = 2;
  p.ranks_per_node = 2;
  p.rank_hosts = {"node01", "node01", "node02"};
  p.kernel = "Linux 6.1.0 x86_64";
  p.libraries = {{"mpi_library", "Open MPI v4.1.4"}, {"mpi_standard", "3.1"}};
  p.environment = {{"NCCL_ALGO", "Ring,Tree"}, {"OMPI_MCA_btl", "self,vader"}};
  p.assumptions = {"16 ranks from the launcher line 'mpirun -np 16, -N 8' (the log lists no ranks)"};
  return p;
}

// Four rows: a collective with every optional field empty, a rooted collective with the
// optionals set, a point-to-point row with hosts that need CSV quoting, a device copy. Doubles are chosen to
// need all 17 significant digits.
ResultSet sample_results() {
  ResultSet results;
  results.provenance = sample_provenance();

  ResultRow all_reduce;
  all_reduce.run_id = results.provenance.run_id;
  all_reduce.backend = "mpi";
  all_reduce.op = "all_reduce";
  all_reduce.dtype = "float";
  all_reduce.redop = "sum";
  all_reduce.in_place = true;
  all_reduce.nranks = 1;
  all_reduce.nodes = 1;
  all_reduce.ranks_per_node = 1;
  all_reduce.bytes = 8;
  all_reduce.count = 2;
  all_reduce.iterations = 20;
  all_reduce.unreported_statistics = "time_min_us time_p99_us time_max_us time_cv";
  all_reduce.time_min_us = 0.1;
  all_reduce.time_median_us = 1.0 / 3.0;
  all_reduce.time_p99_us = 12.248000000000001;
  all_reduce.time_max_us = 1e300;
  all_reduce.time_cv = 0.28321121476593814;
  all_reduce.algbw_gbps = 5.245213742460005e-4;
  all_reduce.timestamp = "2026-11-22T23:15:05Z";

  ResultRow broadcast = all_reduce;
  broadcast.op = "broadcast";
  broadcast.redop = "none";
  broadcast.root = 2;
  broadcast.nranks = 3;
  broadcast.nodes = 2;
  broadcast.ranks_per_node = 2;
  broadcast.bytes = 1ull << 40;
  broadcast.count = 1ull << 38;
  broadcast.busbw_gbps = 2.0 / 3.0;
  broadcast.wrong = 0;
  broadcast.expected_busbw_gbps = 45.123456789012345;
  broadcast.efficiency_pct = 1.4774306437378355;
  broadcast.model_algorithm = "ring";
  broadcast.model_protocol = "Simple";
  broadcast.model_channels = 16;
  broadcast.model_limit = "node1/mlx5_0 -> leaf1 (IB NDR x4)";
  broadcast.time_mean_us = 12.345678901234567;

  ResultRow bibw = broadcast;
  bibw.op = "bibw";
  bibw.root.reset();
  bibw.in_place = false;
  bibw.src_rank = 0;
  bibw.dst_rank = 2;
  bibw.src_host = "rack 1, \"node01\"";
  bibw.dst_host = "node02";
  bibw.wrong = 18446744073709551615ull;
  bibw.expected_busbw_gbps.reset();
  bibw.efficiency_pct.reset();
  bibw.expected_time_us = 0.30000000000000004;

  ResultRow peer_copy = bibw;
  peer_copy.backend = "cuda";
  peer_copy.op = "d2d_ce";
  peer_copy.src_rank = 0;
  peer_copy.dst_rank = 3;
  peer_copy.src_host = peer_copy.dst_host = "node01";
  peer_copy.src_device = "GPU0";
  peer_copy.dst_device = "GPU3";
  peer_copy.wrong = 0;

  results.rows = {all_reduce, broadcast, bibw, peer_copy};
  return results;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Replaces the first occurrence of `from` (which must exist) with `to`.
std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("'" + from + "' not in the text");
  return text.replace(at, from.size(), to);
}

// 1-based number of the line holding the first occurrence of `needle` (which must exist).
int line_containing(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) throw std::logic_error("'" + needle + "' not in the text");
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

template <class Read>
std::string input_error_message(Read&& read) {
  try {
    read();
  } catch (const InputError& e) { return e.what(); }
  ADD_FAILURE() << "no InputError";
  return {};
}

TEST(ResultsIo, CsvAndJsonRoundTripEveryField) {
  const TempDir dir;
  const ResultSet written = sample_results();
  write_file_atomically(dir / "r.csv", results_to_csv(written));
  write_file_atomically(dir / "r.json", results_to_json(written));

  const ResultSet from_csv = read_results_csv(dir / "r.csv");
  const ResultSet from_json = read_results_json(dir / "r.json");
  ASSERT_EQ(from_csv.rows.size(), 4u);
  ASSERT_EQ(from_json.rows.size(), 4u);
  for (std::size_t i = 0; i < written.rows.size(); ++i) {
    EXPECT_EQ(from_csv.rows[i], written.rows[i]) << "CSV row " << i;
    EXPECT_EQ(from_json.rows[i], written.rows[i]) << "JSON row " << i;
  }
  EXPECT_EQ(from_json.provenance, written.provenance);
}

// Files written before the expectation columns existed: the same rows, with those columns empty.
TEST(ResultsIo, FilesWithoutTheAddedColumnsStillRead) {
  const TempDir dir;
  const ResultSet written = sample_results();
  std::string csv;
  std::istringstream lines(results_to_csv(written));
  for (std::string line; std::getline(lines, line);) {
    // The sixteen added columns (expectations, devices, unreported statistics, the model's choice,
    // repetition, the mean time, the model's interval) are the last ones and hold no commas here.
    if (!line.starts_with("#"))
      for (int column = 0; column < 16; ++column) line.erase(line.rfind(','));
    csv += line + "\n";
  }
  ASSERT_THAT(csv, ::testing::Not(HasSubstr("efficiency_pct")));
  ASSERT_THAT(csv, ::testing::Not(HasSubstr("src_device")));
  ASSERT_THAT(csv, ::testing::Not(HasSubstr("unreported_statistics")));
  ASSERT_THAT(csv, ::testing::Not(HasSubstr("repetition")));
  write_text(dir / "old.csv", csv);
  const std::regex expectation_key(
      R"re(,\n *"(expected_busbw_gbps|expected_time_us|efficiency_pct|src_device|dst_device|unreported_statistics|model_algorithm|model_protocol|model_channels|model_limit|repetition|time_mean_us|busbw_low_gbps|busbw_high_gbps|time_low_us|time_high_us)": [^,\n]*)re");
  const std::string json = std::regex_replace(results_to_json(written), expectation_key, "");
  ASSERT_THAT(json, ::testing::Not(HasSubstr("expected_time_us")));
  ASSERT_THAT(json, ::testing::Not(HasSubstr("dst_device")));
  write_text(dir / "old.json", json);

  std::vector<ResultRow> expected = written.rows;
  for (ResultRow& row : expected) {
    row.expected_busbw_gbps.reset();
    row.expected_time_us.reset();
    row.efficiency_pct.reset();
    row.src_device.clear();
    row.dst_device.clear();
    row.unreported_statistics.clear();
    row.model_algorithm.clear();
    row.model_protocol.clear();
    row.model_channels.reset();
    row.model_limit.clear();
    row.time_mean_us.reset();
    row.busbw_low_gbps.reset();
    row.busbw_high_gbps.reset();
    row.time_low_us.reset();
    row.time_high_us.reset();
  }
  EXPECT_EQ(read_results_csv(dir / "old.csv").rows, expected);
  EXPECT_EQ(read_results_json(dir / "old.json").rows, expected);
}

TEST(ResultsIo, CsvWithoutARequiredColumnNamesIt) {
  const TempDir dir;
  write_text(dir / "no-bytes.csv", replace_first(results_to_csv(sample_results()), ",bytes,", ",size,"));
  const std::string message = input_error_message([&] { read_results_csv(dir / "no-bytes.csv"); });
  EXPECT_THAT(message, HasSubstr((dir / "no-bytes.csv").string()));
  EXPECT_THAT(message, HasSubstr("no column bytes"));
}

TEST(ResultsIo, WriterKeepsBothFilesCompleteAfterEveryFlush) {
  const TempDir dir;
  const ResultSet sample = sample_results();
  // Missing parent directories are created.
  ResultsWriter writer({dir / "a/b/r.csv", dir / "a/b/r.json"}, sample.provenance);
  EXPECT_TRUE(read_results_csv(dir / "a/b/r.csv").rows.empty());
  EXPECT_EQ(read_results_json(dir / "a/b/r.json").provenance, sample.provenance);
  for (std::size_t n = 1; n <= sample.rows.size(); ++n) {
    writer.append(sample.rows[n - 1]);
    writer.flush();
    EXPECT_EQ(read_results_csv(dir / "a/b/r.csv").rows.size(), n);
    EXPECT_EQ(read_results_json(dir / "a/b/r.json").rows.size(), n);
  }
  EXPECT_EQ(read_results_json(dir / "a/b/r.json").rows, sample.rows);
}

TEST(ResultsIo, WriterOnAnUnwritablePathThrowsBeforeAnyRow) {
  const TempDir dir;
  write_text(dir / "plain-file", "not a directory\n");
  EXPECT_THROW(ResultsWriter({dir / "plain-file/r.csv", dir / "plain-file/r.json"}, sample_provenance()),
               std::runtime_error);
  EXPECT_EQ(read_text_file(dir / "plain-file"), "not a directory\n");
}

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ResultsIo, WriteFileAtomicallyReplacesAndLeavesNoTemporaryFiles) {
  const TempDir dir;
  write_file_atomically(dir / "out.txt", "first\n");
  write_file_atomically(dir / "out.txt", "second\n");
  EXPECT_EQ(read_text_file(dir / "out.txt"), "second\n");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.txt"});
}

// A root run must not write through a link someone planted at a name it could predict (the old
// "<path>.tmp.<pid>"), nor through a link at the target itself: the link is replaced, its target kept.
TEST(ResultsIo, OutputsNeverFollowALinkPlantedInTheDirectory) {
  const TempDir dir;
  write_text(dir / "victim", "precious\n");
  for (const std::string name : {"out.txt", "r.csv", "r.json"})
    std::filesystem::create_symlink(dir / "victim", dir / fmt::format("{}.tmp.{}", name, ::getpid()));
  std::filesystem::create_symlink(dir / "victim", dir / "out.txt");
  write_file_atomically(dir / "out.txt", "new\n");
  EXPECT_EQ(read_text_file(dir / "victim"), "precious\n");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "out.txt"));
  EXPECT_EQ(read_text_file(dir / "out.txt"), "new\n");

  const ResultSet sample = sample_results();
  {
    ResultsWriter writer({dir / "r.csv", dir / "r.json"}, sample.provenance);
    for (const ResultRow& row : sample.rows) {
      writer.append(row);
      writer.flush();
    }
  }
  EXPECT_EQ(read_text_file(dir / "victim"), "precious\n");
  EXPECT_EQ(read_results_json(dir / "r.json").rows, sample.rows);
  // A run's results files are new files: a link where one should go is refused like any file.
  std::filesystem::create_symlink(dir / "victim", dir / "s.json");
  EXPECT_THROW(ResultsWriter({dir / "s.csv", dir / "s.json"}, sample.provenance), std::runtime_error);
  EXPECT_EQ(read_text_file(dir / "victim"), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "s.csv"));
}

TEST(ResultsIo, WriterRefusesExistingFilesAndOnePathForBoth) {
  const TempDir dir;
  write_text(dir / "r.csv", "earlier results\n");
  try {
    ResultsWriter({dir / "r.csv", dir / "r.json"}, sample_provenance());
    FAIL() << "overwrote " << (dir / "r.csv");
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "r.csv").string() +
                  " exists already: results are never overwritten; remove it or give another path");
  }
  EXPECT_EQ(read_text_file(dir / "r.csv"), "earlier results\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
  try {
    ResultsWriter({dir / "both", dir / "sub/../both"}, sample_provenance());
    FAIL() << "one file for both";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "the CSV and the JSON results would both be " + (dir / "both").string());
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "both"));
}

TEST(ResultsIo, WriteFileAtomicallyNamesThePathOnFailure) {
  const TempDir dir;
  const auto target = dir / "missing-dir/out.txt";
  try {
    write_file_atomically(target, "x");
    FAIL() << "wrote into a missing directory";
  } catch (const std::runtime_error& e) { EXPECT_THAT(e.what(), HasSubstr(target.string())); }
  EXPECT_FALSE(std::filesystem::exists(dir / "missing-dir"));
}

// Infinite or negative times and bandwidths come from broken tools or edited files: bad input,
// named with file and line, never a row that passes a threshold or breaks a plot.
TEST(ResultsIo, NonFiniteOrNegativeMeasurementsAreInputErrorsWithTheLine) {
  const TempDir dir;
  const std::string csv = results_to_csv(sample_results());
  const std::string median = fmt::format(",{},", fmt::format("{}", 1.0 / 3.0));
  ASSERT_NE(csv.find(median), std::string::npos);
  for (const auto& [cell, shown] :
       std::vector<std::pair<std::string, std::string>>{{"-inf", "time_median_us is -inf"},
                                                        {"inf", "time_median_us is inf"},
                                                        {"nan", "time_median_us is nan"},
                                                        {"-0.5", "time_median_us is -0.5"}}) {
    const std::string bad = replace_first(csv, median, "," + cell + ",");
    write_text(dir / "bad.csv", bad);
    const std::string message = input_error_message([&] { read_results_csv(dir / "bad.csv"); });
    EXPECT_THAT(message, HasSubstr(fmt::format("{}:{}: {}", (dir / "bad.csv").string(),
                                               line_containing(bad, "," + cell + ","), shown)));
  }
  const std::string json = results_to_json(sample_results());
  write_text(dir / "bad.json", replace_first(json, "\"busbw_gbps\": 0.6666666666666666", "\"busbw_gbps\": -1"));
  EXPECT_EQ(input_error_message([&] { read_results_json(dir / "bad.json"); }),
            (dir / "bad.json").string() + ": rows[1]: busbw_gbps is -1, expected a finite number >= 0");
}

// nlohmann keeps the last of two equal keys; the loader refuses the file instead.
TEST(ResultsIo, JsonWithAKeyTwiceInOneObjectIsAnInputError) {
  const TempDir dir;
  const std::string json = results_to_json(sample_results());
  write_text(dir / "twice.json", replace_first(json, "\"bytes\": 8,", "\"bytes\": 8,\n   \"bytes\": 9,"));
  EXPECT_EQ(input_error_message([&] { read_results_json(dir / "twice.json"); }),
            (dir / "twice.json").string() + ": key \"bytes\" appears twice in one object");
}

// 100,000 nested arrays in the provenance crashed every command that loads results (SIGSEGV);
// now the parse stops at the 65th level with an input error naming the file.
TEST(ResultsIo, JsonNestedDeeperThanTheLimitIsAnInputError) {
  const TempDir dir;
  const std::string json = results_to_json(sample_results());
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  write_text(dir / "deep.json",
             replace_first(json, "\"provenance\": {", "\"deep\": " + deep + ",\n \"provenance\": {"));
  EXPECT_EQ(input_error_message([&] { read_results_json(dir / "deep.json"); }),
            (dir / "deep.json").string() + ": JSON nested deeper than 64 levels");
  // 64 levels still read (and the unknown key is ignored).
  const std::string allowed = std::string(63, '[') + std::string(63, ']');
  write_text(dir / "nested.json",
             replace_first(json, "\"provenance\": {", "\"deep\": " + allowed + ",\n \"provenance\": {"));
  EXPECT_EQ(read_results_json(dir / "nested.json").rows, sample_results().rows);
  // The limit counts the open containers around a token, as it did before the reader streamed:
  // the top-level object and 64 empty arrays in it read, a 65th array does not.
  const auto nested = [&](std::size_t arrays) {
    return parse_results_json(replace_first(json, "\"provenance\": {",
                                            "\"deep\": " + std::string(arrays, '[') + std::string(arrays, ']') +
                                                ",\n \"provenance\": {"),
                              "nested");
  };
  EXPECT_EQ(nested(64).rows.size(), 4u);
  EXPECT_EQ(input_error_message([&] { nested(65); }), "nested: JSON nested deeper than 64 levels");
}

// A bad row is found before the parser has seen the rest of the file: what is wrong with the file
// as a whole (cut short, a key twice further down) is still the error reported.
TEST(ResultsIo, ErrorsInTheWholeFileComeBeforeABadRowAboveThem) {
  const std::string json = replace_first(results_to_json(sample_results()), "\"bytes\": 8", "\"bytes\": \"eight\"");
  EXPECT_EQ(input_error_message([&] { parse_results_json(json, "f"); }),
            "f: rows[0]: field bytes: expected a number, got \"eight\"");
  EXPECT_THAT(input_error_message([&] { parse_results_json(json.substr(0, json.size() - 10), "f"); }),
              HasSubstr("f: not valid JSON: [json.exception.parse_error.101]"));
  const std::string twice = replace_first(json, "\"d2d_ce\",", "\"d2d_ce\",\n   \"op\": \"d2d_ce\",");
  EXPECT_EQ(input_error_message([&] { parse_results_json(twice, "f"); }), "f: key \"op\" appears twice in one object");
}

// A row that is no object was read with nlohmann's value(), which threw its own type error: not an
// input error, so the command crashed out with an internal error.
TEST(ResultsIo, ARowThatIsNotAnObjectNamesTheRow) {
  auto json = nlohmann::ordered_json::parse(results_to_json(sample_results()));
  for (const nlohmann::ordered_json& not_an_object : {nlohmann::ordered_json(42), nlohmann::ordered_json::array()}) {
    json["rows"][1] = not_an_object;
    EXPECT_EQ(input_error_message([&] { parse_results_json(json.dump(), "f"); }), "f: rows[1]: expected an object");
  }
  json["rows"] = nlohmann::ordered_json::object();
  EXPECT_EQ(input_error_message([&] { parse_results_json(json.dump(), "f"); }), "f: expected an array \"rows\"");
  json.erase("rows");
  EXPECT_EQ(input_error_message([&] { parse_results_json(json.dump(), "f"); }), "f: expected an array \"rows\"");
}

// Rows no measurement can give are refused at load, naming the file, the row and the field.
TEST(ResultsIo, RowsThatCountNothingAreInputErrors) {
  const TempDir dir;
  const std::vector<std::pair<std::function<void(ResultRow&)>, std::string>> bad{
      {[](ResultRow& row) { row.iterations = -1; }, "rows[0]: iterations is -1, expected a count >= 0"},
      {[](ResultRow& row) { row.nranks = 0; }, "rows[0]: nranks is 0, expected at least 1"},
      {[](ResultRow& row) { row.op.clear(); }, "rows[0]: op is empty"},
      {[](ResultRow& row) { row.time_median_us = 5e-324; },
       "rows[0]: time_median_us is 5e-324, too small to be a measurement"},
      {[](ResultRow& row) { row.busbw_gbps = 1e-310; },
       "rows[0]: busbw_gbps is 1e-310, too small to be a measurement"}};
  for (const auto& [damage, message] : bad) {
    ResultSet results = sample_results();
    damage(results.rows[0]);
    write_text(dir / "bad.json", results_to_json(results));
    EXPECT_EQ(input_error_message([&] { read_results_json(dir / "bad.json"); }),
              (dir / "bad.json").string() + ": " + message);
    write_text(dir / "bad.csv", results_to_csv(results));
    // The CSV names the line and the field (a subnormal may already fail as out of range).
    const std::string field =
        message.substr(message.find(": ") + 2, message.find(' ', message.find(": ") + 2) - message.find(": ") - 2);
    EXPECT_THAT(input_error_message([&] { read_results_csv(dir / "bad.csv"); }), HasSubstr(field));
  }
}

// An ESC sequence in an op name would recolour or rewrite the terminal of whoever runs compare or
// report on the file; control characters are dropped from every text field as it is read.
TEST(ResultsIo, ControlCharactersInTextFieldsAreDroppedAtLoad) {
  const TempDir dir;
  ResultSet results = sample_results();
  results.rows[0].op = "all_\x1b[2J\x1b[31mreduce\r";
  results.rows[0].src_host = "node\x07\x7f"
                             "01";
  write_text(dir / "esc.json", results_to_json(results));
  write_text(dir / "esc.csv", results_to_csv(results));
  for (const ResultSet& loaded : {read_results_json(dir / "esc.json"), read_results_csv(dir / "esc.csv")}) {
    EXPECT_EQ(loaded.rows[0].op, "all_[2J[31mreduce");
    EXPECT_EQ(loaded.rows[0].src_host, "node01");
  }
}

TEST(ResultsIo, CsvWithWrongSchemaNamesFileAndLine) {
  const TempDir dir;
  const std::string good = results_to_csv(sample_results());
  const std::string bad = replace_first(good, "\nfabricbench.results.v1,", "\nfabricbench.results.v0,");
  write_text(dir / "bad.csv", bad);
  const std::string message = input_error_message([&] { read_results_csv(dir / "bad.csv"); });
  EXPECT_THAT(message, HasSubstr(fmt::format("{}:{}", (dir / "bad.csv").string(),
                                             line_containing(bad, "fabricbench.results.v0,"))));
  EXPECT_THAT(message, HasSubstr("fabricbench.results.v0"));
}

TEST(ResultsIo, CsvWithTextInANumberColumnNamesFileLineAndColumn) {
  const TempDir dir;
  const ResultSet sample = sample_results();
  // Only the second row has 2^40 bytes.
  const std::string bad = replace_first(results_to_csv(sample), ",1099511627776,", ",lots,");
  write_text(dir / "bad.csv", bad);
  const std::string message = input_error_message([&] { read_results_csv(dir / "bad.csv"); });
  EXPECT_THAT(message, HasSubstr(fmt::format("{}:{}", (dir / "bad.csv").string(), line_containing(bad, ",lots,"))));
  EXPECT_THAT(message, HasSubstr("bytes"));
  EXPECT_THAT(message, HasSubstr("'lots'"));
}

TEST(ResultsIo, CsvWithoutTheSchemaColumnIsAnInputError) {
  const TempDir dir;
  write_text(dir / "other.csv", "a,b\n1,2\n");
  EXPECT_THAT(input_error_message([&] { read_results_csv(dir / "other.csv"); }),
              HasSubstr((dir / "other.csv").string()));
}

TEST(ResultsIo, TruncatedJsonNamesTheFile) {
  const TempDir dir;
  const std::string json = results_to_json(sample_results());
  write_text(dir / "cut.json", json.substr(0, json.size() / 2));
  const std::string message = input_error_message([&] { read_results_json(dir / "cut.json"); });
  EXPECT_THAT(message, HasSubstr((dir / "cut.json").string()));
}

TEST(ResultsIo, JsonWithWrongSchemaOrTextInANumberFieldNamesTheFile) {
  const TempDir dir;
  const std::string json = results_to_json(sample_results());
  write_text(dir / "schema.json", replace_first(json, "\"fabricbench.results.v1\"", "\"fabricbench.results.v9\""));
  EXPECT_THAT(input_error_message([&] { read_results_json(dir / "schema.json"); }),
              HasSubstr((dir / "schema.json").string()));
  write_text(dir / "number.json", replace_first(json, "\"bytes\": 8", "\"bytes\": \"eight\""));
  const std::string message = input_error_message([&] { read_results_json(dir / "number.json"); });
  EXPECT_THAT(message, HasSubstr((dir / "number.json").string()));
  EXPECT_THAT(message, HasSubstr("rows[0]"));
  EXPECT_THAT(message, HasSubstr("bytes"));
}

// A pairwise timeout as the run records it: rank 2's host lost its link, rank 5 waited for it.
Incident sample_incident() {
  Incident incident;
  incident.kind = "timeout";
  incident.op = "pairwise";
  incident.case_label = "bw 1048576 B, 2 pairs at once";
  incident.bytes = 1 << 20;
  incident.dtype = "float";
  incident.step = "gathering times";
  incident.round = 4;
  incident.pairs_in_flight = {{0, 1, "node01", "node01"}, {2, 5, "node02", "node03"}};
  incident.ranks_not_arrived = {{2, "node02", false, ""}, {5, "node03", true, "timed iteration 3"}};
  incident.ranks_arrived = {{0, "node01", true, "gathering times"}, {1, "node01", true, "gathering times"}};
  incident.links_lost = {{"node02", "mlx5_0/1", {2}}};
  incident.deadline_s = 3;
  incident.stalled_s = 3.0000000000000004;
  incident.message = "timeout: bw 1048576 B, 2 pairs at once made no progress for 3.0 s\nsecond line";
  incident.timestamp = "2026-11-22T23:15:09Z";
  return incident;
}

TEST(ResultsIo, IncidentsRideInTheJsonFileAndShowInCsvComments) {
  const TempDir dir;
  ResultSet written = sample_results();
  written.incidents = {sample_incident(), sample_incident()};
  written.incidents[1].round.reset();
  written.incidents[1].pairs_in_flight.clear();
  write_file_atomically(dir / "r.json", results_to_json(written));
  write_file_atomically(dir / "r.csv", results_to_csv(written));

  const ResultSet from_json = read_results_json(dir / "r.json");
  EXPECT_EQ(from_json.incidents, written.incidents);
  EXPECT_EQ(from_json.rows, written.rows);
  // CSV holds rows only; each incident is one comment line, which readers skip.
  const std::string csv = read_text_file(dir / "r.csv");
  EXPECT_THAT(csv, HasSubstr("# incident: timeout in pairwise 1048576 B round 4 at gathering times: rank 2 on node02 "
                             "did not answer, rank 5 on node03 still at timed iteration 3; mlx5_0/1 of node02 went "
                             "down (rank 2)\n"));
  const ResultSet from_csv = read_results_csv(dir / "r.csv");
  EXPECT_EQ(from_csv.rows, written.rows);
  EXPECT_TRUE(from_csv.incidents.empty());
}

// Files written before incidents existed have no "incidents" key: they read, with none.
TEST(ResultsIo, JsonWithoutIncidentsReadsWithNone) {
  const TempDir dir;
  const std::string json = results_to_json(sample_results());
  write_text(dir / "old.json", replace_first(json, ",\n \"incidents\": []", ""));
  ASSERT_THAT(read_text_file(dir / "old.json"), ::testing::Not(HasSubstr("incidents")));
  const ResultSet old = read_results_json(dir / "old.json");
  EXPECT_EQ(old.rows, sample_results().rows);
  EXPECT_TRUE(old.incidents.empty());
}

TEST(ResultsIo, MalformedIncidentNamesItsIndexAndKey) {
  const TempDir dir;
  ResultSet written = sample_results();
  written.incidents = {sample_incident()};
  const std::string json = results_to_json(written);
  write_text(dir / "round.json", replace_first(json, "\"round\": 4", "\"round\": 4.5"));
  std::string message = input_error_message([&] { read_results_json(dir / "round.json"); });
  EXPECT_THAT(message, HasSubstr((dir / "round.json").string() + ": incidents[0]"));
  EXPECT_THAT(message, HasSubstr("round"));
  write_text(dir / "rank.json", replace_first(json, "\"rank\": 2,", "\"rank\": 1e300,"));
  EXPECT_THAT(input_error_message([&] { read_results_json(dir / "rank.json"); }), HasSubstr("rank"));
  write_text(dir / "array.json", replace_first(json, "\"incidents\": [", "\"incidents\": {\"x\": ["));
  EXPECT_THROW(read_results_json(dir / "array.json"), InputError);
}

// The writer appends to the files rather than rendering them again, and the files it publishes
// are exactly what rendering the whole set gives, before and after an incident rewrites them.
TEST(ResultsIo, GrowingFilesEqualTheWholeRenderingAfterEveryFlush) {
  const TempDir dir;
  const ResultSet sample = sample_results();
  ResultSet expected;
  expected.provenance = sample.provenance;
  std::optional<ResultsWriter> writer(std::in_place, ResultsPaths{dir / "r.csv", dir / "r.json"}, sample.provenance);
  for (int pass = 0; pass < 3; ++pass) {
    if (pass == 2) {
      writer->record_incident(sample_incident());
      expected.incidents.push_back(sample_incident());
    }
    for (const ResultRow& row : sample.rows) {
      writer->append(row);
      writer->flush();
      expected.rows.push_back(row);
      ASSERT_EQ(read_text_file(dir / "r.json"), results_to_json(expected));
      ASSERT_EQ(read_text_file(dir / "r.csv"), results_to_csv(expected));
      // Between publications nothing but the two files: a run ended here leaves no hidden file.
      EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"r.csv", "r.json"}));
    }
  }
  writer.reset();
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"r.csv", "r.json"}));
  EXPECT_EQ(read_results_json(dir / "r.json").rows.size(), 3 * sample.rows.size());
}

// A version once published is never written again: a hard link to it (or a slow reader such as
// scp holding it open) keeps that version whole, and every publication is a new inode.
TEST(ResultsIo, APublishedVersionNeverChanges) {
  const TempDir dir;
  const ResultSet sample = sample_results();
  ResultsWriter writer({dir / "r.csv", dir / "r.json"}, sample.provenance);
  std::vector<std::pair<std::filesystem::path, std::string>> kept;
  std::set<ino_t> inodes;
  for (std::size_t n = 0; n < sample.rows.size(); ++n) {
    writer.append(sample.rows[n]);
    writer.flush();
    for (const char* name : {"r.csv", "r.json"}) {
      const std::filesystem::path link = dir / fmt::format("kept-{}-{}", n, name);
      std::filesystem::create_hard_link(dir / name, link);
      kept.emplace_back(link, read_text_file(link));
      struct stat status {};
      ASSERT_EQ(::stat(link.c_str(), &status), 0);
      EXPECT_TRUE(inodes.insert(status.st_ino).second) << name << " was published twice in one inode";
    }
  }
  writer.record_incident(sample_incident());
  for (const auto& [link, contents] : kept) EXPECT_EQ(read_text_file(link), contents) << link;
  EXPECT_EQ(read_results_json(dir / "kept-0-r.json").rows.size(), 1u);
  EXPECT_EQ(read_results_json(dir / "r.json").rows, sample.rows);
}

// The watchdog's thread records the incident into the files that already hold the rows measured.
TEST(ResultsIo, WriterRecordsAnIncidentBesideTheRowsOnDisk) {
  const TempDir dir;
  const ResultSet sample = sample_results();
  ResultsWriter writer({dir / "r.csv", dir / "r.json"}, sample.provenance);
  writer.append(sample.rows[0]);
  writer.flush();
  writer.append(sample.rows[1]);  // not flushed yet: the incident write takes it along
  std::thread([&] { writer.record_incident(sample_incident()); }).join();
  const ResultSet on_disk = read_results_json(dir / "r.json");
  EXPECT_EQ(on_disk.rows, std::vector<ResultRow>(sample.rows.begin(), sample.rows.begin() + 2));
  EXPECT_EQ(on_disk.incidents, std::vector<Incident>{sample_incident()});
  EXPECT_EQ(read_results_csv(dir / "r.csv").rows.size(), 2u);
  EXPECT_THAT(read_text_file(dir / "r.csv"), HasSubstr("# incident: timeout in pairwise"));
}

TEST(ResultsIo, MissingFileIsAnInputError) {
  const TempDir dir;
  EXPECT_THROW(read_results_json(dir / "absent.json"), InputError);
  EXPECT_THROW(read_results_csv(dir / "absent.csv"), InputError);
}

// The rows are read as the parser reaches them; a file that puts them before the schema and the
// provenance (any JSON writer may order keys its own way) reads the same.
TEST(ResultsIo, JsonWithTheRowsFirstReadsTheSame) {
  ResultSet written = sample_results();
  written.incidents = {sample_incident()};
  const auto in_file_order = nlohmann::ordered_json::parse(results_to_json(written));
  nlohmann::ordered_json rows_first;
  for (const char* key : {"rows", "incidents", "provenance", "schema"}) rows_first[key] = in_file_order.at(key);
  const ResultSet read = parse_results_json(rows_first.dump(), "rows-first");
  EXPECT_EQ(read.rows, written.rows);
  EXPECT_EQ(read.incidents, written.incidents);
  EXPECT_EQ(read.provenance.rank_hosts, written.provenance.rank_hosts);
  // The schema is still checked before the rows, though it comes after them.
  rows_first["schema"] = "fabricbench.results.v9";
  rows_first["rows"][0]["bytes"] = "eight";
  EXPECT_EQ(input_error_message([&] { parse_results_json(rows_first.dump(), "rows-first"); }),
            "rows-first: schema is \"fabricbench.results.v9\", expected \"fabricbench.results.v1\"");
}

}  // namespace
}  // namespace fb
