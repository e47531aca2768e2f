#!/usr/bin/env bash
# contain_eval.sh - 'make eval-contain': what avoid's contain buys on the
# network lab's real bottleneck.  Six namespaced nodes, h1-h3 on leaf s1 and
# h4-h6 on leaf s2, one rate-limited uplink between the leaves.  An
# all-to-all runs on h3,h6 (it spans both leaves and loads the uplink).  The
# latency-bound CG solver runs beside it:
#   spanning    -w h1,h4: it crosses the uplink the all-to-all loads;
#   one leaf    -w h1,h2: under s1 only, it crosses no uplink;
#   submitted   -N2 with no node list: job_submit/netvar predicts, applies
#               the avoid rule, which (AvoidUplinks=contain) keeps it under
#               one leaf switch, and Slurm places it.
# Each placement also runs alone (no all-to-all) for its baseline.  The
# model job_submit predicts with comes from a calibration, one short
# CompressionB campaign per app and CG's solo runs, as in 'make demo'.
# Prints one table (runtimes in s, slowdowns in %) and writes
# OUT/contain.json (schema netvar-contain-eval).
# Env: BUILD (default build), CONTAIN_REPS (default 3), CONTAIN_OUT (a
# directory; default a new one under /tmp), CONTAIN_SHORT=1 (the smoke
# size: 1 repetition, shorter runs).  Exit 0 done, 77 the lab cannot run
# here, 1 failed.  The lab always goes down at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(readlink -f "${BUILD:-build}")
NETLAB=$ROOT/lab/netlab
NV=$BUILD/bin/netvar
REPS=${CONTAIN_REPS:-3}
ITERS=2500 DUR=2 CONFIGS=2.6e7:1:1,8.7e6:1:1,250:1:10
if [ "${CONTAIN_SHORT:-0}" = 1 ]; then REPS=1 ITERS=800 DUR=1 CONFIGS=2.6e7:1:1,250:1:10; fi
case $REPS in '' | *[!0-9]* | 0) echo "netvar eval-contain: CONTAIN_REPS=$REPS: not a whole number from 1" >&2; exit 1 ;; esac
OUT=${CONTAIN_OUT:-$(mktemp -d /tmp/netvar-contain.XXXXXX)}
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
t0=$(date +%s)
say() { printf '\n== %s\n' "$*"; }
since() { echo "$(( $(date +%s) - t0 )) s"; }

[ "$(id -u)" = 0 ] || { echo "netvar eval-contain: the network lab needs root" >&2; exit 77; }
. "$ROOT/lab/netlab_session.sh"
netlab_session_up 6 "$ROOT/lab/demo/netvar.conf" "netvar eval-contain"
VCMD="$BUILD/bin/netvar-proxy-cg --compute sleep --iters $ITERS"
NCMD="$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters 40"
LONG_NCMD="$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters 100000"
echo "lab $LAB: 6 nodes, h1-h3 on s1, h4-h6 on s2, uplink ${NETVAR_NETLAB_RATE}; $REPS repetition(s)"

echo "lab up at $(since)"
say "model: calibrate, one short campaign per app (load on h3,h6), cg alone on h1,h4, train"
salloc -Q -N2 -w h1,h4 --exclusive "$NV" calibrate --model "$MODEL" --duration-s "$DUR" \
    --interval-us 5000 --text >"$OUT/calibrate.txt"
for a in cg alltoall; do
    case $a in cg) cmd=$VCMD ;; *) cmd=$NCMD ;; esac
    # shellcheck disable=SC2086
    salloc -Q -N4 -w h1,h3,h4,h6 --exclusive "$NV" campaign --model "$MODEL" --app "$a" \
        --configs "$CONFIGS" --repeat 1 --duration-s "$DUR" --ghz 2.6 \
        --interval-us 5000 --load-nodes h3,h6 --runtime-key runtime_s \
        --bottleneck "$BOTTLENECK" --text -- $cmd >"$OUT/campaign_$a.txt"
    echo "campaign $a done at $(since)"
done
runtime() { sed -n 's/.*runtime_s=\([0-9.]*\).*/\1/p' "$1" | head -n 1; }
# one CG run: $1 tag, then sbatch's placement options; prints the job id.
# It returns once the job's registry entry is gone too (the epilog removes
# it just after the job ends), so the next submission sees only the jobs
# that really run.
cg_run() {
    local tag=$1 j; shift
    j=$(sbatch --parsable -W -N2 "$@" -J cg --netvar=counters --netvar-app=cg \
        -o "$OUT/$tag.out" --wrap "srun --mpi=pmix $VCMD" 2>"$OUT/$tag.err") || {
        echo "netvar eval-contain: cg ($tag) failed: $(tail -n 2 "$OUT/$tag.err")" >&2
        return 1
    }
    for _ in $(seq 1 100); do [ -e "$SPOOL/running/$j.json" ] || break; sleep 0.1; done
    sleep 1.2 # job_submit's refresher looks once a second
    echo "$j"
}
for rep in $(seq 1 "$REPS"); do
    cg_run "alone-span-$rep" -w h1,h4 >/dev/null
    cg_run "alone-leaf-$rep" -w h1,h2 >/dev/null
done
"$NV" train --spool "$SPOOL" --model "$MODEL" --out "$MODEL" --window-s 1 --min-overlap-frac 0.3 \
    >"$OUT/train.txt"
sleep 1.5 # job_submit/netvar reloads a changed model within a second
echo "(at $(since))"

say "alltoall on h3,h6 (both leaves); cg beside it: spanning, under one leaf, and as job_submit places it"
NEIGHBOUR_JOB=$(sbatch --parsable -N2 -w h3,h6 -J alltoall --netvar=counters --netvar-app=alltoall \
    -o "$OUT/alltoall-long.out" --wrap "srun --mpi=pmix $LONG_NCMD")
for _ in $(seq 1 100); do [ -e "$SPOOL/running/$NEIGHBOUR_JOB.json" ] && break; sleep 0.1; done
sleep 2 # past the neighbour's launch
placed=""
for rep in $(seq 1 "$REPS"); do
    cg_run "beside-span-$rep" -w h1,h4 >/dev/null
    cg_run "beside-leaf-$rep" -w h1,h2 >/dev/null
    j=$(cg_run "beside-submitted-$rep") || true
    show=$(scontrol show job "$j" 2>/dev/null || true)
    nodes=$(printf '%s\n' "$show" | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p' | head -n 1)
    sw=$(printf '%s\n' "$show" | sed -n 's/.*Switches=\([^ ]*\).*/\1/p' | head -n 1)
    placed="$placed${placed:+ }${nodes:-?}(switches=${sw:-none})"
done
state=$(squeue -h -j "$NEIGHBOUR_JOB" -o %T 2>/dev/null || true)
scancel "$NEIGHBOUR_JOB" 2>/dev/null || true
for _ in $(seq 1 300); do [ -z "$(squeue -h -j "$NEIGHBOUR_JOB" 2>/dev/null)" ] && break; sleep 0.2; done
NEIGHBOUR_JOB=""
[ "$state" = RUNNING ] || { echo "netvar eval-contain: the all-to-all was no longer running (state '$state') when the last cg finished" >&2; exit 1; }

say "results (runtime_s the app printed; slowdown against the same placement alone, medians)"
sbatch_lines=$(cat "$OUT/beside-submitted-1.err")
printf '%s\n' "$sbatch_lines" | sed 's/^/  /'
export OUT REPS placed
python3 - <<'PY'
import json, os, re, statistics
out, reps = os.environ["OUT"], int(os.environ["REPS"])
def rt(tag):
    try:
        m = re.search(r"runtime_s=([0-9.]+)", open(f"{out}/{tag}.out").read())
        return float(m.group(1)) if m else None
    except OSError:
        return None
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
alone = {p: [rt(f"alone-{p}-{r}") for r in range(1, reps + 1)] for p in ("span", "leaf")}
beside = {p: [rt(f"beside-{p}-{r}") for r in range(1, reps + 1)] for p in ("span", "leaf", "submitted")}
err = open(f"{out}/beside-submitted-1.err").read()
m = re.search(r"predicted slowdown ([0-9.-]+) % beside job \d+ \([^;]*; *([^)]*)\)", err)
rule = re.search(r"policy rule '([^']*)' applied: ([a-z,]+)", err)
rows = []
for p, base, what in (("span", "span", "-w h1,h4: crosses the uplink"),
                      ("leaf", "leaf", "-w h1,h2: under leaf s1 only"),
                      ("submitted", "leaf", "-N2, placed by Slurm after job_submit")):
    a, b = med(alone[base]), med(beside[p])
    pct = (b / a - 1) * 100 if a and b else None
    each = [(x / a - 1) * 100 if a and x else None for x in beside[p]]
    rows.append({"placement": p, "how": what, "alone_median_s": a, "beside_median_s": b,
                 "slowdown_pct": pct, "slowdown_each_pct": each, "beside_s": beside[p]})
placed = os.environ.get("placed", "").split()
fmt = lambda x, f: "?" if x is None else f % x
print(f"{'placement':<10} {'alone s':>9} {'beside s':>9} {'slowdown':>9}  each repetition, %")
for r in rows:
    print(f"{r['placement']:<10} {fmt(r['alone_median_s'], '%.3f'):>9} {fmt(r['beside_median_s'], '%.3f'):>9} "
          f"{fmt(r['slowdown_pct'], '%+.1f %%'):>9}  "
          + " ".join(fmt(x, "%+.1f") for x in r["slowdown_each_pct"]) + f"   ({r['how']})")
print("submitted cg placed on: " + (" ".join(placed) or "?") +
      " (h1-h3 are leaf s1, h4-h6 leaf s2)")
print("prediction at submission: " + (f"+{m.group(1)} % ({m.group(2)})" if m else "none") +
      "; rule: " + (f"{rule.group(1)} ({rule.group(2)})" if rule else "none") +
      " (the model reads the uplink, shared when cg spans the leaves)")
res = {"schema": "netvar-contain-eval", "version": 1, "repetitions": reps,
       "neighbour": "alltoall on h3,h6 (leaves s1 and s2)", "victim": "cg, 2 nodes",
       "rows": rows, "submitted_nodes": placed,
       "predicted_pct": float(m.group(1)) if m else None, "predicted_source": m.group(2) if m else None,
       "rule": rule.group(1) if rule else None, "actions": rule.group(2) if rule else None}
json.dump(res, open(f"{out}/contain.json", "w"), indent=1)
PY
echo "results: $OUT/contain.json (done in $(since); the lab is going down)"
