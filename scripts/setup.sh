#!/usr/bin/env bash
# Installs fabricbench's dependencies from Debian packages (only those missing), then configures
# and builds in build/. Safe to run again: installed packages and a configured tree are reused.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${FABRICBENCH_BUILD_DIR:-$repo_root/build}"

packages=(
  cmake make g++ git pkg-config lld             # lld: links the test programs in a third of GNU ld's time
  openmpi-bin libopenmpi-dev                  # MPI backend and the multi-rank tests
  libcli11-dev nlohmann-json3-dev libfmt-dev  # command line, JSON results, formatting
  libfccp-dev                                 # Fast C++ CSV Parser: reading results CSV
  libyaml-cpp-dev libpugixml-dev              # topology inputs: YAML cluster specs, NCCL XML
  libssl-dev                                  # HMAC-SHA256 of the watchdog's side channel
  libsqlite3-dev libpq-dev                    # the run store: SQLite files and PostgreSQL servers
  libgtest-dev googletest libbenchmark-dev    # unit tests and micro-benchmarks
  clang libclang-rt-14-dev                    # libFuzzer targets with ASan and UBSan
  clang-format clang-tidy                     # scripts/format.sh and scripts/tidy.sh
  iproute2 procps                             # emulated fabrics (ip netns) and process control in tests
  ibsim-utils opensm infiniband-diags         # genuine forwarding tables of simulated fabrics (scripts/ibsim-fabric.sh)
  gnuplot-nox graphviz chromium               # report plots (SVG), topology drawings, report tests in a headless browser
  poppler-utils                               # pdftoppm: the campaign record test reads the PDF's pages as images
  patchelf                                    # the GPU bundle's RPATHs (scripts/gpu-check.sh bundle)
  python3-jsonschema                          # the campaign test validates summary.json against its published schema
  slurmctld slurmd slurm-client munge jq      # the launcher test under a real Slurm (tests/slurm)
  python3-yaml                                # the MPIJob manifest test (tests/launch)
  hwloc-nox                                   # lstopo: the synthetic two-socket map of the NUMA packing test (tests/launch)
  man-db zsh                                  # the install test renders the man page and completes in a real zsh
  postgresql prometheus prometheus-node-exporter  # the services tests: a real store server and scrape (tests/store)
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_prefix=()
  [[ $(id -u) -eq 0 ]] || sudo_prefix=(sudo)
  "${sudo_prefix[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# FABRICBENCH_STRICT_WARNINGS=ON (CI sets it) makes every warning an error.
cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
  -DFABRICBENCH_STRICT_WARNINGS="${FABRICBENCH_STRICT_WARNINGS:-OFF}"
cmake --build "$build_dir" -j "$(nproc)"
