#pragma once
// Error categories shared by every stage, and the process exit codes they map to.
// Exit codes are part of the command-line contract: scripts and CI systems branch on them.

#include <stdexcept>
#include <string>

namespace fb {

enum class ExitCode : int {
  ok = 0,
  wrong_results = 1,      // the run completed but validation found wrong elements
  usage = 2,              // bad flags or impossible sizes, detected before measuring
  runtime = 3,            // a library call or I/O failed while running
  input = 4,              // a malformed input file (results, topology, thresholds)
  timeout = 5,            // an operation made no progress within its deadline; the job was ended
  acceptance_failed = 6,  // `fabricbench accept`: the results were read and at least one check failed;
                          // diagnose, report, compare: a `--fail-on` condition held
  doctor_flags = 7,       // `fabricbench doctor`: a host was inspected and at least one error-severity flag was raised;
                          // `topo diff`: the dumps were read and a node differs from the fleet
  no_device = 8,          // a GPU backend found no GPU to run on: nothing was measured
  // Ended by SIGINT or SIGTERM: the shell convention 128 + signal number (130, 143).
};

// Bad command-line input. Every rank detects it identically, so no rank needs to abort others.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A GPU backend on a machine without a usable GPU (no driver, no device, or fewer than needed).
// Distinct from a failure so that CI on CPU-only machines can tell "skipped" from "broken".
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An operation that did not complete within its deadline; the message names the op, the size and
// where it was stuck. Maps to ExitCode::timeout.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A malformed input file; the message names the file and, where known, the line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fb
