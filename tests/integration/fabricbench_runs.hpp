#pragma once
// Building blocks shared by the integration tests: command lines for the real binary, with or
// without mpirun, and waiting for a running sweep to reach the disk.

#include "support/text_lines.hpp"
#include "process_runner.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace fb::testing {

// Open MPI refuses to run as root without these, also for a binary started without mpirun
// (singleton initialization); CI containers often run as root.
inline const std::vector<std::string> allow_root{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};

// The fabricbench program the tests run: the build's, or FABRICBENCH_TEST_BINARY's (and mpiexec:
// FABRICBENCH_TEST_MPIEXEC's) where the tests were carried away from their build.
const std::string& fabricbench_binary();
std::vector<std::string> under_mpirun(int nranks, const std::string& binary, const std::vector<std::string>& args);
std::vector<std::string> directly(const std::vector<std::string>& args);

// Polls the CSV a running sweep writes until it holds `rows` rows; false at the timeout. The file
// is replaced atomically, so reading it while the run writes is safe.
bool wait_for_rows(const std::filesystem::path& csv, std::size_t rows, std::chrono::seconds timeout);

// Validates a JSON file fabricbench wrote against its published schema (docs/schemas/), with
// python3-jsonschema's draft 2020-12 validator; exit code 0 when it is valid, the errors otherwise.
ProcessResult validate_against_schema(const std::filesystem::path& json, const std::filesystem::path& schema);

}  // namespace fb::testing
