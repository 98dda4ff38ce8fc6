// The drain list file: one host per line with its reasons, in a form the shell loops of
// docs/fleet-health.md hand to scontrol and kubectl, run here through the real bash.

#include "diagnosis/drain_list.hpp"
#include "support/temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

namespace fb {

using diagnosis::DrainList;
namespace {

using ::testing::ElementsAre;
using ::testing::MatchesRegex;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

TEST(DrainList, OneLinePerHostInFirstSeenOrderWithItsReasonsJoined) {
  DrainList drain("doctor");
  drain.add("node7", "port mlx5_3/1: port is DOWN");
  drain.add("node2", "NIC mlx5_0: PCIe link trained at x8");
  drain.add("node7", "GPU 0000:1b:00.0: PCIe x8");
  const std::vector<std::string> lines = lines_of(drain.text());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0],
              MatchesRegex("# fabricbench drain list \\(doctor, 20[0-9-]+T[0-9:]+Z\\): HOST<TAB>REASON per line"));
  EXPECT_EQ(lines[1], "node7\tfabricbench doctor: port mlx5_3/1: port is DOWN; GPU 0000:1b:00.0: PCIe x8");
  EXPECT_EQ(lines[2], "node2\tfabricbench doctor: NIC mlx5_0: PCIe link trained at x8");
  EXPECT_THAT(drain.hosts(), ElementsAre("node7", "node2"));
}

TEST(DrainList, ReasonsStayOnOneLineAndOutOfTheShellsWay) {
  DrainList drain("diagnose");
  drain.add("h1", "a \"quoted\"\tword\nsecond line $HOME `id` back\\slash");
  EXPECT_EQ(lines_of(drain.text())[1], "h1\tfabricbench diagnose: a 'quoted' word second line 'HOME 'id' back'slash");
}

TEST(DrainList, ALongReasonIsCutOnACharacterBoundary) {
  DrainList drain("accept");
  std::string reason;
  while (reason.size() < 400) reason += "é";  // two bytes each
  drain.add("h1", reason);
  const std::string line = lines_of(drain.text())[1];
  const std::string written = line.substr(line.find('\t') + 1);
  EXPECT_LE(written.size(), DrainList::max_reason_bytes);
  EXPECT_TRUE(written.ends_with("é ...")) << written;
}

TEST(DrainList, TheDocumentedLoopsHandEveryHostToScontrolAndKubectl) {
  const testing::TempDir dir;
  DrainList drain("doctor");
  drain.add("node7", "port mlx5_3/1: error counters grew within 30 s: symbol_error +51");
  drain.add("node2", "\"x\" y");
  drain.write(dir.path() / "drain.txt", std::cout);
  // As docs/fleet-health.md has them, with echo standing in for the scheduler's command.
  const std::string file = (dir.path() / "drain.txt").string();
  const std::string scontrol = output_of(
      "bash -c 'grep -v \"^#\" " + file +
      " | while IFS=$(printf \"\\t\") read -r host reason; do echo scontrol update nodename=\"$host\" state=drain "
      "reason=\"\\\"$reason\\\"\"; done'");
  EXPECT_THAT(lines_of(scontrol),
              ElementsAre("scontrol update nodename=node7 state=drain reason=\"fabricbench doctor: port mlx5_3/1: "
                          "error counters grew within 30 s: symbol_error +51\"",
                          "scontrol update nodename=node2 state=drain reason=\"fabricbench doctor: 'x' y\""));
  const std::string kubectl =
      output_of("bash -c 'grep -v \"^#\" " + file + " | cut -f1 | xargs -r -n1 echo kubectl cordon'");
  EXPECT_THAT(lines_of(kubectl), ElementsAre("kubectl cordon node7", "kubectl cordon node2"));
}

}  // namespace
}  // namespace fb
