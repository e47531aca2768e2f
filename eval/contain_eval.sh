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
. "$ROOT/eval/lab_eval_lib.sh"
lab_eval_init "netvar eval-contain" CONTAIN
lab_eval_up 6 "$ROOT/lab/demo/netvar.conf"
# the evaluation reads the model's lines (source, rule) from sbatch, which
# tells users plain words by default; the refresher rereads within a second
echo "UserMessages=all" >>etc/netvar.conf
echo "lab $LAB: 6 nodes, h1-h3 on s1, h4-h6 on s2, uplink ${NETVAR_NETLAB_RATE}; $REPS repetition(s)"

echo "lab up at $(since)"
say "model: calibrate, one short campaign per app (load on h3,h6), cg alone on h1,h4, train"
lab_eval_model h1,h4 h1,h3,h4,h6 h3,h6
for rep in $(seq 1 "$REPS"); do
    cg_run "alone-span-$rep" -w h1,h4 >/dev/null
    cg_run "alone-leaf-$rep" -w h1,h2 >/dev/null
done
lab_eval_train
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
PYTHONPATH="$ROOT/eval" python3 - <<'PY'
import json, os, re
from lab_eval_results import median as med, prediction, runtime
out, reps = os.environ["OUT"], int(os.environ["REPS"])
rt = lambda tag: runtime(out, tag)
alone = {p: [rt(f"alone-{p}-{r}") for r in range(1, reps + 1)] for p in ("span", "leaf")}
beside = {p: [rt(f"beside-{p}-{r}") for r in range(1, reps + 1)] for p in ("span", "leaf", "submitted")}
err = open(f"{out}/beside-submitted-1.err").read()
pct, src = prediction(err)
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
print("prediction at submission: " + (f"+{pct:g} % ({src})" if src else "none") +
      "; rule: " + (f"{rule.group(1)} ({rule.group(2)})" if rule else "none") +
      " (the model reads the uplink, shared when cg spans the leaves)")
res = {"schema": "netvar-contain-eval", "version": 1, "repetitions": reps,
       "neighbour": "alltoall on h3,h6 (leaves s1 and s2)", "victim": "cg, 2 nodes",
       "rows": rows, "submitted_nodes": placed,
       "predicted_pct": pct, "predicted_source": src,
       "rule": rule.group(1) if rule else None, "actions": rule.group(2) if rule else None}
json.dump(res, open(f"{out}/contain.json", "w"), indent=1)
PY
echo "results: $OUT/contain.json (done in $(since); the lab is going down)"
