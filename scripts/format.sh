#!/usr/bin/env bash
# Formats the C++ and CUDA sources with clang-format (.clang-format at the top): the tracked ones
# and the new ones git does not ignore yet, so a file is formatted before its first commit.
#   scripts/format.sh           rewrites the files in place
#   scripts/format.sh --check   changes nothing; lists the files that differ and how many lines,
#                               and exits 1 when any does
# Files or folders after the options limit it to those (default: the whole tree).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"
clang_format="${CLANG_FORMAT:-clang-format}"

check=0
if [[ "${1:-}" == "--check" ]]; then
  check=1
  shift
fi
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- "${@:-.}" | grep -E '\.(cpp|hpp|h|cu|cuh)$')

if ((!check)); then
  "${clang_format}" -i --style=file "${files[@]}"
  exit 0
fi

differing=0
changed_lines=0
for file in "${files[@]}"; do
  lines=$("${clang_format}" --style=file "${file}" | diff -U0 "${file}" - | grep -c '^-[^-]' || true)
  if ((lines > 0)); then
    echo "${file}: ${lines} lines would change"
    differing=$((differing + 1))
    changed_lines=$((changed_lines + lines))
  fi
done
if ((differing > 0)); then
  echo "format: ${differing} of ${#files[@]} files differ from .clang-format (${changed_lines} lines); run scripts/format.sh" >&2
  exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
