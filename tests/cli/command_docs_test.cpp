// The man page and completion writers on a command line made for the test: what roff and the
// shells would misread in a help text is escaped.

#include "cli/command_docs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

cli::CommandDoc tricky_program() {
  CLI::App app{"the program", "fabricbench"};
  CLI::App* sub = app.add_subcommand("measure", "a command: with a colon [and brackets]");
  std::string value;
  sub->add_option("--time", value, ".5 us \\ 1 \xC2\xB5s \xC3\x97 2 \xE2\x80\x94 it's op=OP,nodes=N[,gpus=G]");
  sub->add_option("--mode", value, "the mode")->check(CLI::IsMember({"fast", "slow"}));
  return cli::describe_command_line(app);
}

TEST(CommandDocs, ManPageEscapesWhatRoffWouldReadAsMarkup) {
  const std::string page = cli::man_page(tricky_program(), ".TH X 1 \"\" \"@VERSION@\"\n@COMMANDS@\n", "9.9");
  EXPECT_THAT(page, HasSubstr("\"9.9\""));
  // A leading dot would be a request; a backslash an escape; UTF-8 is named by code point (groff
  // reads Latin-1); a long token may break after its commas.
  EXPECT_THAT(page, HasSubstr("\n\\&.5 us \\e 1 \\[u00B5]s \\[u00D7] 2 \\[u2014] it's op=OP,\\:nodes=N[,\\:gpus=G]\n"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-mode\\fR {fast|\\:slow}"));
  EXPECT_THAT(page, HasSubstr(".SS \"measure\"\n"));
}

TEST(CommandDocs, CompletionsQuoteHelpTextsAndOfferFixedValues) {
  const cli::CommandDoc program = tricky_program();
  const std::string zsh = cli::zsh_completion(program);
  // In a _describe entry only the colon is syntax; in an _arguments spec brackets are too.
  EXPECT_THAT(zsh, HasSubstr("'measure:a command\\: with a colon [and brackets]'"));
  EXPECT_THAT(zsh, HasSubstr("'--mode[the mode]:TEXT:(fast slow)'"));
  EXPECT_THAT(zsh, HasSubstr("it'\\''s op=OP,nodes=N\\[,gpus=G\\]]"));
  const std::string bash = cli::bash_completion(program);
  EXPECT_THAT(bash, HasSubstr("'measure\t--mode') echo 'fast slow' ;;"));
  EXPECT_THAT(bash, HasSubstr("'measure\t--time') echo '@files' ;;"));
  EXPECT_THAT(bash, Not(HasSubstr("it's")));  // help texts stay out of the bash script
}

}  // namespace
}  // namespace fb
