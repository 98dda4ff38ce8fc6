#!/usr/bin/env bash
# The GPU bundle as the lent GPU machine gets it: built from this build tree, under 60 MiB, every
# library resolving inside it in a root of only glibc's files (scripts/gpu-check.sh bundle runs
# check-bundle), and `run-bundle` on this machine without a GPU: the bundle's libraries, NCCL found,
# the bundle's Open MPI running two ranks, then the no-GPU code 8 with its table written to $OUT and
# the rerun line, without calling a compiler, CMake, make or pkg-config. A bundle missing one of its
# libraries is refused, naming the library and the program that needs it.
#
#   gpu_bundle_test.sh BUILD_DIR
set -euo pipefail

build_dir="$(cd "$1" && pwd)"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

tarball="${scratch}/fabricbench-gpu.tar.gz"
"${repo_root}/scripts/gpu-check.sh" bundle "${tarball}" "${build_dir}" >"${scratch}/bundle.log" 2>&1 ||
  fail "bundle: $(cat "${scratch}/bundle.log")"
grep -q "every library resolves inside the bundle" "${scratch}/bundle.log" || fail "no library check: $(cat "${scratch}/bundle.log")"
grep -q "ran 2 fabricbench ranks in the root" "${scratch}/bundle.log" || fail "no MPI job in the root"
size_bytes=$(stat -c %s "${tarball}")
((size_bytes < 60 * 1048576)) || fail "bundle is ${size_bytes} bytes, not under 60 MiB"
listing="$(tar -tzf "${tarball}")"
for member in bin/fabricbench bin/gpu_reference tests/fabricbench_gpu_tests tests/fabricbench_mpi_tests \
  openmpi/usr/bin/orterun lib/libcudart.so.13 gpu-check.sh MANIFEST; do
  grep -qx "fabricbench-gpu/${member}" <<<"${listing}" || fail "bundle lacks ${member}"
done
# The GPU machine's own libraries never travel.
if grep -E '/lib(c|stdc\+\+|gcc_s|cuda|nccl|nvidia-ml)\.so' <<<"${listing}"; then fail "bundle carries a system library"; fi

# run-bundle without a GPU, with every build tool on PATH replaced by one that says it was called.
mkdir -p "${scratch}/tools" "${scratch}/out"
for tool in cc gcc g++ c++ nvcc cmake make ninja pkg-config ld; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 127\n' "${tool}" "${scratch}" >"${scratch}/tools/${tool}"
  chmod +x "${scratch}/tools/${tool}"
done
set +e
env PATH="${scratch}/tools:${PATH}" OUT="${scratch}/out" GPU_CHECK_RESULTS="${scratch}/results" \
  "${repo_root}/scripts/gpu-check.sh" run-bundle "${tarball}" >"${scratch}/run.log" 2>&1
code=$?
set -e
[[ ! -e "${scratch}/called" ]] || fail "run-bundle called a build tool: $(cat "${scratch}/called")"
((code == 8)) || fail "run-bundle without a GPU exited ${code}, not 8: $(cat "${scratch}/run.log")"
table="${scratch}/out/gpu-check.txt"
[[ -f "${table}" ]] || fail "no gpu-check.txt in \$OUT"
for row in "libraries +0" "find-nccl +0 +libnccl.so.2 in " "mpi +0" "gpu +8 +no GPU on this machine"; do
  grep -Eq "^${row}" "${table}" || fail "no row '${row}' in: $(cat "${table}")"
done
grep -q "rerun the failed steps: .*run-bundle ${tarball} gpu$" "${table}" || fail "no rerun line: $(cat "${table}")"
grep -q "all_reduce" "${scratch}/out/mpi.log" || fail "the MPI step measured nothing: $(cat "${scratch}/out/mpi.log")"

# One library taken out: refused, naming it.
mkdir "${scratch}/broken"
tar -xzf "${tarball}" -C "${scratch}/broken"
rm "${scratch}/broken/fabricbench-gpu/lib/libfmt.so.9"
tar -czf "${scratch}/broken.tar.gz" -C "${scratch}/broken" fabricbench-gpu
set +e
"${repo_root}/scripts/gpu-check.sh" check-bundle "${scratch}/broken.tar.gz" >"${scratch}/broken.log" 2>&1
code=$?
set -e
((code == 1)) || fail "a bundle without libfmt passed its check (exit ${code})"
grep -q "/bundle/bin/fabricbench: libfmt.so.9 resolves nowhere" "${scratch}/broken.log" ||
  fail "the missing library was not named: $(cat "${scratch}/broken.log")"
echo "gpu bundle: $((size_bytes / 1048576)) MiB; checked in an empty root; run-bundle without a GPU exits 8"
