#include "reports/compare/comparison_table.hpp"
#include "support/result_rows.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "results/fccp_csv.hpp"

#include <array>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace fb {

using diagnosis::compare_results;
namespace {

using testing::collective_row;
using testing::noisy;

TEST(ComparisonTable, RunsSpreadingOver100PercentAreSaidTooNoisyToCompare) {
  const std::vector<ResultRow> a{noisy(collective_row("all_reduce", 1024, 10), 0.9, 4.0),
                                 noisy(collective_row("all_reduce", 2048, 10), 0.01, 0.02)};
  const std::vector<ResultRow> b{noisy(collective_row("all_reduce", 1024, 18), 0.9, 4.0),
                                 noisy(collective_row("all_reduce", 2048, 10.1), 0.01, 0.02)};
  std::ostringstream printed;
  print_comparison(printed, compare_results(a, b), "A", "B");
  EXPECT_THAT(printed.str(), ::testing::HasSubstr("0 of 2 sizes beyond the spread; 1 of them too noisy to compare "
                                                  "(spread >= 100%: a difference of 2x or less hides in the noise)"));
  EXPECT_THAT(printed.str(), ::testing::HasSubstr("# too noisy to compare: 1 sizes"));
}

TEST(ComparisonTable, RowsWithoutRecordedSpreadSayTheSpreadIsNotAvailable) {
  // collective_row has min == max and CV 0, like a time imported from an nccl-tests log.
  const std::vector<ResultRow> a{collective_row("all_reduce", 1024, 10), collective_row("all_reduce", 2048, 10)};
  const std::vector<ResultRow> b{collective_row("all_reduce", 1024, 76), collective_row("all_reduce", 2048, 10.5)};
  const diagnosis::Comparison comparison = compare_results(a, b);
  std::ostringstream printed;
  print_comparison(printed, comparison, "A", "B");
  EXPECT_THAT(printed.str(), ::testing::HasSubstr("spread not available for 2 sizes (a side reports one time per "
                                                  "size): 1 beyond the default noise bound of 10%"));
  EXPECT_THAT(printed.str(), ::testing::Not(::testing::HasSubstr("0 beyond the spread")));
  EXPECT_THAT(comparison_to_csv(comparison), ::testing::HasSubstr("spread not available, beyond default bound"));
  // The significance holds a comma: quoted, so every row has the header's 17 columns.
  const std::string csv = comparison_to_csv(comparison);
  io::CSVReader<17, io::trim_chars<>, io::double_quote_escape<',', '"'>> reader("comparison.csv", csv.data(),
                                                                                csv.data() + csv.size());
  std::array<std::string, 17> cells;
  std::array<std::string, 17> names{"op",
                                    "dtype",
                                    "redop",
                                    "in_place",
                                    "nranks",
                                    "src_rank",
                                    "dst_rank",
                                    "src_host",
                                    "dst_host",
                                    "bytes",
                                    "time_median_us_a",
                                    "time_median_us_b",
                                    "busbw_gbps_a",
                                    "busbw_gbps_b",
                                    "time_ratio_b_over_a",
                                    "spread_fraction",
                                    "significance"};
  std::apply([&](auto&... name) { reader.read_header(io::ignore_no_column, name...); }, names);
  std::vector<std::string> significance;
  while (std::apply([&](auto&... cell) { return reader.read_row(cell...); }, cells)) significance.push_back(cells[16]);
  EXPECT_EQ(significance, (std::vector<std::string>{"spread not available, beyond default bound",
                                                    "spread not available, within default bound"}));
}

TEST(ComparisonTable, CsvHasOneLinePerComparedRow) {
  const std::vector<ResultRow> a{noisy(collective_row("all_reduce", 1024, 10), 0.01, 0.01)};
  const std::vector<ResultRow> b{noisy(collective_row("all_reduce", 1024, 20), 0.01, 0.01)};
  const std::string csv = comparison_to_csv(compare_results(a, b));
  EXPECT_THAT(csv, ::testing::StartsWith("op,dtype,redop,in_place,nranks,"));
  EXPECT_THAT(csv, ::testing::HasSubstr("\nall_reduce,float,sum,false,8,,,,,1024,10,20,"));
  EXPECT_THAT(csv, ::testing::HasSubstr(",2,0.02"));
  EXPECT_THAT(csv, ::testing::EndsWith(",beyond spread\n"));
}

}  // namespace
}  // namespace fb
