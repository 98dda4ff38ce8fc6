#include "common/errors.hpp"
#include "common/registry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace fb {
namespace {

struct Widget {
  static constexpr std::string_view registry_kind = "widget";
  std::string name;
  std::string summary;
  int size = 0;
};

// Entries without a summary (the ops of a backend) list an empty one.
struct Gadget {
  static constexpr std::string_view registry_kind = "gadget";
  std::string_view name;
};

std::vector<std::string> names_of(const Registry<Widget>& registry) {
  std::vector<std::string> names;
  for (const Widget& widget : registry.entries()) names.push_back(widget.name);
  return names;
}

TEST(Registry, IteratesInNameOrderWhateverTheRegistrationOrder) {
  Registry<Widget> registry;
  registry.add({"nccl", "device buffers", 3});
  registry.add({"cuda", "copies", 1});
  registry.add({"mpi", "host buffers", 2});
  EXPECT_THAT(names_of(registry), ::testing::ElementsAre("cuda", "mpi", "nccl"));
  EXPECT_EQ(registry.names(), "cuda, mpi, nccl");
  EXPECT_EQ(registry.find("mpi")->size, 2);
  EXPECT_EQ(registry.at("nccl").size, 3);

  Registry<Widget> reversed;
  for (const char* name : {"mpi", "nccl", "cuda"}) reversed.add({name, "", 0});
  EXPECT_EQ(reversed.names(), registry.names());
}

TEST(Registry, ListsNamesWithSummariesForHelpTexts) {
  Registry<Widget> registry;
  registry.add({"nvidia-smi", "nvidia-smi topo -m matrix", 0});
  registry.add({"cluster-yaml", "declarative cluster spec", 0});
  EXPECT_THAT(registry.listing(), ::testing::ElementsAre(RegistryListing{"cluster-yaml", "declarative cluster spec"},
                                                         RegistryListing{"nvidia-smi", "nvidia-smi topo -m matrix"}));

  Registry<Gadget> gadgets;
  gadgets.add({"bw"});
  gadgets.add({"all_reduce"});
  EXPECT_THAT(gadgets.listing(), ::testing::ElementsAre(RegistryListing{"all_reduce", ""}, RegistryListing{"bw", ""}));
}

TEST(Registry, RefusesASecondEntryOfTheSameName) {
  Registry<Widget> registry;
  registry.add({"mpi", "host buffers", 1});
  try {
    registry.add({"mpi", "another", 2});
    FAIL() << "a duplicate name was accepted";
  } catch (const std::logic_error& error) { EXPECT_STREQ(error.what(), "two widgets named 'mpi' are registered"); }
  ASSERT_EQ(registry.entries().size(), 1U);
  EXPECT_EQ(registry.at("mpi").size, 1);
}

template <class Entry>
std::string usage_error_of(const Registry<Entry>& registry, std::string_view name) {
  try {
    registry.at(name);
  } catch (const UsageError& error) { return error.what(); }
  return "no error";
}

TEST(Registry, UnknownNameIsAUsageErrorListingTheKnownOnes) {
  Registry<Widget> registry;
  registry.add({"mpi", "", 0});
  registry.add({"cuda", "", 0});
  EXPECT_EQ(registry.find("ucx"), nullptr);
  EXPECT_EQ(usage_error_of(registry, "ucx"), "unknown widget 'ucx' (available: cuda, mpi)");
  EXPECT_EQ(usage_error_of(registry, "MPI"), "unknown widget 'MPI' (available: cuda, mpi)");

  const Registry<Gadget> empty;
  EXPECT_EQ(usage_error_of(empty, "bw"), "unknown gadget 'bw' (available: none)");
}

// The program's registry, as plugins fill it from their static initialisers.
struct Plugin {
  static constexpr std::string_view registry_kind = "test plugin";
  std::string name;
  std::string summary;
};

const Registrar<Plugin> second_plugin{{"second", "registered first"}};
const Registrar<Plugin> first_plugin{{"first", "registered second"}};

TEST(Registrar, FillsTheProgramsRegistryBeforeMain) {
  EXPECT_EQ(Registry<Plugin>::instance().names(), "first, second");
  EXPECT_EQ(Registry<Plugin>::instance().at("second").summary, "registered first");
}

TEST(RegistrarDeathTest, ADuplicatePluginEndsTheProgramNamingIt) {
  EXPECT_DEATH(Registrar<Plugin>({"first", "a second plugin of the same name"}),
               "fabricbench: internal error: two test plugins named 'first' are registered");
}

}  // namespace
}  // namespace fb
