#!/usr/bin/env bash
# Runs fabricbench across the hosts of an Open MPI hostfile, one rank per host (host-to-host
# patterns: pairwise, concurrent, bw) or one rank per GPU (collectives on GPUs).
#
#   scripts/launch/mpirun-hostfile.sh HOSTFILE [--per host|gpu] [--gpus-per-host N]
#                                     [--binary PATH] -- FABRICBENCH_RUN_ARGS...
#
# e.g. scripts/launch/mpirun-hostfile.sh hosts.txt --per host -- pairwise concurrent -b 64M -e 64M
#      scripts/launch/mpirun-hostfile.sh hosts.txt --per gpu -- all_reduce -b 8 -e 1G
#
# The HOSTFILE lists one host per line (Open MPI format; a `slots=` given must allow the ranks
# per host). Every NCCL_* and UCX_* variable of this shell, and PATH and LD_LIBRARY_PATH, are
# passed to the ranks, so tuning set here reaches every host; the command line is printed before
# it runs, for the record.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

usage() {
  sed -n '5,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

(($#)) || usage
hostfile=$1
shift
[[ -f $hostfile ]] || { echo "mpirun-hostfile: no hostfile '$hostfile'" >&2; exit 2; }
per=host
gpus_per_host=""
binary="$repo_root/build/fabricbench"
while (($#)); do
  case $1 in
    --per) per=${2:?--per needs host or gpu}; shift 2 ;;
    --gpus-per-host) gpus_per_host=${2:?--gpus-per-host needs a count}; shift 2 ;;
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
(($#)) || usage

# Hosts: first word of every line that is not blank or a comment.
host_count=$(awk '$1 !~ /^(#|$)/ {n++} END {print n + 0}' "$hostfile")
((host_count > 0)) || { echo "mpirun-hostfile: '$hostfile' lists no hosts" >&2; exit 2; }

case $per in
  host)
    ranks_per_host=1
    # The one rank may use the whole host; its NIC, not a core, is what is measured.
    placement=(--map-by ppr:1:node --bind-to none)
    ;;
  gpu)
    if [[ -z $gpus_per_host ]]; then
      command -v nvidia-smi >/dev/null || { echo "mpirun-hostfile: give --gpus-per-host (no nvidia-smi here)" >&2; exit 2; }
      gpus_per_host=$(nvidia-smi --list-gpus | wc -l)
    fi
    [[ $gpus_per_host =~ ^[1-9][0-9]*$ ]] || { echo "mpirun-hostfile: --gpus-per-host must be a positive count" >&2; exit 2; }
    ranks_per_host=$gpus_per_host
    # Ranks fill the cores in order and each is bound to its NUMA domain: on the usual servers
    # GPUs 0..N/2-1 hang off the first socket, so local rank i (which drives GPU i) runs next to
    # its GPU and NIC.
    placement=(--map-by "ppr:$gpus_per_host:node" --bind-to numa)
    ;;
  *) usage ;;
esac

environment=()
while IFS= read -r name; do
  environment+=(-x "$name")
done < <(compgen -e | grep -E '^(NCCL_|UCX_|PATH$|LD_LIBRARY_PATH$)' || true)

root_flags=()
[[ $(id -u) -ne 0 ]] || root_flags=(--allow-run-as-root)

command=(mpirun "${root_flags[@]}" --hostfile "$hostfile" -np "$((host_count * ranks_per_host))"
  "${placement[@]}" --report-bindings "${environment[@]}" "$binary" run "$@")
printf '%q ' "${command[@]}" >&2
echo >&2

# Open MPI 4.1's mpirun, when it is itself sent SIGINT or SIGTERM, passes SIGTERM to the ranks
# (which keep every completed size and exit 130 or 143) but exits 1 itself, the "wrong results"
# code. So mpirun runs in a session of its own, where a Ctrl-C on the terminal does not reach it
# twice (a second SIGINT makes it abandon the ranks), this script passes the signal on, and exits
# 128 + the signal's number as `fabricbench run` does.
signalled=""
forward() {
  signalled=$((128 + $(kill -l "$1")))
  kill -s "$1" "$mpirun_pid" 2>/dev/null || true
}
setsid "${command[@]}" &
mpirun_pid=$!
trap 'forward INT' INT
trap 'forward TERM' TERM
trap 'forward HUP' HUP
status=0
# wait returns early (with 128 + the signal) when a trapped signal arrives: wait again.
while kill -0 "$mpirun_pid" 2>/dev/null; do
  wait "$mpirun_pid" && status=0 || status=$?
done
[[ -z $signalled ]] || exit "$signalled"
exit "$status"
