#include "fabricbench_runs.hpp"

#include "results/results_io.hpp"

#include <cstdlib>
#include <thread>

namespace fb::testing {

namespace {

// The build tree's path, or the environment's where the tests run from elsewhere: the GPU bundle
// (scripts/gpu-check.sh run-bundle) carries them away from the tree they were built in.
std::string path_from_environment(const char* variable, const char* built) {
  const char* given = std::getenv(variable);
  return given && *given ? given : built;
}

}  // namespace

const std::string& fabricbench_binary() {
  static const std::string path = path_from_environment("FABRICBENCH_TEST_BINARY", FABRICBENCH_BINARY);
  return path;
}

std::vector<std::string> under_mpirun(int nranks, const std::string& binary, const std::vector<std::string>& args) {
  static const std::string mpiexec = path_from_environment("FABRICBENCH_TEST_MPIEXEC", MPIEXEC_BINARY);
  std::vector<std::string> argv{mpiexec, "--allow-run-as-root",  "--oversubscribe",
                                "-np",   std::to_string(nranks), binary};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> directly(const std::vector<std::string>& args) {
  std::vector<std::string> argv{fabricbench_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

bool wait_for_rows(const std::filesystem::path& csv, std::size_t rows, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(csv) && read_results_csv(csv).rows.size() >= rows) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

ProcessResult validate_against_schema(const std::filesystem::path& json, const std::filesystem::path& schema) {
  return run_process(
      {"/usr/bin/python3", "-c",
       "import json, sys, jsonschema\n"
       "schema = json.load(open(sys.argv[2]))\n"
       "jsonschema.Draft202012Validator.check_schema(schema)\n"
       "errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[1]))))\n"
       "for e in errors[:10]: print('/'.join(map(str, e.absolute_path)) + ': ' + e.message)\n"
       "sys.exit(1 if errors else 0)\n",
       json.string(), schema.string()});
}

}  // namespace fb::testing
