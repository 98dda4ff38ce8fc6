#!/usr/bin/env bash
# fabricbench's 8 B latency against osu_latency's, interleaved: ROUNDS rounds of one
# `fabricbench run latency` and one osu_latency, each under its own `mpirun -np 2` with the same
# binding (mpirun's default for 2 ranks: one core each), the order swapped every round so that
# neither side always runs first. OSU is not part of fabricbench: build osu_latency from its own
# source outside this repository and pass its path (docs/performance.md says how it was built).
#
#   perf/micro/latency_against_osu.sh OSU_LATENCY FABRICBENCH [ROUNDS]
#
# Environment: FABRICBENCH_ARGS replaces the timing flags given to `fabricbench run` (default
# "-n 10000 -w 100", osu_latency's own loop and warm-up at small sizes; "-n auto -w 5" is
# fabricbench's default); RANK_PREFIX runs every rank under a command (such as "chrt -f 1") and
# MPIRUN_ARGS adds mpirun options, both applied to the two sides alike.
#
# Prints one line per round and per side (mean, and fabricbench's median and iteration count),
# then the mean and median over rounds of each side's means and their ratio.
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 OSU_LATENCY FABRICBENCH [ROUNDS]" >&2
  exit 2
fi
osu_latency="$1"
fabricbench="$2"
rounds="${3:-10}"
for program in "${osu_latency}" "${fabricbench}"; do
  if [[ ! -x "${program}" ]]; then
    echo "$0: ${program}: not an executable file" >&2
    exit 2
  fi
done
if ! [[ "${rounds}" =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: ROUNDS must be a positive integer, not '${rounds}'" >&2
  exit 2
fi
read -r -a timing_args <<<"${FABRICBENCH_ARGS:--n 10000 -w 100}"
read -r -a rank_prefix <<<"${RANK_PREFIX:-}"
read -r -a mpirun_args <<<"${MPIRUN_ARGS:-}"
mpirun_command=(mpirun -np 2 "${mpirun_args[@]}")
if ((EUID == 0)); then mpirun_command+=(--allow-run-as-root); fi

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

# osu_latency (5.x) sweeps every size up to 4 MiB, with no option to stop earlier; its job is
# ended once it has printed the 8-byte line (its loop for 8 bytes is over by then), so that the
# sizes nobody reads do not take the cores from the other side and from everything else.
osu_line_for_8_bytes() { awk '$1 == "8" { print $2 }' "${work}/osu.out"; }
run_osu() {
  "${mpirun_command[@]}" "${rank_prefix[@]}" "${osu_latency}" >"${work}/osu.out" 2>&1 &
  local job=$!
  while kill -0 "${job}" 2>/dev/null && [[ -z "$(osu_line_for_8_bytes)" ]]; do sleep 0.05; done
  kill "${job}" 2>/dev/null || true
  wait "${job}" 2>/dev/null || true
  osu_line_for_8_bytes
}

# Prints "mean median iterations" in microseconds from the results file.
run_fabricbench() {
  rm -f "${work}/r.json" "${work}/r.csv"
  "${mpirun_command[@]}" "${rank_prefix[@]}" "${fabricbench}" run latency -b 8 -e 8 -d int8 -c 0 \
    "${timing_args[@]}" --json "${work}/r.json" --csv "${work}/r.csv" >/dev/null
  jq -r '.rows[0] | "\(.time_mean_us) \(.time_median_us) \(.iterations)"' "${work}/r.json"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# fabricbench timing: ${timing_args[*]}; rank prefix: ${RANK_PREFIX:-none}"
printf '%-6s %-12s %10s %12s %8s\n' round side mean_us median_us iters
osu_means=()
fabricbench_means=()
fabricbench_medians=()
for ((round = 1; round <= rounds; ++round)); do
  order=(osu fabricbench)
  if ((round % 2 == 0)); then order=(fabricbench osu); fi
  for side in "${order[@]}"; do
    if [[ "${side}" == osu ]]; then
      mean="$(run_osu)"
      if [[ -z "${mean}" ]]; then
        echo "$0: osu_latency printed no line for 8 bytes" >&2
        exit 1
      fi
      osu_means+=("${mean}")
      printf '%-6s %-12s %10.4f %12s %8s\n' "${round}" osu "${mean}" - 10000
    else
      result="$(run_fabricbench)"
      read -r mean median iterations <<<"${result}"
      fabricbench_means+=("${mean}")
      fabricbench_medians+=("${median}")
      printf '%-6s %-12s %10.4f %12.4f %8s\n' "${round}" fabricbench "${mean}" "${median}" "${iterations}"
    fi
  done
done
echo "# $(date -u +%FT%TZ) load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Mean and median over rounds of one list of numbers.
summary() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1; s += $1 } END {
  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f", s / NR, m }'; }
read -r osu_mean osu_median <<<"$(summary "${osu_means[@]}")"
read -r fb_mean fb_median <<<"$(summary "${fabricbench_means[@]}")"
read -r _ fb_median_of_medians <<<"$(summary "${fabricbench_medians[@]}")"
echo "# over ${rounds} rounds: osu_latency mean ${osu_mean} us (median of rounds ${osu_median});" \
  "fabricbench mean ${fb_mean} us (median of rounds ${fb_median}), its median ${fb_median_of_medians} us"
awk -v f="${fb_mean}" -v o="${osu_mean}" -v fm="${fb_median}" -v om="${osu_median}" \
  'BEGIN { printf "# ratio fabricbench/osu: %.3f (mean over rounds), %.3f (median over rounds)\n", f / o, fm / om }'
