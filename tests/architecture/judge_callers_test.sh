#!/usr/bin/env bash
# Judgements live in diagnosis/, rendering in reports/: checked on who calls what, not on file
# names. Reads the symbols of the built static libraries and fails when an object of the reports
# stage references (an undefined symbol) a function the diagnosis library defines, other than the
# non-judging helpers allowed below. A judgement reaches a renderer as data (a result the
# command line judged and handed over), never as a call from the renderer.
#
#   judge_callers_test.sh --diagnosis LIB.a --reports LIB.a [LIB.a|OBJ.o ...] [--planted OBJ.o]
#
# --planted names an object built from planted_judge_call.cpp, which calls
# fb::diagnosis::judge_checks on purpose: the checker is run once more with it added to the
# reports' objects and must then fail naming that call, so the test shows it can fail.
# Without --planted only the real libraries are checked.
set -euo pipefail

diagnosis_lib=""
reports_inputs=()
planted=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --diagnosis) diagnosis_lib="$2"; shift 2 ;;
    --reports) shift; while [[ $# -gt 0 && "$1" != --* ]]; do reports_inputs+=("$1"); shift; done ;;
    --planted) planted="$2"; shift 2 ;;
    *) echo "judge_callers: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "${diagnosis_lib}" || ${#reports_inputs[@]} -eq 0 ]]; then
  echo "usage: judge_callers_test.sh --diagnosis LIB.a --reports LIB.a... [--planted OBJ.o]" >&2
  exit 2
fi
for input in "${diagnosis_lib}" "${reports_inputs[@]}" ${planted:+"${planted}"}; do
  [[ -f "${input}" ]] || { echo "judge_callers: ${input} is missing: build the libraries first" >&2; exit 2; }
done

# Functions of the diagnosis library a renderer may call: none of them decides anything, each
# names or reads what a judgement already decided. One extended regular expression per line,
# matched against the demangled name without its parameters.
allowed=(
  # Enum values as the words every output prints (Decision, CheckKind, VerdictStatus, Finding::Kind, ...).
  '^fb::diagnosis::name_of$'
  # A Finding's own accessors: the text of its evidence and its measured/expected ratio.
  '^fb::diagnosis::Finding::[a-z_]+$'
  # A drain list's reasons for a host, as the judgement wrote them.
  '^fb::diagnosis::DrainList::reason_of$'
  # The fabric judgement's findings that are not the model's, in their order (a concatenation).
  '^fb::diagnosis::FabricJudgement::row_findings$'
  # Whether a comparison's significance rests on a recorded spread: a property of the enum value.
  '^fb::diagnosis::spread_recorded$'
  # The fabric cables of a host, looked up in the topology for the per-cable gauges.
  '^fb::diagnosis::host_cables$'
  # The words a trend page marks a run with, read off a drift already judged (a formatter that
  # belongs in reports/; listed until it moves).
  '^fb::diagnosis::drift_marks$'
)

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

# Strong definitions (T) only: inline functions and template instances are weak (W) copies in
# every object that uses them, so they name no library. POSIX output: "NAME TYPE VALUE SIZE".
nm -P --defined-only "${diagnosis_lib}" 2>/dev/null | awk '$2 == "T" { print $1 }' | sort -u >"${work}/defined"

# Undefined references of one input, as "OBJECT<TAB>MANGLED"; an archive lists its members.
references() {
  nm -A -P -u "$1" 2>/dev/null | awk '{ name = $1; sub(/:$/, "", name); print name "\t" $2 }'
}

# Prints "OBJECT: DEMANGLED" for every reference of the inputs to a diagnosis function not allowed.
offending_calls() {
  local input
  for input in "$@"; do references "${input}"; done | sort -u >"${work}/references"
  # Keep the references whose symbol the diagnosis library defines.
  awk -F'\t' 'NR == FNR { defined[$1] = 1; next } ($2 in defined)' "${work}/defined" "${work}/references" |
    while IFS=$'\t' read -r object symbol; do
      local demangled name pattern ok=0
      demangled="$(c++filt "${symbol}")"
      name="${demangled%%(*}"
      name="${name//\[abi:cxx11\]/}"  # evidence_text[abi:cxx11]: the std::string ABI's tag, not the name
      for pattern in "${allowed[@]}"; do
        [[ "${name}" =~ ${pattern} ]] && ok=1 && break
      done
      [[ ${ok} -eq 1 ]] || printf '%s: %s\n' "${object##*/}" "${demangled}"
    done | sort -u
}

if [[ ! -s "${work}/defined" ]]; then
  echo "judge_callers: ${diagnosis_lib} defines no functions: is it the diagnosis library?" >&2
  exit 1
fi
status=0

if [[ -n "${planted}" ]]; then
  # The planted call must be found, or the checker cannot be trusted to find a real one.
  planted_report="$(offending_calls "${planted}")"
  if ! grep -q 'fb::diagnosis::judge_checks(' <<<"${planted_report}"; then
    echo "judge_callers: FAILED to flag the planted call of fb::diagnosis::judge_checks in ${planted}" >&2
    echo "${planted_report}" >&2
    status=1
  else
    echo "judge_callers: the planted call is flagged: ${planted_report}"
  fi
fi

report="$(offending_calls "${reports_inputs[@]}")"
if [[ -n "${report}" ]]; then
  echo "judge_callers: reports/ objects call judging functions of the diagnosis library" \
    "(judge in diagnosis/ via the command, hand the renderer the result):" >&2
  echo "${report}" >&2
  status=1
else
  echo "judge_callers: reports/ objects call no diagnosis function outside the allowlist" \
    "($(wc -l <"${work}/defined") functions defined in ${diagnosis_lib##*/})"
fi
exit "${status}"
