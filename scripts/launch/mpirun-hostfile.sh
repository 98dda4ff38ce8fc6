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
# The HOSTFILE lists hosts one per line (Open MPI format, `#` comments). A host listed twice is one
# host (a warning says so) and its `slots=` add up; slots given must allow the ranks per host.
# mpirun gets each distinct host once, with the ranks per host as its slots; with --per gpu they are
# packed per NUMA domain (below). Inside a Slurm job every host must belong
# to its allocation. Errors name the hostfile and line, and exit 2 before anything runs. Every
# NCCL_* and UCX_* variable of this shell, and PATH and LD_LIBRARY_PATH, are passed to the ranks,
# so tuning set here reaches every host; the command line is printed before it runs, for the
# record. The exit code is mpirun's, which is fabricbench's (README, "Exit codes").
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
    # On the usual servers GPUs 0..N/2-1 hang off the first socket (NUMA domain), so local rank
    # i, which drives GPU i, belongs there. `--map-by ppr:N:node --bind-to numa` deals the ranks
    # to the domains in turn (0, 2, 4, 6 on the first of two); mapping by NUMA domain and ranking
    # by core packs them: 0..N/2-1 on the first of two domains, N/2..N-1 on the second, and with
    # four domains N/4 each, without this script knowing how many a host has
    # (tests/launch/numa_packing_test.sh checks it on a two-socket map).
    placement=(--map-by numa --rank-by core --bind-to numa)
    ;;
  *) usage ;;
esac

environment=()
while IFS= read -r name; do
  environment+=(-x "$name")
done < <(compgen -e | grep -E '^(NCCL_|UCX_|PATH$|LD_LIBRARY_PATH$)' || true)

# Distinct hosts in the order first listed, with the slots each line gives (summed) and the line
# that first names each.
hosts=()
declare -A first_line=() slots=()
line_number=0
while IFS= read -r line || [[ -n $line ]]; do
  line_number=$((line_number + 1))
  line=${line%%#*}
  read -r host options <<<"$line" || true
  [[ -n ${host:-} ]] || continue
  if [[ -n ${first_line[$host]:-} ]]; then
    echo "mpirun-hostfile: warning: $hostfile:$line_number: host $host listed again (first on line ${first_line[$host]}); counted once, slots added" >&2
  else
    hosts+=("$host")
    first_line[$host]=$line_number
  fi
  if [[ $options =~ (^|[[:space:]])slots=([0-9]+) ]]; then
    slots[$host]=$((${slots[$host]:-0} + BASH_REMATCH[2]))
  fi
done <"$hostfile"
((${#hosts[@]})) || { echo "mpirun-hostfile: '$hostfile' lists no hosts" >&2; exit 2; }

for host in "${hosts[@]}"; do
  if [[ -n ${slots[$host]:-} ]] && ((slots[$host] < ranks_per_host)); then
    echo "mpirun-hostfile: $hostfile:${first_line[$host]}: host $host has slots=${slots[$host]}, fewer than the $ranks_per_host ranks per host of --per $per" >&2
    exit 2
  fi
done

# Inside a Slurm job, mpirun starts its daemons through Slurm and takes each host's slots from the
# allocation's tasks per node: a host outside it, or more ranks than its tasks, fail in mpirun
# with exit 1 (the wrong-results code) and a message that names neither host nor hostfile.
if [[ -n ${SLURM_JOB_NODELIST:-} ]]; then
  allocated_hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST") ||
    { echo "mpirun-hostfile: cannot expand SLURM_JOB_NODELIST=$SLURM_JOB_NODELIST with scontrol" >&2; exit 2; }
  # SLURM_TASKS_PER_NODE lists the nodes' task counts in node order, runs compressed: "2(x3),1".
  # Slurm sets it in a job's batch script and salloc shell; a shell that carries only the node
  # list (ssh to a node, a hand-made environment) cannot be checked against the allocation.
  [[ -n ${SLURM_TASKS_PER_NODE:-} ]] || {
    echo "mpirun-hostfile: SLURM_JOB_NODELIST is set but SLURM_TASKS_PER_NODE is not, so the tasks Slurm allocated per node are unknown: run this from the job's batch script or salloc shell (or unset SLURM_JOB_NODELIST outside a Slurm job)" >&2
    exit 2
  }
  declare -A allocated_tasks=()
  mapfile -t allocated_list <<<"$allocated_hosts"
  node_index=0
  IFS=, read -ra task_runs <<<"${SLURM_TASKS_PER_NODE:-}"
  for run in "${task_runs[@]}"; do
    [[ $run =~ ^([0-9]+)(\(x([0-9]+)\))?$ ]] || continue
    for ((repeat = 0; repeat < ${BASH_REMATCH[3]:-1}; repeat++)); do
      allocated_tasks[${allocated_list[node_index]:-}]=${BASH_REMATCH[1]}
      node_index=$((node_index + 1))
    done
  done
  # A hostfile may name a node by an address: Slurm knows each node's NodeAddr and NodeHostName.
  declare -A node_of_address=()
  while read -r node_line; do
    [[ $node_line =~ NodeName=([^ ]+) ]] || continue
    name=${BASH_REMATCH[1]}
    [[ $node_line =~ NodeAddr=([^ ]+) ]] && node_of_address[${BASH_REMATCH[1]}]=$name
    [[ $node_line =~ NodeHostName=([^ ]+) ]] && node_of_address[${BASH_REMATCH[1]}]=$name
  done < <(scontrol show node --oneliner "$SLURM_JOB_NODELIST" 2>/dev/null || true)
  for host in "${hosts[@]}"; do
    node=$host
    [[ -n ${allocated_tasks[$node]:-} ]] || node=${node_of_address[$host]:-$host}
    # A fully qualified name of a node Slurm knows by its short name; never an IP address, whose
    # first field is no host name.
    if [[ -z ${allocated_tasks[$node]:-} && ! $host =~ ^[0-9.]+$ && $host != *:* ]]; then
      node=${host%%.*}
    fi
    [[ -n ${allocated_tasks[$node]:-} ]] || {
      echo "mpirun-hostfile: $hostfile:${first_line[$host]}: host $host is not in Slurm job ${SLURM_JOB_ID:-?}'s allocation ($SLURM_JOB_NODELIST)" >&2
      exit 2
    }
    ((allocated_tasks[$node] >= ranks_per_host)) || {
      echo "mpirun-hostfile: $hostfile:${first_line[$host]}: Slurm job ${SLURM_JOB_ID:-?} has ${allocated_tasks[$node]} task(s) on $node, fewer than the $ranks_per_host ranks per host of --per $per (sbatch --ntasks-per-node=$ranks_per_host)" >&2
      exit 2
    }
  done
fi

# mpirun gets each distinct host once, with exactly the ranks it is to run as its slots
# (`--host HOST:RANKS,...`): mapping by NUMA domain fills each host's slots before the next host,
# so a hostfile's larger `slots=` would pile every rank onto the first hosts.
host_slots=()
for host in "${hosts[@]}"; do
  host_slots+=("$host:$ranks_per_host")
done

root_flags=()
[[ $(id -u) -ne 0 ]] || root_flags=(--allow-run-as-root)

command=(mpirun "${root_flags[@]}" --host "$(IFS=,; echo "${host_slots[*]}")" -np "$((${#hosts[@]} * ranks_per_host))"
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
