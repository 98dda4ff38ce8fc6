#!/bin/bash
# Where things live (docs/architecture.md): diagnosis/ is the one home of judgements and of the one
# finding type; no source file grows past 800 lines; a function left above the cognitive-complexity
# threshold (.clang-tidy) says why in the line that keeps it there. Each break is printed with the
# file, the line and the rule.
set -euo pipefail
root=${1:?usage: stage_rules_test.sh REPOSITORY_ROOT}
cd "$root"

max_lines=800
stages=(common results topology diagnosis history importers reports doctor benchmarks store jobs cli perf fuzz tests)
existing=()
for stage in "${stages[@]}"; do [[ -d $stage ]] && existing+=("$stage"); done
mapfile -d '' sources < <(find "${existing[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' \) -print0)

violations=0
report() {
  echo "$1"
  violations=$((violations + 1))
}

# One finding type: fb::diagnosis::Finding in diagnosis/finding.hpp.
while IFS= read -r hit; do
  [[ $hit == diagnosis/finding.hpp:* ]] && continue
  report "$hit: a second finding type (findings are diagnosis::Finding, diagnosis/finding.hpp)"
done < <(grep -nE '^\s*(struct|class)\s+[A-Za-z_]*(Finding|Suspect)\s*[{:]' "${sources[@]}" || true)

# Judgements in diagnosis/: the files that judge, and the types that carry a judgement.
judgement_files='^(topology_diagnosis|expectation_columns|host_outliers|verdict|report_verdict|acceptance|acceptance_judgement|fabric_judgement|thresholds|efficiency|drain_list|comparison|finding)\.(cpp|hpp)$'
judgement_types='^\s*(struct|class)\s+(Diagnosis|ReportVerdict|ReportJudgement|AcceptanceJudgement|FabricJudgement|FindingTicket|ExpectationColumns|HostOutliers|AcceptanceVerdict|CheckResult|EfficiencySummary|DrainList|Comparison)\s*[{:]'
for file in "${sources[@]}"; do
  [[ $file == diagnosis/* || $file == tests/* ]] && continue
  if [[ $(basename "$file") =~ $judgement_files ]]; then
    report "$file: a judgement outside diagnosis/ (move it to diagnosis/)"
  fi
  while IFS= read -r hit; do
    report "$file:${hit%%:*}: a judgement's type outside diagnosis/"
  done < <(grep -nE "$judgement_types" "$file" || true)
done

# Size: a file past the limit is split along its seams.
for file in "${sources[@]}"; do
  lines=$(wc -l <"$file")
  ((lines <= max_lines)) || report "$file: $lines lines, over $max_lines"
done

# A function kept above the complexity threshold carries its reason:
#   // NOLINTNEXTLINE(readability-function-cognitive-complexity): one flat switch over the op catalog
while IFS= read -r hit; do
  report "$hit: a complexity exemption without its reason (NOLINT...(readability-function-cognitive-complexity): why)"
done < <(grep -nE 'NOLINT(NEXTLINE|BEGIN)?\(readability-function-cognitive-complexity\)\s*(:\s*)?$' "${sources[@]}" || true)

if ((violations > 0)); then
  echo "$violations break(s) of where things live"
  exit 1
fi
echo "stage rules hold over ${#sources[@]} files: one finding type, judgements in diagnosis/, files <= $max_lines lines"
