#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang in build-fuzz/ and runs each for a short while
# (FUZZ_SECONDS, default 20) from a seed corpus of the project's own samples. Exits non-zero when
# a target crashes, leaks, trips a sanitizer or times out on an input; the reproducer is left in
# build-fuzz/artifacts/.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${repo_root}/build-fuzz"
seconds="${FUZZ_SECONDS:-20}"
topology_samples="${repo_root}/tests/topology/samples"

# Only what the parsers need: no MPI, no CUDA, no tests or benchmarks.
CC=clang CXX=clang++ cmake -S "${repo_root}" -B "${build_dir}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFABRICBENCH_BUILD_FUZZERS=ON -DFABRICBENCH_WITH_MPI=OFF -DFABRICBENCH_WITH_CUDA=OFF \
  -DFABRICBENCH_BUILD_TESTS=OFF -DFABRICBENCH_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "${build_dir}" -j"${FUZZ_JOBS:-$(nproc)}" --target fuzzers

declare -A seeds=(
  # Every topology sample and real dump: each is read by every registered format.
  [topology_formats]="$(find "${topology_samples}" "${repo_root}/tests/topology/fixtures" "${repo_root}/tests/corpus/topology" \
    -type f ! -name '*.md' | sort | tr '\n' ' ')"
  [results_json]="${repo_root}/fuzz/seeds/results.json"
  [results_csv]="${repo_root}/fuzz/seeds/results.csv"
  [imported_logs]="$(echo "${repo_root}"/tests/reports/samples/* "${repo_root}"/tests/corpus/logs/*)"
  [thresholds]="$(echo "${repo_root}"/reports/thresholds/*.yaml)"
)

# Inputs up to 4 MiB: a reader whose cost grows faster than its input shows it only on inputs of
# megabytes (fuzz/make_large_seeds.sh writes seeds that large).
max_len=$((4 << 20))
"${repo_root}/fuzz/make_large_seeds.sh" "${build_dir}/corpus"

mkdir -p "${build_dir}/artifacts"
status=0
for target in "${!seeds[@]}"; do
  corpus="${build_dir}/corpus/${target}"
  mkdir -p "${corpus}"
  # Seeds from several folders may share a name (each folder's SOURCES.md): the folder prefixes it.
  # shellcheck disable=SC2086  # the seed list is a space-separated list of paths
  for seed in ${seeds[${target}]}; do
    cp "${seed}" "${corpus}/$(basename "$(dirname "${seed}")")-$(basename "${seed}")"
  done
  echo "== fuzz_${target}: ${seconds} s"
  if ! "${build_dir}/fuzz/fuzz_${target}" "${corpus}" -max_total_time="${seconds}" -max_len="${max_len}" \
      -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="${build_dir}/artifacts/${target}-" 2>"${build_dir}/fuzz_${target}.log"; then
    echo "fuzz_${target} FAILED; see ${build_dir}/fuzz_${target}.log and ${build_dir}/artifacts/" >&2
    tail -n 30 "${build_dir}/fuzz_${target}.log" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units' "${build_dir}/fuzz_${target}.log" || true
  fi
done
exit "${status}"
