#include "common/errors.hpp"
#include "common/sizes.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fb {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseSizeBytes, ReadsPlainNumbersAndBinarySuffixes) {
  EXPECT_EQ(parse_size_bytes("8"), 8u);
  EXPECT_EQ(parse_size_bytes("64K"), 64u << 10);
  EXPECT_EQ(parse_size_bytes("32M"), 32u << 20);
  EXPECT_EQ(parse_size_bytes("1G"), 1ull << 30);
}

// nccl-tests' letters stay binary; the unit names say which: MiB binary, MB decimal.
TEST(ParseSizeBytes, DecimalAndBinaryUnitsAreWhatTheySay) {
  EXPECT_EQ(parse_size_bytes("1m"), 1u << 20);
  EXPECT_EQ(parse_size_bytes("32MiB"), 32u << 20);
  EXPECT_EQ(parse_size_bytes("32MB"), 32000000u);
  EXPECT_EQ(parse_size_bytes("1GB"), 1000000000u);
  EXPECT_EQ(parse_size_bytes("1GiB"), 1ull << 30);
  EXPECT_EQ(parse_size_bytes("2KB"), 2000u);
  EXPECT_EQ(parse_size_bytes("1TB"), 1000000000000ull);
  EXPECT_EQ(parse_size_bytes("64B"), 64u);
}

// "-e 1.5M" was "unknown unit '.5M'".
TEST(ParseSizeBytes, FractionsThatMakeWholeBytes) {
  EXPECT_EQ(parse_size_bytes("1.5M"), 3u << 19);
  EXPECT_EQ(parse_size_bytes("0.5K"), 512u);
  EXPECT_EQ(parse_size_bytes("2.25GB"), 2250000000u);
  EXPECT_EQ(parse_size_bytes("8.0"), 8u);
  try {
    parse_size_bytes("1.3");
    FAIL() << "1.3 bytes parsed";
  } catch (const UsageError& e) { EXPECT_EQ(std::string(e.what()), "size '1.3' is not a whole number of bytes"); }
  EXPECT_THROW(parse_size_bytes("1.0000001K"), UsageError);
  EXPECT_THROW(parse_size_bytes("1.5X"), UsageError);
}

// "-e 3" alone said "-b 8 is larger than -e 3" though -b was never typed.
TEST(ExpandSweep, AMaximumBelowTheDefaultMinimumNamesTheDefault) {
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 3;
  spec.min_given = false;
  try {
    validate_sweep(spec);
    FAIL() << "-e 3 accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "-e 3 is smaller than the sweep's first size 8 (the default -b)");
  }
}

TEST(ParseSizeBytes, ZeroParsesAndIsRejectedByTheSweep) {
  // "0" is a number; it is the sweep that refuses an empty message.
  EXPECT_EQ(parse_size_bytes("0"), 0u);
  SweepSpec spec;
  spec.min_bytes = 0;
  EXPECT_THROW(validate_sweep(spec), UsageError);
}

TEST(ParseSizeBytes, RejectsNegativeUnknownUnitEmptyAndOverflow) {
  EXPECT_THROW(parse_size_bytes("-5"), UsageError);
  EXPECT_THROW(parse_size_bytes(""), UsageError);
  EXPECT_THROW(parse_size_bytes("M"), UsageError);
  try {
    parse_size_bytes("12X");
    FAIL() << "12X parsed";
  } catch (const UsageError& e) { EXPECT_THAT(e.what(), HasSubstr("'X'")); }
  // 2^64 bytes does not fit, neither as digits nor through a suffix.
  EXPECT_THROW(parse_size_bytes("18446744073709551616"), UsageError);
  EXPECT_THROW(parse_size_bytes("16777216T"), UsageError);
  EXPECT_EQ(parse_size_bytes("16777215T"), 16777215ull << 40);
}

TEST(ExpandSweep, GeometricDoublesByDefault) {
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 64;
  EXPECT_THAT(expand_sweep(spec, 4, "float"), ElementsAre(8u, 16u, 32u, 64u));
}

TEST(ExpandSweep, GeometricFactorStopsAtOrBelowTheMaximum) {
  SweepSpec spec;
  spec.min_bytes = 1;
  spec.max_bytes = 100;
  spec.step_factor = 4;
  EXPECT_THAT(expand_sweep(spec, 1, "int8"), ElementsAre(1u, 4u, 16u, 64u));
}

TEST(ExpandSweep, LinearIncrement) {
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 40;
  spec.step_bytes = 16;
  EXPECT_THAT(expand_sweep(spec, 8, "double"), ElementsAre(8u, 24u, 40u));
}

TEST(ExpandSweep, SingleSizeWhenMinEqualsMax) {
  SweepSpec spec;
  spec.min_bytes = spec.max_bytes = 1 << 20;
  EXPECT_THAT(expand_sweep(spec, 4, "float"), ElementsAre(1u << 20));
}

TEST(ExpandSweep, MinLargerThanMaxIsAnError) {
  SweepSpec spec;
  spec.min_bytes = 1 << 20;
  spec.max_bytes = 1 << 10;
  try {
    expand_sweep(spec, 1, "int8");
    FAIL() << "-b > -e accepted";
  } catch (const UsageError& e) { EXPECT_THAT(e.what(), HasSubstr("-b 1M is larger than -e 1K")); }
}

TEST(ExpandSweep, MinNotAMultipleOfTheUnitNamesTheFlagAndTheUnit) {
  SweepSpec spec;
  spec.min_bytes = 6;
  spec.max_bytes = 64;
  try {
    expand_sweep(spec, 8, "int32 x 2 ranks");
    FAIL() << "-b 6 accepted with an 8-byte unit";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("-b 6 is not a multiple of 8 bytes (int32 x 2 ranks)"));
  }
}

TEST(ExpandSweep, IncrementNotAMultipleOfTheUnitNamesTheIncrementFlag) {
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 64;
  spec.step_bytes = 6;
  try {
    expand_sweep(spec, 4, "float");
    FAIL() << "-i 6 accepted with a 4-byte unit";
  } catch (const UsageError& e) { EXPECT_THAT(e.what(), HasSubstr("-i 6")); }
}

TEST(ValidateSweep, FactorBelowTwoNeverReachesTheMaximum) {
  SweepSpec spec;
  spec.min_bytes = 8;
  spec.max_bytes = 64;
  spec.step_factor = 1;
  EXPECT_THROW(validate_sweep(spec), UsageError);
}

TEST(SweepSizeCount, CountsEverySweepWithoutBuildingIt) {
  const auto spec = [](std::uint64_t min, std::uint64_t max, std::uint64_t factor, std::optional<std::uint64_t> step) {
    SweepSpec s;
    s.min_bytes = min;
    s.max_bytes = max;
    s.step_factor = factor;
    s.step_bytes = step;
    return s;
  };
  for (const SweepSpec& s : {spec(8, 32ull << 20, 2, {}), spec(1, 1000, 3, {}), spec(4, 4096, 2, 4),
                             spec(8, 1ull << 20, 2, 1000), spec(16, 16, 2, {}), spec(1, UINT64_MAX, 2, {})})
    EXPECT_EQ(sweep_size_count(s), expand_sweep(s, 1, "bytes").size()) << s.min_bytes << ".." << s.max_bytes;
  // -b 4 -e 4G -i 4: a billion sizes, counted in no time and no memory.
  EXPECT_EQ(sweep_size_count(spec(4, 4ull << 30, 2, 4)), 1ull << 30);
}

}  // namespace
}  // namespace fb
