#!/usr/bin/env bash
# Golden outputs: the judging and rendering commands (diagnose, report, accept, compare, topo
# analyze/predict/compare, history) run by the built fabricbench on shipped inputs, each case's
# exit code, standard output, standard error and written files held byte for byte against
# tests/golden/expected/CASE.txt (ctest's golden.outputs, label unit).
#
#   tests/golden/golden_test.sh FABRICBENCH REPOSITORY_ROOT [CASE_REGEX]
#       compare: prints a unified diff for every case that moved and fails
#   tests/golden/golden_test.sh --update FABRICBENCH REPOSITORY_ROOT [CASE_REGEX]
#       record: writes expected/CASE.txt from this binary (and, without CASE_REGEX, removes
#       expected files of cases that no longer exist)
#
# The expected files were recorded with the binary of main at 8f2f229, before issue #37's
# refactoring. A change to a case's expected file is a change of what fabricbench prints: make it
# only on purpose, and list it (tests/golden/README.md lists the cases and the changes made).
#
# Only what cannot repeat is normalized: the temporary directory (@TMP@), the repository
# (@REPO@) and the binary (@FABRICBENCH@) in paths (also as HTML writes them, with <wbr>), today's
# UTC date and time where a command stamps the moment it ran (@NOW@: topo predict's rows and
# provenance, the run store's records, drain lists), and provenance's git_revision (@REVISION@: a
# prediction names the binary's own commit). Nothing else is filtered. Inputs: tests/golden/inputs/
# (tests/golden/make_inputs.py wrote them), tests/topology, tests/fabric/specs,
# tests/reports/samples, tests/corpus/logs, docs/examples, reports/thresholds and plans/thresholds.
set -uo pipefail
export LC_ALL=C TZ=UTC

update=0
if [[ "${1:-}" == "--update" ]]; then
  update=1
  shift
fi
binary="${1:?usage: golden_test.sh [--update] FABRICBENCH REPOSITORY_ROOT [CASE_REGEX]}"
repo="$(cd "${2:?usage: golden_test.sh [--update] FABRICBENCH REPOSITORY_ROOT [CASE_REGEX]}" && pwd)"
only="${3:-}"
binary="$(cd "$(dirname "${binary}")" && pwd)/$(basename "${binary}")"
[[ -x "${binary}" ]] || { echo "golden: ${binary} is not an executable" >&2; exit 2; }

expected_dir="${repo}/tests/golden/expected"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/fabricbench-golden.XXXXXX")"
trap 'rm -rf "${tmp}"' EXIT
start_day="$(date -u +%F)"

golden="${repo}/tests/golden/inputs"
ftree="${repo}/tests/topology/fixtures/forwarding/ftree"
samples="${repo}/tests/reports/samples"
corpus="${repo}/tests/corpus/logs"
topology_samples="${repo}/tests/topology/samples"
specs="${repo}/tests/fabric/specs"
examples="${repo}/docs/examples"
imports="${tmp}/imports"
store="${tmp}/history.sqlite"

# What cannot repeat from run to run, replaced by a token (longest paths first: the binary may
# live inside the repository, the temporary directory inside neither).
normalize() {
  local day end_day
  end_day="$(date -u +%F)"
  local -a expressions=() paths=("${binary}" "${repo}" "${tmp}") tokens=(@FABRICBENCH@ @REPO@ @TMP@)
  local i
  for i in "${!paths[@]}"; do
    # As written, and as the HTML pages write a path: a line-break opportunity after each separator.
    expressions+=(-e "s#${paths[i]}#${tokens[i]}#g"
      -e "s#$(sed -E 's#([/_.:-])#\1<wbr>#g' <<<"${paths[i]}")#${tokens[i]}#g")
  done
  for day in "${start_day}" "${end_day}"; do
    expressions+=(-e "s#${day}[T ][0-9][0-9]:[0-9][0-9]:[0-9][0-9](\.[0-9]+)?Z?#@NOW@#g")
    # A run id of the moment: 20261129T054812Z
    expressions+=(-e "s#${day//-/}T[0-9]{6}Z#@NOW@#g")
  done
  # The revision a prediction's provenance names is the binary's own (git describe at build time),
  # different for every commit; the inputs' revisions are normalized alike, unchanged as they are.
  expressions+=(-e 's/("git_revision": ?")[^"]*"/\1@REVISION@"/g' -e 's/^(# git_revision: ).*/\1@REVISION@/')
  sed -E "${expressions[@]}"
}

cases_run=0
failed=()
declare -A seen=()

# golden NAME [FILE...] -- ARG...: runs `fabricbench ARG...` in a directory of its own and
# records its exit code, standard output, standard error and each FILE it wrote there.
golden() {
  local name="$1"
  shift
  local -a files=()
  while [[ "$1" != "--" ]]; do
    files+=("$1")
    shift
  done
  shift
  seen["${name}"]=1
  [[ -n "${only}" && ! "${name}" =~ ${only} ]] && return 0
  cases_run=$((cases_run + 1))
  local dir="${tmp}/cases/${name}"
  mkdir -p "${dir}"
  local status=0
  (cd "${dir}" && "${binary}" "$@" >"${dir}/.stdout" 2>"${dir}/.stderr") || status=$?
  local actual="${tmp}/cases/${name}.txt"
  {
    echo "\$ fabricbench $*"
    echo "exit: ${status}"
    echo "--- stdout"
    cat "${dir}/.stdout"
    echo "--- stderr"
    cat "${dir}/.stderr"
    local file
    for file in "${files[@]}"; do
      echo "--- file ${file}"
      if [[ -f "${dir}/${file}" ]]; then cat "${dir}/${file}"; else echo "(not written)"; fi
    done
  } | normalize >"${actual}"
  local expected="${expected_dir}/${name}.txt"
  if ((update)); then
    cp "${actual}" "${expected}"
  elif [[ ! -f "${expected}" ]]; then
    echo "golden: ${name}: no expected file ${expected#"${repo}"/} (record it with --update)"
    failed+=("${name}")
  elif ! cmp -s "${expected}" "${actual}"; then
    echo "golden: ${name} moved:"
    diff -u --label "expected/${name}.txt" --label "actual" "${expected}" "${actual}" | head -n 60
    failed+=("${name}")
  fi
}

# A step the cases read from, not itself a case: it must succeed.
setup() {
  local output
  if ! output="$(cd "${tmp}" && "${binary}" "$@" 2>&1)"; then
    echo "golden: setup failed: fabricbench $*" >&2
    echo "${output}" >&2
    exit 1
  fi
}

if ((!update)) && ! compgen -G "${expected_dir}/*.txt" >/dev/null; then
  # ctest shows it as skipped (SKIP_RETURN_CODE 77), not passed: nothing was compared.
  echo "golden: no expected outputs in ${expected_dir#"${repo}"/}: record them with --update from the binary of main at 8f2f229" >&2
  exit 77
fi
mkdir -p "${expected_dir}" "${tmp}/cases"

# Logs of other tools as results (import's own output is a case below).
setup import "${corpus}/nccl_test_result_a3mega_h100_2node_np16.md" -o "${imports}/a3mega"
setup import "${corpus}/all_gather_perf_2x_gb10_spark_switch_rsfec_normal.log" -o "${imports}/spark_normal"
setup import "${corpus}/all_gather_perf_2x_gb10_spark_directcable_nofec_degraded.log" -o "${imports}/spark_degraded"
setup import "${corpus}/all_gather_perf_mpi_3reps_one_file_rtx5090.log" -o "${imports}/rtx5090_3reps"
setup import "${corpus}/all_reduce_perf_rccltests_mi300x_vf_8gpu.log" -o "${imports}/mi300x"
setup import "${corpus}/osu7.5_latency_validation_host_alps_cxi.txt" \
  "${corpus}/osu7.5_bw_validation_host_alps_no_cxi_degraded.txt" -o "${imports}/osu_alps"
setup import "${samples}/all_reduce_perf_2x4.log" -o "${imports}/nccl_2x4"

# shellcheck source=tests/golden/cases.sh
source "${repo}/tests/golden/cases.sh"

if ((update)); then
  if [[ -z "${only}" ]]; then
    for expected in "${expected_dir}"/*.txt; do
      name="$(basename "${expected}" .txt)"
      [[ -n "${seen[${name}]:-}" ]] || { rm -f "${expected}"; echo "golden: removed ${name}.txt (no such case)"; }
    done
  fi
  echo "golden: recorded ${cases_run} cases in ${expected_dir#"${repo}"/}"
  exit 0
fi
if [[ -z "${only}" ]]; then
  for expected in "${expected_dir}"/*.txt; do
    name="$(basename "${expected}" .txt)"
    [[ -n "${seen[${name}]:-}" ]] || { echo "golden: expected/${name}.txt has no case"; failed+=("${name}"); }
  done
fi
if ((${#failed[@]} > 0)); then
  echo "golden: ${#failed[@]} of ${cases_run} cases differ: ${failed[*]}"
  echo "golden: a deliberate change: tests/golden/golden_test.sh --update FABRICBENCH . '^CASE$', and list it in tests/golden/README.md"
  exit 1
fi
echo "golden: ${cases_run} cases byte-identical"
