// The framing layer in front of every reader: each wrapping peeled alone and combined, lines kept
// where they were, and one note naming what was peeled.

#include "common/text_framing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fb {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view table = "# nThread 1 nGpus 1\n"
                                   "#  Rank  0 Group  0 Pid 1 on node01 device  0 [0x01] H100\n"
                                   "\n"
                                   "       8             2     float     sum      -1    10.10    0.00    0.00      0\n";

TEST(TextFraming, NothingToPeelIsTheTextItselfWithoutANote) {
  const FramedText framed = peel_framing(table);
  EXPECT_FALSE(framed.changed());
  EXPECT_EQ(framed.text(), table);
  EXPECT_EQ(framed.text().data(), table.data());  // not copied
  EXPECT_TRUE(framed.note().empty());
}

TEST(TextFraming, OpenMpiTagsAndAnIndentInEitherOrderAreBothPeeled) {
  const std::string inner_tag = "    [1,0]<stdout>:# nThread 1 nGpus 1\n"
                                "    [1,0]<stdout>:\n"
                                "    [1,1]<stderr>:       8  2  float\n";
  const std::string outer_tag = "[1,0]<stdout>:    # nThread 1 nGpus 1\n"
                                "[1,0]<stdout>:\n"
                                "[1,1]<stderr>:           8  2  float\n";
  for (const std::string& text : {inner_tag, outer_tag}) {
    const FramedText framed = peel_framing(text);
    EXPECT_EQ(framed.text(), "# nThread 1 nGpus 1\n\n       8  2  float\n") << text;
    EXPECT_THAT(framed.note(), HasSubstr("Open MPI --tag-output prefixes ('[1,0]<stdout>:', 3 lines)"));
    EXPECT_THAT(framed.note(), HasSubstr("an indentation of '    ' on every line"));
    EXPECT_TRUE(framed.note().starts_with(framing_note_prefix));
  }
}

TEST(TextFraming, OpenMpiTimestampOutputWithAndWithoutTags) {
  EXPECT_EQ(peel_framing("Sat Nov 29 06:45:12 2025[1,0]<stdout>:# nThread 1\nSat Nov 29 06:45:13 2025[1,1]<stderr>:x\n")
                .text(),
            "# nThread 1\nx\n");
  EXPECT_EQ(peel_framing("Sat Nov 29 06:45:12 2025<stdout>:# nThread 1\n").text(), "# nThread 1\n");
  EXPECT_EQ(peel_framing("[prterun-node01-4242@1,3]<stdout>:# nThread 1\n").text(), "# nThread 1\n");
}

TEST(TextFraming, SrunLabelsArePeeledOnlyWhenMostLinesCarryThem) {
  const FramedText labelled = peel_framing(" 0: # nThread 1\n 0: \n 1: Rank 1\n12: row\n");
  EXPECT_EQ(labelled.text(), "# nThread 1\n\nRank 1\nrow\n");
  EXPECT_THAT(labelled.note(), HasSubstr("srun -l task labels"));
  // One line that happens to start with a number and a colon is content.
  const std::string content = "# header\n0: one line\nsecond line\nthird line\n";
  EXPECT_FALSE(peel_framing(content).changed());
}

TEST(TextFraming, TimestampsOfKubectlJournaldAndLoggingWrappers) {
  EXPECT_EQ(peel_framing("2025-03-01T12:00:01.123456789Z # nThread 1\n2025-03-01T12:00:02.2Z row\n").text(),
            "# nThread 1\nrow\n");
  EXPECT_EQ(
      peel_framing("Mar  1 12:00:01 node01 slurmstepd[4242]: # nThread 1\nMar  1 12:00:01 node01 bash: row\n").text(),
      "# nThread 1\nrow\n");
  EXPECT_EQ(peel_framing("[2025-03-01 12:00:01,250] # nThread 1\n[2025-03-01 12:00:01,251] row\n").text(),
            "# nThread 1\nrow\n");
  EXPECT_EQ(
      peel_framing("2025-03-01T12:00:01+0000 node01 job[77]: a\n2025-03-01T12:00:01+0000 node01 job[77]: b\n").text(),
      "a\nb\n");
}

TEST(TextFraming, NestedEmailQuotingIsPeeledLevelByLevel) {
  const FramedText framed = peel_framing("> > # nThread 1\n> >\n> >   8 2 float\n");
  EXPECT_EQ(framed.text(), "# nThread 1\n\n  8 2 float\n");
  EXPECT_THAT(framed.note(), HasSubstr("e-mail quoting ('> ', 3 lines, 2 levels)"));
}

TEST(TextFraming, AnsiEscapesAndCrlfLineEnds) {
  const FramedText framed = peel_framing("\x1b[1m\tGPU0\x1b[0m\tGPU1\r\n\x1b]0;root@node01: ~\x07GPU0\t X \r\n");
  EXPECT_EQ(framed.text(), "\tGPU0\tGPU1\nGPU0\t X \n");
  EXPECT_THAT(framed.note(), HasSubstr("ANSI escape sequences"));
  EXPECT_THAT(framed.note(), HasSubstr("CRLF line ends"));
}

TEST(TextFraming, ShellPromptsBeforeACommandAndGluedAfterTheOutput) {
  const FramedText framed = peel_framing("[root@node01 ~]# ib_write_bw -d mlx5_0 10.0.0.2\n"
                                         " 65536      5000   11536.26   11535.87   0.184574\n"
                                         "-----------------------------------------------user@node01:~/perftest$ \n"
                                         "(base) user@node01:~$\n");
  EXPECT_EQ(framed.text(), "ib_write_bw -d mlx5_0 10.0.0.2\n"
                           " 65536      5000   11536.26   11535.87   0.184574\n"
                           "-----------------------------------------------\n"
                           "\n");
  EXPECT_THAT(framed.note(), HasSubstr("shell prompts ('[root@node01 ~]# ', 2 lines)"));
  EXPECT_THAT(framed.note(), HasSubstr("a shell prompt at the end of 1 line (first: line 3)"));
  // An address is not a prompt.
  EXPECT_FALSE(peel_framing("mail user@example.com about it\nNIC0: mlx5_0\n").changed());
}

// A topo -m matrix pasted into an issue between code fences: the closing fence right under the
// last row is not a row.
TEST(TextFraming, MarkdownCodeFencesBecomeEmptyLines) {
  const FramedText framed = peel_framing("```text\n\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X \n```\n");
  EXPECT_EQ(framed.text(), "\n\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X \n\n");
  EXPECT_THAT(framed.note(), HasSubstr("Markdown code fences ('```text', 2 lines)"));
  EXPECT_FALSE(peel_framing("``` not a fence but a sentence\n").changed());
}

TEST(TextFraming, LinesKeepTheirNumbersAndALastLineWithoutANewlineStaysSo) {
  const FramedText framed = peel_framing("0: a\n0: \n0: b\n0: c");
  ASSERT_EQ(framed.lines().size(), 4u);
  EXPECT_EQ(framed.lines()[3].number, 4u);
  EXPECT_EQ(framed.lines()[3].text, "c");
  EXPECT_EQ(framed.text(), "a\n\nb\nc");  // a cut last line stays cut
}

}  // namespace
}  // namespace fb
