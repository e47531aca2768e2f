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
# for two (the model keeps one bottleneck per pair).  Each CG run is set
# against CG alone on the same nodes.  The model comes from a calibration,
# one short CompressionB campaign per app at leaf s1's uplink (load on
# h2,h4) and CG's solo runs, as in 'make eval-contain'.  One more CG run
# per placement, not timed, is watched: the lab's sampler reads every uplink
# end's queue and ss reads CG's round-trip time, so each placement also
# records the queue waits on CG's own path.
# Prints the tables (runtimes in s, slowdowns and predictions in %, waits
# and round trips in ms), the bound the all-to-all's queue-free octiles put
# on the queueing answer, and writes OUT/paths.json (schema
# netvar-paths-eval).
# Env: BUILD (default build), PATHS_REPS (default 3), PATHS_OUT (a
# directory; default a new one under /tmp), PATHS_CONFIGS (the campaign's
# CompressionB configurations), PATHS_SHORT=1 (the smoke size:
# 1 repetition, shorter runs).  Exit 0 done, 77 the lab cannot run here,
# 1 failed.  The lab always goes down at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/eval/lab_eval_lib.sh"
lab_eval_init "netvar eval-paths" PATHS
lab_eval_up 6 "$ROOT/lab/demo/netvar.conf" 4
# the evaluation reads the model's lines (source, rule) from sbatch, which
# tells users plain words by default; the refresher rereads within a second
echo "UserMessages=all" >>etc/netvar.conf
echo "lab $LAB: 6 nodes, h1,h2 on s1, h3,h4 on s2, h5 on s3, h6 on s4, each leaf's uplink ${NETVAR_NETLAB_RATE} to a core; $REPS repetition(s)"
grep -q '^SwitchName=s4 Nodes=h6$' etc/topology.conf ||
    { echo "netvar eval-paths: the lab's topology is not the one this evaluation needs:" >&2; cat etc/topology.conf >&2; exit 1; }

echo "lab up at $(since)"

# Per path: one more CG run in each placement, after the timed ones, is
# watched: the lab's sampler reads every uplink end's queue (backlog over
# the shaper's rate, at jittered instants about every 100 ms) and ss reads
# CG's smoothed round-trip time in h1's namespace twice a second, so each
# placement records the waits on CG's own path (s1's and s2's uplinks, both
# ends) beside the round trip its messages took.  The watchers fork about
# 80 times a second on a 2-core host, so the runs they watch are not timed.
# measure TAG: that run, into OUT/TAG.counters.json and OUT/TAG.ss.
WATCHERS=""
paths_cleanup() {
    local p
    for p in $WATCHERS; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    netlab_session_cleanup
}
trap paths_cleanup EXIT
rtt_watch() {
    while :; do
        echo "== $(date +%s.%N)"
        nsenter --net="/run/netns/${NETVAR_NETLAB_PREFIX}h1" ss -tin state established 2>/dev/null || true
        sleep 0.5
    done
}
measure() {
    local tag=$1 sp rp rc=0
    "$NETLAB" sample "$LAB" --interval-ms 100 --series --output "$OUT/$tag.counters.json" >/dev/null 2>>"$OUT/sampler.err" &
    sp=$!
    rtt_watch >"$OUT/$tag.ss" &
    rp=$!
    WATCHERS="$sp $rp"
    cg_run "$tag-watched" -w h1,h3 >/dev/null || rc=$?
    kill -TERM "$sp" "$rp" 2>/dev/null || true
    wait "$sp" "$rp" 2>/dev/null || true
    WATCHERS=""
    return $rc
}
cg_reps() { # TAG: REPS runs of CG on h1,h3, OUT/TAG-<rep>
    local rep
    for rep in $(seq 1 "$REPS"); do cg_run "$1-$rep" -w h1,h3 >/dev/null || return 1; done
}
say "model: calibrate, one short campaign per app at leaf s1's uplink (load on h2,h4), cg alone on h1,h3, train"
lab_eval_model h1,h3 h1,h2,h3,h4 h2,h4
cg_reps alone
lab_eval_train
# what the model holds for the pair: the all-to-all's wait profile and cg's
# wait curve, for the bound below
for a in alltoall cg; do "$NV" report --app "$a" --model "$MODEL" --json >"$OUT/app_$a.json"; done
measure alone # after training: the watched run is not one of CG's solo runs the model knows
echo "(at $(since))"

# the all-to-all on $2 for the CG runs tagged $1
beside() {
    local tag=$1 nodes=$2 state
    NEIGHBOUR_JOB=$(sbatch --parsable -N2 -w "$nodes" -J alltoall --netvar=counters \
        --netvar-app=alltoall -o "$OUT/alltoall-$tag.out" --wrap "srun --mpi=pmix $LONG_NCMD")
    for _ in $(seq 1 100); do [ -e "$SPOOL/running/$NEIGHBOUR_JOB.json" ] && break; sleep 0.1; done
    sleep 2 # past the neighbour's launch, and job_submit has its registry entry
    cg_reps "$tag"
    measure "$tag"
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
export OUT REPS NETVAR_NETLAB_PREFIX NETVAR_NETLAB_UPLINK_S1 NETVAR_NETLAB_UPLINK_S2
PYTHONPATH="$ROOT/eval" python3 - <<'PY'
import json, os, re
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
# The queueing mechanism averages cg's progress rate, 100 / (100 + p), over
# the all-to-all's wait octiles, and cg's anchored wait curve reads p0 at no
# wait (0 %, or its first point when that was measured at no wait): with z
# of K octiles at no wait cg keeps at least z/K of that pace, so the answer
# is at most K (100 + p0) / z - 100 whatever the rest of the curve (no
# bound when z is 0).
bound = None
try:
    prof = json.load(open(f"{out}/app_alltoall.json"))["queue_wait"]["own_profile"]
    fit = json.load(open(f"{out}/app_cg.json"))["queue_wait"]["fit_wait_pct"]
    p0 = fit[0][1] if fit[0][0] <= 0 or fit[0][1] < 0 else 0.0
    z = sum(1 for w in prof if w <= 0)
    bound = {"neighbour_wait_profile_us": prof, "octiles_at_no_wait": z, "victim_pct_at_no_wait": p0,
             "wait_answer_at_most_pct": len(prof) * (100 + p0) / z - 100 if z else None}
except (OSError, ValueError, KeyError, TypeError, IndexError):
    pass
# the waits on CG's path: h1 -> h3 leaves s1 by its uplink's leaf end and
# enters s2 by the core end of s2's uplink; h3 -> h1 leaves by s2's leaf end
# and enters by s1's core end (the lab names each leaf's two ends,
# NETVAR_NETLAB_UPLINK_S<i>: leaf end, core end).  Means over the sampler's
# reads, in ms.
s1_up, s1_down = os.environ["NETVAR_NETLAB_UPLINK_S1"].split()
s2_up, s2_down = os.environ["NETVAR_NETLAB_UPLINK_S2"].split()
PATH_PORTS = (("s1 up", s1_up), ("s2 down", s2_down), ("s2 up", s2_up), ("s1 down", s1_down))
prefix = os.environ["NETVAR_NETLAB_PREFIX"]
def path_waits(tag):
    try:
        ups = json.load(open(f"{out}/{tag}.counters.json"))["uplink"]
    except (OSError, ValueError, KeyError):
        return None
    by = {u["dev"]: u["queue_wait_us_mean"] / 1000 for u in ups
          if isinstance(u.get("dev"), str) and u.get("queue_wait_us_mean") is not None}
    if any(dev not in by for _, dev in PATH_PORTS):
        return None
    w = {name: by[dev] for name, dev in PATH_PORTS}
    return {"ports_ms": w, "sum_ms": sum(w.values()),
            "uplink_ends_ms": {d[len(prefix):] if d.startswith(prefix) else d: by[d] for d in sorted(by)}}
def cg_rtt(tag):
    # median smoothed RTT (ms) of CG's connections in h1 (those past 500
    # segments: Slurm's own connections carry a few), over the ss reads
    vals, key = [], None
    try:
        lines = open(f"{out}/{tag}.ss").read().splitlines()
    except OSError:
        return None
    for ln in lines:
        f = ln.split()
        if len(f) >= 4 and f[0].isdigit() and f[1].isdigit():
            key = f[3]
        elif ln[:1] in ("\t", " "):
            r, n = re.search(r" rtt:([0-9.]+)/", ln), re.search(r"segs_out:(\d+)", ln)
            if key and not key.startswith("127.") and r and n and int(n.group(1)) > 500:
                vals.append(float(r.group(1)))
            key = None
    return {"median_ms": med(vals), "reads": len(vals)} if vals else None
for r in rows:
    r["path_wait"] = path_waits(r["placement"])
    r["cg_rtt"] = cg_rtt(r["placement"])
alone_path, alone_rtt = path_waits("alone"), cg_rtt("alone")
fmt = lambda x, f: "?" if x is None else f % x
print(f"{'neighbour':<22} {'alone s':>8} {'beside s':>9} {'slowdown':>9} {'predicted':>10}  source; each repetition, %")
for r in rows:
    print(f"{r['placement'] + ' ' + r['neighbour_nodes'] + ' (' + r['neighbour_leaves'] + ')':<22} "
          f"{fmt(r['alone_median_s'], '%.3f'):>8} {fmt(r['beside_median_s'], '%.3f'):>9} "
          f"{fmt(r['slowdown_pct'], '%+.1f %%'):>9} {fmt(r['predicted_pct'], '%+.0f %%'):>10}  "
          f"{r['predicted_source'] or 'no prediction'}; "
          + " ".join(fmt(x, "%+.1f") for x in r["slowdown_each_pct"]))
print("cg alone on h1,h3: " + " ".join(fmt(x, "%.3f") for x in alone) + " s")
print("the queue waits on cg's path (means over the sampler's reads, ms) and cg's round trip (ss, median smoothed RTT, ms):")
print(f"  {'placement':<10} " + " ".join(f"{n:>8}" for n, _ in PATH_PORTS) + f" {'sum':>7} {'cg RTT':>7}")
for tag, pw, rt in [("alone", alone_path, alone_rtt)] + [(r["placement"], r["path_wait"], r["cg_rtt"]) for r in rows]:
    cells = [fmt(pw["ports_ms"][n] if pw else None, "%.2f") for n, _ in PATH_PORTS]
    print(f"  {tag:<10} " + " ".join(f"{c:>8}" for c in cells)
          + f" {fmt(pw['sum_ms'] if pw else None, '%.2f'):>7} {fmt(rt['median_ms'] if rt else None, '%.2f'):>7}")
if bound:
    print(f"the all-to-all's queue wait, octiles (us): " + " ".join("%.0f" % w for w in bound["neighbour_wait_profile_us"])
          + f"; {bound['octiles_at_no_wait']} at no wait, so the queueing answer is at most "
          + fmt(bound["wait_answer_at_most_pct"], "%+.0f %%") + " whatever cg's curve")
res = {"schema": "netvar-paths-eval", "version": 1, "repetitions": reps,
       "victim": "cg on h1,h3 (leaves s1, s2)", "alone_s": alone,
       "topology": "4 leaves (s1: h1,h2; s2: h3,h4; s3: h5; s4: h6), one rate-limited uplink each to an unlimited core",
       "rows": rows, "wait_bound": bound,
       "alone_path_wait": alone_path, "alone_cg_rtt": alone_rtt}
json.dump(res, open(f"{out}/paths.json", "w"), indent=1)
PY
echo "results: $OUT/paths.json (done in $(since); the lab is going down)"
