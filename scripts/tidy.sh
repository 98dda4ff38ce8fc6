#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the top) over every C++ file of a configured build's
# compile_commands.json and prints how many findings each check has. Exits 1 when there is any.
#   scripts/tidy.sh [build-dir] [file-regex]   (defaults: build, every .cpp of the project)
# The CUDA files are left out: their commands are nvcc's, which clang-tidy cannot read.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-${repo_root}/build}"
file_regex="${2:-${repo_root}/.*\.cpp$}"
run_clang_tidy="${RUN_CLANG_TIDY:-$(command -v run-clang-tidy || command -v run-clang-tidy-14)}"

if [[ ! -f "${build_dir}/compile_commands.json" ]]; then
  echo "tidy: no ${build_dir}/compile_commands.json; configure the build first (scripts/setup.sh)" >&2
  exit 2
fi

log="${build_dir}/clang-tidy.log"
# run-clang-tidy always asks for colour: the escapes are taken out of the log.
"${run_clang_tidy}" -p "${build_dir}" -quiet -j "${TIDY_JOBS:-$(nproc)}" "${file_regex}" 2>&1 |
  sed -E 's/\x1b\[[0-9;]*m//g' >"${log}" || true
# A header's finding is printed once per file that includes it: count each place once.
findings=$(grep -E '^/.*:[0-9]+:[0-9]+: (warning|error): .* \[[a-z0-9.,-]+\]$' "${log}" | sort -u || true)
if [[ -z "${findings}" ]]; then
  echo "tidy: no findings"
  exit 0
fi
echo "${findings}" | sed -E "s|^${repo_root}/||"
echo
echo "tidy: findings per check (full output: ${log})"
echo "${findings}" | sed -E 's/.*\[([a-z0-9.,-]+)\]$/\1/' | sort | uniq -c | sort -rn
exit 1
