#!/usr/bin/env bash
# paths_eval.sh - 'make eval-paths': does a placement that both jobs span,
# across leaf switches, share a bottleneck only where their leaves meet, and
# does job_submit/netvar say so at submission?  Six namespaced nodes under
# four leaf switches, each leaf with its own rate-limited uplink to a core
# that is not limited (lab/netlab --leaves 4: h1,h2 on s1, h3,h4 on s2, h5
# on s3, h6 on s4).  The latency-bound CG solver runs on h1,h3 (leaves s1
# and s2) beside an all-to-all that also spans two leaves:
#   apart    on h5,h6 (s3, s4): no uplink in common with CG;
#   shared   on h2,h5 (s1, s3): both cross leaf s1's uplink;
#   both     on h2,h4 (s1, s2): both cross the uplinks of s1 and s2.
# CG names its nodes (-w h1,h3), so job_submit reads its leaves from
# topology.conf and predicts per path: 0 % (path: no shared uplink) apart,
# the model's answer where they meet, the same for one uplink in common as
# for two (the model keeps one bottleneck per pair).  Each CG run is set against CG alone on the
# same nodes.  The model comes from a calibration, one short CompressionB
# campaign per app at leaf s1's uplink (load on h2,h4) and CG's solo runs,
# as in 'make eval-contain'.  Prints one table (runtimes in s, slowdowns and
# predictions in %) and writes OUT/paths.json (schema netvar-paths-eval).
# Env: BUILD (default build), PATHS_REPS (default 3), PATHS_OUT (a
# directory; default a new one under /tmp), PATHS_SHORT=1 (the smoke size:
# 1 repetition, shorter runs).  Exit 0 done, 77 the lab cannot run here,
# 1 failed.  The lab always goes down at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(readlink -f "${BUILD:-build}")
. "$ROOT/eval/lab_eval_lib.sh"
lab_eval_init "netvar eval-paths" PATHS
. "$ROOT/lab/netlab_session.sh"
netlab_session_up 6 "$ROOT/lab/demo/netvar.conf" "netvar eval-paths" 4
echo "lab $LAB: 6 nodes, h1,h2 on s1, h3,h4 on s2, h5 on s3, h6 on s4, each leaf's uplink ${NETVAR_NETLAB_RATE} to a core; $REPS repetition(s)"
grep -q '^SwitchName=s4 Nodes=h6$' etc/topology.conf ||
    { echo "netvar eval-paths: the lab's topology is not the one this evaluation needs:" >&2; cat etc/topology.conf >&2; exit 1; }

echo "lab up at $(since)"
say "model: calibrate, one short campaign per app at leaf s1's uplink (load on h2,h4), cg alone on h1,h3, train"
lab_eval_model h1,h3 h1,h2,h3,h4 h2,h4
for rep in $(seq 1 "$REPS"); do cg_run "alone-$rep" -w h1,h3 >/dev/null; done
lab_eval_train
echo "(at $(since))"

# the all-to-all on $2 for the CG runs tagged $1
beside() {
    local tag=$1 nodes=$2 state
    NEIGHBOUR_JOB=$(sbatch --parsable -N2 -w "$nodes" -J alltoall --netvar=counters \
        --netvar-app=alltoall -o "$OUT/alltoall-$tag.out" --wrap "srun --mpi=pmix $LONG_NCMD")
    for _ in $(seq 1 100); do [ -e "$SPOOL/running/$NEIGHBOUR_JOB.json" ] && break; sleep 0.1; done
    sleep 2 # past the neighbour's launch, and job_submit has its registry entry
    for rep in $(seq 1 "$REPS"); do cg_run "$tag-$rep" -w h1,h3 >/dev/null; done
    state=$(squeue -h -j "$NEIGHBOUR_JOB" -o %T 2>/dev/null || true)
    scancel "$NEIGHBOUR_JOB" 2>/dev/null || true
    for _ in $(seq 1 300); do [ -z "$(squeue -h -j "$NEIGHBOUR_JOB" 2>/dev/null)" ] && break; sleep 0.2; done
    for _ in $(seq 1 100); do [ -e "$SPOOL/running/$NEIGHBOUR_JOB.json" ] || break; sleep 0.1; done
    NEIGHBOUR_JOB=""
    sleep 1.2
    [ "$state" = RUNNING ] || { echo "netvar eval-paths: the all-to-all ($tag) was no longer running (state '$state') when the last cg finished" >&2; exit 1; }
}
say "cg on h1,h3 (s1, s2) beside the all-to-all on h5,h6 (s3, s4): no uplink in common"
beside apart h5,h6
echo "(at $(since))"
say "cg on h1,h3 (s1, s2) beside the all-to-all on h2,h5 (s1, s3): leaf s1's uplink in common"
beside shared h2,h5
echo "(at $(since))"
say "cg on h1,h3 (s1, s2) beside the all-to-all on h2,h4 (s1, s2): both of its uplinks in common"
beside both h2,h4

say "results (runtime_s the app printed; slowdown against cg alone on h1,h3, medians)"
for tag in apart shared both; do sed "s/^/  $tag: /" "$OUT/$tag-1.err"; done
export OUT REPS
PYTHONPATH="$ROOT/eval" python3 - <<'PY'
import json, os
from lab_eval_results import median as med, prediction, runtime
out, reps = os.environ["OUT"], int(os.environ["REPS"])
rt = lambda tag: runtime(out, tag)
alone = [rt(f"alone-{r}") for r in range(1, reps + 1)]
a = med(alone)
rows = []
for tag, nodes, leaves in (("apart", "h5,h6", "s3,s4"), ("shared", "h2,h5", "s1,s3"),
                             ("both", "h2,h4", "s1,s2")):
    beside = [rt(f"{tag}-{r}") for r in range(1, reps + 1)]
    b = med(beside)
    err = open(f"{out}/{tag}-1.err").read()
    pct, src = prediction(err, "alltoall")
    rows.append({"placement": tag, "neighbour_nodes": nodes, "neighbour_leaves": leaves,
                 "alone_median_s": a, "beside_median_s": b, "beside_s": beside,
                 "slowdown_pct": (b / a - 1) * 100 if a and b else None,
                 "slowdown_each_pct": [(x / a - 1) * 100 if a and x else None for x in beside],
                 "predicted_pct": pct, "predicted_source": src})
fmt = lambda x, f: "?" if x is None else f % x
print(f"{'neighbour':<22} {'alone s':>8} {'beside s':>9} {'slowdown':>9} {'predicted':>10}  source; each repetition, %")
for r in rows:
    print(f"{r['placement'] + ' ' + r['neighbour_nodes'] + ' (' + r['neighbour_leaves'] + ')':<22} "
          f"{fmt(r['alone_median_s'], '%.3f'):>8} {fmt(r['beside_median_s'], '%.3f'):>9} "
          f"{fmt(r['slowdown_pct'], '%+.1f %%'):>9} {fmt(r['predicted_pct'], '%+.0f %%'):>10}  "
          f"{r['predicted_source'] or 'no prediction'}; "
          + " ".join(fmt(x, "%+.1f") for x in r["slowdown_each_pct"]))
print("cg alone on h1,h3: " + " ".join(fmt(x, "%.3f") for x in alone) + " s")
res = {"schema": "netvar-paths-eval", "version": 1, "repetitions": reps,
       "victim": "cg on h1,h3 (leaves s1, s2)", "alone_s": alone,
       "topology": "4 leaves (s1: h1,h2; s2: h3,h4; s3: h5; s4: h6), one rate-limited uplink each to an unlimited core",
       "rows": rows}
json.dump(res, open(f"{out}/paths.json", "w"), indent=1)
PY
echo "results: $OUT/paths.json (done in $(since); the lab is going down)"
