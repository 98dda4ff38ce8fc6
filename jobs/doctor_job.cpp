#include "jobs/doctor_job.hpp"

#include "diagnosis/drain_list.hpp"
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
#include "benchmarks/mpi/launcher_environment.hpp"
#include "benchmarks/mpi/mpi_check.hpp"
#include "benchmarks/mpi/mpi_job.hpp"
#endif

namespace fb::jobs {

using diagnosis::DrainList;
namespace {

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
  } catch (const std::exception& e) { report.error = e.what(); }
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

// "Open MPI v4.1.4": the first line of the library's version up to the first comma (the rest is
// packaging detail). MPI-3 allows the call before MPI_Init, so a single-host run reports it too.
doctor::DetectedVersion mpi_library_version() {
  try {
    const std::string line = mpi_library_version_line();
    return {line.substr(0, line.find(',')), "MPI_Get_library_version"};
  } catch (const MpiError&) {
    return {};  // not detected: the version check says so
  }
}

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
  int argc = options.argc;
  char** argv = options.argv;
  const MpiJob job(argc, argv);
  // The lowest rank of each host is the only one that inspects it.
  std::string payload;
  if (job.local_rank() == 0) {
    HostReport report = inspect_this_host(options, mpi_library_version());
    if (report.host.empty()) report.host = job.process_hosts().at(static_cast<std::size_t>(job.rank()));
    payload = report_to_json(report).dump();
  }
  const std::vector<std::string> payloads = job.gather_strings_at_rank_zero(payload);

  int exit_code = static_cast<int>(ExitCode::ok);
  if (job.rank() == 0) {
    std::vector<HostReport> reports;
    for (const std::string& host_payload : payloads)
      if (!host_payload.empty()) reports.push_back(report_from_json(nlohmann::json::parse(host_payload)));
    exit_code = report_hosts(options, reports);
  }
  // Every rank ends with rank 0's verdict, so the launcher's exit status is the doctor's.
  job.broadcast_from_rank_zero(std::as_writable_bytes(std::span(&exit_code, 1)));
  return exit_code;
}

#endif  // FABRICBENCH_DOCTOR_WITH_MPI

}  // namespace

int run_doctor(const DoctorOptions& options) {
#ifdef FABRICBENCH_DOCTOR_WITH_MPI
  if (read_launcher_environment().mpi_launcher) {
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

}  // namespace fb::jobs
