#!/usr/bin/env bash
# spank_step.sh - 'make bench-spank': the time spank_netvar adds to a step
# launched inside an existing allocation. Two 2-node labs run side by side,
# one with netvar's plugstack and one with an empty plugstack; in each,
# `salloc -N2 --no-shell` holds an allocation and `srun --jobid=J -N2 -n2
# true` is timed, alternating between the labs. Prints medians and the
# paired difference. Budget: <= 2 ms per step (goal <= 1 ms). Asserts nothing.
#   RUNS=100 bash lab/bench/spank_step.sh build
set -euo pipefail
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$ROOT/lab/lab
RUNS=${RUNS:-100}
with="" without=""
# shellcheck disable=SC2154 # d is the loop's own variable
trap 'for d in $with $without; do "$LAB" down "$d" >/dev/null 2>&1 || true; done' EXIT
with=$("$LAB" up --build "$BUILD" --nodes 2 --no-jobsubmit 2>/dev/null)
without=$("$LAB" up --build "$BUILD" --nodes 2 --no-jobsubmit --no-spank 2>/dev/null)

alloc() { # lab -> job id of a held allocation
    SLURM_CONF=$1/etc/slurm.conf salloc -N2 --no-shell --netvar=counters 2>&1 |
        sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p'
}
jw=$(alloc "$with")
jo=$(SLURM_CONF=$without/etc/slurm.conf salloc -N2 --no-shell 2>&1 | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
step_ms() { # lab job -> ms
    local t0 t1
    t0=$(date +%s%N)
    SLURM_CONF=$1/etc/slurm.conf srun --jobid="$2" -N2 -n2 true >/dev/null 2>&1
    t1=$(date +%s%N)
    echo "scale=3; ($t1 - $t0) / 1000000" | bc
}
: >/tmp/netvar-spank-bench.$$
for _ in $(seq 1 "$RUNS"); do
    a=$(step_ms "$with" "$jw"); b=$(step_ms "$without" "$jo")
    echo "$a $b" >>/tmp/netvar-spank-bench.$$
done
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
mw=$(awk '{print $1}' /tmp/netvar-spank-bench.$$ | median)
mo=$(awk '{print $2}' /tmp/netvar-spank-bench.$$ | median)
md=$(awk '{print $1 - $2}' /tmp/netvar-spank-bench.$$ | median)
rm -f /tmp/netvar-spank-bench.$$
echo "bench-spank: $RUNS alternated steps (srun --jobid -N2 -n2 true) per plugstack"
echo "median step launch: with spank_netvar $mw ms, empty plugstack $mo ms"
echo "median paired added time per step: $md ms (budget <= 2 ms, goal <= 1 ms)"
