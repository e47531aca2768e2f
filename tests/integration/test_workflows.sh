#!/usr/bin/env bash
# test_workflows.sh - the measurement workflows on the lab's fake nodes:
# ImpactB and CompressionB under srun across n1..n4 (JSON, node names,
# plausible counts, SIGUSR1 through srun ends ImpactB cleanly), then
# `netvar calibrate` -> `netvar campaign` (2 configurations, 1 repeat) ->
# `netvar impact`, each inside salloc, and `netvar predict` accepting the
# model file; bad arguments exit 2 with one clear line.
# Env: BUILD, ROOT.  Exit 0 pass, 77 skip, else fail.
set -u
: "${ROOT:?ROOT unset}" "${BUILD:?BUILD unset}"
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
for t in srun salloc python3; do
    command -v "$t" >/dev/null || { echo "skip: no $t"; exit 77; }
done
for b in netvar impactb compressionb netvar-proxy-bsp; do
    [ -x "$BUILD/bin/$b" ] || { echo "skip: $BUILD/bin/$b not built"; exit 77; }
done
. "$ROOT/tests/integration/lab_lib.sh"
lab_start --nodes 4
IB=$BUILD/bin/impactb CB=$BUILD/bin/compressionb APP=$BUILD/bin/netvar-proxy-bsp
SRUN_PID=
trap 'if [ -n "$SRUN_PID" ]; then kill -KILL "$SRUN_PID" 2>/dev/null; fi; _lab_cleanup' EXIT

# ran "description" exit-status stderr-file: passes on exit 0, else shows the file
ran() { if [ "$2" -eq 0 ]; then ok "$1"; else not_ok "$1 (exit $2)"; tail -n 5 "$3"; fi; }

# jcheck "description" file python-assertions...: the JSON in file is `d`
jcheck() {
    local d=$1 f=$2; shift 2
    local out
    if out=$(python3 - "$f" "$@" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for expr in sys.argv[2:]:
    assert eval(expr), "%s  (got: %s)" % (expr, json.dumps(d)[:400])
PY
    ); then ok "$d"; else not_ok "$d: $(printf %s "$out" | tail -n 2)"; fi
}

# ------------------------------------------------ probes under srun, 4 fake nodes
mpi_srun ib.json ib.err --mpi=pmix -N4 -n4 "$IB" --duration-s 2 --interval-us 20000 --samples
check "impactb under srun exits 0" test $? -eq 0
# 2 pairs (n1-n2, n3-n4), ~2 s / 20 ms = ~100 rounds each
jcheck "impactb JSON: nodes n1..n4, 2 pairs, plausible counts" ib.json \
    'd["schema"] == "netvar-impactb"' \
    'd["placement"]["node_names"] == ["n1", "n2", "n3", "n4"]' \
    'd["placement"]["nodes"] == 4 and d["placement"]["source"] == "MPI_COMM_TYPE_SHARED"' \
    'len(d["pairs"]) == 2' \
    '20 <= d["count"] <= 220' \
    'len(d["samples_us"]) == d["count"] == d["latency"]["count"]' \
    'all(x > 0 for x in d["samples_us"])' \
    '0 < d["latency"]["min_us"] <= d["latency"]["mean_us"] <= d["latency"]["max_us"]' \
    'sum(d["histogram"]["counts"]) == d["count"]' \
    'd["stopped_by"] == "duration"'

mpi_srun cb.json cb.err --mpi=pmix -N4 -n4 "$CB" --partners 3 --messages 2 --sleep-us 2000 \
    --duration-s 2
check "compressionb under srun exits 0" test $? -eq 0
jcheck "compressionb JSON: nodes n1..n4, bandwidth on every node" cb.json \
    'd["schema"] == "netvar-compressionb"' \
    'd["placement"]["node_names"] == ["n1", "n2", "n3", "n4"]' \
    'd["injected_bandwidth"]["unit"] == "bytes/s"' \
    'len(d["injected_bandwidth"]["per_node"]) == 4' \
    'all(x > 0 for x in d["injected_bandwidth"]["per_node"])' \
    'd["rounds_per_rank"] > 0 and d["parameters"]["partners"] == 3'

# SIGUSR1 to srun reaches the ranks (a SIGTERM would become SIGKILL); made
# once more when a rank crashed before the signal (as mpi_srun does)
for attempt in 1 2; do
    srun --kill-on-bad-exit=1 --mpi=pmix -N4 -n4 "$IB" --interval-us 20000 --announce \
        >sig.json 2>sig.err </dev/null &
    SRUN_PID=$!
    for _ in $(seq 1 150); do
        grep -q "netvar: impactb: started" sig.err 2>/dev/null && break
        kill -0 "$SRUN_PID" 2>/dev/null || break
        sleep 0.1
    done
    sleep 1
    kill -USR1 "$SRUN_PID" 2>/dev/null
    for _ in $(seq 1 150); do kill -0 "$SRUN_PID" 2>/dev/null || break; sleep 0.1; done
    wait "$SRUN_PID"; rc=$?; SRUN_PID=
    [ "$rc" -gt 128 ] && [ "$attempt" = 1 ] || break
    echo "# srun impactb crashed (exit $rc; $(grep -m 1 -i -e segmentation -e signal sig.err | head -c 200)); launching it once more"
done
check "srun impactb stopped by SIGUSR1 exits 0" test "$rc" -eq 0
jcheck "impactb stopped by SIGUSR1 still writes its JSON" sig.json \
    'd["stopped_by"] == "signal"' 'd["count"] >= 10' 'd["duration_s"] is None'

# ------------------------------------------------------------ bad arguments
bad() { # bad "description" expected-text netvar-args...
    local d=$1 want=$2 out rc; shift 2
    out=$("$NV" "$@" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case $out in *"$want"*) true ;; *) false ;; esac
    then ok "$d"; else not_ok "$d: exit $rc, stderr: $out"; fi
}
bad "calibrate --duration-s 0" "the duration must be more than 0" calibrate --model m.json --duration-s 0
bad "calibrate on 1 node" "at least 2 nodes" calibrate --model m.json --launcher mpirun --nodes 1
bad "campaign with P larger than nodes-1" "P=4 partners needs at least 5 nodes, the run has 4" \
    campaign --dry-run --nodes 4 --configs 2.5e6:1:1,2.5e4:4:1 --model m.json --app bsp -- "$APP"
bad "campaign without a command" "no command given" \
    campaign --launcher mpirun --nodes 4 --configs 2.5e6:1:1 --model m.json --app bsp
bad "campaign with a bad configuration" "expected B:P:M" \
    campaign --dry-run --configs 2.5e6:1 --model m.json --app bsp -- "$APP"
bad "campaign with an unknown set" "set1 .. set12" \
    campaign --dry-run --set set13 --model m.json --app bsp -- "$APP"
bad "campaign with a stall ratio of 1" "--stall-ratio '1': must be 0 (keep every run) or a ratio from 1.5 to 1000" \
    campaign --dry-run --stall-ratio 1 --configs 2.5e6:1:1 --model m.json --app bsp -- "$APP"
bad "impact without a command" "no command given" impact --model m.json --app bsp
bad "impact outside an allocation" "needs an allocation" impact --model m.json --app bsp -- "$APP"
bad "impact with a bad app key" "not a valid app key" impact --model m.json --app 'a b' -- "$APP"
out=$("$NV" campaign --dry-run --nodes 4 --set set1 2>&1 >/dev/null)
contains "a named set skips what does not fit on 4 nodes" "$out" "26 of 32 configurations need more than 4 nodes"
check "no model file was written by bad calls" test ! -e m.json

# ----------------------------------------------- calibrate -> campaign -> predict
M=$PWD/model.json
t0=$(date +%s)
salloc -N4 "$NV" calibrate --model "$M" --duration-s 3 --interval-us 20000 >cal.json 2>cal.err
ran "netvar calibrate in salloc -N4 exits 0" $? cal.err
jcheck "calibration: mu, Var(S) and nodes n1..n4" cal.json \
    'd["calibration"]["service_us"] > 0' 'd["calibration"]["var_s_us2"] >= 0' \
    'abs(d["calibration"]["mu_per_us"] * d["calibration"]["service_us"] - 1) < 1e-3' \
    'd["calibration"]["samples"] >= 20' \
    'd["probe"]["node_names"] == ["n1", "n2", "n3", "n4"]'
jcheck "model file holds the calibration" "$M" \
    'd["schema"] == "netvar-model"' 'd["calibration"]["samples"] >= 20' \
    'sum(d["calibration"]["histogram"]["counts"]) == d["calibration"]["samples"]'

salloc -N4 "$NV" campaign --model "$M" --app bsp --configs 2.5e6:1:1,2.5e4:3:10 --repeat 1 \
    --duration-s 3 --interval-us 20000 -- "$APP" --iters 300 --bytes 65536 >camp.json 2>camp.err
ran "netvar campaign in salloc -N4 exits 0" $? camp.err
jcheck "campaign: 2 configurations, slowdowns and utilizations" camp.json \
    '[c["id"] for c in d["configs"]] == ["B2.5e6-P1-M1", "B2.5e4-P3-M10"]' \
    'all(c["slowdown_pct"] >= -100 for c in d["configs"])' \
    'all(0 <= c["utilization"] <= 1 for c in d["configs"])' \
    'all(c["injected_bytes_per_s"] > 0 for c in d["configs"])' \
    'all(c["latency_samples"] > 0 for c in d["configs"])' \
    'd["baseline"]["median_s"] > 0 and d["app_latency"]["samples"] > 0' \
    'd["configs"][1]["injected_bytes_per_s"] > d["configs"][0]["injected_bytes_per_s"]' \
    'all(a["slowdown_pct"] <= b["slowdown_pct"] for a, b in zip(d["fit"], d["fit"][1:]))'
jcheck "model: training set, app points, calibration kept" "$M" \
    'len(d["training_set"]) == 2' \
    'all(t["slowdowns"][0]["app"] == "bsp" for t in d["training_set"])' \
    'd["apps"][0]["key"] == "bsp" and len(d["apps"][0]["compression"]["points"]) == 2' \
    'len(d["apps"][0]["compression"]["fit"]) >= 1' \
    "abs(d['calibration']['service_us'] / $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calibration"]["service_us"])' cal.json) - 1) < 1e-5"
"$NV" predict --model "$M" --app bsp --with bsp >pred.json 2>pred.err
ran "netvar predict accepts the model (exit 0)" $? pred.err
jcheck "prediction has a slowdown" pred.json \
    'isinstance(d["slowdown_pct"], (int, float))' 'd["source"] == "model:queue"'
"$NV" predict --model "$M" --app bsp --with bsp --predictor averagelt >pred2.json 2>/dev/null
jcheck "look-up predictor picks a measured configuration" pred2.json \
    'd["config"] in ("B2.5e6-P1-M1", "B2.5e4-P3-M10")'

# impact refreshes bsp's latency and utilization and keeps its curve
salloc -N4 "$NV" impact --model "$M" --app bsp --interval-us 20000 -- "$APP" --iters 300 \
    --bytes 65536 >imp.json 2>imp.err
ran "netvar impact in salloc -N4 exits 0" $? imp.err
jcheck "impact: latency and utilization" imp.json \
    'd["latency"]["samples"] > 0 and d["latency"]["mean_us"] > 0' \
    '0 <= d["utilization"]["rho"] <= 1' 'd["utilization"]["source"] == "latency"'
jcheck "impact kept the app's compression points and the training set" "$M" \
    'len(d["apps"][0]["compression"]["points"]) == 2 and len(d["training_set"]) == 2' \
    "abs(d['apps'][0]['utilization'] - $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["utilization"]["rho"])' imp.json)) < 1e-5"
# a stalled run leaves the median: a stand-in app that says it ran 1 s,
# except its fourth launch (round 2 under the configuration), which says 10 s
cp "$M" stall-model.json
cat >stall.sh <<EOF
#!/bin/sh
sleep 1
[ "\${SLURM_PROCID:-0}" = 0 ] || exit 0
n=\$(( \$(cat "$PWD/stall.count" 2>/dev/null || echo 0) + 1 ))
echo \$n >"$PWD/stall.count"
if [ \$n = 4 ]; then echo runtime_s=10; else echo runtime_s=1; fi
EOF
salloc -N4 "$NV" campaign --model "$PWD/stall-model.json" --app stall --configs 2.5e6:1:1 \
    --repeat 2 --duration-s 1 --interval-us 20000 --runtime-key runtime_s -- sh "$PWD/stall.sh" \
    >stall.json 2>stall.err
ran "netvar campaign with a stalled round exits 0" $? stall.err
jcheck "the stalled round is kept in runtime_s and left out of the median" stall.json \
    'd["configs"][0]["runtime_s"] == [1, 10]' 'd["configs"][0]["stalled_rounds"] == [2]' \
    'd["configs"][0]["median_s"] == 1 and d["configs"][0]["slowdown_pct"] == 0' \
    'd["baseline"]["runtime_s"] == [1, 1] and d["baseline"]["stalled_rounds"] == []'
contains "the stall is one line on stderr" "$(cat stall.err)" \
    "netvar: campaign: stall under B2.5e6-P1-M1: round 2 took 10 s, 10 times round 1's 1 s (over --stall-ratio 3): left out of the median as a stall (kept in runtime_s)"
jcheck "the stalled point's weight is the rounds kept" stall-model.json \
    '[p["samples"] for a in d["apps"] if a["key"] == "stall" for p in a["compression"]["points"]] == [1]'
# the point rule: a stand-in that says 1 s alone and 2 s, then 1.5 s under
# the configuration (launches 2 and 4); the fastest rounds give +50 %, the
# medians +75 %
cat >point.sh <<'EOF'
#!/bin/sh
sleep 1
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
n=$(( $(cat "$1" 2>/dev/null || echo 0) + 1 ))
echo $n >"$1"
case $n in 2) echo runtime_s=2 ;; 4) echo runtime_s=1.5 ;; *) echo runtime_s=1 ;; esac
EOF
for rule in fastest median; do
    cp "$M" "point-$rule-model.json"
    salloc -N4 "$NV" campaign --model "$PWD/point-$rule-model.json" --app pt --configs 2.5e6:1:1 \
        --repeat 2 --duration-s 1 --interval-us 20000 --runtime-key runtime_s --point "$rule" \
        -- sh "$PWD/point.sh" "$PWD/point-$rule.count" >"point-$rule.json" 2>"point-$rule.err"
    ran "netvar campaign --point $rule exits 0" $? "point-$rule.err"
done
jcheck "--point fastest: the fastest rounds give the slowdown" point-fastest.json \
    'd["point_rule"] == "fastest" and d["configs"][0]["runtime_s"] == [2, 1.5]' \
    'd["configs"][0]["point_s"] == 1.5 and d["configs"][0]["median_s"] == 1.75' \
    'd["baseline"]["point_s"] == 1 and abs(d["configs"][0]["slowdown_pct"] - 50) < 1e-9'
jcheck "--point median: the medians give the slowdown" point-median.json \
    'd["point_rule"] == "median" and d["configs"][0]["point_s"] == 1.75' \
    'abs(d["configs"][0]["slowdown_pct"] - 75) < 1e-9'
jcheck "the model holds the fastest rounds' slowdown" point-fastest-model.json \
    '[round(p["slowdown_pct"], 6) for a in d["apps"] if a["key"] == "pt" for p in a["compression"]["points"]] == [50]'
# a launch made again after a crash (--launch-attempts) says so on stderr
for f in cal.err camp.err imp.err stall.err; do
    grep -h "launching it again" "$f" 2>/dev/null | sed "s/^/# $f: /"
done
echo "# workflows took $(( $(date +%s) - t0 )) s"
echo "# calibration: $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["calibration"]; print("service %.3g us, mu %.3g /us, Var(S) %.3g us^2, %d samples" % (c["service_us"], c["mu_per_us"], c["var_s_us2"], c["samples"]))' cal.json)"
echo "# campaign: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join("%s U=%.3f slowdown %.1f %%" % (c["id"], c["utilization"], c["slowdown_pct"]) for c in d["configs"]))' camp.json)"
finish
