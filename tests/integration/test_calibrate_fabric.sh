#!/bin/bash
# lane: netlab
# test_calibrate_fabric.sh - `netvar calibrate --fabric` on the network lab:
# the reference kernels run alone and beside a light and a saturating
# CompressionB configuration, with U and the queue wait read at the
# uplink's qdiscs; the fabric file is written and reads back, the
# saturating configuration reads a higher U than the light one and slows
# the kernels (the largest class growth >= 1), and the model gets the same
# object.  An app known only by its signature is then answered from it
# (netvar predict: source model:profile, runs 1).  A model file that does
# not exist is refused without --out, and nothing runs.  Prints the
# calibration's wall time.  Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
set -u
. "$(dirname "$0")/netlab4_lib.sh"
[ -x "$BUILD/bin/netvar-fabric-kernels" ] || { echo "NOT OK - no $BUILD/bin/netvar-fabric-kernels"; exit 1; }
netlab4_up nvfabric
F=$OUT/fabric.json

# without a model file and without --out nothing runs
if timeout 60 "$NV" calibrate --fabric --model "$OUT/none.json" --configs 250:1:10 \
    --bottleneck "$BN" --launcher mpirun --nodes 2 >"$OUT/none.out" 2>"$OUT/none.err"; then
    bad "a missing model was accepted"
fi
grep -q "none.json" "$OUT/none.err" || bad "the missing model is not named: $(head -n 2 "$OUT/none.err")"
[ -e "$OUT/none.json" ] && bad "a model was created"

timeout 120 salloc -Q -N2 -w h1,h3 --exclusive "$NV" calibrate --model "$M" --duration-s 2 \
    --interval-us 5000 >"$OUT/cal.json" 2>"$OUT/cal.err" || bad "calibrate: $(tail -n 3 "$OUT/cal.err")"
t0=$(date +%s.%N)
timeout 600 salloc -Q -N4 -w 'h[1-4]' --exclusive "$NV" calibrate --fabric --model "$M" \
    --out "$F" --configs 2.6e7:1:1,250:1:10 --repeat 1 --duration-s 2 --scale 0.25 --ghz 2.6 \
    --load-nodes h2,h4 --bottleneck "$BN" --json >"$OUT/fabric.out" 2>"$OUT/fabric.err" ||
    bad "calibrate --fabric: $(tail -n 3 "$OUT/fabric.err")"
t1=$(date +%s.%N)
echo "figure: fabric calibration wall time (2 configurations, 1 repetition, salloc included): $(echo "$t1 - $t0" | bc) s"
python3 - "$F" "$M" "$OUT/fabric.out" <<'PY' || bad "the fabric file or the model is not what the run measured"
import json, sys
f = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2])); out = json.load(open(sys.argv[3]))
def check(cond, what):
    if not cond:
        print("  failed:", what); sys.exit(1)
check(f["schema"] == "netvar-fabric" and f["version"] == 1, "schema")
check(f["wait_gauge"] == "queue_us", "a qdisc's gauge")
check(len(f["idle_us"]) == 12 and all(x > 0 for x in f["idle_us"]), "idle times per class")
lo, hi = f["points"]
check(lo["config"] == "B2.6e7-P1-M1" and hi["config"] == "B250-P1-M10", "configuration ids")
check(0 <= lo["utilization"] < hi["utilization"] <= 1, "the saturating load reads higher U")
check(hi["wait_us"] >= lo["wait_us"] >= 0, "and queues at least as long")
check(max(hi["growth"]) >= 1, "the saturating load slows some class: growth >= 1")
check(out["fabric"]["points"] == f["points"], "stdout holds the file's points")
check(m["fabric"]["points"] == f["points"], "the model holds the same fabric")
print("  figure: growth under %s (U %.3g, wait %.4g us): p2p %s, all-to-all %s; elapsed_s %.1f" % (
    hi["config"], hi["utilization"], hi["wait_us"],
    [round(g, 2) for g in hi["growth"][0:4]], [round(g, 2) for g in hi["growth"][8:12]],
    f["elapsed_s"]))
# an app known by its signature only, and a neighbour with a mean U
lat = {"mean_us": 2.0, "sd_us": 0.5,
       "histogram": {"bins_per_decade": 16, "first_edge_us": 1, "counts": []}}
empty = {"points": [], "fit": [], "residual_pct": 0}
sig = {"runs": 1, "runtime_us": 1e6, "overlap_us": 0,
       "comm_us": [1e5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2e5]}
m["apps"] += [
    {"key": "sig", "utilization": 0.1, "utilization_source": "counters", "latency": lat,
     "compression": empty, "scaling": [], "signature": sig},
    {"key": "nb", "utilization": hi["utilization"], "utilization_source": "counters",
     "latency": lat, "compression": empty, "scaling": []}]
m.setdefault("bottleneck", {})["route"] = "counters"
json.dump(m, open(sys.argv[2] + ".sig.json", "w"))
PY
if "$NV" predict --model "$M.sig.json" --app sig --with nb >"$OUT/predict.json" 2>"$OUT/predict.err"; then
    python3 - "$OUT/predict.json" "$F" <<'PY' || bad "predict did not answer from the profile route"
import json, sys
p = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
# the composed point at configuration k (DESIGN 4.3): sig's own U 0.1 from
# the counters, M = 3e5 us in MPI of T = 1e6
def composed(k):
    pt, idle = f["points"][k], f["idle_utilization"]
    g, M, T = pt["growth"], 3e5, 1e6
    v = max(0.0, 0.1 - idle)
    n = min(1.0, max(0.0, pt["utilization"] - idle))
    b = min(v * T, M)
    kept = v if v + n <= 1 else min(v, max(1 - n, 0.5))
    share = b * (v / kept - 1) if b > 0 else 0
    return 100 * (share + (1 - v * b / M) * (1e5 * (g[0] - 1) + 2e5 * (g[11] - 1))) / T
# at the saturating configuration's own U
want = composed(1)
def check(cond, what):
    if not cond:
        print("  failed:", what, p); sys.exit(1)
check(p["source"].startswith("model:profile"), "source model:profile")
check(p["curve"] == "profile" and p["runs"] == 1, "curve profile, 1 run")
wlo = composed(0)
# netvar predict prints the answer to 3 decimals: the bounds are as wide
check(min(0, wlo, want) - 1e-3 <= p["slowdown_pct"] <= max(wlo, want, 0) + 1e-3,
      "the answer lies on the composed curve (between its points)")
print("  figure: profile route beside the saturating load's U: %.2f %% (composed point %.2f %%)" % (
    p["slowdown_pct"], want))
PY
else
    bad "predict: $(tail -n 2 "$OUT/predict.err")"
fi
[ "$fail" = 0 ] && echo "ok - calibrate --fabric measured, saved and answered"
exit "$fail"
