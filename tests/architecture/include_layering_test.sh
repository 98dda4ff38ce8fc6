#!/bin/bash
# The stages may include only the stages below them (docs/architecture.md): a header reached
# across the layering, or an MPI/CUDA header outside the measuring stage, fails this test with
# the file, the line and the rule it breaks.
set -euo pipefail
root=${1:?usage: include_layering_test.sh REPOSITORY_ROOT}
cd "$root"

# stage -> the project folders its files may include (its own folder included).
declare -A allowed=(
  [common]="common"
  [results]="common results"
  [store]="common results store"
  [topology]="common results topology"
  [diagnosis]="common results topology diagnosis"
  [importers]="common results importers"
  [history]="common results store topology diagnosis history"
  [reports]="common results topology diagnosis history reports"
  [doctor]="common results doctor"
  [benchmarks]="common results benchmarks"
  [jobs]="common results store topology diagnosis history importers reports doctor benchmarks jobs"
)
# Headers of the measuring libraries that only benchmarks/ (and the jobs and command line above it) may use.
system_only_in_benchmarks='^\s*#\s*include\s*<(mpi\.h|nccl\.h|cuda[a-z_]*\.h|cuda/.*|cuda_runtime[a-z_]*\.h)>'
# The database libraries: only the store speaks to a database.
database_only_in_store='^\s*#\s*include\s*<(sqlite3\.h|libpq-fe\.h)>'

violations=0
for stage in "${!allowed[@]}"; do
  while IFS= read -r -d '' file; do
    line_number=0
    while IFS= read -r line; do
      line_number=$((line_number + 1))
      if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([a-z_]+)/ ]]; then
        target=${BASH_REMATCH[1]}
        if [[ " ${allowed[$stage]} " != *" $target "* ]]; then
          echo "$file:$line_number: $stage/ may not include $target/ (allowed: ${allowed[$stage]})"
          violations=$((violations + 1))
        fi
      elif [[ $stage != benchmarks && $stage != jobs ]] && [[ $line =~ $system_only_in_benchmarks ]]; then
        echo "$file:$line_number: $stage/ may not include MPI, CUDA or NCCL headers"
        violations=$((violations + 1))
      elif [[ $stage != store ]] && [[ $line =~ $database_only_in_store ]]; then
        echo "$file:$line_number: $stage/ may not include SQLite or libpq headers (only store/ talks to a database)"
        violations=$((violations + 1))
      fi
    done < "$file"
  done < <(find "$stage" \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.h' \) -print0)
done
if ((violations > 0)); then
  echo "$violations include(s) break the layering"
  exit 1
fi
echo "layering holds: ${!allowed[*]}"
