#!/usr/bin/env bash
# demo_netlab.sh - 'make demo' on the network lab (lab/netlab): four
# namespaced nodes, two leaf switches joined by one rate-limited uplink, so
# interference is real and measured at a real bottleneck.
#  1. calibrate the idle uplink with ImpactB;
#  2. measure two apps' character with a short CompressionB campaign each,
#     reading utilization at the uplink's own counters (the counters route);
#  3. run the sensitive app alone (spank_netvar records it), train;
#  4. start the heavy app, then submit the sensitive one beside it:
#     job_submit/netvar prints its prediction and the source that answered,
#     and applies the site policy;
#  5. the measured slowdown, next to the prediction (netvar report).
# Exits 77 when the network lab cannot run here (lab/demo.sh then runs the
# loopback demo instead).  The lab always goes down at the end.
set -euo pipefail
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NETLAB=$ROOT/lab/netlab
NV=$BUILD/bin/netvar
t0=$(date +%s)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
since() { echo "$(( $(date +%s) - t0 )) s"; }

. "$ROOT/lab/netlab_session.sh"
netlab_session_up 4 "$ROOT/lab/demo/netvar.conf" "netvar demo"
# the sensitive app and its heavy neighbour (proxies; --compute sleep keeps
# the lab's 2 CPUs out of the picture, so what slows it is the network): a
# latency-bound CG solver beside a bursty all-to-all, which queues the
# uplink for milliseconds at a time
VICTIM=cg NEIGHBOUR=alltoall
VCMD="$BUILD/bin/netvar-proxy-cg --compute sleep --iters 2500"
NCMD="$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters 200"
LONG_NCMD="$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters 600"

say "A 4-node Slurm cluster in network namespaces: h1,h2 on leaf s1, h3,h4 on leaf s2; one ${NETVAR_NETLAB_RATE} uplink between the leaves"
run sinfo -N -o '%N %t'
echo "(up in $(since))"

say "1. Calibrate the idle uplink (ImpactB h1<->h3, 3 s)"
printf '$ salloc -N2 -w h1,h3 netvar calibrate --model model.json --duration-s 3\n'
salloc -Q -N2 -w h1,h3 --exclusive "$NV" calibrate --model "$MODEL" --duration-s 3 \
    --interval-us 5000 --text | sed 's/^/  /'

say "2. Each app's character: a short CompressionB campaign, U read at the uplink's counters"
for a in $VICTIM $NEIGHBOUR; do
    case $a in "$VICTIM") cmd=$VCMD ;; *) cmd=$NCMD ;; esac
    printf '$ salloc -N4 netvar campaign --model model.json --app %s --configs 2.6e7:1:1,8.7e6:1:1,250:1:10 --load-nodes h2,h4 --bottleneck %s -- %s\n' \
        "$a" "$BOTTLENECK" "${cmd#"$BUILD"/bin/}"
    # shellcheck disable=SC2086 # cmd: the command and its options, one word each
    salloc -Q -N4 -w 'h[1-4]' --exclusive "$NV" campaign --model "$MODEL" --app "$a" \
        --configs 2.6e7:1:1,8.7e6:1:1,250:1:10 --repeat 1 --duration-s 2 --ghz 2.6 \
        --interval-us 5000 --load-nodes h2,h4 --runtime-key runtime_s \
        --bottleneck "$BOTTLENECK" --text -- $cmd | sed 's/^/  /'
done
echo "(at $(since))"

say "3. $VICTIM alone twice on h1,h3 (spank_netvar records every job), then train"
for rep in 1 2; do
    run sbatch -Q -W -N2 -w h1,h3 -J "$VICTIM" --netvar=counters --netvar-app="$VICTIM" \
        -o "$VICTIM-alone-$rep.out" --wrap "srun --mpi=pmix $VCMD" >/dev/null
done
run "$NV" train --spool "$SPOOL" --model "$MODEL" --out "$MODEL" --window-s 1 --min-overlap-frac 0.3 \
    | tail -n 3
sleep 1.5 # job_submit/netvar reloads a changed model within a second

say "4. $NEIGHBOUR runs on h2,h4; $VICTIM is submitted beside it on h1,h3 (they share the uplink)"
NEIGHBOUR_JOB=$(sbatch --parsable -N2 -w h2,h4 -J "$NEIGHBOUR" --netvar=counters \
    --netvar-app="$NEIGHBOUR" -o "$NEIGHBOUR-long.out" --wrap "srun --mpi=pmix $LONG_NCMD")
for _ in $(seq 1 100); do [ -e "$SPOOL/running/$NEIGHBOUR_JOB.json" ] && break; sleep 0.1; done
sleep 2 # past the neighbour's launch
printf '$ sbatch -N2 -w h1,h3 --netvar-app=%s --netvar-advise=show ... %s\n' "$VICTIM" "${VCMD#"$BUILD"/bin/}"
victim=$(sbatch --parsable -N2 -w h1,h3 -J "$VICTIM" --netvar=counters --netvar-app="$VICTIM" \
    --netvar-advise=show -o "$VICTIM-beside.out" --wrap "srun --mpi=pmix $VCMD" 2>sbatch.err) || true
sed 's/^/  /' sbatch.err
[ -n "$victim" ] || { echo "netvar demo: the submission failed" >&2; exit 1; }
printf '$ scontrol show job %s | grep -E "Comment|ExcNodeList"\n' "$victim"
scontrol show job "$victim" | grep -E "Comment|ExcNodeList" | sed 's/^ */  /' || true
for _ in $(seq 1 600); do
    [ -z "$(squeue -h -j "$victim" 2>/dev/null)" ] && break
    sleep 0.2
done
scancel "$NEIGHBOUR_JOB" 2>/dev/null || true
for _ in $(seq 1 300); do
    [ -z "$(squeue -h -j "$NEIGHBOUR_JOB" 2>/dev/null)" ] && break
    sleep 0.2
done
NEIGHBOUR_JOB=""

say "5. Measured, next to the prediction"
alone=$(sed -n 's/.*runtime_s=\([0-9.]*\).*/\1/p' "$VICTIM"-alone-*.out | sort -n | head -n 1)
beside=$(sed -n 's/.*runtime_s=\([0-9.]*\).*/\1/p' "$VICTIM-beside.out" | head -n 1)
pct=$(awk -v a="${alone:-0}" -v b="${beside:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%+.1f", (b / a - 1) * 100; else print "?" }')
# the prediction and its source, from job_submit's annotation in the Comment
# (sbatch tells the user in plain words, without the source)
predicted=$(scontrol show job "$victim" 2>/dev/null | sed -n 's/.*netvar:\({[^}]*}\).*/\1/p' | head -n 1 |
    jq -r 'select(.own_pct != null) | "\(.own_pct | round) % (\(.src // "?"))"' 2>/dev/null || true)
printf '%s alone: %s s (the faster of two); beside %s: %s s (the runtime_s the app printed)\n' \
    "$VICTIM" "${alone:-?}" "$NEIGHBOUR" "${beside:-?}"
printf 'measured slowdown: %s %%; predicted at submission: +%s\n' "$pct" "${predicted:-?}"
echo "(netvar report below compares whole-job wall times from the records, which include the srun launch)"
for _ in $(seq 1 50); do [ -e "$SPOOL/jobs/$victim/job.json" ] && break; sleep 0.2; done
run "$NV" report "$victim" --spool "$SPOOL" --model "$MODEL" || true

say "Done in $(since); the lab is going down"
