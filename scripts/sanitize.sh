#!/usr/bin/env bash
# Builds the whole suite with AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/
# and runs the unit and multi-rank MPI tests under them. Run after scripts/setup.sh.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$repo_root/build-sanitize"

# Line tables only (-g1): the sanitizers' reports name file and line, and the build is about a
# quarter faster than with -g.
cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DFABRICBENCH_SANITIZE=ON \
  -DFABRICBENCH_BUILD_BENCHMARKS=OFF -DFABRICBENCH_WITH_CUDA=OFF
# Only the targets whose tests run below (label unit or mpi): the test programs and the binaries
# the MPI tests start. A labelled program not built here has no tests listed, so it is not run.
cmake --build "$build_dir" -j "$(nproc)" \
  --target fabricbench fabricbench_fault_injected fabricbench_unit_tests fabricbench_mpi_tests topology_tests

# Open MPI keeps allocations alive until exit by design; leak reports there would drown ours.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# The MPI tests are RUN_SERIAL and still run alone; the unit tests share the cores. The
# architecture tests read the sources and the main build's objects, and run no code of ours that a
# sanitizer could check: the main build's test command runs them (96 s of CPU here, 2026-11-29).
ctest --test-dir "$build_dir" --output-on-failure -L "unit|mpi" -E '^architecture\.' -j "$(nproc)"
