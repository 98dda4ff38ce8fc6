#!/usr/bin/env bash
# Builds the GPU backends on a GPU machine, runs their tests, and measures them against bare
# loops in the same run (perf/gpu_reference): host<->device and device-local copies against
# cudaMemcpyAsync over pinned 1 GiB buffers, NCCL all_reduce (one rank, out of place, 512 MiB)
# against ncclAllReduce. Prints a table of every step's exit code and of the comparisons; exits
# non-zero when a step failed, a ratio is off by more than 3% or any result is wrong.
#
#   scripts/gpu-check.sh fetch-deps   on a Debian 12 machine with apt: downloads the packages the
#                                     GPU machine lacks into build-gpu-deps/debs (carry that folder)
#   scripts/gpu-check.sh build-only   configure and build exactly what the check builds, no GPU
#                                     needed (CI: with GPU_CHECK_FETCHED_DEPS_ONLY=1 every library
#                                     must come from build-gpu-deps, so a missing package fails)
#   scripts/gpu-check.sh              on the GPU machine: build, test, measure
#
# The GPU machine needs only the CUDA toolkit, Python and NCCL (the toolkit's, or a pip wheel's).
# The table is also written to $OUT/gpu-check.txt and the results, with every step's log, to
# $OUT/gpu-check-results.tar.gz when OUT is set, whatever failed.
#
# No `set -e`: a failing step is recorded and the steps that do not depend on it still run.
set -uo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps_dir="${GPU_CHECK_DEPS_DIR:-${repo_root}/build-gpu-deps}"
build_dir="${GPU_CHECK_BUILD_DIR:-${repo_root}/build-gpu-check}"
results="${build_dir}/gpu-check-results"
tolerance=0.03
mode="${1:-run}"

# What the configure below finds with find_package/find_path (CMakeLists.txt, topology/,
# reports/, tests/) and what its programs load, as Debian 12 packages: Open MPI 4.1 with the
# libraries its programs, libraries and components link (ldd of each), since the nccl backend is
# bootstrapped over MPI and runs under mpirun; SQLite and libpq (with what libpq loads) for the
# run store, which the command line links.
deb_packages=(
  libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 libfccp-dev
  libyaml-cpp-dev libyaml-cpp0.7 libpugixml-dev libpugixml1v5
  libssl-dev libssl3 libgtest-dev libgmock-dev
  openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15 libevent-core-2.1-7
  libevent-pthreads-2.1-7 libfabric1 libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libnuma1
  libucx0 libpsm2-2 libpsm-infinipath1 libmunge2
  libsqlite3-dev libsqlite3-0 libpq-dev libpq5 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0
  libcom-err2 libkeyutils1 libldap-2.5-0 libsasl2-2 libsasl2-modules-db
)

if [[ "${mode}" == "fetch-deps" ]]; then
  rm -rf "${deps_dir}" && mkdir -p "${deps_dir}/debs"
  # apt-get download needs the package lists; a fresh container has none until an update.
  if ! (cd "${deps_dir}/debs" && apt-get -o APT::Sandbox::User=root download "${deb_packages[@]}" >/dev/null); then
    apt-get update -qq && (cd "${deps_dir}/debs" && apt-get -o APT::Sandbox::User=root download "${deb_packages[@]}" >/dev/null) || {
      echo "gpu-check: apt-get download failed; fetch-deps needs a Debian 12 machine with apt" >&2
      exit 3
    }
  fi
  echo "gpu-check: $(ls "${deps_dir}/debs" | wc -l) packages in ${deps_dir}/debs ($(du -sh "${deps_dir}/debs" | cut -f1))"
  exit 0
fi
if [[ "${mode}" != "run" && "${mode}" != "build-only" ]]; then
  echo "gpu-check: unknown mode '${mode}' (fetch-deps, build-only, or none to run the check)" >&2
  exit 2
fi

rm -rf "${results}" && mkdir -p "${results}"
steps=()  # "name|exit code|note" per step, in order

# Runs a step with its output in ${results}/NAME.log (and on the console unless quiet); records its
# exit code. Returns that code.
run_step() {
  local name="$1" show="$2"
  shift 2
  local code
  if [[ "${show}" == show ]]; then
    "$@" 2>&1 | tee "${results}/${name}.log"
    code=${PIPESTATUS[0]}
  else
    "$@" >"${results}/${name}.log" 2>&1
    code=$?
    ((code == 0)) || tail -n 30 "${results}/${name}.log"
  fi
  steps+=("${name}|${code}|")
  return "${code}"
}

# The table of steps (and, when measured, of the comparisons), and the copies to $OUT. Runs
# whatever happened before it.
finish() {
  local status=0 entry name code note
  # Written to the file in this shell (not through a pipe), so the status survives.
  printf '%-28s %-5s %s\n' step exit note >"${results}/gpu-check.txt"
  for entry in "${steps[@]}"; do
    IFS='|' read -r name code note <<<"${entry}"
    printf '%-28s %-5s %s\n' "${name}" "${code}" "${note}" >>"${results}/gpu-check.txt"
    # The script's exit code is the first failing step's own.
    if [[ "${code}" != 0 ]] && ((status == 0)); then status="${code}"; fi
  done
  if [[ -n "${measured:-}" ]]; then
    echo >>"${results}/gpu-check.txt"
    env LD_LIBRARY_PATH="${original_ld_library_path}" python3 "${repo_root}/scripts/gpu-check-table.py" \
      "${results}" "${tolerance}" >>"${results}/gpu-check.txt" 2>&1
    local compare_code=$?
    ((status == 0)) && status=${compare_code}
  fi
  cat "${results}/gpu-check.txt"
  if [[ -n "${OUT:-}" ]]; then
    cp "${results}/gpu-check.txt" "${OUT}/"
    tar -czf "${OUT}/gpu-check-results.tar.gz" -C "${build_dir}" gpu-check-results
  fi
  echo "gpu-check: logs and results in ${results}; exit ${status}"
  exit "${status}"
}

original_ld_library_path="${LD_LIBRARY_PATH:-}"
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DFABRICBENCH_WITH_CUDA=ON -DFABRICBENCH_WITH_MPI=ON
            -DFABRICBENCH_BUILD_TESTS=ON -DFABRICBENCH_BUILD_BENCHMARKS=OFF
            -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}")
mpirun=mpirun

# The fetched packages, unpacked once beside their .debs. Open MPI is relocated to the unpacked
# prefix: OPAL_PREFIX for Open MPI, PMIX_PREFIX and the component path for its PMIx (without the
# last, PMIx finds no components and mpirun prints a help text it cannot find either).
use_fetched_deps() {
  local prefix="${deps_dir}/prefix/usr"
  if [[ ! -f "${deps_dir}/prefix/.unpacked" ]]; then
    rm -rf "${deps_dir}/prefix"
    local deb
    for deb in "${deps_dir}"/debs/*.deb; do dpkg -x "${deb}" "${deps_dir}/prefix" || return 1; done
    touch "${deps_dir}/prefix/.unpacked"
  fi
  local libdir="${prefix}/lib/x86_64-linux-gnu"
  export OPAL_PREFIX="${prefix}" PMIX_PREFIX="${libdir}/pmix2"
  export PMIX_MCA_mca_base_component_path="${libdir}/pmix2/lib/pmix"
  export PATH="${prefix}/bin:${PATH}" LD_LIBRARY_PATH="${libdir}:${libdir}/pmix2/lib:${LD_LIBRARY_PATH:-}"
  mpirun="${prefix}/bin/mpirun.openmpi"
  cmake_args+=(-DCMAKE_PREFIX_PATH="${prefix}" -DFCCP_INCLUDE_DIR="${prefix}/include"
               -DMPI_CXX_COMPILER="${prefix}/bin/mpicxx.openmpi" -DMPIEXEC_EXECUTABLE="${mpirun}")
  if [[ "${GPU_CHECK_FETCHED_DEPS_ONLY:-0}" == 1 ]]; then
    # The system's libraries are invisible to the configure, as on a machine without them.
    cmake_args+=(-DCMAKE_IGNORE_PREFIX_PATH="/usr;/usr/local;/")
    export PKG_CONFIG_LIBDIR="${libdir}/pkgconfig:${prefix}/share/pkgconfig"
  else
    cmake_args+=(-DCMAKE_IGNORE_PREFIX_PATH=)  # not kept from an earlier strict configure
  fi
}

# NCCL: the toolkit's or the system's when there is one, else a pip wheel's (nvidia-nccl-cu*).
# Prints "include_dir library" of the one found.
find_nccl() {
  local nvcc toolkit dir library
  nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  toolkit="$(dirname "$(dirname "$(readlink -f "${nvcc}")")")"
  for dir in ${NCCL_HOME:-} "${toolkit}" /usr/local/cuda /usr; do
    [[ -f "${dir}/include/nccl.h" ]] || continue
    for library in "${dir}"/lib64/libnccl.so "${dir}"/lib/libnccl.so "${dir}"/lib/x86_64-linux-gnu/libnccl.so; do
      [[ -e "${library}" ]] && { echo "${dir}/include ${library}"; return 0; }
    done
  done
  env LD_LIBRARY_PATH="${original_ld_library_path}" python3 - <<'PY'
import importlib.metadata as metadata
for dist in metadata.distributions():
    if not (dist.metadata["Name"] or "").lower().startswith("nvidia-nccl"):
        continue
    files = dist.files or []
    header = next((f for f in files if f.name == "nccl.h"), None)
    library = next((f for f in files if f.name == "libnccl.so.2"), None)
    if header and library:
        print(dist.locate_file(header).parent, dist.locate_file(library))
        raise SystemExit(0)
raise SystemExit(1)
PY
}

nccl_version_code() { sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$1/nccl.h"; }

if [[ -d "${deps_dir}/debs" ]]; then
  # A quiet step runs in this shell, so what use_fetched_deps exports stays for the later steps.
  run_step unpack-deps quiet use_fetched_deps || finish
elif [[ "${GPU_CHECK_FETCHED_DEPS_ONLY:-0}" == 1 ]]; then
  steps+=("unpack-deps|2|GPU_CHECK_FETCHED_DEPS_ONLY=1 but ${deps_dir}/debs is missing: run fetch-deps first")
  finish
fi

ops_without_alltoall=0
if nccl_paths="$(find_nccl)"; then
  read -r nccl_include nccl_library <<<"${nccl_paths}"
  code="$(nccl_version_code "${nccl_include}")"
  if [[ "${nccl_library}" == *.so.2 ]]; then
    # A wheel ships only libnccl.so.2; the linker wants libnccl.so.
    mkdir -p "${build_dir}/nccl-link" && ln -sf "${nccl_library}" "${build_dir}/nccl-link/libnccl.so"
    export LD_LIBRARY_PATH="$(dirname "${nccl_library}"):${LD_LIBRARY_PATH:-}"
    nccl_library="${build_dir}/nccl-link/libnccl.so"
  fi
  cmake_args+=(-DNCCL_INCLUDE_DIR="${nccl_include}" -DNCCL_LIBRARY="${nccl_library}")
  note="NCCL $((code / 10000)).$((code / 100 % 100)).$((code % 100)) from ${nccl_include%/include}"
  if ((code < 22803)); then
    ops_without_alltoall=1
    note+="; no ncclAlltoAll before 2.28.3: alltoall left out"
  fi
  steps+=("find-nccl|0|${note}")
else
  steps+=("find-nccl|1|no nccl.h with libnccl under NCCL_HOME, the CUDA toolkit, /usr or a pip nvidia-nccl wheel")
  finish
fi

run_step configure quiet cmake -S "${repo_root}" -B "${build_dir}" "${cmake_args[@]}" || finish
if [[ "${GPU_CHECK_FETCHED_DEPS_ONLY:-0}" == 1 ]]; then
  # Anything the configure still found outside build-gpu-deps (and the toolkit) would be missing
  # on the GPU machine. Programs other than MPI's (ip, pkg-config, git) are the tests' and the
  # build's own tools, not libraries.
  outside="$(grep -E '^[A-Za-z0-9_]+(_DIR|_LIBRARY|_INCLUDE_DIR|_COMPILER):[A-Z]+=/|^MPIEXEC_EXECUTABLE:' \
               "${build_dir}/CMakeCache.txt" |
             grep -vE "=(${deps_dir}|${build_dir}|/usr/local/cuda|$(readlink -f /usr/local/cuda)|/usr/bin/(c\+\+|g\+\+|gcc|cc))" |
             grep -vE '^(CMAKE_[A-Z_]+|CUDAToolkit_[A-Z_]+|CUDA_[a-zA-Z_]+|_[A-Za-z_]+|[A-Za-z_]+_(SOURCE|BINARY)_DIR):' || true)"
  if [[ -n "${outside}" ]]; then
    steps+=("dependencies|1|found outside ${deps_dir}: ${outside//$'\n'/; }")
    finish
  fi
  steps+=("dependencies|0|every library from ${deps_dir}")
fi

targets=(fabricbench gpu_reference fabricbench_gpu_tests fabricbench_nccl_completion_tests fabricbench_mpi_tests)
run_step build quiet cmake --build "${build_dir}" -j "$(nproc)" --target "${targets[@]}" || finish
[[ "${mode}" == build-only ]] && finish

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  steps+=("gpu|8|no GPU on this machine; run it where nvidia-smi lists one")
  finish
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fabricbench="${build_dir}/fabricbench"
measured=1
run_step gpu-tests show ctest --test-dir "${build_dir}" --output-on-failure \
  -R 'DevicePattern|VisibleGpus|CudaBackend|NcclBackend|CpuList|NumaPlacement|NcclCompletion|CopyCheck'
run_step reference show "${build_dir}/perf/gpu_reference" --iterations 20 --warmups 5
run_step cuda-copies show "${fabricbench}" run h2d_ce d2h_ce local_ce h2d_sm d2h_sm local_sm --backend cuda \
  -b 1G -e 1G -n 20 -w 5 --csv "${results}/cuda.csv" --json "${results}/cuda.json"
run_step nccl-sweep show "${mpirun}" -np 1 "${fabricbench}" run all_reduce sendrecv --backend nccl -b 8 -e 512M \
  --placement out-of-place -n 20 -w 5 --csv "${results}/nccl.csv" --json "${results}/nccl.json"
run_step nccl-graph show "${mpirun}" -np 1 "${fabricbench}" run all_reduce --backend nccl -b 512M -e 512M \
  --placement out-of-place -n 20 -w 5 -G 5 --csv "${results}/nccl-graph.csv" --json "${results}/nccl-graph.json"
collectives=(all_reduce all_gather reduce_scatter broadcast)
((ops_without_alltoall)) || collectives+=(alltoall)
for type in half bfloat16 int8 int32; do
  run_step "nccl-${type}" quiet "${mpirun}" -np 1 "${fabricbench}" run "${collectives[@]}" --backend nccl -e 64M \
    -n 3 -w 1 -d "${type}" --csv "${results}/nccl-${type}.csv" --json "${results}/nccl-${type}.json"
done
finish
