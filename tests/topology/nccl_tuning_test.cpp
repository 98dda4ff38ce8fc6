#include "topology/nccl_tuning.hpp"

#include "topology/row_expectation.hpp"

#include <gtest/gtest.h>

namespace fb::topo {
namespace {

TEST(NcclVersion, ReadsReleasesPackagesBuildTagsAndVersionCodes) {
  EXPECT_EQ(parse_nccl_version("2.21"), (NcclVersion{2, 21, 0}));
  EXPECT_EQ(parse_nccl_version("2.21.5"), (NcclVersion{2, 21, 5}));
  EXPECT_EQ(parse_nccl_version("2.18.5-1"), (NcclVersion{2, 18, 5}));
  EXPECT_EQ(parse_nccl_version("2.21.5+cuda12.3"), (NcclVersion{2, 21, 5}));
  EXPECT_EQ(parse_nccl_version("22809"), (NcclVersion{2, 28, 9}));  // nccl-tests: nccl-library=22809
  EXPECT_EQ(parse_nccl_version("2803"), (NcclVersion{2, 8, 3}));    // codes before 2.9
  EXPECT_FALSE(parse_nccl_version(""));
  EXPECT_FALSE(parse_nccl_version("2.x"));
  EXPECT_FALSE(parse_nccl_version("v2.21"));
  EXPECT_FALSE(parse_nccl_version("2.21 beta"));
  EXPECT_FALSE(parse_nccl_version("42"));
  EXPECT_EQ(to_string(NcclVersion{2, 21, 5}), "2.21.5");
}

TEST(NcclVersion, EachReleaseGetsTheFiguresOfItsRange) {
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 18, 5}).tuning->range, "2.18");
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 19, 4}).tuning->range, "2.19");
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 20, 3}).tuning->range, "2.20");
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 21, 5}).tuning->range, "2.21-2.22");
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 28, 7}).tuning->range, "2.28.0-2.28.8");
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 28, 9}).tuning->range, "2.28.9");
  EXPECT_EQ(nccl_tuning_for(NcclVersion{2, 30, 7}).tuning->range, "2.29-2.30");
  EXPECT_TRUE(nccl_tuning_for(NcclVersion{2, 21, 5}).assumption.empty());
  // What changed, as NCCL's tables say: NVLS-tree's network hop and NVLink hop, LL's ring share.
  EXPECT_DOUBLE_EQ(nccl_tuning_for(NcclVersion{2, 21, 5}).tuning->network_hop_us[3][2], 14.0);
  EXPECT_DOUBLE_EQ(nccl_tuning_for(NcclVersion{2, 28, 9}).tuning->network_hop_us[3][2], 20.9);
  EXPECT_DOUBLE_EQ(nccl_tuning_for(NcclVersion{2, 20, 3}).tuning->nvlink_hop_us[3][2], 23.0);
  EXPECT_DOUBLE_EQ(nccl_tuning_for(NcclVersion{2, 20, 3}).tuning->ring_ll_share, 0.25);
  EXPECT_DOUBLE_EQ(nccl_tuning_for(NcclVersion{2, 21, 5}).tuning->ring_ll_share, 0.5);
  // 2.18 ran all_gather and reduce_scatter on rings only; 2.17 and 2.19 on offered NVLS too.
  EXPECT_TRUE(nccl_tuning_for(NcclVersion{2, 17, 1}).tuning->has_nvls_gathers);
  EXPECT_FALSE(nccl_tuning_for(NcclVersion{2, 18, 5}).tuning->has_nvls_gathers);
  EXPECT_TRUE(nccl_tuning_for(NcclVersion{2, 19, 4}).tuning->has_nvls_gathers);
  EXPECT_FALSE(nccl_tuning_for(NcclVersion{2, 16, 5}).tuning->has_nvls);
}

TEST(NcclVersion, AnUnknownOrOutOfTableReleaseIsAnAssumption) {
  const NcclTuningChoice none = nccl_tuning_for(std::nullopt);
  EXPECT_EQ(none.tuning, &newest_nccl_tuning());
  EXPECT_EQ(none.assumption, "NCCL version not given: NCCL 2.29-2.30's tuning figures (the newest the model has)");
  const NcclTuningChoice old = nccl_tuning_for(NcclVersion{2, 7, 8});
  EXPECT_EQ(old.tuning, &nccl_tunings().front());
  EXPECT_EQ(old.assumption, "NCCL 2.7.8 is older than the model's tuning tables: NCCL 2.8-2.11's figures");
  const NcclTuningChoice future = nccl_tuning_for(NcclVersion{2, 31, 1});
  EXPECT_EQ(future.tuning, &newest_nccl_tuning());
  EXPECT_EQ(future.assumption, "NCCL 2.31.1 is newer than the model's tuning tables: NCCL 2.29-2.30's figures");
  EXPECT_TRUE(nccl_tuning_for(NcclVersion{2, 30, 9}).assumption.empty());
}

TEST(NcclVersion, ARunsLibrariesNameItsNccl) {
  EXPECT_EQ(nccl_version_recorded({{"nccl", "2.21.5"}, {"mpi", "Open MPI 4.1"}}), (NcclVersion{2, 21, 5}));
  EXPECT_EQ(nccl_version_recorded({{"nccl-tests", "2.17.6"}, {"nccl-library", "22809"}}), (NcclVersion{2, 28, 9}));
  EXPECT_EQ(nccl_version_recorded({{"nccl", "22105"}}), (NcclVersion{2, 21, 5}));  // nccl-tests' JSON
  EXPECT_FALSE(nccl_version_recorded({{"nccl-tests", "2.17.6"}}));
}

}  // namespace
}  // namespace fb::topo
