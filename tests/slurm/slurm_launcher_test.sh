#!/usr/bin/env bash
# scripts/launch/fabricbench.sbatch under a real Slurm: Debian's slurmctld and four slurmd on this
# machine (tests/slurm/test-cluster.sh), the real fabricbench started by srun through PMIx. Checks
# what a user and the scheduler's accounting see: the README's own command completes, results
# and provenance land in fabricbench-results/JOB_ID/, and the exit codes Slurm records (here from
# its job completion log, `sacct -c`) are fabricbench's, for success, bad flags, a timeout, a
# cancelled job, a rank other than 0 that fails first (by itself, or with MPI_Abort after MPI_Init),
# a node with fewer CPUs than the batch node, and launches the script refuses; and
# scripts/launch/mpirun-hostfile.sh inside an allocation (a host listed twice, a host named by its
# IP address, a host outside it, more ranks than tasks).
#
#   tests/slurm/slurm_launcher_test.sh FABRICBENCH_BINARY REPOSITORY_ROOT
#
# Needs root; exits 77 (skipped) without it or without the Slurm packages (scripts/setup.sh).
set -uo pipefail

(($# == 2)) || { echo "usage: $0 FABRICBENCH_BINARY REPOSITORY_ROOT" >&2; exit 2; }
binary=$(realpath "$1")
source_root=$(realpath "$2")
cluster=$source_root/tests/slurm/test-cluster.sh

if [[ $(id -u) -ne 0 ]]; then
  echo "skipped: the Slurm test cluster needs root (slurmd runs jobs as their users)"
  exit 77
fi

command -v jq >/dev/null || { echo "skipped: no jq (scripts/setup.sh installs it)"; exit 77; }

# Each run's cluster lives in /tmp/fabricbench-slurm.PID; one whose test process is gone (killed
# before its clean-up) is taken down first.
for stale in /tmp/fabricbench-slurm.*; do
  [[ -d $stale ]] || continue
  owner=${stale##*.}
  [[ $owner =~ ^[0-9]+$ ]] && ! kill -0 "$owner" 2>/dev/null || continue
  "$cluster" down "$stale"
  rm -rf "$stale"
done

state=/tmp/fabricbench-slurm.$$
clean_up() {
  "$cluster" down "$state/cluster"
  rm -rf "$state"
}
trap clean_up EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A repository as a user has it: the launcher as committed, the binary under build/.
repo=$state/repo
mkdir -p "$repo/scripts/launch" "$repo/build" "$state/elsewhere"
cp "$source_root/scripts/launch/fabricbench.sbatch" "$repo/scripts/launch/"
ln -s "$binary" "$repo/build/fabricbench"

nodes=4
gpus_per_node=2
# fbn4 has fewer CPUs than the others: a job whose batch node is fbn3 must size its tasks by fbn4.
conf=$("$cluster" up "$state/cluster" "$nodes" 4,4,4,2 "$gpus_per_node")
case $? in
  0) ;;
  77) echo "skipped: the Slurm test cluster cannot run here (reason above; scripts/setup.sh installs Slurm and munge)"; exit 77 ;;
  *) echo "FAIL: the test cluster did not come up"; exit 1 ;;
esac
export SLURM_CONF=$conf
# The emulated nodes share this machine's 2 cores: waiting ranks yield them instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
expect_eq() {
  local what=$1 actual=$2 expected=$3
  if [[ $actual == "$expected" ]]; then
    echo "ok: $what: $actual"
  else
    fail "$what: got '$actual', expected '$expected'"
  fi
}
expect_grep() {
  local what=$1 pattern=$2 file=$3
  if grep -qE -- "$pattern" "$file" 2>/dev/null; then
    echo "ok: $what"
  else
    fail "$what: no /$pattern/ in $file"
    [[ -f $file ]] && sed 's/^/  | /' "$file"
  fi
}

# State and exit code of a finished job as Slurm's accounting records them ("COMPLETED 0:0").
job_accounting() {
  sacct -c -j "$1" -n -P -o State,ExitCode | head -n 1 | tr '|' ' '
}
# Until the job is recorded as ended and has left the queue: a cancelled job is recorded at once,
# while its script and steps are still ending (state COMPLETING).
wait_for_job() {
  local id=$1 tries
  for tries in {1..300}; do
    [[ -n $(job_accounting "$id") && -z $(squeue -h -j "$id" -o %t 2>/dev/null) ]] && return
    sleep 1
  done
  fail "job $id did not end within 300 s"
  scancel "$id"
}
job_id_of() {
  sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<<"$1"
}
# The value of CSV column `name` in every row of a results file.
csv_column() {
  grep -v '^#' "$2" | awk -F, -v name="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i; next} {print $c}'
}
environment_of() {
  tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" || true
}
# The process of rank `rank` of job `id`, found by the environment Slurm gave it.
rank_pid() {
  local id=$1 rank=$2 proc environment
  for proc in /proc/[0-9]*; do
    [[ $(cat "$proc/comm" 2>/dev/null) == fabricbench ]] || continue
    environment=$(environment_of "${proc#/proc/}")
    grep -qx "SLURM_JOB_ID=$id" <<<"$environment" && grep -qx "SLURM_PROCID=$rank" <<<"$environment" || continue
    echo "${proc#/proc/}"
    return
  done
}
processes_of_job() {
  local id=$1 proc count=0
  for proc in /proc/[0-9]*; do
    grep -qx "SLURM_JOB_ID=$id" <<<"$(environment_of "${proc#/proc/}")" && count=$((count + 1))
  done
  echo "$count"
}
wait_for_csv_rows() {
  local dir=$1 rows=$2 tries csv
  for tries in {1..120}; do
    for csv in "$dir"/*.csv; do
      [[ -f $csv && $(grep -vc '^#' "$csv") -gt $rows ]] && return 0
    done
    sleep 1
  done
  return 1
}

echo "== the README's command, verbatim, from the repository root"
readme_command=$(awk '/^## Running on a cluster/ {in_section = 1; next} /^## / {in_section = 0}
  in_section && /^ *sbatch / {sub(/^ */, ""); print; exit}' "$source_root/README.md")
echo "$readme_command"
submitted=$(cd "$repo" && bash -c "$readme_command")
id=$(job_id_of "$submitted")
wait_for_job "$id"
expect_eq "README job accounting" "$(job_accounting "$id")" "COMPLETED 0:0"
results=$repo/fabricbench-results/$id
csv=$(ls "$results"/*.csv 2>/dev/null | head -n 1)
json=${csv%.csv}.json
# all_reduce from 8 B to 1 MiB: 18 sizes, in place and out of place, on one rank per node.
expect_eq "README job rows" "$(csv_column op "$csv" | grep -c '^all_reduce$')" 36
expect_eq "README job ranks per row" "$(csv_column nranks "$csv" | sort -u)" "$nodes"
expect_eq "README job wrong elements" "$(csv_column wrong "$csv" | sort -u)" 0
expect_eq "provenance: Slurm job" \
  "$(jq -r '.provenance.environment | "\(.SLURM_JOB_ID) \(.SLURM_JOB_NODELIST) \(.SLURM_JOB_PARTITION)"' "$json")" \
  "$id fbn[1-4] fbpart"
expect_grep "job output in the submit directory" "ended: exit 0: every measurement completed" "$repo/fabricbench-$id.out"
expect_grep "job.txt: binary beside the script" "^binary: $binary\$" "$results/job.txt"
expect_grep "job.txt: the job's output file" "^output: $repo/fabricbench-$id.out\$" "$results/job.txt"
expect_grep "job.txt: one rank per node without GPUs" "^run: srun --nodes=4 --ntasks-per-node=1 --ntasks=4 " "$results/job.txt"

echo "== GPUs requested, with doctor first, submitted from elsewhere"
# A wrapper records which GPUs Slurm gave each rank, then runs the real fabricbench.
cat >"$state/record-gpus" <<EOF
#!/bin/sh
echo "\$SLURMD_NODENAME \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES" >>"$state/gpus-\$SLURM_JOB_ID-\$SLURM_STEP_ID-\$SLURM_PROCID"
exec "$binary" "\$@"
EOF
chmod +x "$state/record-gpus"
submitted=$(cd "$state/elsewhere" && FABRICBENCH=$state/record-gpus FABRICBENCH_DOCTOR=1 \
  sbatch --nodes=2 --gpus-per-node=$gpus_per_node "$repo/scripts/launch/fabricbench.sbatch" all_reduce -b 8 -e 4K)
id=$(job_id_of "$submitted")
wait_for_job "$id"
expect_eq "GPU job accounting" "$(job_accounting "$id")" "COMPLETED 0:0"
# Step 0 is doctor (one task per node), step 1 the run: every task sees both GPUs of its node
# (the GPU backends take local rank i's GPU i; CUDA IPC needs the peers' GPUs visible).
expect_eq "GPUs per task of the run" "$(cat "$state"/gpus-"$id"-1-* | sort | tr '\n' ';')" \
  "fbn1 0 0,1;fbn1 1 0,1;fbn2 0 0,1;fbn2 1 0,1;"
expect_grep "GPU job: GPUs per node, tasks block by block" \
  "^run: srun --nodes=2 --ntasks-per-node=2 --ntasks=4 --cpus-per-task=2 --cpu-bind=cores --distribution=block:block --gpus-per-node=2 " \
  "$state/elsewhere/fabricbench-results/$id/job.txt"
expect_eq "doctor hosts" "$(jq '.hosts | length' "$state/elsewhere/fabricbench-results/$id/doctor.json")" 2
expect_eq "GPU job rows" "$(csv_column nranks "$(ls "$state/elsewhere/fabricbench-results/$id"/*.csv)" | sort -u)" 4

echo "== bad flags, submitted from elsewhere without FABRICBENCH, with --export=NONE"
submitted=$(cd "$state/elsewhere" && NCCL_DEBUG=WARN sbatch --export=NONE --nodes=1 \
  "$repo/scripts/launch/fabricbench.sbatch" all_reduce --no-such-flag)
id=$(job_id_of "$submitted")
wait_for_job "$id"
expect_eq "bad flags accounting" "$(job_accounting "$id")" "FAILED 2:0"
out=$state/elsewhere/fabricbench-$id.out
expect_grep "bad flags: fabricbench's one-line error" "^fabricbench: error: .*--no-such-flag" "$out"
expect_grep "bad flags: binary found from the script's path" "^binary: $binary\$" \
  "$state/elsewhere/fabricbench-results/$id/job.txt"
expect_grep "bad flags: reason in job.txt" "^ended: exit 2: bad flags" "$state/elsewhere/fabricbench-results/$id/job.txt"
expect_grep "--export=NONE warning" "warning: sbatch --export=NONE: NCCL_\* and UCX_\* .* the ranks get: none" "$out"

echo "== an MPI plugin Open MPI cannot start under"
submitted=$(cd "$state/elsewhere" && FABRICBENCH_SRUN_MPI=pmi2 sbatch --nodes=1 "$repo/scripts/launch/fabricbench.sbatch")
id=$(job_id_of "$submitted")
wait_for_job "$id"
expect_eq "pmi2 refused: accounting" "$(job_accounting "$id")" "FAILED 2:0"
expect_grep "pmi2 refused: reason" "^refused: fabricbench is built with Open MPI, .*--mpi=pmix" \
  "$state/elsewhere/fabricbench-results/$id/job.txt"

echo "== a rank that stops answering: the watchdog's exit 5 ends the job"
submitted=$(cd "$state/elsewhere" && sbatch --nodes=2 "$repo/scripts/launch/fabricbench.sbatch" \
  all_reduce -b 64K -e 256M -n 50 -T 3)
id=$(job_id_of "$submitted")
results=$state/elsewhere/fabricbench-results/$id
if wait_for_csv_rows "$results" 2; then
  pid=$(rank_pid "$id" 1)
  if [[ -n $pid ]]; then kill -STOP "$pid"; else fail "no process of rank 1 of job $id"; fi
else
  fail "timeout job $id wrote no rows"
fi
wait_for_job "$id"
expect_eq "timeout accounting" "$(job_accounting "$id")" "FAILED 5:0"
json=$(ls "$results"/*.json | head -n 1)
expect_eq "timeout: incident in the results" "$(jq -r '[.incidents[].kind] | join(" ")' "$json")" timeout
expect_grep "timeout: reason in job.txt" "^ended: exit 5: a step made no progress" "$results/job.txt"
expect_eq "timeout: processes left" "$(processes_of_job "$id")" 0

echo "== a rank other than 0 fails first: the job's code is that rank's own, not srun's 143"
# Rank 1 ends at once with 3 (a failed library call); rank 0, left waiting for it, is ended by
# srun (--kill-on-bad-exit) with SIGTERM.
printf '#!/bin/sh\n[ "$SLURM_PROCID" = 1 ] && { echo "rank 1: failing with 3" >&2; exit 3; }\nexec "%s" "$@"\n' \
  "$binary" >"$state/rank1-fails"
chmod +x "$state/rank1-fails"
submitted=$(cd "$state/elsewhere" && FABRICBENCH=$state/rank1-fails sbatch --nodes=2 \
  "$repo/scripts/launch/fabricbench.sbatch" all_reduce -b 8 -e 1K)
id=$(job_id_of "$submitted")
wait_for_job "$id"
expect_eq "rank 1 fails first: accounting" "$(job_accounting "$id")" "FAILED 3:0"
expect_grep "rank 1 fails first: job.txt names it" "^rank 1 failed first, with exit 3" \
  "$state/elsewhere/fabricbench-results/$id/job.txt"
expect_grep "rank 1 fails first: reason in job.txt" "^ended: exit 3: a library call or I/O failed" \
  "$state/elsewhere/fabricbench-results/$id/job.txt"

echo "== a rank fails after MPI_Init and ends the job with MPI_Abort: the job's code is that rank's"
# Rank 1 may map 600 MB (ulimit -v): MPI_Init fits, the two 512 MiB buffers of the all_reduce do
# not, so its allocation fails inside the measurement and it calls MPI_Abort with 3 (a library
# call failed). PMIx has Slurm kill the whole step at once, the rank's wrapper included: only the
# file the rank wrote before MPI_Abort tells the script which rank failed and how.
printf '#!/bin/sh\n[ "$SLURM_PROCID" = 1 ] && ulimit -v 600000\nexec "%s" "$@"\n' "$binary" >"$state/rank1-aborts"
chmod +x "$state/rank1-aborts"
submitted=$(cd "$state/elsewhere" && FABRICBENCH=$state/rank1-aborts sbatch --nodes=2 \
  "$repo/scripts/launch/fabricbench.sbatch" all_reduce -b 512M -e 512M -n 1 -w 0)
id=$(job_id_of "$submitted")
wait_for_job "$id"
results=$state/elsewhere/fabricbench-results/$id
expect_eq "rank 1 aborts: accounting" "$(job_accounting "$id")" "FAILED 3:0"
expect_grep "rank 1 aborts: its own error in the job output" "^fabricbench: rank 1 on $(hostname): std::bad_alloc" \
  "$state/elsewhere/fabricbench-$id.out"
expect_grep "rank 1 aborts: job.txt names rank, code and host" "^rank 1 failed first, with exit 3 \(on $(hostname); srun: " \
  "$results/job.txt"
expect_grep "rank 1 aborts: reason in job.txt" "^ended: exit 3: a library call or I/O failed" "$results/job.txt"
expect_eq "rank 1 aborts: rank status files left" "$(ls -A "$results/rank-status" 2>/dev/null | wc -l)" 0
expect_eq "rank 1 aborts: processes left" "$(processes_of_job "$id")" 0

echo "== a node with fewer CPUs than the batch node"
# fbn3 (4 CPUs) runs the script, fbn4 has 2: tasks sized by fbn3 would not start on fbn4.
submitted=$(cd "$state/elsewhere" && sbatch --nodes=2 --nodelist=fbn3,fbn4 --ntasks-per-node=2 \
  "$repo/scripts/launch/fabricbench.sbatch" all_reduce -b 8 -e 1K)
id=$(job_id_of "$submitted")
wait_for_job "$id"
expect_eq "smaller node: accounting" "$(job_accounting "$id")" "COMPLETED 0:0"
expect_grep "smaller node: one CPU per task, from fbn4" \
  "^run: srun --nodes=2 --ntasks-per-node=2 --ntasks=4 --cpus-per-task=1 " \
  "$state/elsewhere/fabricbench-results/$id/job.txt"

echo "== scancel"
submitted=$(cd "$state/elsewhere" && sbatch --nodes=2 "$repo/scripts/launch/fabricbench.sbatch" \
  all_reduce -b 64K -e 1G -n 50)
id=$(job_id_of "$submitted")
results=$state/elsewhere/fabricbench-results/$id
wait_for_csv_rows "$results" 1 || fail "job $id to cancel wrote no rows"
# Every row on disk when the job is cancelled must still be there after it ended.
rows_at_cancel=$(grep -vc '^#' "$(ls "$results"/*.csv | head -n 1)")
scancel "$id"
wait_for_job "$id"
expect_eq "scancel accounting" "$(job_accounting "$id")" "CANCELLED 0:0"
expect_grep "scancel: reason in the job output" "ended: exit 143: SIGTERM from Slurm" "$state/elsewhere/fabricbench-$id.out"
expect_grep "scancel: reason in job.txt" "^ended: exit 143: SIGTERM from Slurm" "$results/job.txt"
rows=$(grep -vc '^#' "$(ls "$results"/*.csv | head -n 1)")
((rows >= rows_at_cancel && rows > 1)) && echo "ok: cancelled job kept its $((rows - 1)) rows" ||
  fail "cancelled job kept $((rows - 1)) rows of the $((rows_at_cancel - 1)) it had written when cancelled"
expect_eq "scancel: temporary files left" "$(ls "$results" | grep -c '\.tmp\.')" 0
sleep 2
expect_eq "scancel: processes left" "$(processes_of_job "$id")" 0

echo "== mpirun-hostfile.sh inside an allocation: a host listed twice, slots, hosts and tasks checked"
hostfile=$state/elsewhere/hosts.txt
printf 'fbn1 slots=1\nfbn2  # leaf 2\nfbn1\n' >"$hostfile"
hostfile_job() {
  local name=$1
  shift
  submitted=$(cd "$state/elsewhere" && sbatch --nodes=2 -o "$name-%j.out" --wrap \
    "$source_root/scripts/launch/mpirun-hostfile.sh $* --binary $binary -- all_reduce -b 8 -e 1K -D $name-results")
  id=$(job_id_of "$submitted")
  wait_for_job "$id"
  out=$state/elsewhere/$name-$id.out
}
hostfile_job per-host "$hostfile" --per host
expect_eq "hostfile per host: accounting" "$(job_accounting "$id")" "COMPLETED 0:0"
expect_grep "hostfile per host: duplicate named" "warning: .*hosts.txt:3: host fbn1 listed again \(first on line 1\)" "$out"
csv=$(ls "$state/elsewhere/per-host-results"/*.csv | head -n 1)
# 8 B to 1 KiB: 8 sizes, in place and out of place, on the 2 distinct hosts.
expect_eq "hostfile per host: rows" "$(csv_column op "$csv" | grep -c '^all_reduce$')" 16
expect_eq "hostfile per host: ranks" "$(csv_column nranks "$csv" | sort -u)" 2
# The test nodes' NodeAddr is 127.0.0.1: a hostfile naming a node by address is checked against
# the allocation by that address, not refused as host "127", and reaches mpirun. (What mpirun then
# makes of it is beyond this cluster: its nodes share one address, so the job's own result says
# nothing of the check.)
printf '127.0.0.1\n' >"$state/elsewhere/by-address.txt"
hostfile_job by-address "$state/elsewhere/by-address.txt" --per host
expect_eq "hostfile by IP address: refusals" "$(grep -c 'not in Slurm job' "$out")" 0
expect_grep "hostfile by IP address: mpirun gets the address" "^mpirun .*--host 127\.0\.0\.1:1 -np 1 " "$out"
missing_tasks=$(env -u SLURM_TASKS_PER_NODE SLURM_JOB_NODELIST=fbn1 SLURM_JOB_ID=1 \
  "$source_root/scripts/launch/mpirun-hostfile.sh" "$state/elsewhere/by-address.txt" --per host --binary "$binary" \
  -- all_reduce 2>&1)
expect_eq "hostfile without SLURM_TASKS_PER_NODE: exit code" "$?" 2
expect_eq "hostfile without SLURM_TASKS_PER_NODE: message" "$missing_tasks" \
  "mpirun-hostfile: SLURM_JOB_NODELIST is set but SLURM_TASKS_PER_NODE is not, so the tasks Slurm allocated per node are unknown: run this from the job's batch script or salloc shell (or unset SLURM_JOB_NODELIST outside a Slurm job)"
printf 'fbn1\nfbn2\n' >"$state/elsewhere/no-slots.txt"
hostfile_job per-gpu "$state/elsewhere/no-slots.txt" --per gpu --gpus-per-host 2
expect_eq "hostfile more ranks than tasks: accounting" "$(job_accounting "$id")" "FAILED 2:0"
expect_grep "hostfile more ranks than tasks: reason" \
  "no-slots.txt:1: Slurm job $id has 1 task\(s\) on fbn1, fewer than the 2 ranks per host" "$out"
printf 'fbn1\nfbn9\n' >"$state/elsewhere/outside.txt"
hostfile_job outside "$state/elsewhere/outside.txt" --per host
expect_eq "hostfile host outside the allocation: accounting" "$(job_accounting "$id")" "FAILED 2:0"
expect_grep "hostfile host outside the allocation: reason" \
  "outside.txt:2: host fbn9 is not in Slurm job $id's allocation \(fbn\[1-2\]\)" "$out"
slots=$("$source_root/scripts/launch/mpirun-hostfile.sh" "$hostfile" --per gpu --gpus-per-host 2 --binary "$binary" \
  -- all_reduce 2>&1 | tail -n 1)
expect_eq "hostfile slots outside Slurm: exit code" "${PIPESTATUS[0]}" 2
expect_eq "hostfile slots outside Slurm: message" "$slots" \
  "mpirun-hostfile: $hostfile:1: host fbn1 has slots=1, fewer than the 2 ranks per host of --per gpu"

echo "== outside Slurm"
outside=$(env -u SLURM_JOB_ID -u SLURM_SUBMIT_DIR bash "$repo/scripts/launch/fabricbench.sbatch" all_reduce 2>&1)
expect_eq "outside Slurm: exit code" "$?" 2
expect_eq "outside Slurm: message" "$outside" \
  'fabricbench.sbatch: not inside a Slurm job (no SLURM_JOB_ID): submit it with sbatch (README, "Running on a cluster")'

((failures == 0)) || { echo "$failures check(s) failed; daemon logs: $state/cluster/log (removed on exit)"; exit 1; }
echo "all checks passed"
