#!/usr/bin/env bash
# Run-to-run spread of fabricbench numbers under different flags, measured fairly on a shared
# machine: the configurations are interleaved (A B C A B C ...), so a burst of other work lands on
# all of them alike rather than on whichever ran during it. Each run is one fresh
# `mpirun -np NP build/fabricbench run FLAGS`, one row (give a single op and -b = -e).
#
#   scripts/run-spread.sh [--runs N] [--np NP] LABEL='[MPIRUN_ARGS --] FLAGS' ...
#   e.g. scripts/run-spread.sh --runs 10 'n20=bw -b 4M -e 4M -n 20' 'auto=bw -b 4M -e 4M' \
#                                        'unbound=--bind-to none -- bw -b 4M -e 4M'
#
# The figure per run is the row's headline: time_median_us for latency ops, busbw_gbps for the
# rest. Per configuration it prints their median, (max - min) / median and coefficient of
# variation (sample standard deviation / mean), the same for the best iteration's figure (the
# fastest window of bw: the least disturbed by other work), the iterations the rows recorded,
# the mean wall seconds of one run (mpirun included), the 1-minute load average seen before its
# runs (min-max) and the figures in run order. The raw per-run lines go to RUN_SPREAD_LOG
# (default run-spread.log in the current directory). FABRICBENCH names another binary than
# build/fabricbench (one that execs "$FB_BIN" with 'x=-x FB_BIN=PATH -- FLAGS' compares builds).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${FABRICBENCH:-${repo_root}/build/fabricbench}"
runs=10
np=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --np) np="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) break ;;
  esac
done
if [[ $# -lt 1 ]]; then
  echo "run-spread: give at least one LABEL='FLAGS' configuration (--help)" >&2
  exit 2
fi
[[ -x "${binary}" ]] || { echo "run-spread: ${binary} is not built (cmake --build build --target fabricbench)" >&2; exit 2; }

labels=(); mpirun_args=(); flags=()
for configuration in "$@"; do
  [[ "${configuration}" == *=* ]] || { echo "run-spread: '${configuration}' is not LABEL='FLAGS'" >&2; exit 2; }
  labels+=("${configuration%%=*}")
  command="${configuration#*=}"
  if [[ "${command}" == *" -- "* ]]; then
    mpirun_args+=("${command%% -- *}"); flags+=("${command#* -- }")
  else
    mpirun_args+=(""); flags+=("${command}")
  fi
done

log="${RUN_SPREAD_LOG:-run-spread.log}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
: >"${log}"

# One row's headline figure, its best-iteration figure (latency: time_min_us; bandwidth: the
# fastest iteration's busbw) and its iterations, from the CSV header's column names.
row_figures() {
  awk -F, '/^#/ {next} !header {for (i = 1; i <= NF; i++) column[$i] = i; header = 1; next}
           {if ($column["op"] ~ /latency$/) print $column["time_median_us"], $column["time_min_us"], $column["iterations"]
            else print $column["busbw_gbps"], $column["busbw_gbps"] * $column["time_median_us"] / $column["time_min_us"],
                       $column["iterations"]
            exit}' "$1"
}

for ((run = 1; run <= runs; run++)); do
  for i in "${!labels[@]}"; do
    rm -f "${work}/row.csv" "${work}/row.json"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    started="$(date +%s.%N)"
    # shellcheck disable=SC2086  # FLAGS and ARGS are word lists on purpose
    mpirun --allow-run-as-root --oversubscribe -np "${np}" ${mpirun_args[i]} "${binary}" run ${flags[i]} \
      --csv "${work}/row.csv" --json "${work}/row.json" >"${work}/out.txt" 2>&1 ||
      { echo "run-spread: ${labels[i]} run ${run} failed:" >&2; grep -v "^#" "${work}/out.txt" | head -5 >&2; exit 1; }
    ended="$(date +%s.%N)"
    read -r figure best iterations < <(row_figures "${work}/row.csv")
    echo "${labels[i]} ${run} ${figure} ${iterations} $(awk -v a="${started}" -v b="${ended}" 'BEGIN {print b - a}') ${load} ${best}" |
      tee -a "${log}" >&2
  done
done

# Log fields: label run figure iterations wall_s load best.
printf '%-10s %-9s %-7s %-7s %-9s %-7s %-7s %-12s %-7s %-10s %s\n' label median spread cv best_med best_sp best_cv \
  iters wall_s load figures
for label in "${labels[@]}"; do
  awk -v label="${label}" '
    # median, (max - min) / median and CV of x[1..n]
    function spread_of(x, n,    s, i, j, y, median, mean, ss) {
      for (i = 1; i <= n; i++) s[i] = x[i]
      for (i = 2; i <= n; i++) {y = s[i]; for (j = i - 1; j >= 1 && s[j] > y; j--) s[j + 1] = s[j]; s[j + 1] = y}
      median = (n % 2) ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
      for (i = 1; i <= n; i++) mean += x[i] / n
      for (i = 1; i <= n; i++) ss += (x[i] - mean) ^ 2
      return sprintf("%-9.4g %-7s %-7s", median, sprintf("%.1f%%", 100 * (s[n] - s[1]) / median),
                     sprintf("%.1f%%", n > 1 ? 100 * sqrt(ss / (n - 1)) / mean : 0))
    }
    $1 == label {n++; v[n] = $3; b[n] = $7; wall += $5
                 if (n == 1 || $4 < imin) imin = $4; if (n == 1 || $4 > imax) imax = $4
                 if (n == 1 || $6 < lmin) lmin = $6; if (n == 1 || $6 > lmax) lmax = $6}
    END {
      figures = ""; for (i = 1; i <= n; i++) figures = figures sprintf("%.4g ", v[i])
      printf "%-10s %s %s %-12s %-7.2f %-10s %s\n", label, spread_of(v, n), spread_of(b, n),
             (imin == imax) ? imin : imin "-" imax, wall / n, lmin "-" lmax, figures
    }' "${log}"
done
