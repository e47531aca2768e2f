#!/usr/bin/env bash
# neighbours_eval.sh - 'make eval-neighbours': job_submit's answer beside
# several jobs that share one uplink, against what happened, on the network
# lab's real bottleneck.  Eight namespaced nodes, h1-h4 on leaf s1 and h5-h8
# on leaf s2, one rate-limited uplink between the leaves.  The latency-bound
# CG solver runs on h1,h5 (across the uplink) alone, then beside 1, 2 and 3
# all-to-alls on h2,h6 / h3,h7 / h4,h8, each spanning both leaves, so all of
# them load the same uplink.  For every CG job: its runtime against its
# runtime alone (medians), and what job_submit/netvar said at submission,
# read from the job's Comment (the annotation): own_pct (beside the sum of
# the running jobs whose paths meet cg's), single_pct (the worst single
# neighbour), vs_n and vs_uplinks.  The model comes from a calibration, one
# short CompressionB campaign per app and CG's solo runs, as in
# eval/contain_eval.sh.  Prints one table and writes OUT/neighbours.json
# (schema netvar-neighbours-eval).
# Env: BUILD (default build), NEIGHBOURS_REPS (default 3), NEIGHBOURS_OUT (a
# directory; default a new one under /tmp), NEIGHBOURS_SHORT=1 (the smoke
# size).  Exit 0 done, 77 the lab cannot run here, 1 failed.  The lab always
# goes down at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/eval/lab_eval_lib.sh"
lab_eval_init "netvar eval-neighbours" NEIGHBOURS
lab_eval_up 8 "$ROOT/lab/demo/netvar.conf"
echo "lab $LAB: 8 nodes, h1-h4 on s1, h5-h8 on s2, uplink ${NETVAR_NETLAB_RATE}; $REPS repetition(s)"

# the all-to-alls still running, cancelled at exit with the lab
RUNNING=()
cancel_running() {
    local j
    for j in "${RUNNING[@]}"; do scancel "$j" 2>/dev/null || true; done
    for j in "${RUNNING[@]}"; do
        for _ in $(seq 1 300); do [ -z "$(squeue -h -j "$j" 2>/dev/null)" ] && break; sleep 0.2; done
        for _ in $(seq 1 100); do [ -e "$SPOOL/running/$j.json" ] || break; sleep 0.1; done
    done
    RUNNING=()
}
trap 'cancel_running; netlab_session_cleanup' EXIT

# the Comment job_submit wrote on job $1 (its netvar: annotation), or ""
comment_of() {
    scontrol show job "$1" 2>/dev/null | grep -o 'netvar:{[^}]*}' | tail -n 1 || true
}

echo "lab up at $(since)"
say "model: calibrate, one short campaign per app (load on h2,h6), cg alone on h1,h5, train"
lab_eval_model h1,h5 h1,h2,h5,h6 h2,h6
for rep in $(seq 1 "$REPS"); do
    cg_run "alone-$rep" -w h1,h5 >/dev/null
done
lab_eval_train
echo "(at $(since))"

pairs=("h2,h6" "h3,h7" "h4,h8")
for k in 1 2 3; do
    say "cg on h1,h5 beside $k all-to-all(s) on ${pairs[*]:0:$k}"
    for i in $(seq 0 $((k - 1))); do
        j=$(sbatch --parsable -N2 -w "${pairs[$i]}" -J alltoall --netvar=counters --netvar-app=alltoall \
            -o "$OUT/alltoall-$k-$i.out" --wrap "srun --mpi=pmix $LONG_NCMD")
        RUNNING+=("$j")
        for _ in $(seq 1 100); do [ -e "$SPOOL/running/$j.json" ] && break; sleep 0.1; done
    done
    sleep 2.5 # past their launch, and job_submit's refresher (once a second)
    for rep in $(seq 1 "$REPS"); do
        j=$(cg_run "beside$k-$rep" -w h1,h5) || true
        comment_of "$j" >"$OUT/beside$k-$rep.comment"
    done
    for j in "${RUNNING[@]}"; do
        state=$(squeue -h -j "$j" -o %T 2>/dev/null || true)
        [ "$state" = RUNNING ] || { echo "netvar eval-neighbours: all-to-all $j no longer running ('$state') after the cg runs beside $k" >&2; exit 1; }
    done
    cancel_running
    sleep 1.5
done

say "results (runtime_s the app printed; slowdown against cg alone on h1,h5, medians)"
export OUT REPS
PYTHONPATH="$ROOT/eval" python3 - <<'PY'
import json, os
from lab_eval_results import median as med, runtime
out, reps = os.environ["OUT"], int(os.environ["REPS"])
alone = med([runtime(out, f"alone-{r}") for r in range(1, reps + 1)])
def said(tag):
    try:
        text = open(f"{out}/{tag}.comment").read().strip()
    except OSError:
        return {}
    try:
        return json.loads(text[len("netvar:"):]) if text.startswith("netvar:{") else {}
    except ValueError:
        return {}
rows = []
for k in (1, 2, 3):
    each = [runtime(out, f"beside{k}-{r}") for r in range(1, reps + 1)]
    b = med(each)
    meas = (b / alone - 1) * 100 if alone and b else None
    notes = [said(f"beside{k}-{r}") for r in range(1, reps + 1)]
    own = med([n.get("own_pct") for n in notes])
    single = med([n.get("single_pct", n.get("own_pct")) for n in notes])
    vs_n = med([n.get("vs_n") for n in notes])
    up = med([n.get("vs_uplinks") for n in notes])
    src = next((n.get("src") for n in notes if n.get("src")), None)
    rows.append({"neighbours": k, "alone_median_s": alone, "beside_median_s": b,
                 "measured_pct": meas,
                 "measured_each_pct": [(x / alone - 1) * 100 if alone and x else None for x in each],
                 "said_pct": own, "single_pct": single, "vs_n": vs_n, "vs_uplinks": up,
                 "source": src,
                 "error_pp": own - meas if own is not None and meas is not None else None,
                 "single_error_pp": single - meas if single is not None and meas is not None else None})
fmt = lambda x, f: "?" if x is None else f % x
print(f"{'beside':>6} {'alone s':>8} {'beside s':>9} {'measured':>9} {'said':>9} {'single':>9} "
      f"{'vs_n':>5} {'uplinks':>7} {'error':>9} {'single err':>10}  source")
for r in rows:
    print(f"{r['neighbours']:>6} {fmt(r['alone_median_s'], '%.3f'):>8} {fmt(r['beside_median_s'], '%.3f'):>9} "
          f"{fmt(r['measured_pct'], '%+.1f %%'):>9} {fmt(r['said_pct'], '%+.1f %%'):>9} "
          f"{fmt(r['single_pct'], '%+.1f %%'):>9} {fmt(r['vs_n'], '%g'):>5} {fmt(r['vs_uplinks'], '%g'):>7} "
          f"{fmt(r['error_pp'], '%+.1f pp'):>9} {fmt(r['single_error_pp'], '%+.1f pp'):>10}  {r['source'] or '-'}")
print("said: job_submit's own_pct from the Comment (beside the sum); single: its worst single "
      "neighbour (single_pct); error: said - measured")
json.dump({"schema": "netvar-neighbours-eval", "version": 1, "repetitions": reps,
           "victim": "cg on h1,h5 (leaves s1 and s2)",
           "neighbours": "alltoall on h2,h6, h3,h7, h4,h8 (each across the uplink)",
           "rows": rows}, open(f"{out}/neighbours.json", "w"), indent=1)
PY
echo "results: $OUT/neighbours.json (done in $(since); the lab is going down)"
