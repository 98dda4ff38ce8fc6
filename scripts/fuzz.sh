#!/usr/bin/env bash
# Builds the topology parsers' libFuzzer targets with clang in build-fuzz/ and runs each for a
# short while (FUZZ_SECONDS, default 20) from a seed corpus of the test samples. Exits non-zero
# when a target crashes, leaks, trips a sanitizer or times out on an input; the reproducer is
# left in build-fuzz/artifacts/.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${repo_root}/build-fuzz"
seconds="${FUZZ_SECONDS:-20}"
samples="${repo_root}/tests/topology/samples"
fixtures="${repo_root}/tests/topology/fixtures"

CC=clang CXX=clang++ cmake -S "${repo_root}/fuzz" -B "${build_dir}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "${build_dir}" -j"${FUZZ_JOBS:-2}"

declare -A seeds=(
  [nvidia_smi]="${samples}/dgx01.topo ${samples}/pcie8.topo"
  [nccl_xml]="${fixtures}/nccl_topo_h100_1gpu.xml"
  [ibnetdiscover]="${samples}/fabric.ibnet"
  [slurm]="${samples}/topology.conf"
  [cluster_yaml]="${samples}/dgx_h100_pod.yaml ${samples}/pcie_box.yaml"
)

mkdir -p "${build_dir}/artifacts"
status=0
for format in "${!seeds[@]}"; do
  corpus="${build_dir}/corpus/${format}"
  mkdir -p "${corpus}"
  # shellcheck disable=SC2086  # the seed list is a space-separated list of paths
  cp ${seeds[${format}]} "${corpus}/"
  echo "== fuzz_topology_${format}: ${seconds} s"
  if ! "${build_dir}/fuzz_topology_${format}" "${corpus}" -max_total_time="${seconds}" -max_len=65536 \
      -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="${build_dir}/artifacts/${format}-" 2>"${build_dir}/fuzz_${format}.log"; then
    echo "fuzz_topology_${format} FAILED; see ${build_dir}/fuzz_${format}.log and ${build_dir}/artifacts/" >&2
    tail -n 30 "${build_dir}/fuzz_${format}.log" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units' "${build_dir}/fuzz_${format}.log" || true
  fi
done
exit "${status}"
