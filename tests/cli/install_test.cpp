// `cmake --install` of this build into a fresh prefix, and what it installed held against the
// command line the build registers: the binary runs, the man page renders without a warning and
// documents every command and flag, and bash and zsh (real shells running the installed scripts)
// complete every command, subcommand and flag, and the values of flags with a fixed set.

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"
#include "process_runner.hpp"
#include "support/temp_dir.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::describe;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> lines_set(const std::string& text) {
  std::set<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.insert(line);
  return lines;
}

// Where `name` is found in PATH; empty when it is not.
std::string program_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (std::filesystem::exists(std::filesystem::path(dir) / name)) return (std::filesystem::path(dir) / name).string();
  return {};
}

// Every command level of the registered command line: the program, each command, each subcommand.
void collect(const cli::CommandDoc& command, std::vector<const cli::CommandDoc*>& all) {
  all.push_back(&command);
  for (const cli::CommandDoc& sub : command.subcommands) collect(sub, all);
}

std::string typed_prefix(const cli::CommandDoc& command) {
  std::string typed = "fabricbench ";
  for (const std::string& part : command.path) typed += part + " ";
  return typed;
}

class Installed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    prefix_ = std::make_unique<TempDir>();
    install_ = run_process({CMAKE_COMMAND, "--install", FABRICBENCH_BUILD_DIR, "--prefix", prefix_->path().string()});
    command_line_ = std::make_unique<cli::CommandLine>(cli::make_command_line({}));
    program_ = cli::describe_command_line(*command_line_->app);
    collect(program_, levels_);
  }
  static void TearDownTestSuite() {
    levels_.clear();
    command_line_.reset();
    prefix_.reset();
  }
  void SetUp() override { ASSERT_EQ(install_.exit_code, 0) << describe(install_); }

  static std::filesystem::path installed(const std::string& relative) { return prefix_->path() / relative; }

  // The candidates a shell offers for `typed`, one per element.
  static std::set<std::string> bash_offers(const std::string& typed) {
    const ProcessResult result = run_process(
        {"/bin/bash", BASH_COMPLETE, installed("share/bash-completion/completions/fabricbench").string(), typed});
    EXPECT_EQ(result.exit_code, 0) << typed << "\n" << describe(result);
    return lines_set(result.out);
  }
  static std::set<std::string> zsh_offers(const std::string& zsh, const std::string& typed) {
    const ProcessResult result =
        run_process({zsh, "-f", ZSH_COMPLETE, installed("share/zsh/site-functions").string(), typed}, {},
                    std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << typed << "\n" << describe(result);
    return lines_set(result.out);
  }

  static std::unique_ptr<TempDir> prefix_;
  static ProcessResult install_;
  static std::unique_ptr<cli::CommandLine> command_line_;
  static cli::CommandDoc program_;
  static std::vector<const cli::CommandDoc*> levels_;
};

std::unique_ptr<TempDir> Installed::prefix_;
ProcessResult Installed::install_;
std::unique_ptr<cli::CommandLine> Installed::command_line_;
cli::CommandDoc Installed::program_;
std::vector<const cli::CommandDoc*> Installed::levels_;

TEST_F(Installed, PutsTheBinaryManPageCompletionsPlansExamplesAndSchemasInPlace) {
  for (const char* file :
       {"bin/fabricbench", "share/man/man1/fabricbench.1", "share/bash-completion/completions/fabricbench",
        "share/zsh/site-functions/_fabricbench", "share/fabricbench/plans/cpu-mpi.yaml",
        "share/fabricbench/plans/thresholds/cpu-mpi.yaml", "share/fabricbench/examples/clusters/h100-roce400.yaml",
        "share/fabricbench/examples/thresholds/dgx_h100_8gpu.yaml",
        "share/fabricbench/examples/launch/mpirun-hostfile.sh", "share/fabricbench/schemas/accept.schema.json"})
    EXPECT_TRUE(std::filesystem::is_regular_file(installed(file))) << file;
  // The launcher keeps its execute bit; the installed binary runs from its new place.
  const auto launcher = std::filesystem::status(installed("share/fabricbench/examples/launch/mpirun-hostfile.sh"));
  EXPECT_NE(launcher.permissions() & std::filesystem::perms::owner_exec, std::filesystem::perms::none);
  const ProcessResult version = run_process({installed("bin/fabricbench").string(), "--version"});
  EXPECT_EQ(version.exit_code, 0) << describe(version);
  EXPECT_EQ(version.out, std::string(FABRICBENCH_VERSION) + "\n");
}

TEST_F(Installed, ManPageRendersWithoutAWarningAtEveryWidth) {
  const std::string man = program_in_path("man");
  if (man.empty()) GTEST_SKIP() << "man (man-db) is not installed";
  for (const char* width : {"60", "80", "120"}) {
    const ProcessResult rendered = run_process({man, "--warnings", "-l", installed("share/man/man1/fabricbench.1")},
                                               {std::string("MANWIDTH=") + width});
    EXPECT_EQ(rendered.exit_code, 0) << describe(rendered);
    EXPECT_EQ(rendered.err, "") << "at " << width << " columns";
    EXPECT_NE(rendered.out.find("EXIT STATUS"), std::string::npos) << "at " << width << " columns";
  }
}

TEST_F(Installed, ManPageDocumentsEveryRegisteredCommandAndFlag) {
  const std::string page = read_text(installed("share/man/man1/fabricbench.1"));
  ASSERT_FALSE(page.empty());
  EXPECT_THAT(page, Not(HasSubstr("@COMMANDS@")));
  EXPECT_THAT(page, HasSubstr(fmt::format("\"fabricbench {}\"", FABRICBENCH_VERSION)));
  for (const cli::CommandDoc* level : levels_) {
    const std::string title = level->path.empty() ? "fabricbench" : fmt::format("{}", fmt::join(level->path, " "));
    const std::size_t section = page.find(fmt::format(".SS \"{}\"\n", title));
    ASSERT_NE(section, std::string::npos) << title;
    const std::size_t next = page.find(".SS ", section + 1);
    const std::string text = page.substr(section, next == std::string::npos ? std::string::npos : next - section);
    for (const cli::FlagDoc& flag : level->flags)
      for (const std::string& name : flag.names) {
        std::string roff;
        for (char c : name) roff += c == '-' ? std::string("\\-") : std::string(1, c);
        EXPECT_THAT(text, HasSubstr("\\fB" + roff + "\\fR")) << title << " " << name;
      }
  }
}

// Every command level: the subcommands after a blank, every flag after a '-'.
void expect_completes_every_level(const std::vector<const cli::CommandDoc*>& levels,
                                  const std::function<std::set<std::string>(const std::string&)>& offers) {
  for (const cli::CommandDoc* level : levels) {
    const std::string typed = typed_prefix(*level);
    std::set<std::string> flags;
    for (const cli::FlagDoc& flag : level->flags) flags.insert(flag.names.begin(), flag.names.end());
    EXPECT_EQ(offers(typed + "-"), flags) << typed;
    if (level->subcommands.empty()) continue;
    std::set<std::string> subcommands;
    for (const cli::CommandDoc& sub : level->subcommands) subcommands.insert(sub.path.back());
    EXPECT_EQ(offers(typed), subcommands) << typed;
  }
}

TEST_F(Installed, BashCompletesEveryCommandSubcommandAndFlag) {
  // The registry's own list, so that a command registered without completion fails here.
  std::set<std::string> registered;
  for (const auto& command : cli::CommandRegistry::instance().entries()) registered.insert(command.name);
  ASSERT_GE(registered.size(), 10u);
  EXPECT_EQ(bash_offers("fabricbench "), registered);
  EXPECT_EQ(bash_offers("fabricbench re"), (std::set<std::string>{"report"}));
  expect_completes_every_level(levels_, bash_offers);
  // A flag's fixed set of values, the flag taking a value skipped over, and files elsewhere.
  EXPECT_EQ(bash_offers("fabricbench run --host-pages "), (std::set<std::string>{"huge", "base"}));
  // "ingest" is --store's value here, not the history subcommand: history's own flags follow.
  EXPECT_EQ(bash_offers("fabricbench history --store ingest -"), bash_offers("fabricbench history -"));
  EXPECT_NE(bash_offers("fabricbench history --store ingest -"), bash_offers("fabricbench history ingest -"));
}

TEST_F(Installed, ZshCompletesEveryCommandSubcommandAndFlag) {
  const std::string zsh = program_in_path("zsh");
  if (zsh.empty()) GTEST_SKIP() << "zsh is not installed (scripts/setup.sh installs it)";
  const auto offers = [&](const std::string& typed) { return zsh_offers(zsh, typed); };
  std::set<std::string> registered;
  for (const auto& command : cli::CommandRegistry::instance().entries()) registered.insert(command.name);
  EXPECT_EQ(offers("fabricbench "), registered);
  expect_completes_every_level(levels_, offers);
  EXPECT_EQ(offers("fabricbench run --host-pages "), (std::set<std::string>{"huge", "base"}));
}

}  // namespace
}  // namespace fb
