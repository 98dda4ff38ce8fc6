#!/usr/bin/env bash
# Where scripts/launch/mpirun-hostfile.sh --per gpu puts its ranks on a two-socket host: real
# Open MPI mpirun, on a synthetic machine map hwloc writes (two packages, one NUMA domain and four
# cores each) handed to mpirun in place of this machine's own (hwloc_base_topo_file). Local rank i
# drives GPU i, and GPUs 0-3 hang off the first socket: ranks 0-3 must be bound to NUMA domain 0
# and 4-7 to domain 1. The same map under the placement the script used before
# (`--map-by ppr:8:node --bind-to numa`) deals them alternately, which shows the map tells the two
# apart.
#
# Open MPI binds each rank to its domain's CPUs as the map numbers them; the map numbers them
# alternately (domain 0: CPUs 0, 2, 4, 6; domain 1: 1, 3, 5, 7, as many two-socket servers do), so
# on any machine with CPUs 0 and 1 the CPUs a rank may run on say its domain: CPU c is in c mod 2.
#
#   tests/launch/numa_packing_test.sh REPOSITORY_ROOT
#
# Exit 77 (skipped) without mpirun, lstopo (Debian's hwloc-nox) or CPUs 0 and 1.
set -uo pipefail

(($# == 1)) || { echo "usage: $0 REPOSITORY_ROOT" >&2; exit 2; }
source_root=$(realpath "$1")

for tool in mpirun lstopo-no-graphics; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool (scripts/setup.sh installs it)"; exit 77; }
done
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
taskset -c 0,1 true 2>/dev/null && [[ $(taskset -c 0,1 grep Cpus_allowed_list /proc/self/status) == *0-1 ]] ||
  { echo "skipped: this process may not run on both CPU 0 and CPU 1 (Cpus_allowed_list $allowed)"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

map=$work/two-socket.xml
lstopo-no-graphics -i "pack:2 numa:1 core:4 pu:1(indexes=0,2,4,6,1,3,5,7)" --of xml "$map" ||
  { echo "FAIL: lstopo could not write the synthetic map"; exit 1; }

# The rank's number and the NUMA domain of each CPU it may run on ("0" when bound to domain 0).
cat >"$work/where" <<EOF
#!/usr/bin/env bash
domains=()
IFS=, read -ra runs <<<"\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
for run in "\${runs[@]}"; do
  for ((cpu = \${run%-*}; cpu <= \${run#*-}; cpu++)); do domains+=(\$((cpu % 2))); done
done
echo "\$OMPI_COMM_WORLD_RANK \$(printf '%s\n' "\${domains[@]}" | sort -u | tr '\n' ' ')" >"$work/rank-\$OMPI_COMM_WORLD_RANK"
EOF
chmod +x "$work/where"

failures=0
# "RANK:DOMAINS" for every rank, in rank order ("0:0 1:0 ... 7:1").
placement() {
  local file rank domains out=()
  for file in "$work"/rank-*; do
    read -r rank domains <"$file"
    out[rank]="$rank:${domains// /,}"
  done
  echo "${out[*]}"
  rm -f "$work"/rank-*
}
expect_eq() {
  if [[ $2 == "$3" ]]; then
    echo "ok: $1: $2"
  else
    echo "FAIL: $1: got '$2', expected '$3'"
    failures=$((failures + 1))
  fi
}

export OMPI_MCA_hwloc_base_topo_file=$map
# More slots than GPUs: mpirun must still get 8 per host, or mapping by NUMA domain would fill the
# first hosts' 16 slots before the next host got a rank.
echo "localhost slots=16" >"$work/hosts"
"$source_root/scripts/launch/mpirun-hostfile.sh" "$work/hosts" --per gpu --gpus-per-host 8 --binary "$work/where" \
  -- all_reduce 2>"$work/launcher.err"
expect_eq "mpirun-hostfile.sh --per gpu: exit code" "$?" 0
expect_eq "mpirun-hostfile.sh --per gpu: rank:NUMA domain" "$(placement)" "0:0 1:0 2:0 3:0 4:1 5:1 6:1 7:1"
expect_eq "mpirun-hostfile.sh --per gpu: mpirun's hosts and placement flags" \
  "$(grep -o -- '--host .* --bind-to numa' "$work/launcher.err")" \
  "--host localhost:8 -np 8 --map-by numa --rank-by core --bind-to numa"

root_flags=()
[[ $(id -u) -ne 0 ]] || root_flags=(--allow-run-as-root)
mpirun "${root_flags[@]}" --host localhost:8 -np 8 --map-by ppr:8:node --bind-to numa "$work/where" 2>/dev/null
expect_eq "ppr:8:node --bind-to numa (the old placement): rank:NUMA domain" "$(placement)" \
  "0:0 1:1 2:0 3:1 4:0 5:1 6:0 7:1"

if ((failures)); then
  sed 's/^/  | /' "$work/launcher.err"
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
