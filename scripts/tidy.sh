#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the top) over every C++ file of a configured build's
# compile_commands.json and prints how many findings each check has. Exits 1 when there is any.
#   scripts/tidy.sh [--gate] [build-dir] [file-regex]   (defaults: build, every .cpp of the project)
# --gate runs only the checks the tree holds at zero, which CI enforces (ctest's
# architecture.clang_tidy_gate): a function above the cognitive-complexity threshold without its
# reason on the line before it, and any compiler diagnostic clang raises on the way. Without it,
# every check of .clang-tidy runs, the advisory ones included (counts in docs/performance.md).
# The CUDA files are left out: their commands are nvcc's, which clang-tidy cannot read.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gate_arguments=()
if [[ "${1:-}" == "--gate" ]]; then
  # The strict build's -Werror would turn clang's own warnings (GCC's differ: -Wsign-conversion
  # fires in places GCC accepts) into errors no check selects; as warnings, -checks filters them.
  gate_arguments=(-checks='-*,readability-function-cognitive-complexity' -extra-arg=-Wno-error)
  shift
fi
build_dir="${1:-${repo_root}/build}"
file_regex="${2:-${repo_root}/.*\.cpp$}"
run_clang_tidy="${RUN_CLANG_TIDY:-$(command -v run-clang-tidy || command -v run-clang-tidy-14 || true)}"

if [[ -z "${run_clang_tidy}" ]]; then
  echo "tidy: run-clang-tidy is not installed (scripts/setup.sh installs clang-tidy)" >&2
  exit 77
fi
if [[ ! -f "${build_dir}/compile_commands.json" ]]; then
  echo "tidy: no ${build_dir}/compile_commands.json; configure the build first (scripts/setup.sh)" >&2
  exit 2
fi

# The command-line files are compiled with GCC's precompiled CLI11 header, which clang cannot read:
# clang-tidy gets the same commands without it (each file includes what it uses).
commands_dir="${build_dir}/clang-tidy"
mkdir -p "${commands_dir}"
sed -E 's# -include [^ "]*/cmake_pch\.hxx##g' "${build_dir}/compile_commands.json" >"${commands_dir}/compile_commands.json"

log="${build_dir}/clang-tidy.log"
# run-clang-tidy always asks for colour: the escapes are taken out of the log.
"${run_clang_tidy}" -p "${commands_dir}" -quiet -j "${TIDY_JOBS:-$(nproc)}" "${gate_arguments[@]}" "${file_regex}" 2>&1 |
  sed -E 's/\x1b\[[0-9;]*m//g' >"${log}" || true
# A header's finding is printed once per file that includes it: count each place once.
findings=$(grep -E '^/.*:[0-9]+:[0-9]+: (warning|error): .* \[[a-z0-9.,-]+\]$' "${log}" | sort -u || true)
files=$(grep -c '^clang-tidy' "${log}" || true)
if [[ -z "${findings}" ]]; then
  echo "tidy: no findings in ${files} files"
  exit 0
fi
echo "${findings}" | sed -E "s|^${repo_root}/||"
echo
echo "tidy: findings per check in ${files} files (full output: ${log})"
echo "${findings}" | sed -E 's/.*\[([a-z0-9.,-]+)\]$/\1/' | sort | uniq -c | sort -rn
exit 1
