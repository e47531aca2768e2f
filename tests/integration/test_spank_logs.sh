#!/usr/bin/env bash
# test_spank_logs.sh - logs an admin can live with (issue 17): on a node
# without InfiniBand, counters=auto falls back to netdev; that is a normal
# fallback, said at info level once when slurmd starts, never as an error
# and never once per job.
. "$ROOT/tests/integration/lab_lib.sh"
lab_start --nodes 2 --plugstack-args "counters=auto"
for i in 1 2 3; do
    j=$(sbatch --parsable --netvar=counters --wrap "srun true" 2>/dev/null)
    check "job $i finished" wait_job "$j"
done
log=log/slurmd-n1.log
check "slurmd says once, at start, which counters this node reads" \
    test "$(grep -c 'netvar: counters: this node reads netdev counters' "$log")" -eq 1
if [ ! -e /sys/class/infiniband ]; then
    check "the missing InfiniBand is said once, at info level" \
        test "$(grep 'netvar: counters: infiniband unavailable' "$log" | grep -vc 'debug')" -eq 1
fi
check "no netvar error line for a normal fallback" \
    test "$(grep -c 'error: netvar: counters: .*unavailable' "$log")" -eq 0
finish
