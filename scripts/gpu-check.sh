#!/usr/bin/env bash
# The GPU check, built here and only run on the lent GPU machine (15 minutes in all, 10 a command,
# no package registry): the bundle holds the GPU-enabled fabricbench, the bare reference loops
# (perf/gpu_reference), the GPU tests, Open MPI's runtime and every shared library they load but
# the GPU machine's own (glibc, libstdc++, libgcc_s, the driver's and NCCL's).
#
#   scripts/gpu-check.sh bundle OUT.tar.gz [BUILD_DIR]   here, after scripts/setup.sh (BUILD_DIR:
#        build/, whose CUDA architectures must include 90): the bundle, then check-bundle on it
#   scripts/gpu-check.sh check-bundle OUT.tar.gz         as root: in a root holding only the bundle and
#        glibc's, libstdc++'s and libgcc_s's files, every ELF file's libraries resolve
#   scripts/gpu-check.sh run-bundle BUNDLE [STEP...]     on the GPU machine, BUNDLE the tarball or its
#        unpacked folder: every step (or the STEPs named) under its own timeout; no compiler, CMake
#        or pkg-config. Prints and writes (to $OUT when set, after every step) the table of steps
#        and of fabricbench against the reference loops; exits with the first failing step's code
#        (8: no GPU), else 1 for a comparison outside 3% or a wrong element
#
# The run's steps, in order, with their timeouts in seconds (planned: under 8 minutes in all).
set -uo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tolerance=0.03
step_names=(libraries find-nccl mpi gpu gpu-tests reference cuda-copies nccl-sweep nccl-graph
            nccl-half nccl-bfloat16 nccl-int8 nccl-int32 nccl-tests-all_reduce nccl-tests-sendrecv)
declare -A step_timeout_s=([libraries]=30 [find-nccl]=20 [mpi]=45 [gpu]=20 [gpu-tests]=90 [reference]=45
                           [cuda-copies]=45 [nccl-sweep]=60 [nccl-graph]=30 [nccl-half]=20 [nccl-bfloat16]=20
                           [nccl-int8]=20 [nccl-int32]=20 [nccl-tests-all_reduce]=30 [nccl-tests-sendrecv]=30)

usage() {
  sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' >&2
  exit 2
}

# ---------------------------------------------------------------------------------------- bundle
make_bundle() {
  local tarball="$1" build_dir="${2:-${script_dir}/../build}"
  build_dir="$(cd "${build_dir}" && pwd)" || exit 2
  # The kernels' compile flags say which GPUs they run on: the H200 needs sm_90 code.
  local flags="${build_dir}/benchmarks/CMakeFiles/fabricbench_cuda_support.dir/flags.make"
  if ! grep -q 'code=\[compute_90,sm_90\]' "${flags}" 2>/dev/null; then
    echo "gpu-check: ${build_dir} has no CUDA kernels built for sm_90 (${flags}); configure with" \
      "CMAKE_CUDA_ARCHITECTURES including 90 where nvcc is found" >&2
    exit 2
  fi
  local staging
  staging="$(mktemp -d)/fabricbench-gpu"
  python3 "${script_dir}/gpu_bundle.py" make "${build_dir}" "${staging}" || exit 1
  cp "${script_dir}/gpu-check.sh" "${script_dir}/gpu-check-table.py" "${script_dir}/gpu_bundle.py" "${staging}/"
  # The anchor: nccl-tests' own programs, where their source is at hand (never in the repository).
  if [[ -n "${NCCL_TESTS_BUILD:-}" ]]; then
    mkdir -p "${staging}/nccl-tests"
    cp "${NCCL_TESTS_BUILD}/all_reduce_perf" "${NCCL_TESTS_BUILD}/sendrecv_perf" "${staging}/nccl-tests/" || exit 1
  fi
  git -C "${script_dir}/.." describe --always --dirty >"${staging}/VERSION" 2>/dev/null || true
  mkdir -p "$(dirname "${tarball}")"
  tar -czf "${tarball}" -C "$(dirname "${staging}")" fabricbench-gpu || exit 1
  rm -rf "$(dirname "${staging}")"
  local size_mib=$(($(stat -c %s "${tarball}") / 1048576))
  echo "gpu-check: ${tarball}: ${size_mib} MiB"
  if ((size_mib >= 60)); then
    echo "gpu-check: the bundle must stay under 60 MiB to travel with the working tree" >&2
    exit 1
  fi
  check_bundle "${tarball}"
}

check_bundle() {
  local tarball="$1" scratch
  scratch="$(mktemp -d)"
  tar -xzf "${tarball}" -C "${scratch}" || exit 1
  python3 "${script_dir}/gpu_bundle.py" check "${scratch}/fabricbench-gpu" "${scratch}/root"
  local code=$?
  rm -rf "${scratch}"
  exit "${code}"
}

# ------------------------------------------------------------------------------------ run-bundle
steps=()  # "name|exit code|note" per step, in order

# The table of steps (and, once anything was measured, of the comparisons), to stdout and to $OUT.
write_table() {
  local entry name code note failed=()
  {
    printf '%-24s %-5s %s\n' step exit note
    for entry in "${steps[@]}"; do
      IFS='|' read -r name code note <<<"${entry}"
      printf '%-24s %-5s %s\n' "${name}" "${code}" "${note}"
      [[ "${code}" == 0 ]] || failed+=("${name}")
    done
    if [[ -n "${measured:-}" ]]; then
      echo
      python3 "${script_dir}/gpu-check-table.py" "${results}" "${tolerance}" 2>&1
    fi
    ((${#failed[@]})) && echo "rerun the failed steps: ${script_dir}/gpu-check.sh run-bundle ${bundle_given} ${failed[*]}"
  } >"${results}/gpu-check.txt"
  if [[ -n "${OUT:-}" ]]; then
    cp "${results}/gpu-check.txt" "${OUT}/" 2>/dev/null
    cp "${results}"/*.log "${results}"/*.csv "${results}"/*.json "${OUT}/" 2>/dev/null
  fi
  return 0
}

finish() {
  trap - TERM INT
  write_table
  cat "${results}/gpu-check.txt"
  local status=0 entry name code note
  for entry in "${steps[@]}"; do
    IFS='|' read -r name code note <<<"${entry}"
    if [[ "${code}" != 0 ]]; then status="${code}"; break; fi
  done
  if ((status == 0)) && [[ -n "${measured:-}" ]]; then
    python3 "${script_dir}/gpu-check-table.py" "${results}" "${tolerance}" >/dev/null 2>&1 || status=1
  fi
  echo "gpu-check: logs and results in ${results}; exit ${status}"
  exit "${status}"
}

wanted() {
  ((${#only[@]} == 0)) && return 0
  local name
  for name in "${only[@]}"; do [[ "${name}" == "$1" ]] && return 0; done
  return 1
}

# Runs step NAME under its timeout, its output in NAME.log (shown unless quiet); records its code
# (124: past its timeout) and writes the table. Returns that code.
run_step() {
  local name="$1" show="$2"
  shift 2
  local code
  if [[ "${show}" == show ]]; then
    timeout --kill-after=10 "${step_timeout_s[${name}]}" "$@" 2>&1 | tee "${results}/${name}.log"
    code=${PIPESTATUS[0]}
  else
    timeout --kill-after=10 "${step_timeout_s[${name}]}" "$@" >"${results}/${name}.log" 2>&1
    code=$?
    ((code == 0)) || tail -n 30 "${results}/${name}.log"
  fi
  local note=""
  ((code == 124 || code == 137)) && note="past its ${step_timeout_s[${name}]} s timeout"
  steps+=("${name}|${code}|${note}")
  write_table
  return "${code}"
}

# NCCL: the toolkit's or the system's, else a pip wheel's (nvidia-nccl-cu*). Prints "library_dir
# version_code" of the first found (version 0 where no nccl.h says it).
find_nccl() {
  local dir library
  for dir in ${NCCL_HOME:-} /usr/local/cuda /usr; do
    for library in "${dir}"/lib64/libnccl.so.2 "${dir}"/lib/libnccl.so.2 "${dir}"/lib/x86_64-linux-gnu/libnccl.so.2; do
      [[ -e "${library}" ]] || continue
      local code
      code="$(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "${dir}/include/nccl.h" 2>/dev/null)"
      echo "$(dirname "${library}") ${code:-0}"
      return 0
    done
  done
  python3 - <<'PY'
import importlib.metadata as metadata, re
for dist in metadata.distributions():
    if not (dist.metadata["Name"] or "").lower().startswith("nvidia-nccl"):
        continue
    files = dist.files or []
    library = next((f for f in files if f.name == "libnccl.so.2"), None)
    header = next((f for f in files if f.name == "nccl.h"), None)
    if library:
        code = 0
        if header:
            found = re.search(r"#define NCCL_VERSION_CODE (\d+)", dist.locate_file(header).read_text())
            code = int(found.group(1)) if found else 0
        print(dist.locate_file(library).parent, code)
        raise SystemExit(0)
raise SystemExit(1)
PY
}

# The bundle's Open MPI, relocated: OPAL_PREFIX for Open MPI, PMIX_PREFIX and the component paths
# (without them PMIx and Open MPI find no components, and mpirun prints a help text it cannot find).
use_bundled_openmpi() {
  local prefix="${bundle}/openmpi/usr"
  local libdir="${prefix}/lib/x86_64-linux-gnu"
  export OPAL_PREFIX="${prefix}" PMIX_PREFIX="${libdir}/pmix2"
  export OMPI_MCA_mca_base_component_path="${libdir}/openmpi/lib/openmpi3"
  export PMIX_MCA_mca_base_component_path="${libdir}/pmix2/lib/pmix"
  export PATH="${prefix}/bin:${PATH}"
  # One node: mpirun starts its ranks itself, needing no ssh (the rsh launcher refuses to start without it).
  export OMPI_MCA_plm=isolated OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun="${prefix}/bin/orterun"
  # The tests spawn the bundle's programs, not the paths they were built at.
  export FABRICBENCH_TEST_BINARY="${bundle}/bin/fabricbench" FABRICBENCH_TEST_MPIEXEC="${mpirun}"
}

run_bundle() {
  bundle="$1" bundle_given="$1"
  shift
  only=("$@")
  local name
  for name in "${only[@]}"; do
    [[ " ${step_names[*]} " == *" ${name} "* ]] || { echo "gpu-check: no step '${name}' (${step_names[*]})" >&2; exit 2; }
  done
  if [[ -f "${bundle}" ]]; then
    local unpacked
    unpacked="$(mktemp -d)"
    tar -xzf "${bundle}" -C "${unpacked}" || { echo "gpu-check: ${bundle}: not a bundle tarball" >&2; exit 2; }
    bundle="${unpacked}/fabricbench-gpu"
  fi
  bundle="$(cd "${bundle}" && pwd)" || exit 2
  [[ -x "${bundle}/bin/fabricbench" ]] || { echo "gpu-check: ${bundle}: no bin/fabricbench; not a bundle" >&2; exit 2; }
  results="${GPU_CHECK_RESULTS:-${bundle}/gpu-check-results}"
  rm -rf "${results}" && mkdir -p "${results}"
  [[ -n "${OUT:-}" ]] && mkdir -p "${OUT}"
  # The lent machine's limit ends the command with TERM: the table of what ran is written first.
  trap 'steps+=("interrupted|143|ended by a signal during the run"); finish' TERM INT
  use_bundled_openmpi
  local fabricbench="${bundle}/bin/fabricbench"

  wanted libraries && { run_step libraries quiet python3 "${bundle}/gpu_bundle.py" libraries "${bundle}" || finish; }
  local nccl_dir nccl_code
  if read -r nccl_dir nccl_code < <(find_nccl); then
    export LD_LIBRARY_PATH="${nccl_dir}${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
    wanted find-nccl && steps+=("find-nccl|0|libnccl.so.2 in ${nccl_dir}, version code ${nccl_code}")
  else
    steps+=("find-nccl|1|no libnccl.so.2 under NCCL_HOME, /usr/local/cuda, /usr or a pip nvidia-nccl wheel")
    finish
  fi
  # The bundle's Open MPI and fabricbench on the CPU, before anything needs the GPU.
  wanted mpi && { run_step mpi quiet "${mpirun}" --oversubscribe -np 2 "${fabricbench}" run all_reduce --backend mpi \
    -b 8 -e 64K -n 5 -w 1 -D "${results}/mpi" || finish; }
  if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >"${results}/gpu.log" 2>&1; then
    steps+=("gpu|8|no GPU on this machine (nvidia-smi lists none); run it where one is")
    finish
  fi
  wanted gpu && steps+=("gpu|0|$(head -1 "${results}/gpu.log")")

  measured=1
  wanted gpu-tests && run_step gpu-tests show bash -c '
    "$1"/tests/fabricbench_gpu_tests && "$1"/tests/fabricbench_nccl_completion_tests &&
    "$1"/tests/fabricbench_mpi_tests --gtest_filter="CudaBackend.*:NcclBackend.*:GpuLaunchOptions.*"' _ "${bundle}"
  wanted reference && run_step reference show "${bundle}/bin/gpu_reference" --iterations 20 --warmups 5
  wanted cuda-copies && run_step cuda-copies show "${fabricbench}" run h2d_ce d2h_ce local_ce h2d_sm d2h_sm local_sm \
    --backend cuda -b 1G -e 1G -n 20 -w 5 --csv "${results}/cuda.csv" --json "${results}/cuda.json"
  wanted nccl-sweep && run_step nccl-sweep show "${mpirun}" -np 1 "${fabricbench}" run all_reduce sendrecv \
    --backend nccl -b 8 -e 512M --placement out-of-place -n 20 -w 5 --csv "${results}/nccl.csv" \
    --json "${results}/nccl.json"
  wanted nccl-graph && run_step nccl-graph show "${mpirun}" -np 1 "${fabricbench}" run all_reduce --backend nccl \
    -b 512M -e 512M --placement out-of-place -n 20 -w 5 -G 5 --csv "${results}/nccl-graph.csv" \
    --json "${results}/nccl-graph.json"
  local collectives=(all_reduce all_gather reduce_scatter broadcast) type
  # ncclAlltoAll came with NCCL 2.28.3; an unknown version (0) tries it.
  ((nccl_code == 0 || nccl_code >= 22803)) && collectives+=(alltoall)
  for type in half bfloat16 int8 int32; do
    wanted "nccl-${type}" && run_step "nccl-${type}" quiet "${mpirun}" -np 1 "${fabricbench}" run "${collectives[@]}" \
      --backend nccl -e 64M -n 3 -w 1 -d "${type}" --csv "${results}/nccl-${type}.csv" \
      --json "${results}/nccl-${type}.json"
  done
  # nccl-tests' own programs on the same GPU, where the bundle carries them: the anchor's numbers.
  if [[ -x "${bundle}/nccl-tests/all_reduce_perf" ]]; then
    wanted nccl-tests-all_reduce && run_step nccl-tests-all_reduce show "${mpirun}" -np 1 \
      "${bundle}/nccl-tests/all_reduce_perf" -b 8 -e 512M -f 2 -g 1 -n 20 -w 5
    wanted nccl-tests-sendrecv && run_step nccl-tests-sendrecv show "${mpirun}" -np 1 \
      "${bundle}/nccl-tests/sendrecv_perf" -b 8 -e 512M -f 2 -g 1 -n 20 -w 5
  fi
  finish
}

case "${1:-}" in
  bundle) (($# == 2 || $# == 3)) || usage; make_bundle "$2" "${3:-}" ;;
  check-bundle) (($# == 2)) || usage; check_bundle "$2" ;;
  run-bundle) (($# >= 2)) || usage; shift; run_bundle "$@" ;;
  *) usage ;;
esac
