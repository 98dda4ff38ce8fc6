// The one whitespace rule every text reader shares, and FILE:LINE input errors.
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace fb {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> tokens;
  for (const std::string_view token : split_whitespace(text)) tokens.emplace_back(token);
  return tokens;
}

TEST(TextScan, LinesDropCarriageReturnsAndKeepAnUnterminatedLastLine) {
  const std::vector<NumberedLine> lines = split_lines("a\r\n\r\nb c\nlast");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_EQ(lines[1].text, "");
  EXPECT_EQ(lines[2].text, "b c");
  EXPECT_EQ(lines[3].number, 4u);
  EXPECT_EQ(lines[3].text, "last");
  EXPECT_TRUE(split_lines("").empty());
}

TEST(TextScan, TabsCarriageReturnsAndNoBreakSpacesSeparateTokens) {
  // A row of an nccl-tests table pasted from a web page: no-break spaces between some columns.
  EXPECT_THAT(tokens_of("  1048576\t262144 \xc2\xa0 float\xc2\xa0sum\r"),
              ElementsAre("1048576", "262144", "float", "sum"));
  EXPECT_THAT(tokens_of("3.5\r4.5"), ElementsAre("3.5", "4.5"));
  EXPECT_TRUE(tokens_of(" \t\xc2\xa0\r").empty());
  // Other UTF-8 text stays inside its token.
  EXPECT_THAT(tokens_of("caf\xc3\xa9 \xc2\xb5s"), ElementsAre("caf\xc3\xa9", "\xc2\xb5s"));
}

TEST(TextScan, TrimUsesTheSameRule) {
  EXPECT_EQ(trim("\xc2\xa0\t NV18 \r\xc2\xa0"), "NV18");
  EXPECT_EQ(trim_start(" \tS-0002c9 "), "S-0002c9 ");
  EXPECT_EQ(trim("\xc2\xa0"), "");
  EXPECT_THAT(split_fields(" GPU0 \t\tX\xc2\xa0", '\t'), ElementsAre("GPU0", "", "X"));
}

TEST(TextScan, NumbersMustFillTheToken) {
  EXPECT_EQ(to_double("12.5"), 12.5);
  EXPECT_EQ(to_double("1e3"), 1000.0);
  EXPECT_FALSE(to_double("12.5GB"));
  EXPECT_FALSE(to_double(""));
  EXPECT_EQ(to_integer("-1"), -1);
  EXPECT_FALSE(to_integer("+1"));
  EXPECT_FALSE(to_integer("1.0"));
  EXPECT_FALSE(to_integer("99999999999999999999"));
}

TEST(TextScan, HexadecimalGuidsAndLids) {
  EXPECT_EQ(to_unsigned_hex("0x000000000010000d"), 0x10000du);
  EXPECT_EQ(to_unsigned_hex("b8cef60300a1b2c1"), 0xb8cef60300a1b2c1u);
  EXPECT_EQ(to_unsigned_hex("0X1f"), 0x1fu);
  EXPECT_FALSE(to_unsigned_hex("0x"));
  EXPECT_FALSE(to_unsigned_hex("12g"));
  EXPECT_FALSE(to_unsigned_hex("-1"));
  EXPECT_FALSE(to_unsigned_hex("0x10000000000000000"));
}

TEST(TextScan, LineNumberOfAnOffset) {
  constexpr std::string_view text = "{\n  \"a\": 1,\n  oops\n}";
  EXPECT_EQ(line_number_at(text, 0), 1u);
  EXPECT_EQ(line_number_at(text, text.find("oops")), 3u);
  EXPECT_EQ(line_number_at(text, 1000), 4u);
}

TEST(InputErrors, NameFileAndLine) {
  EXPECT_STREQ(input_error_at("osu.log", 12, "a measurement row before the banner").what(),
               "osu.log:12: a measurement row before the banner");
  try {
    throw_input_error("topo.txt", 3, "a NUMA node id or N/A", quote_input("x\x1b[2J"));
    FAIL() << "no error thrown";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "topo.txt:3: expected a NUMA node id or N/A, got 'x\\x1b[2J'");
  }
}

}  // namespace
}  // namespace fb
