#!/usr/bin/env bash
# Builds the GPU backends on a GPU machine, runs their tests, and measures them against bare
# loops in the same run (perf/gpu_reference): host<->device and device-local copies against
# cudaMemcpyAsync over pinned 1 GiB buffers, NCCL all_reduce (one rank, out of place, 512 MiB)
# against ncclAllReduce. Prints a table; exits non-zero when a ratio is off by more than 3% or any
# result is wrong.
#
#   scripts/gpu-check.sh fetch-deps   on a Debian machine with apt: unpacks the libraries the GPU
#                                     machine lacks into build-gpu-deps/ (carry that folder there)
#   scripts/gpu-check.sh              on the GPU machine: build, test, measure
#
# The table is also written to $OUT/gpu-check.txt when OUT is set.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps_dir="${repo_root}/build-gpu-deps"
build_dir="${GPU_CHECK_BUILD_DIR:-${repo_root}/build-gpu-check}"
tolerance=0.03

if [[ "${1:-}" == "fetch-deps" ]]; then
  # Header-only or small libraries the build needs and the GPU machine's image does not have.
  packages=(libcli11-dev nlohmann-json3-dev libfccp-dev libyaml-cpp-dev libyaml-cpp0.7 libpugixml-dev libpugixml1v5)
  rm -rf "${deps_dir}" && mkdir -p "${deps_dir}/debs"
  (cd "${deps_dir}/debs" && apt-get download "${packages[@]}")
  for deb in "${deps_dir}"/debs/*.deb; do dpkg -x "${deb}" "${deps_dir}/prefix"; done
  rm -rf "${deps_dir}/debs"
  echo "gpu-check: libraries unpacked into ${deps_dir}/prefix"
  exit 0
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no GPU on this machine; run it where nvidia-smi lists one" >&2
  exit 8
fi

cmake_args=(-DCMAKE_BUILD_TYPE=Release -DFABRICBENCH_WITH_CUDA=ON -DFABRICBENCH_WITH_MPI=ON
            -DFABRICBENCH_BUILD_BENCHMARKS=OFF -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}")
[[ -d "${deps_dir}/prefix" ]] && cmake_args+=(-DCMAKE_PREFIX_PATH="${deps_dir}/prefix/usr"
                                              -DFCCP_INCLUDE_DIR="${deps_dir}/prefix/usr/include")
# NCCL from the Python wheel when the system has none: headers in include/, libnccl.so.2 in lib/.
if ! ldconfig -p | grep -q 'libnccl\.so'; then
  nccl_root="$(python3 -c 'import nvidia.nccl; print(nvidia.nccl.__path__[0])')"
  nccl_link_dir="${build_dir}/nccl-link"
  mkdir -p "${nccl_link_dir}"
  ln -sf "${nccl_root}/lib/libnccl.so.2" "${nccl_link_dir}/libnccl.so"
  cmake_args+=(-DNCCL_INCLUDE_DIR="${nccl_root}/include" -DNCCL_LIBRARY="${nccl_link_dir}/libnccl.so")
  export LD_LIBRARY_PATH="${nccl_root}/lib:${LD_LIBRARY_PATH:-}"
fi
[[ -d "${deps_dir}/prefix" ]] && export LD_LIBRARY_PATH="${deps_dir}/prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"

cmake -S "${repo_root}" -B "${build_dir}" "${cmake_args[@]}" >/dev/null
cmake --build "${build_dir}" -j "$(nproc)" --target fabricbench gpu_reference fabricbench_gpu_tests fabricbench_mpi_tests
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir "${build_dir}" --output-on-failure -R 'DevicePattern|VisibleGpus|CudaBackend|NcclBackend|CpuList|NumaPlacement'

results="${build_dir}/gpu-check-results"
rm -rf "${results}" && mkdir -p "${results}"
"${build_dir}/gpu_reference" --iterations 20 | tee "${results}/reference.txt"
"${build_dir}/fabricbench" run h2d_ce d2h_ce local_ce h2d_sm d2h_sm local_sm --backend cuda -b 1G -e 1G -n 20 -w 5 \
  --csv "${results}/cuda.csv" --json "${results}/cuda.json"
mpirun --allow-run-as-root -np 1 "${build_dir}/fabricbench" run all_reduce sendrecv --backend nccl -b 8 -e 512M \
  --placement out-of-place -n 20 -w 5 --csv "${results}/nccl.csv" --json "${results}/nccl.json"
mpirun --allow-run-as-root -np 1 "${build_dir}/fabricbench" run all_reduce --backend nccl -b 512M -e 512M \
  --placement out-of-place -n 20 -w 5 -G 5 --csv "${results}/nccl-graph.csv" --json "${results}/nccl-graph.json"
for type in half bfloat16 int8 int32; do
  mpirun --allow-run-as-root -np 1 "${build_dir}/fabricbench" run all_reduce all_gather reduce_scatter broadcast \
    alltoall --backend nccl -e 64M -n 3 -w 1 -d "${type}" --csv "${results}/nccl-${type}.csv" \
    --json "${results}/nccl-${type}.json" >/dev/null
done

status=0
python3 - "${results}" "${tolerance}" <<'PY' | tee "${results}/gpu-check.txt" || status=$?
import csv, glob, os, sys
results, tolerance = sys.argv[1], float(sys.argv[2])
reference = dict(line.split() for line in open(os.path.join(results, "reference.txt")))
rows = [row for path in glob.glob(os.path.join(results, "*.csv")) for row in csv.DictReader(open(path))]
def measured(path, op, size):
    for row in csv.DictReader(open(os.path.join(results, path))):
        if row["op"] == op and int(row["bytes"]) == size and row["in_place"] == "false":
            return float(row["algbw_gbps"])
    raise SystemExit(f"gpu-check: no {op} {size} B row in {path}")
checks = [("host->device (copy engine)", measured("cuda.csv", "h2d_ce", 1 << 30), float(reference["h2d_gbps"])),
          ("device->host (copy engine)", measured("cuda.csv", "d2h_ce", 1 << 30), float(reference["d2h_gbps"])),
          ("device-local (copy engine)", measured("cuda.csv", "local_ce", 1 << 30), float(reference["local_gbps"])),
          ("nccl all_reduce 512 MiB", measured("nccl.csv", "all_reduce", 512 << 20),
           float(reference["all_reduce_algbw_gbps"])),
          ("nccl all_reduce 512 MiB, -G 5", measured("nccl-graph.csv", "all_reduce", 512 << 20),
           float(reference["all_reduce_algbw_gbps"]))]
failed = False
print(f"{'check':34} {'fabricbench GB/s':>17} {'reference GB/s':>15} {'ratio':>7}")
for name, ours, theirs in checks:
    ratio = ours / theirs
    ok = abs(ratio - 1) <= tolerance
    failed |= not ok
    print(f"{name:34} {ours:17.2f} {theirs:15.2f} {ratio:7.3f}{'' if ok else '  OUTSIDE 3%'}")
for name in ("h2d_sm", "d2h_sm", "local_sm"):
    print(f"{name + ' (SM kernel)':34} {measured('cuda.csv', name, 1 << 30):17.2f}")
wrong = sum(int(row["wrong"] or 0) for row in rows)
checked = sum(1 for row in rows if row["wrong"] != "")
print(f"wrong elements: {wrong} in {checked} checked rows ({len(rows)} rows)")
sys.exit(1 if failed or wrong else 0)
PY
[[ -n "${OUT:-}" ]] && cp "${results}/gpu-check.txt" "${results}"/*.csv "${OUT}/"
exit "${status}"
