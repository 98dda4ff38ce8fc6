#!/usr/bin/env bash
# A Slurm cluster on one machine for the launcher tests: Debian's munged, slurmctld and one slurmd
# per emulated node (`slurmd -N NODE`), each daemon with its own port, spool, log and pid under
# STATE_DIR, so that nothing of the machine's own Slurm or munge (if any) is used or touched.
#
#   tests/slurm/test-cluster.sh up STATE_DIR NODES CPUS_PER_NODE GPUS_PER_NODE
#       (CPUS_PER_NODE: one count for every node, or a comma list node by node, the last count
#       repeated: "4,4,4,2" makes the fourth node smaller)
#   tests/slurm/test-cluster.sh down STATE_DIR
#
# `up` prints the slurm.conf path (clients need SLURM_CONF set to it) once every node is idle.
# GPUs are character devices made with mknod under STATE_DIR (the NVIDIA major number, so Slurm
# treats them as GPUs); nothing can run on them, but Slurm's binding of GPUs to tasks
# (CUDA_VISIBLE_DEVICES) is real. Node CPUs are the configured count, not the machine's
# (SlurmdParameters=config_overrides), so four nodes of 4 CPUs fit on a 2-core machine.
#
# `down` ends every daemon `up` started, by the PIDs it recorded in STATE_DIR/pids, and their
# job steps. Needs root (slurmd runs jobs as their users). Exit 77 when a daemon is missing or
# device files cannot be made.
set -euo pipefail
shopt -s extglob

usage() {
  sed -n '5,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

fail() {
  echo "test-cluster: $*" >&2
  exit 1
}

# A run of `count` consecutive TCP ports nobody listens on, at a random place, so that two test
# runs at once do not collide.
free_ports() {
  local count=$1 base attempt
  local listening
  listening=$(ss -Htln | awk '{n = split($4, a, ":"); print a[n]}')
  for attempt in {1..50}; do
    base=$((20000 + RANDOM % 30000))
    if ! grep -qxF -f <(echo "$listening") <<<"$(seq "$base" $((base + count - 1)))"; then
      echo "$base"
      return
    fi
  done
  fail "no $count free consecutive TCP ports"
}

# Every daemon, and through the task prolog every job process, carries FABRICBENCH_TEST_CLUSTER=
# STATE_DIR in its environment: `down` finds by it the job steps and tasks no recorded PID covers.
start_daemon() {
  local name=$1
  shift
  FABRICBENCH_TEST_CLUSTER=$state "$@" >"$state/log/$name.stdout" 2>&1 &
  echo "$! $name" >>"$state/pids"
}

up() {
  (($# == 4)) || usage
  state=$1
  local nodes=$2 cpus=$3 gpus=$4
  local binary
  for binary in munged slurmctld slurmd sbatch srun sacct scontrol; do
    command -v "$binary" >/dev/null || PATH=$PATH:/usr/sbin command -v "$binary" >/dev/null ||
      { echo "test-cluster: no $binary (Debian packages munge slurmctld slurmd slurm-client)" >&2; exit 77; }
  done
  PATH=$PATH:/usr/sbin
  mkdir -p "$state"/{munge,log,spool,state,dev}
  state=$(cd "$state" && pwd)
  chmod 700 "$state/munge"
  : >"$state/pids"

  dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$state/munge/munge.key"
  start_daemon munged munged --foreground --force --socket="$state/munge/socket" \
    --key-file="$state/munge/munge.key" --pid-file="$state/munge/munged.pid" \
    --seed-file="$state/munge/seed" --log-file="$state/log/munged.log"

  local base
  base=$(free_ports $((nodes + 1)))
  local node_lines="" node_names=() n cpu_counts=()
  IFS=, read -ra cpu_counts <<<"$cpus"
  for ((n = 1; n <= nodes; n++)); do
    local node_cpus=${cpu_counts[n - 1]:-${cpu_counts[-1]}}
    node_names+=("fbn$n")
    mkdir -p "$state/spool/fbn$n" "$state/tmp/fbn$n"
    node_lines+="NodeName=fbn$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + n)) CPUs=$node_cpus RealMemory=1000"
    ((gpus == 0)) || node_lines+=" Gres=gpu:$gpus"
    node_lines+=$'\n'
  done
  local node_list
  node_list=$(IFS=,; echo "${node_names[*]}")

  if ((gpus > 0)); then
    local g
    for ((g = 0; g < gpus; g++)); do
      # Slurm takes only device files as GPUs.
      mknod "$state/dev/nvidia$g" c 195 "$g" ||
        { echo "test-cluster: cannot create device files (mknod) for emulated GPUs here" >&2; exit 77; }
    done
    echo "NodeName=$node_list Name=gpu File=$state/dev/nvidia[0-$((gpus - 1))]" >"$state/gres.conf"
  fi

  # The emulated nodes are one host with one host name, which Open MPI takes for one node: each
  # node's tasks get a temporary directory (Open MPI's session directory) of their own, and ranks
  # talk over TCP on loopback only, never through shared memory across emulated nodes nor over
  # interfaces that other tests on this machine create and remove.
  cat >"$state/task-prolog.sh" <<EOF
#!/bin/sh
echo "export FABRICBENCH_TEST_CLUSTER=$state"
echo "export TMPDIR=$state/tmp/\$SLURMD_NODENAME"
echo "export OMPI_MCA_btl=self,tcp"
echo "export OMPI_MCA_btl_tcp_if_include=lo"
echo "export OMPI_MCA_oob_tcp_if_include=lo"
EOF
  chmod +x "$state/task-prolog.sh"

  cat >"$state/slurm.conf" <<EOF
ClusterName=fbtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$base
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$state/state
SlurmctldPidFile=$state/slurmctld.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdSpoolDir=$state/spool/%n
SlurmdPidFile=$state/spool/%n/slurmd.pid
SlurmdLogFile=$state/log/slurmd-%n.log
TmpFS=$state/tmp/%n
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$state/task-prolog.sh
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SchedulerType=sched/backfill
ReturnToService=2
JobCompType=jobcomp/filetxt
JobCompLoc=$state/jobcomp.txt
AccountingStorageType=accounting_storage/none
MinJobAge=600
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
$node_lines
PartitionName=fbpart Nodes=$node_list Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$state/cgroup.conf"
  export SLURM_CONF=$state/slurm.conf

  start_daemon slurmctld slurmctld -D -i -f "$state/slurm.conf"
  for node in "${node_names[@]}"; do
    start_daemon "slurmd-$node" slurmd -D -N "$node" -f "$state/slurm.conf"
  done

  # Ready when every node is idle: slurmd registers within a few seconds.
  local tries
  for tries in {1..60}; do
    if [[ $(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l) -eq $nodes ]]; then
      echo "$state/slurm.conf"
      return
    fi
    sleep 1
  done
  sinfo -N >&2 || true
  tail -n 5 "$state"/log/*.log >&2 || true
  fail "the $nodes nodes did not become idle within 60 s (logs in $state/log)"
}

# Processes whose environment holds FABRICBENCH_TEST_CLUSTER=STATE_DIR (the daemons, job scripts
# and tasks), and the slurmstepd and slurmscriptd of this cluster, which Slurm starts with an
# environment of its own that names only the cluster's slurm.conf.
marked_processes() {
  local proc environment
  for proc in /proc/[0-9]*; do
    [[ ${proc#/proc/} != "$$" ]] || continue
    environment=$(tr '\0' '\n' 2>/dev/null <"$proc/environ") || continue
    if grep -qxF "FABRICBENCH_TEST_CLUSTER=$1" <<<"$environment" ||
      { [[ $(cat "$proc/comm" 2>/dev/null) == slurm@(stepd|scriptd) ]] &&
        grep -qxF "SLURM_CONF=$1/slurm.conf" <<<"$environment"; }; then
      echo "${proc#/proc/}"
    fi
  done
  return 0
}

alive() {
  [[ -d /proc/$1 && $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# The jobs' processes first (SIGKILL: the cluster is going away), then the daemons `up` recorded,
# asked to stop and killed if they have not within 10 s.
down() {
  (($# == 1)) || usage
  local state
  state=$(cd "$1" 2>/dev/null && pwd) || return 0
  [[ -f $state/pids ]] || return 0
  local pid name daemons=()
  while read -r pid name; do
    daemons+=("$pid")
  done <"$state/pids"
  for pid in $(marked_processes "$state"); do
    [[ " ${daemons[*]} " == *" $pid "* ]] || kill -KILL "$pid" 2>/dev/null || true
  done
  for pid in "${daemons[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  local tries any
  for tries in {1..50}; do
    any=0
    for pid in "${daemons[@]}"; do
      alive "$pid" && any=1
    done
    ((any)) || break
    sleep 0.2
  done
  for pid in "${daemons[@]}" $(marked_processes "$state"); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$state/pids"
}

(($#)) || usage
command=$1
shift
case $command in
  up) up "$@" ;;
  down) down "$@" ;;
  *) usage ;;
esac
