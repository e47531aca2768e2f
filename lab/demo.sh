#!/usr/bin/env bash
# demo.sh - 'make demo': netvar end to end on a throwaway local Slurm cluster:
# the network lab (lab/demo_netlab.sh) where it can run, else the loopback
# lab below.
#  1. calibrate the (idle) network with ImpactB;
#  2. run three proxy MPI apps of different character alone and in pairs,
#     every job measured by spank_netvar, plus a tiny CompressionB campaign;
#  3. train the model from those records;
#  4. submit a job beside a running one: job_submit/netvar prints the
#     prediction and advice, and applies the policy (scontrol shows it);
#  5. netvar report for a job, an app and the cluster.
# The lab always goes down at the end, whatever happens.
set -euo pipefail
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LAB=$ROOT/lab/lab
NV=$BUILD/bin/netvar
t0=$(date +%s)

# The network lab first (a real bottleneck: lab/demo_netlab.sh); where it
# cannot run (no root, no network namespaces), this loopback demo, which
# shows the workflow but no real interference.  NETVAR_DEMO=loopback skips
# the network lab.
if [ "${NETVAR_DEMO:-netlab}" != loopback ]; then
    rc=0
    bash "$ROOT/lab/demo_netlab.sh" "$BUILD" || rc=$?
    [ "$rc" = 77 ] || exit "$rc"
    echo "netvar demo: the network lab cannot run here; the loopback demo follows (the workflow, without a real bottleneck)" >&2
fi

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
waitq() { for _ in $(seq 1 600); do [ -z "$(squeue -h)" ] && return 0; sleep 0.2; done; }

dir=$("$LAB" up --build "$BUILD" --nodes 4 --netvar-conf "$ROOT/lab/demo/netvar.conf")
trap '"$LAB" down "$dir" >/dev/null 2>&1 || true' EXIT
eval "$("$LAB" env "$dir")"
cd "$dir"
MODEL=$dir/netvar/model.json
SPOOL=$dir/netvar/spool
# small, polite proxies: about 2-4 s each on the lab's 2 cores
A2A="$BUILD/bin/netvar-proxy-alltoall --size 16384 --iters 1500 --compute sleep"
STN="$BUILD/bin/netvar-proxy-stencil --iters 500 --compute sleep"
MCS="$BUILD/bin/netvar-proxy-montecarlo --iters 120 --compute sleep"

say "A 4-node Slurm cluster on this host: n1-n2 on leaf switch s1, n3-n4 on s2"
run sinfo -N -o '%N %t'

say "1. Calibrate the idle network (ImpactB, 3 s)"
printf '$ salloc -N2 netvar calibrate --model model.json --duration-s 3\n'
salloc -Q -N2 "$NV" calibrate --model "$MODEL" --duration-s 3 --nodes 2 >calibrate.json
grep -E '"(service_us|mu_per_us|var_s_us2|samples)"' calibrate.json | head -n 4 | tr -d ' ,' | sed 's/^/  /' 

say "2. Three apps of different character, alone and in pairs; every job is measured"
for rep in 1 2; do
    for app in alltoall stencil montecarlo; do
        case $app in alltoall) cmd=$A2A ;; stencil) cmd=$STN ;; montecarlo) cmd=$MCS ;; esac
        sbatch -Q -N2 -J "$app" --netvar=full --netvar-app="$app" -o "$app-$rep.out" \
            --wrap "srun --mpi=pmix $cmd" >/dev/null
        waitq
    done
done
# a pair shares the uplinks: each job across both leaf switches (a job
# under one leaf switch crosses no uplink and is no job's neighbour)
for pair in "alltoall stencil" "alltoall montecarlo" "stencil alltoall"; do
    # shellcheck disable=SC2086 # two app names: into $1 $2
    set -- $pair
    nodes=n1,n3
    for app in "$1" "$2"; do
        case $app in alltoall) cmd=$A2A ;; stencil) cmd=$STN ;; montecarlo) cmd=$MCS ;; esac
        sbatch -Q -N2 -w "$nodes" -J "$app" --netvar=counters --netvar-app="$app" \
            -o "pair-$1-$2-$app.out" --wrap "srun --mpi=pmix $cmd" >/dev/null
        nodes=n2,n4
    done
    waitq
done
printf '%-12s %-26s %s\n' app run "runtime (s)"
for f in alltoall-*.out stencil-*.out montecarlo-*.out pair-*.out; do
    [ -f "$f" ] || continue
    rt=$(sed -n 's/.*runtime_s=\([0-9.]*\).*/\1/p' "$f" | head -n 1)
    # shellcheck disable=SC2001 # two groups of the name; no expansion does that
    case $f in pair-*) what="beside $(echo "$f" | sed 's/pair-\([a-z]*\)-\([a-z]*\)-\([a-z]*\).out/\1+\2/')"
                     app=${f##*-}; app=${app%.out} ;;
               *) what="alone"; app=${f%%-*} ;; esac
    printf '%-12s %-26s %s\n' "$app" "$what" "${rt:-?}"
done
# shellcheck disable=SC2012 # names netvar makes: job ids and job.json
printf 'job records written by spank_netvar: %s\n' "$(ls "$SPOOL"/jobs/*/job.json | wc -l)"

say "   a tiny CompressionB campaign for alltoall (2 configurations)"
printf '$ salloc -N4 netvar campaign --model model.json --app alltoall --configs 2500000:1:1,25000:3:10 -- netvar-proxy-alltoall ...\n'
# shellcheck disable=SC2086 # A2A: the proxy and its options, one word each
salloc -Q -N4 "$NV" campaign --model "$MODEL" --app alltoall --configs 2500000:1:1,25000:3:10 \
    --repeat 1 --duration-s 2 --nodes 4 -- $A2A >campaign.json
grep -E '"(id|utilization|slowdown_pct)"' campaign.json | tr -d ' ,' | paste -sd' ' | fold -w 120 | sed 's/^/  /' 

say "3. Train the model from the records and the campaign"
run "$NV" train --spool "$SPOOL" --model "$MODEL" --out "$MODEL" --window-s 1 --min-overlap-frac 0.3
sleep 1.5 # job_submit/netvar reloads a changed model within a second

say "4. A stencil job runs on n2,n3, under both leaf switches (it loads their uplinks); an alltoall job is submitted beside it"
sens=$(sbatch --parsable -N2 -w n2,n3 -J stencil --netvar-app=stencil --wrap "srun sleep 30" 2>/dev/null)
for _ in $(seq 1 50); do [ -e "$SPOOL/running/$sens.json" ] && break; sleep 0.2; done
sleep 1.5
run sbatch -N2 -J alltoall --netvar-app=alltoall --netvar-advise=show --wrap "srun sleep 1" || true
noisy=$(squeue -h -n alltoall -o %i | head -n 1)
if [ -n "$noisy" ]; then
    printf '$ scontrol show job %s | grep -E "Comment|ExcNodeList"\n' "$noisy"
    scontrol show job "$noisy" | grep -E "Comment|ExcNodeList" || true
fi

say "5. What netvar knows"
job=$(grep -l '"app":"alltoall"' "$SPOOL"/jobs/*/job.json 2>/dev/null | tail -n 1 | xargs -r dirname | xargs -r basename)
job=${job:-1}
run "$NV" report "$job" --spool "$SPOOL" --model "$MODEL" || true
alone=$(grep -l '"mode":"full"' "$SPOOL"/jobs/*/job.json 2>/dev/null | head -n 1 | xargs -r dirname)
if [ -n "$alone" ] && ls "$alone"/profiles/*.json >/dev/null 2>&1; then
    # shellcheck disable=SC2012 # the first profile by name; netvar names them
    run "$NV" estimate "$(ls "$alone"/profiles/*.json | head -n 1)" || true
fi
run "$NV" report --app alltoall --spool "$SPOOL" --model "$MODEL" || true
run "$NV" report --cluster --spool "$SPOOL" --model "$MODEL" || true
scancel "$sens" 2>/dev/null || true

say "spank_netvar's lines in the slurmd logs for the first two-node MPI job"
first=$(grep -l '"mode":"full"' "$SPOOL"/jobs/*/job.json | head -n 1 | xargs dirname | xargs basename)
grep -h "netvar: job $first " log/slurmd-n1.log log/slurmd-n2.log | sed 's/^\[[^]]*\] //' 

say "Done in $(( $(date +%s) - t0 )) s; the lab is going down"
