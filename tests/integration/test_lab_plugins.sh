#!/usr/bin/env bash
# test_lab_plugins.sh - the foundation: a real slurmctld and 4 slurmd with
# both netvar plugins loaded; --netvar works in sbatch, srun and salloc;
# job_submit/netvar annotates the job; SPANK logs one netvar: line per step
# and exports NETVAR_MODE; a multi-node MPI job runs; lab down leaves
# nothing behind.
. "$ROOT/tests/integration/lab_lib.sh"
lab_start --nodes 4
check "4 fake nodes idle" test "$(sinfo -h -N -t idle -o %N | wc -l)" -eq 4
check "topology has leaf switches s1 and s2" grep -q "SwitchName=s2 Nodes=n\[3-4\]" "$NETVAR_LAB/etc/topology.conf"

# sbatch with options: annotation, user message, inherited mode in srun
out=$(sbatch --netvar=full --netvar-app=lulesh -N2 -o job.out \
      --wrap 'srun -N2 -n2 printenv NETVAR_MODE NETVAR_APP' 2>&1)
jid=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
# no model yet, so nothing worth saying: sbatch prints no netvar line, and
# slurmctld logs the decision in the model's terms
lacks "no model: sbatch prints no netvar line" "$out" "netvar:"
check "slurmctld logs job_submit's decision" \
    grep -q "netvar: job_submit: uid [0-9]*: app lulesh: no model loaded yet" log/slurmctld.log
check "sbatch job finished" wait_job "$jid"
contains "job Comment carries the versioned annotation" "$(job_field "$jid" Comment)" \
    'netvar:{"v":1,"mode":"full","app":"lulesh"'
contains "srun inside sbatch --netvar=full inherits the mode" "$(cat job.out)" "full"
check "both tasks saw NETVAR_APP" test "$(grep -c '^lulesh$' job.out)" -eq 2
contains "slurmd logs the batch step" "$(cat log/slurmd-n1.log)" "netvar: job $jid step batch mode full (option) app lulesh"
contains "slurmd logs step 0 on the second node" "$(cat log/slurmd-n2.log)" "netvar: job $jid step 0 mode full"
contains "prolog logs the job on n2" "$(cat log/slurmd-n2.log)" "netvar: job $jid node n2 prolog mode full app lulesh"

# srun and salloc
out=$(srun --netvar=counters -N2 -n2 printenv NETVAR_MODE 2>&1)
check "srun --netvar=counters exports the mode to both tasks" test "$(printf %s "$out" | grep -c '^counters$')" -eq 2
out=$(salloc -N1 --netvar=segments srun printenv NETVAR_MODE 2>&1)
contains "salloc --netvar=segments reaches the step" "$out" "segments"
lacks "salloc prints no netvar line either" "$out" "salloc: netvar:"

# no option: the site default, annotated all the same
jid=$(sbatch --parsable -N1 --wrap true 2>/dev/null)
check "default job finished" wait_job "$jid"
contains "default job annotated with the site default" "$(job_field "$jid" Comment)" '"mode":"counters"'
# the user's own comment is kept
jid=$(sbatch --parsable -N1 --comment=mine --wrap true 2>/dev/null)
wait_job "$jid"
contains "user comment kept before the annotation" "$(job_field "$jid" Comment)" 'mine netvar:{'

# bad values fail the command before anything is submitted
before=$(squeue -h | wc -l)
out=$(sbatch --netvar=bogus --wrap true 2>&1); rc=$?
check "sbatch --netvar=bogus fails" test $rc -ne 0
contains "bad mode error names option, value and choices" "$out" \
    "netvar: --netvar='bogus' is not one of off, counters, segments, full"
out=$(srun --netvar-app=../../etc true 2>&1); rc=$?
check "srun --netvar-app=../../etc fails" test $rc -ne 0
contains "path-like app name refused with the reason" "$out" "--netvar-app='../../etc'"
out=$(salloc --netvar-app="$(printf 'a%.0s' $(seq 1 65))" true 2>&1); rc=$?
check "salloc with a 65-character app name fails" test $rc -ne 0
contains "over-long app name refused" "$out" "longer than 64 characters"
check "nothing was submitted by the bad commands" test "$(squeue -h | wc -l)" -eq "$before"

# a real MPI job across two fake nodes
out=$(srun --mpi=pmix -N2 -n2 --netvar=full "$BUILD/tests/mpi/mpi_hello" 2>&1)
contains "MPI rank 0 ran on n1" "$out" "rank 0 of 2 on n1 sum 1 netvar_mode full"
contains "MPI rank 1 ran on n2" "$out" "rank 1 of 2 on n2 sum 1 netvar_mode full"

# lab down stops exactly what it started
pids=$(awk '{print $1}' "$NETVAR_LAB/pids")
dir=$NETVAR_LAB
cd /
"$LAB" down "$dir" >/dev/null 2>&1
sleep 1
alive=""
for p in $pids; do
    # gone, a zombie, or gone while it was read: not running
    st=$(awk '/^State:/ {print $2; exit}' "/proc/$p/status" 2>/dev/null)
    case $st in Z | X | "") continue ;; esac
    alive="$alive $p($(cat "/proc/$p/comm" 2>/dev/null), state $st)"
done
[ -z "$alive" ] || echo "# still running after down:$alive"
check "no lab daemon left after down" test -z "$alive"
check "lab directory removed" test ! -e "$dir"
check "down is idempotent" "$LAB" down "$dir"
finish
