// `fabricbench doctor`: the pre-flight check. Alone it inspects this host; under mpirun or srun
// the lowest rank of every host inspects its host, rank 0 gathers the reports, compares the
// hosts and prints one table for the job.

#include "cli/command.hpp"
#include "reports/analysis/drain_list.hpp"
#include "common/errors.hpp"
#include "doctor/checks.hpp"
#include "doctor/doctor_report.hpp"
#include "doctor/host_inventory.hpp"
#include "doctor/inventory_json.hpp"
#include "results/results_io.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#ifdef FABRICBENCH_DOCTOR_WITH_MPI
#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/mpi_session.hpp"

#include <cstring>
#endif

namespace fb::cli {
namespace {

struct DoctorOptions {
  std::string sysfs_root = "/";
  std::string json_path;
  std::string drain_list_path;
  bool show_devices = false;
  double counter_interval_s = 0;
};

// What one host's inspection produced: its inventory, or why there is none.
struct HostReport {
  std::string host;
  std::optional<doctor::HostInventory> inventory;
  std::string error;
};

HostReport inspect_this_host(const DoctorOptions& options, const doctor::DetectedVersion& mpi_library) {
  HostReport report;
  try {
    report.inventory = doctor::collect_host_inventory(options.sysfs_root);
    if (options.counter_interval_s > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(options.counter_interval_s));
      doctor::record_port_counter_growth(*report.inventory, options.sysfs_root, options.counter_interval_s);
    }
    report.inventory->versions.mpi_library = mpi_library;
    report.host = report.inventory->host;
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  return report;
}

// Prints the table and findings, writes the JSON file, and returns the exit code of the job.
int report_hosts(const DoctorOptions& options, const std::vector<HostReport>& reports) {
  std::vector<doctor::HostInventory> hosts;
  bool inspection_failed = false;
  for (const HostReport& report : reports) {
    if (report.inventory) {
      hosts.push_back(*report.inventory);
      continue;
    }
    std::cerr << fmt::format("fabricbench: error: {}: {}\n", report.host, report.error);
    inspection_failed = true;
  }
  // The same flags on every host: a host that could not be inspected means the flags were wrong.
  if (inspection_failed) return static_cast<int>(ExitCode::usage);

  const std::vector<doctor::Flag> findings = doctor::check_hosts(hosts);
  doctor::print_doctor_report(std::cout, hosts, findings, options.show_devices || hosts.size() == 1);
  if (!options.json_path.empty()) {
    try {
      write_file_atomically(options.json_path, doctor::doctor_report_json(hosts, findings).dump(2) + "\n");
    } catch (const std::exception& e) {
      std::cerr << fmt::format("fabricbench: error: cannot write {}: {}\n", options.json_path, e.what());
      return static_cast<int>(ExitCode::runtime);
    }
    std::cout << fmt::format("# doctor report: {}\n", options.json_path);
  }
  if (!options.drain_list_path.empty()) {
    // A host is drained for its own error flags; a cross-host disagreement without a majority
    // blames no host.
    DrainList drain("doctor");
    for (const doctor::Flag& finding : findings)
      if (finding.severity == doctor::Severity::error && !finding.host.empty())
        drain.add(finding.host, finding.subject + ": " + finding.message);
    try {
      drain.write(options.drain_list_path, std::cout);
    } catch (const std::exception& e) {
      std::cerr << fmt::format("fabricbench: error: cannot write {}: {}\n", options.drain_list_path, e.what());
      return static_cast<int>(ExitCode::runtime);
    }
  }
  return static_cast<int>(doctor::has_errors(findings) ? ExitCode::doctor_flags : ExitCode::ok);
}

#ifdef FABRICBENCH_DOCTOR_WITH_MPI

// Started by a launcher that wires up MPI (mpirun, or srun with PMIx or PMI-2). Started alone,
// the doctor stays out of MPI: singleton MPI_Init is slow and fails on hosts without a launcher.
bool launched_by_mpi_launcher() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(variable)) return true;
  return false;
}

// "Open MPI v4.1.4": the first line of MPI_Get_library_version up to the first comma (the rest
// is packaging detail). MPI-3 allows the call before MPI_Init, so a single-host run reports it too.
doctor::DetectedVersion mpi_library_version() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(library, &length) != MPI_SUCCESS) return {};
  const std::string text(library, strnlen(library, static_cast<std::size_t>(length)));
  return {text.substr(0, text.find_first_of(",\r\n")), "MPI_Get_library_version"};
}

class MpiSession {
 public:
  MpiSession() {
    ProcessArguments& arguments = process_arguments();
    FB_MPI_CHECK(MPI_Init(&arguments.argc, &arguments.argv));
    FB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

nlohmann::json report_to_json(const HostReport& report) {
  if (report.inventory) return {{"inventory", *report.inventory}};
  return {{"host", report.host}, {"error", report.error}};
}

HostReport report_from_json(const nlohmann::json& json) {
  if (json.contains("inventory")) {
    doctor::HostInventory inventory = json.at("inventory").get<doctor::HostInventory>();
    std::string host = inventory.host;
    return {std::move(host), std::move(inventory), ""};
  }
  return {json.at("host").get<std::string>(), std::nullopt, json.at("error").get<std::string>()};
}

int run_under_mpi(const DoctorOptions& options) {
  const MpiSession session;
  int rank = 0;
  FB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  // The ranks sharing memory share a host; keyed by world rank, local rank 0 is the lowest
  // world rank there, and the only one that inspects the host.
  MPI_Comm host_comm = MPI_COMM_NULL;
  FB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host_comm));
  int host_rank = 0;
  FB_MPI_CHECK(MPI_Comm_rank(host_comm, &host_rank));
  FB_MPI_CHECK(MPI_Comm_free(&host_comm));

  std::string payload;
  if (host_rank == 0) {
    HostReport report = inspect_this_host(options, mpi_library_version());
    if (report.host.empty()) {
      char name[MPI_MAX_PROCESSOR_NAME] = {};
      int name_length = 0;
      FB_MPI_CHECK(MPI_Get_processor_name(name, &name_length));
      report.host = std::string(name, static_cast<std::size_t>(name_length));
    }
    payload = report_to_json(report).dump();
  }
  const std::vector<std::string> payloads = gather_strings_at_rank_zero(MPI_COMM_WORLD, payload);

  int exit_code = static_cast<int>(ExitCode::ok);
  if (rank == 0) {
    std::vector<HostReport> reports;
    for (const std::string& host_payload : payloads)
      if (!host_payload.empty()) reports.push_back(report_from_json(nlohmann::json::parse(host_payload)));
    exit_code = report_hosts(options, reports);
  }
  // Every rank ends with rank 0's verdict, so the launcher's exit status is the doctor's.
  FB_MPI_CHECK(MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD));
  return exit_code;
}

#endif  // FABRICBENCH_DOCTOR_WITH_MPI

int run_doctor(const DoctorOptions& options) {
#ifdef FABRICBENCH_DOCTOR_WITH_MPI
  if (launched_by_mpi_launcher()) {
    try {
      return run_under_mpi(options);
    } catch (const std::exception& e) {
      std::cerr << fmt::format("fabricbench: error: {}\n", e.what());
      return static_cast<int>(ExitCode::runtime);
    }
  }
  const doctor::DetectedVersion mpi_library = mpi_library_version();
#else
  const doctor::DetectedVersion mpi_library;
#endif
  HostReport report = inspect_this_host(options, mpi_library);
  if (report.host.empty()) report.host = "this host";
  return report_hosts(options, {std::move(report)});
}

const CommandRegistrar registrar{
    "doctor",
    "pre-flight check of every host: GPUs, NICs, PCIe links, NUMA, RDMA ports, ACS, versions; flags what is wrong",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<DoctorOptions>();
      sub.add_option("--sysfs-root", options->sysfs_root,
                     "directory that sys/, proc/ and usr/ are read under (a prepared tree instead of this host)")
          ->capture_default_str();
      sub.add_option("--json", options->json_path, "also write the hosts and findings as JSON to this file");
      sub.add_flag("--devices", options->show_devices,
                   "list every GPU, NIC and RDMA port of every host (always done for a single host)");
      sub.add_option("--drain-list", options->drain_list_path,
                     "write the hosts with error flags and why to this file (HOST<TAB>REASON per line, for scontrol "
                     "and kubectl cordon)");
      sub.add_option("--counter-interval", options->counter_interval_s,
                     "seconds to watch the RDMA port error counters: a counter that grows meanwhile is an error "
                     "(0: read them once; counts since the last clear are warnings)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str();
      return [options] { return run_doctor(*options); };
    }};

}  // namespace
}  // namespace fb::cli
