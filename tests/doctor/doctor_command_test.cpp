// `fabricbench doctor` end to end: the real binary on prepared trees and on this machine, alone
// and under the real mpirun.

#include "common/errors.hpp"
#include "process_runner.hpp"
#include "support/temp_dir.hpp"
#include "sysfs_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace fb {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::ProcessResult;
using testing::SysfsTree;
using testing::TempDir;

std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  return lines;
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

class DoctorCommand : public ::testing::Test {
 protected:
  void build(const testing::HostSpec& spec) { testing::build_host(tree_, spec); }

  ProcessResult doctor(const std::vector<std::string>& args) {
    std::vector<std::string> argv{FABRICBENCH_BINARY, "doctor"};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::run_process(argv);
  }

  TempDir dir_;
  SysfsTree tree_{dir_.path() / "host"};
  std::filesystem::path json_path_ = dir_.path() / "doctor.json";
};

TEST_F(DoctorCommand, HealthyHostPassesAndWritesItsInventory) {
  build(testing::healthy_host_spec());
  const ProcessResult result = doctor({"--sysfs-root", tree_.root().string(), "--json", json_path_.string()});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("doctor: 1 host, 0 errors, 0 warnings"));
  EXPECT_EQ(lines_with(result.out, "NVIDIA H100 80GB HBM3").size(), 8u) << result.out;
  const nlohmann::json report = read_json(json_path_);
  EXPECT_EQ(report.at("schema"), "fabricbench.doctor.v1");
  ASSERT_EQ(report.at("hosts").size(), 1u);
  EXPECT_EQ(report.at("hosts")[0].at("gpus").size(), 8u);
  EXPECT_EQ(report.at("hosts")[0].at("versions").at("nccl").at("version"), "2.21.5");
  EXPECT_TRUE(report.at("findings").empty());
  // GPUs, NICs, RDMA ports and bridges as the published schema says (python3-jsonschema).
  const ProcessResult valid = testing::run_process(
      {"/usr/bin/python3", "-c",
       "import json, sys, jsonschema; jsonschema.Draft202012Validator(json.load(open(sys.argv[2])))"
       ".validate(json.load(open(sys.argv[1])))",
       json_path_.string(), FABRICBENCH_SCHEMAS_DIR "/doctor.schema.json"});
  EXPECT_EQ(valid.exit_code, 0) << describe(valid);
}

TEST_F(DoctorCommand, NarrowNicLinkFailsWithTheDoctorExitCode) {
  testing::HostSpec spec = testing::healthy_host_spec();
  spec.nics[5].link->current_width_lanes = 8;
  build(spec);
  const ProcessResult result = doctor({"--sysfs-root", tree_.root().string()});
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::doctor_flags)) << describe(result);
  const std::vector<std::string> flagged = lines_with(result.out, "capable of x16");
  ASSERT_EQ(flagged.size(), 1u) << result.out;
  EXPECT_THAT(flagged[0], AllOf(StartsWith("error"), HasSubstr("mlx5_5"), HasSubstr(testing::nic_address(5))));
}

TEST_F(DoctorCommand, APortDownPutsItsHostOnTheDrainListWithTheReason) {
  testing::HostSpec spec = testing::healthy_host_spec();
  spec.ports[2].state = "1: DOWN";
  spec.ports[2].physical_state = "3: Disabled";
  build(spec);
  const std::filesystem::path drain = dir_.path() / "drain.txt";
  const ProcessResult result =
      doctor({"--sysfs-root", tree_.root().string(), "--json", json_path_.string(), "--drain-list", drain.string()});
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::doctor_flags)) << describe(result);
  const std::string host = read_json(json_path_).at("hosts")[0].at("host");
  std::ifstream in(drain);
  std::string header, line, rest;
  std::getline(in, header);
  std::getline(in, line);
  EXPECT_THAT(header, StartsWith("# fabricbench drain list (doctor, "));
  EXPECT_EQ(line, host + "\tfabricbench doctor: port mlx5_2/1 (" + testing::nic_address(2) +
                      "): port is DOWN (physical state Disabled, InfiniBand)");
  EXPECT_FALSE(std::getline(in, rest)) << rest;
  EXPECT_THAT(result.out, HasSubstr("# drain list: " + drain.string() + " (1 host)\n"));
}

TEST_F(DoctorCommand, ErrorCountsSinceTheLastClearWarnButDrainNothing) {
  testing::HostSpec spec = testing::healthy_host_spec();
  spec.ports[6].counters["symbol_error"] = "4410";
  build(spec);
  const std::filesystem::path drain = dir_.path() / "drain.txt";
  const ProcessResult result = doctor({"--sysfs-root", tree_.root().string(), "--drain-list", drain.string()});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  const std::vector<std::string> flagged = lines_with(result.out, "symbol_error 4410");
  ASSERT_EQ(flagged.size(), 1u) << result.out;
  EXPECT_THAT(flagged[0], AllOf(StartsWith("warning"), HasSubstr("mlx5_6/1")));
  std::ifstream in(drain);
  std::string header, rest;
  std::getline(in, header);
  EXPECT_THAT(header, StartsWith("# fabricbench drain list (doctor, "));
  EXPECT_FALSE(std::getline(in, rest)) << rest;
}

TEST_F(DoctorCommand, WarningsDoNotFail) {
  testing::HostSpec spec = testing::healthy_host_spec();
  spec.gpus[3].numa_node = 2;
  build(spec);
  const ProcessResult result = doctor({"--sysfs-root", tree_.root().string()});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("0 errors, 1 warning"));
}

TEST_F(DoctorCommand, RootWithoutSysfsIsAUsageErrorOnOneLine) {
  const ProcessResult result = doctor({"--sysfs-root", (dir_.path() / "nowhere").string()});
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::usage)) << describe(result);
  EXPECT_THAT(result.err, AllOf(StartsWith("fabricbench: error: "), HasSubstr("sys/bus/pci/devices")));
  EXPECT_EQ(lines_with(result.err, "").size(), 1u) << result.err;
}

TEST_F(DoctorCommand, ThisMachineWithoutGpusSaysSoInOneLineAndPasses) {
  if (!lines_with(testing::run_process({"/bin/sh", "-c", "cat /sys/bus/pci/devices/*/vendor"}).out, "0x10de").empty())
    GTEST_SKIP() << "this machine has NVIDIA devices";
  const ProcessResult result = doctor({});
  EXPECT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(lines_with(result.out, "no NVIDIA GPU").size(), 1u) << result.out;
}

#ifdef MPIEXEC_BINARY
// Open MPI refuses to run as root without these; CI containers often run as root.
const std::vector<std::string> allow_root{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};

TEST_F(DoctorCommand, TwoRanksOnOneHostGiveOneReport) {
  build(testing::healthy_host_spec());
  const ProcessResult result =
      testing::run_process({MPIEXEC_BINARY, "--allow-run-as-root", "--oversubscribe", "-np", "2", FABRICBENCH_BINARY,
                            "doctor", "--sysfs-root", tree_.root().string(), "--json", json_path_.string()},
                           allow_root);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_EQ(lines_with(result.out, "doctor: 1 host, 0 errors").size(), 1u) << result.out;
  const nlohmann::json report = read_json(json_path_);
  ASSERT_EQ(report.at("hosts").size(), 1u);
  // Collected under MPI: the library version comes from MPI itself.
  EXPECT_EQ(report.at("hosts")[0].at("versions").at("mpi_library").at("source"), "MPI_Get_library_version");
}

TEST_F(DoctorCommand, EveryRankEndsWithTheVerdictOfRankZero) {
  testing::HostSpec spec = testing::healthy_host_spec();
  spec.ports[1] = {"1: DOWN", "2: Polling", "10 Gb/sec (4X SDR)", "InfiniBand"};
  build(spec);
  const ProcessResult result =
      testing::run_process({MPIEXEC_BINARY, "--allow-run-as-root", "--oversubscribe", "-np", "2", FABRICBENCH_BINARY,
                            "doctor", "--sysfs-root", tree_.root().string()},
                           allow_root);
  EXPECT_EQ(result.exit_code, static_cast<int>(ExitCode::doctor_flags)) << describe(result);
  EXPECT_EQ(lines_with(result.out, "mlx5_1/1").size(), 2u) << result.out;  // the port row and its finding
}
#endif

// sysfs and procfs attributes are regular files. A FIFO in their place (a --sysfs-root prepared by
// hand, or by someone else) is read as an unreadable attribute, not waited on for ever: doctor
// reports the host, and a run reading its port counters and THP mode there measures and ends.
TEST_F(DoctorCommand, AFifoInPlaceOfAnAttributeIsUnreadableNotWaitedOn) {
  build(testing::healthy_host_spec());
  int replaced = 0;
  std::vector<std::filesystem::path> attributes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tree_.root()))
    if (entry.is_regular_file() && (entry.path().filename() == "symbol_error" || entry.path().filename() == "cpuinfo" ||
                                    entry.path().filename() == "enabled"))
      attributes.push_back(entry.path());
  for (const std::filesystem::path& attribute : attributes) {
    std::filesystem::remove(attribute);
    ASSERT_EQ(::mkfifo(attribute.c_str(), 0600), 0) << attribute;
    ++replaced;
  }
  ASSERT_GE(replaced, 8) << "the tree has no port counters to replace";
  const ProcessResult result = testing::run_process({FABRICBENCH_BINARY, "doctor", "--sysfs-root",
                                                     tree_.root().string(), "--json", json_path_.string()},
                                                    {}, std::chrono::seconds(30));
  EXPECT_FALSE(result.timed_out) << describe(result);
  EXPECT_THAT(result.out, HasSubstr("doctor: 1 host"));
  EXPECT_EQ(lines_with(result.out, "NVIDIA H100 80GB HBM3").size(), 8u) << result.out;

  const ProcessResult run =
      testing::run_process({FABRICBENCH_BINARY, "run", "all_reduce", "-e", "1K", "-n", "2", "--sysfs-root",
                            tree_.root().string(), "-D", (dir_.path() / "results").string()},
                           {}, std::chrono::seconds(60));
  EXPECT_EQ(run.exit_code, 0) << describe(run);
}

}  // namespace
}  // namespace fb
