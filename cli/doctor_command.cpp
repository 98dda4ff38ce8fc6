// `fabricbench doctor`: the flags of the pre-flight check; jobs/doctor_job.hpp runs it.

#include "cli/command.hpp"
#include "jobs/doctor_job.hpp"

#include <memory>

namespace fb::cli {
namespace {

const Registrar<CommandRegistration> registrar{
    {"doctor",
     "pre-flight check of every host: GPUs, NICs, PCIe links, NUMA, RDMA ports, ACS, versions; flags what is wrong",
     [](CLI::App& sub, const ProcessArguments& process) -> std::function<int()> {
       auto options = std::make_shared<jobs::DoctorOptions>();
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
       return [options, process] {
         options->argc = process.argc;
         options->argv = process.argv;
         return jobs::run_doctor(*options);
       };
     }}};

}  // namespace
}  // namespace fb::cli
