// The corpus transforms itself: every file of tests/corpus (logs and topology inputs) wrapped the
// ways real output gets wrapped (Open MPI's --tag-output, srun -l, kubectl timestamps, e-mail
// quoting, terminal colours, CRLF, an indentation, a shell prompt after the output), alone and
// combined, must read exactly as the file itself: the same rows, numbers and provenance (plus one
// note saying what was peeled), the same graph, or the same error at the same line.

#include "common/errors.hpp"
#include "common/text_file.hpp"
#include "common/text_framing.hpp"
#include "importers/importer_registry.hpp"
#include "results/results_io.hpp"
#include "topology/dot_export.hpp"
#include "topology/format_registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace fb {
namespace {

// --- the framings, each applied to every line ---

template <typename Wrap>
std::string each_line(const std::string& text, Wrap wrap) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out += wrap(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

bool has_content(const std::string& line) { return line.find_first_not_of(" \t") != std::string::npos; }

std::string tag_output(const std::string& text) {
  return each_line(text, [](const std::string& line) { return "[1,0]<stdout>:" + line; });
}
std::string srun_label(const std::string& text) {
  return each_line(text, [](const std::string& line) { return "0: " + line; });
}
std::string kubectl_timestamps(const std::string& text) {
  return each_line(text, [](const std::string& line) { return "2025-11-29T06:45:12.123456789Z " + line; });
}
std::string email_quoting(const std::string& text) {
  return each_line(text, [](const std::string& line) { return line.empty() ? std::string(">") : "> " + line; });
}
std::string ansi_colours(const std::string& text) {
  return each_line(text, [](const std::string& line) {
    return line.empty() ? line : "\x1b[0;32m" + line.substr(0, 1) + "\x1b[0m" + line.substr(1) + "\x1b[0m";
  });
}
std::string crlf(const std::string& text) {
  return each_line(text, [](const std::string& line) { return line + "\r"; });
}
std::string indentation(const std::string& text) {
  return each_line(text, [](const std::string& line) { return has_content(line) ? "    " + line : line; });
}
// The prompt the shell printed after the output: on a line of its own, or glued to a last line
// that had no newline.
std::string prompt_after(const std::string& text) { return text + "user@gpu-node-017:~/logs$ "; }

struct Framing {
  const char* name;
  std::vector<std::string (*)(const std::string&)> layers;  // innermost first
};

const std::vector<Framing>& framings() {
  static const std::vector<Framing> all{
      {"tag_output", {tag_output}},
      {"srun_label", {srun_label}},
      {"kubectl_timestamps", {kubectl_timestamps}},
      {"email_quoting", {email_quoting}},
      {"ansi_colours", {ansi_colours}},
      {"crlf", {crlf}},
      {"indentation", {indentation}},
      {"prompt_after", {prompt_after}},
      {"tag_output_then_indentation", {tag_output, indentation}},
      {"indentation_then_tag_output", {indentation, tag_output}},
      {"srun_kubectl_quoted_twice", {srun_label, kubectl_timestamps, email_quoting, email_quoting}},
      {"all_of_them",
       {tag_output, srun_label, kubectl_timestamps, indentation, email_quoting, ansi_colours, crlf, prompt_after}},
  };
  return all;
}

void PrintTo(const Framing& framing, std::ostream* out) { *out << framing.name; }

std::string framed(const Framing& framing, std::string text) {
  for (const auto layer : framing.layers) text = layer(text);
  return text;
}

// --- what a file reads as ---

std::vector<std::string> without_framing_note(std::vector<std::string> notes, std::size_t& removed) {
  const auto is_note = [](const std::string& note) { return note.find(framing_note_prefix) != std::string::npos; };
  removed = static_cast<std::size_t>(std::count_if(notes.begin(), notes.end(), is_note));
  notes.erase(std::remove_if(notes.begin(), notes.end(), is_note), notes.end());
  return notes;
}

struct LogOutcome {
  std::vector<ResultSet> runs;
  std::string error;
};

LogOutcome import_outcome(const std::string& text, const std::filesystem::path& origin) {
  // OSU collective logs do not say how many processes ran; the corpus notes name 200 for this one.
  const ImportOptions options{.nranks =
                                  origin.filename().string().starts_with("osu6.2") ? std::optional(200) : std::nullopt};
  LogOutcome outcome;
  try {
    outcome.runs = import_log_text(text, origin, options);
  } catch (const InputError& error) { outcome.error = error.what(); }
  return outcome;
}

struct TopologyOutcome {
  std::string dot;
  std::vector<std::string> assumptions;
  std::size_t undecided_links = 0;
  std::string error;
};

TopologyOutcome topology_outcome(const std::string& text, const std::string& path) {
  TopologyOutcome outcome;
  try {
    const topo::Graph graph = topo::parse_topology(topo::SourceText{path, text});
    std::ostringstream dot;
    topo::write_dot(dot, graph, {});
    outcome.dot = dot.str();
    outcome.assumptions.assign(graph.assumptions().begin(), graph.assumptions().end());
    outcome.undecided_links = graph.undecided_link_count();
  } catch (const InputError& error) { outcome.error = error.what(); }
  return outcome;
}

void expect_same_log(const LogOutcome& want, const LogOutcome& got) {
  EXPECT_EQ(got.error, want.error);
  ASSERT_EQ(got.runs.size(), want.runs.size());
  for (std::size_t r = 0; r < want.runs.size(); ++r) {
    // A corpus file may carry framing itself (the --tag-output log): its own note names less.
    ResultSet original = want.runs[r];
    ResultSet unwrapped = got.runs[r];
    std::size_t notes = 0;
    std::size_t original_notes = 0;
    original.provenance.assumptions = without_framing_note(original.provenance.assumptions, original_notes);
    unwrapped.provenance.assumptions = without_framing_note(unwrapped.provenance.assumptions, notes);
    EXPECT_EQ(notes, 1u) << "run " << r << ": what was peeled is said once";
    // The results file each would write: every row, number and provenance field, printable.
    EXPECT_EQ(results_to_json(unwrapped), results_to_json(original)) << "run " << r;
  }
}

void expect_same_topology(const TopologyOutcome& want, const TopologyOutcome& got) {
  EXPECT_EQ(got.error, want.error);
  EXPECT_EQ(got.dot, want.dot);
  EXPECT_EQ(got.undecided_links, want.undecided_links);
  std::size_t notes = 0;
  std::size_t original_notes = 0;
  EXPECT_EQ(without_framing_note(got.assumptions, notes), without_framing_note(want.assumptions, original_notes));
  if (want.error.empty()) { EXPECT_EQ(notes, 1u) << "what was peeled is said once"; }
}

struct CorpusFile {
  std::filesystem::path path;
  bool log;  // tests/corpus/logs; else a topology input
};

std::vector<CorpusFile> corpus_files() {
  std::vector<CorpusFile> files;
  const std::filesystem::path root(FB_CORPUS_DIR);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    // The notes and the generator script are about the corpus, not in it.
    if (!entry.is_regular_file() || name == "SOURCES.md" || entry.path().extension() == ".py") continue;
    const bool log = std::filesystem::relative(entry.path(), root).begin()->string() == "logs";
    files.push_back({entry.path(), log});
  }
  std::sort(files.begin(), files.end(), [](const CorpusFile& a, const CorpusFile& b) { return a.path < b.path; });
  return files;
}

class FramedCorpus : public ::testing::TestWithParam<Framing> {};

TEST_P(FramedCorpus, EveryFileReadsAsItselfOrFailsAtTheSameLine) {
  const std::vector<CorpusFile> files = corpus_files();
  ASSERT_GE(files.size(), 50u) << "the corpus was not found";
  for (const CorpusFile& file : files) {
    SCOPED_TRACE(file.path.string());
    const std::string text = read_text_file(file.path);
    const std::string wrapped = framed(GetParam(), text);
    if (file.log) {
      expect_same_log(import_outcome(text, file.path), import_outcome(wrapped, file.path));
    } else {
      expect_same_topology(topology_outcome(text, file.path.string()), topology_outcome(wrapped, file.path.string()));
    }
  }
}

// A malformed row in a wrapped log is refused at the file's own line, with the same message.
TEST_P(FramedCorpus, AnErrorNamesTheLineOfTheWrappedFile) {
  const std::filesystem::path path =
      std::filesystem::path(FB_CORPUS_DIR) / "logs" / "all_reduce_perf_rccltests_2x7900xtx_nThreads_header.log";
  std::string text = read_text_file(path);
  const std::size_t busbw = text.find("20.84   20.84");  // line 14, the 128 MiB row
  ASSERT_NE(busbw, std::string::npos);
  text.replace(busbw, 5, "20.8x");
  const LogOutcome want = import_outcome(text, path);
  ASSERT_EQ(want.error.substr(want.error.rfind(".log:") + 5, 3), "14:") << want.error;
  EXPECT_EQ(import_outcome(framed(GetParam(), text), path).error, want.error);
}

INSTANTIATE_TEST_SUITE_P(Framings, FramedCorpus, ::testing::ValuesIn(framings()),
                         [](const ::testing::TestParamInfo<Framing>& framing) { return framing.param.name; });

}  // namespace
}  // namespace fb
