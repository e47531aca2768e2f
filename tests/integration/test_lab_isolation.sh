#!/usr/bin/env bash
# test_lab_isolation.sh - two labs at once do not collide, and a lab whose
# daemons were killed without 'down' does not break the next one.
. "$ROOT/tests/integration/lab_lib.sh"
lab_start --nodes 2 --no-jobsubmit
first=$NETVAR_LAB
first_conf=$SLURM_CONF
lab_start --nodes 2
second=$NETVAR_LAB
check "labs use different directories" test "$first" != "$second"
p1=$(sed -n 's/^SlurmctldPort=//p' "$first/etc/slurm.conf")
p2=$(sed -n 's/^SlurmctldPort=//p' "$second/etc/slurm.conf")
check "labs use different controller ports" test "$p1" != "$p2"
out=$(SLURM_CONF=$first_conf srun -N2 printenv SLURM_CLUSTER_NAME 2>&1)
check "jobs run in the first lab while the second is up" test "$(printf %s "$out" | grep -c netvarlab)" -eq 2
out=$(srun -N2 true 2>&1)
check "jobs run in the second lab" test $? -eq 0

# simulate a crash: kill the first lab's daemons without 'down'
while read -r pid _; do kill -KILL "$pid" 2>/dev/null; done <"$first/pids"
sleep 1
lab_start --nodes 2
out=$(srun -N2 hostname 2>&1)
check "a new lab works beside a crashed one" test $? -eq 0
check "down cleans up the crashed lab" "$LAB" down "$first"
check "crashed lab directory removed" test ! -e "$first"
finish
