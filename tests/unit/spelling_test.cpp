#include "common/spelling.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fb {
namespace {

TEST(Spelling, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("report", "report"), 0u);
  EXPECT_EQ(edit_distance("reprot", "report"), 1u);  // two neighbours swapped
  EXPECT_EQ(edit_distance("--csvv", "--csv"), 1u);
  EXPECT_EQ(edit_distance("dot", "diff"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Spelling, TheClosestNameWhenItIsASlip) {
  const std::vector<std::string> commands{"run",    "import",  "topo", "diagnose", "report",
                                          "accept", "compare", "fit",  "doctor"};
  EXPECT_EQ(closest_spelling("reprot", commands), "report");
  EXPECT_EQ(closest_spelling("diagnoze", commands), "diagnose");
  EXPECT_EQ(closest_spelling("comapre", commands), "compare");
  EXPECT_EQ(closest_spelling("benchmark", commands), std::nullopt);
  EXPECT_EQ(did_you_mean("acept", commands), "; did you mean 'accept'?");
  EXPECT_EQ(did_you_mean("xyz", commands), "");
}

}  // namespace
}  // namespace fb
