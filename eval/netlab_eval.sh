#!/bin/bash
# netlab_eval.sh - netvar's accuracy on the network lab (Queue-theory
# interference model, sections 5-6, in miniature).  Two halves:
#  1. measure (this script, on the lab): calibrate on the idle uplink,
#     profile each app of the apps file (alone runs with the uplink's
#     counters sampled, ImpactB beside it, CompressionB sweep across the
#     uplink), every ordered pair sharing the uplink, the same load kept
#     inside one leaf (the confounder check); everything lands in EVAL_OUT
#     with dataset.json describing it;
#  2. score (eval/netlab_score.py EVAL_OUT, offline, seconds): every
#     predictor on both utilization routes, leave-one-pair-out,
#     leave-one-app-out and repeatability, the routes' agreement, the worst
#     pairs, the confounder gate.  Re-score a kept dataset after a model
#     change with `python3 eval/netlab_score.py DIR`.
# Prints figures; it is not a pass/fail test (exit 0 when the pipeline ran,
# 1 when a step failed, 77 when the lab cannot run here).
#
#   EVAL_APPS=FILE                     apps file (default eval/apps/proxies.apps; format inside)
#   EVAL_SUMMARY=FILE                  also write the scores' summary there (eval/results/)
#   make eval-netlab                   full version (about 1.5 hours on 2 cores: loaded runs take up to 8x longer)
#   EVAL_SHORT=1 make eval-netlab      CI size (2 apps, 2 configurations, ~5 min)
#   EVAL_OUT=DIR                       keep every file there (default: a new /tmp dir)
#   EVAL_RESUME=1                      with EVAL_OUT holding a run whose steps 1-2
#                                      (calibration, every app's ImpactB and campaign)
#                                      completed: skip them, measure the rest on a
#                                      new lab (the dataset says it was resumed)
#   EVAL_CONFIGS=B:P:M,...             CompressionB configurations of the full run
#                                      (default: eight, smooth from light to full,
#                                      bursty at about a third, two thirds and 0.9, saturated)
#   EVAL_STEAL_RERUN_PCT=P             an alone, pair or in-leaf run during which the
#                                      hypervisor stole over P % of the CPU time is run
#                                      once more (default 5, the scorer's gate; 0: any
#                                      steal); the first attempt's files are kept as
#                                      .stolen and listed in rerun.txt
#   EVAL_FABRIC=0|1                    the fabric's response (netvar calibrate --fabric
#                                      over EVAL_CONFIGS, into fabric.json) and one profiled
#                                      alone run per app (profile_APP/, profiled.txt): what the
#                                      scorer's "app without its campaign" hold-out answers
#                                      from (default 1 in the full run, 0 in EVAL_SHORT)
#   EVAL_FABRIC_REPEAT=N, EVAL_FABRIC_SCALE=S  its kernel runs per configuration (default 3)
#                                      and their size (default 0.5: netvar calibrate --scale)
#   EVAL_FABRIC_FILE=FILE              the fabric's response of an earlier run on the same
#                                      lab (its fabric.json) instead of calibrating again:
#                                      the fabric is characterized once; the dataset names it
#   EVAL_STEAL_RERUN_MAX=N             at most N runs measured once more (default: no
#                                      limit); a run past the limit counts as it was
#
# Placement: the lab has 4 nodes, leaf s1 = h1 h2, leaf s2 = h3 h4.  The
# measured app always runs on h1+h3; the load beside it runs on h2+h4, so
# both cross the uplink (*Queue-theory interference model* section 4.3: CompressionB on other nodes of
# the same switch): netvar impact and campaign get --load-nodes h2,h4
# (CompressionB and the ImpactB beside the app there; the ImpactB that
# measures a CompressionB configuration on h1+h3), and in the pair runs the
# neighbour runs on h2+h4.  The confounder run puts the neighbour's two ranks
# on h2 alone: the same processes on the same 2 cores, its traffic inside
# leaf s1 (it never reaches the uplink, and runs unthrottled, so it spends
# more CPU than it does across the uplink: a strict check).
# Runtimes: everywhere the proxy's own runtime_s (its timed loop, launch
# excluded): campaign and impact take it with --runtime-key runtime_s, the
# pair runs read the same line, so p_A(U) and the pair table measure alike.
# Apps run with --compute sleep: on 2 shared cores real computation of two
# jobs would compete for CPU, which is not network interference.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NETLAB=$ROOT/lab/netlab
NV=$BUILD/bin/netvar
SHORT=${EVAL_SHORT:-0}
OUT=${EVAL_OUT:-$(mktemp -d /tmp/netvar-netlab-eval.XXXXXX)}
mkdir -p "$OUT"
M=$OUT/model.json
step() { echo; echo "== $*"; }
die() { echo "netlab_eval: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || { echo "netlab_eval: skip: the network lab needs root"; exit 77; }
for b in netvar impactb compressionb netvar-netlab-sample netvar-proxy-alltoall netvar-proxy-stencil \
    netvar-proxy-cg netvar-proxy-montecarlo netvar-proxy-phased; do
    [ -x "$BUILD/bin/$b" ] || { echo "netlab_eval: $BUILD/bin/$b not built (make)"; exit 1; }
done
command -v python3 >/dev/null || { echo "netlab_eval: skip: python3 needed for the tables"; exit 77; }

# ------------------------------------------------------------ the setup
APPS_FILE=${EVAL_APPS:-$ROOT/eval/apps/proxies.apps}
. "$ROOT/eval/apps_file.sh"
apps_file_read "$APPS_FILE" netlab_eval
if [ "$SHORT" = 1 ]; then
    APPS=$(echo "$APPS" | cut -d' ' -f1-2)
    REPS=2
    # B cycles at 2.6 GHz: 2.6e7 = 10 ms between 40 KB messages (~0.3 of 100 Mbit/s
    # per direction), 250 cycles with M=10: as fast as it goes (saturated)
    CONFIGS="2.6e7:1:1,250:1:10"
    IB_S=3 CAL_S=3
    # the CI size: short runs of the proxies
    declare -A SHORT_ARGS=(
        [alltoall]="--iters 40" [stencil]="--iters 200" [cg]="--iters 600"
        [montecarlo]="--iters 60" [phased]="--iters 100 --phase-iters 10")
    for a in $APPS; do CMD[$a]="${CMD[$a]} ${SHORT_ARGS[$a]:-}"; done
else
    REPS=${EVAL_REPS:-3}
    # smooth, low -> full: ~32 ms, 10 ms, 5 ms, 3.3 ms between 40 KB messages
    # per direction (offered ~0.1, 0.3, 0.65, 1.0 of the uplink): they queue
    # but lose nothing.  Bursty: 10 messages every 100 ms and every 50 ms
    # (offered ~0.3 and ~0.65): the burst overflows the queue and TCP loses
    # packets, as beside an all-to-all or a phased app.  Then every 25 ms
    # (~0.9), and no sleep, M=10 (saturated).  Runs 4 to 6 (eval/results,
    # 2026-11-25c to 2026-11-27) had no bursty point near two thirds: the
    # all-to-all's regime lay between the curves' last two points.  Runs up
    # to 2026-11-29b had none between 1.7 and 3.5 ms of queue wait, where the
    # all-to-all on the eager lab keeps the uplink (2.6 ms on average).
    CONFIGS=${EVAL_CONFIGS:-8.3e7:1:1,2.6e7:1:1,1.3e7:1:1,8.7e6:1:1,2.6e8:1:10,1.3e8:1:10,6.5e7:1:10,250:1:10}
    IB_S=8 CAL_S=15
fi
FABRIC=${EVAL_FABRIC:-$([ "$SHORT" = 1 ] && echo 0 || echo 1)}
FABRIC_REPEAT=${EVAL_FABRIC_REPEAT:-3}
FABRIC_SCALE=${EVAL_FABRIC_SCALE:-0.5}
[[ $FABRIC =~ ^[01]$ ]] || die "EVAL_FABRIC=$FABRIC: not 0 or 1"
FABRIC_FILE=${EVAL_FABRIC_FILE:-}
if [ -n "$FABRIC_FILE" ]; then
    [ "$FABRIC" = 1 ] || die "EVAL_FABRIC_FILE=$FABRIC_FILE: set, but EVAL_FABRIC is 0"
    [ -f "$FABRIC_FILE" ] && [ ! -L "$FABRIC_FILE" ] || die "EVAL_FABRIC_FILE=$FABRIC_FILE: not a regular file"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("schema")=="netvar-fabric" else 1)' \
        "$FABRIC_FILE" 2>/dev/null || die "EVAL_FABRIC_FILE=$FABRIC_FILE: not a netvar-fabric file"
fi
if [ "$FABRIC" = 1 ]; then
    [ -x "$BUILD/bin/netvar-fabric-kernels" ] || die "$BUILD/bin/netvar-fabric-kernels not built (make)"
    [ -r "$BUILD/lib/libnetvar_pmpi.so" ] || die "$BUILD/lib/libnetvar_pmpi.so not built (make)"
fi
proxy_cmd() { echo "${CMD[$1]}"; }
rt_args() { [ "${RTKEY[$1]}" = wall ] || echo "--runtime-key ${RTKEY[$1]}"; }
APP_NODES=h1,h3  # the measured app (h1 on leaf s1, h3 on leaf s2)
LOAD_NODES=h2,h4 # the load and the neighbour: across the same uplink
ALL_NODES='h[1-4]'

LAB=""
BGPIDS=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    local p
    for p in $BGPIDS; do kill "$p" 2>/dev/null; done
    [ -n "$LAB" ] && "$NETLAB" down "$LAB" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# a resumed run keeps steps 1-2 when the model holds the calibration and
# every app's campaign points over exactly these configurations (checked
# before the lab comes up)
RESUMED=""
if [ "${EVAL_RESUME:-0}" = 1 ]; then
    # shellcheck disable=SC2086 # APPS: app names (A-Za-z0-9._-), one argument each
    RESUMED=$(python3 - "$M" "$CONFIGS" $APPS <<'PY'
import json, os, sys, time
path, configs, apps = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
try:
    m = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit(f"netlab_eval: EVAL_RESUME: {path}: {e}")
if not m.get("calibration"):
    sys.exit(f"netlab_eval: EVAL_RESUME: {path}: no calibration")
have = {(float(t["bubble_cycles"]), int(t["partners"]), int(t["messages"])) for t in m.get("training_set", [])}
want = {(float(b), int(p), int(q)) for b, p, q in (c.split(":") for c in configs)}
if have != want:
    sys.exit(f"netlab_eval: EVAL_RESUME: {path}: its configurations are not EVAL_CONFIGS")
for a in apps:
    x = next((x for x in m.get("apps", []) if x.get("key") == a), None)
    if not x or len(x.get("compression", {}).get("points", [])) != len(want):
        sys.exit(f"netlab_eval: EVAL_RESUME: {path}: app {a} has no complete campaign")
print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.stat(path).st_mtime)))
PY
) || die "cannot resume from $OUT (above)"
fi

step "network lab (4 nodes, uplink 100mbit, limit 65536 bytes)"
LAB=$("$NETLAB" up --nodes 4 --no-spank --no-jobsubmit --build "$BUILD" 2>"$OUT/up.err" | tail -n 1)
rc=${PIPESTATUS[0]}
[ "$rc" = 77 ] && { cat "$OUT/up.err"; exit 77; }
[ -d "$LAB" ] || { cat "$OUT/up.err"; die "lab did not come up"; }
tail -n 1 "$OUT/up.err"
eval "$("$NETLAB" env "$LAB")"
echo "results in $OUT; apps: $APPS; repetitions: $REPS; CompressionB configurations (B cycles:P:M at 2.6 GHz): $CONFIGS"

# sample the uplink (and the host's CPU) while a command runs:
# usample OUT [--coarse] -- command...  (--coarse: 1 s reads and no series,
# for a whole campaign, whose own runs have no sampler of their own)
usample() {
    local out=$1 opts=(--interval-ms 100 --series); shift
    if [ "$1" = --coarse ]; then opts=(--interval-ms 1000); shift; fi
    shift
    "$NETLAB" sample "$LAB" "${opts[@]}" --output "$out" >/dev/null 2>>"$OUT/sampler.err" &
    local sp=$!
    BGPIDS="$BGPIDS $sp"
    "$@"
    local rc=$?
    kill -TERM "$sp" 2>/dev/null
    wait "$sp" 2>/dev/null
    return $rc
}

if [ -n "$RESUMED" ]; then
step "1-2. resumed: calibration and every app's ImpactB and campaign from $M (written $RESUMED)"
else
# --------------------------------------------------------- 1. calibrate
step "1. calibrate on the idle uplink (ImpactB h1<->h3, $CAL_S s)"
salloc -N2 -w "$APP_NODES" --exclusive "$NV" calibrate --model "$M" --duration-s "$CAL_S" --interval-us 5000 \
    >"$OUT/calibrate.json" 2>"$OUT/calibrate.err" || { tail -n 5 "$OUT/calibrate.err"; die "calibrate failed"; }
python3 -c "
import json,sys; c=json.load(open(sys.argv[1]))['calibration']
print('service time 1/mu %.1f us, Var(S) %.1f us^2, idle mean %.1f us, %d samples' % (c['service_us'], c['var_s_us2'], c['idle_mean_us'], c['samples']))" "$OUT/calibrate.json"

# ------------------------------------------- 2. per app: impact, campaign
for a in $APPS; do
    step "2. app $a on $APP_NODES: ImpactB beside it on $LOAD_NODES, then the CompressionB sweep on $LOAD_NODES"
    # shellcheck disable=SC2046 # the app's command and options, one word each
    usample "$OUT/impact_$a.counters.json" -- salloc -N4 -w "$ALL_NODES" --exclusive "$NV" impact --model "$M" \
        --app "$a" --interval-us 5000 --load-nodes "$LOAD_NODES" $(rt_args "$a") -- $(proxy_cmd "$a") >"$OUT/impact_$a.json" 2>"$OUT/impact_$a.err" ||
        { tail -n 5 "$OUT/impact_$a.err"; die "impact $a failed"; }
    python3 - "$OUT/impact_$a.json" "$OUT/impact_$a.counters.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
u = max(x["utilization"] or 0 for x in c["uplink"])
print("  runtime %.2f s (runtime_s); ImpactB beside it: mean %.1f us, sd %.1f us (%d samples); "
      "rho from latency %.3f (%s); uplink rho = lambda/mu %.3f" %
      (d["runtime_s"], d["latency"]["mean_us"], d["latency"]["sd_us"], d["latency"]["samples"],
       d["utilization"]["rho"], d["utilization"]["source"], u))
PY
    # shellcheck disable=SC2046 # the app's command and options, one word each
    usample "$OUT/campaign_$a.counters.json" --coarse -- \
    salloc -N4 -w "$ALL_NODES" --exclusive "$NV" campaign --model "$M" --app "$a" --configs "$CONFIGS" \
        --repeat "$REPS" --duration-s "$IB_S" --ghz 2.6 --interval-us 5000 \
        --load-nodes "$LOAD_NODES" $(rt_args "$a") -- $(proxy_cmd "$a") \
        >"$OUT/campaign_$a.json" 2>"$OUT/campaign_$a.err" ||
        { tail -n 5 "$OUT/campaign_$a.err"; die "campaign $a failed"; }
    python3 - "$M" "$a" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); a = sys.argv[2]
app = next(x for x in m["apps"] if x["key"] == a)
pts = ", ".join("U %.2f: %+.1f%%" % (p["utilization"], p["slowdown_pct"]) for p in app["compression"]["points"])
print("  p_A(U) points: " + pts)
PY
done
fi

# ------------------------- 2b. the fabric's response, once (issue 48)
if [ -n "$FABRIC_FILE" ]; then
    step "2b. the fabric's response: kept from $FABRIC_FILE (not calibrated again)"
    cp "$FABRIC_FILE" "$OUT/fabric.json"
elif [ "$FABRIC" = 1 ] && ! { [ -n "$RESUMED" ] && [ -s "$OUT/fabric.json" ]; }; then
    # shellcheck disable=SC2086 # netlab sets it to "NAMESPACE DEVICE"
    set -- $NETVAR_NETLAB_UPLINK
    step "2b. the fabric's response: netvar-fabric-kernels on $APP_NODES beside each CompressionB configuration on $LOAD_NODES ($FABRIC_REPEAT runs, scale $FABRIC_SCALE)"
    f_t0=$(date +%s)
    salloc -N4 -w "$ALL_NODES" --exclusive "$NV" calibrate --fabric --model "$M" --out "$OUT/fabric.json" \
        --configs "$CONFIGS" --repeat "$FABRIC_REPEAT" --scale "$FABRIC_SCALE" --duration-s "$IB_S" \
        --ghz 2.6 --load-nodes "$LOAD_NODES" --bottleneck "qdisc:$1,$2" \
        >"$OUT/fabric.out" 2>"$OUT/fabric.err" || { tail -n 5 "$OUT/fabric.err"; die "calibrate --fabric failed"; }
    echo "  fabric calibrated in $(( $(date +%s) - f_t0 )) s wall (salloc included): $OUT/fabric.json"
fi

# ----------------------- 6. rho from latency (P-K) vs rho from counters
step "6. two routes to utilization, per CompressionB configuration (CompressionB on $LOAD_NODES; latency route: the campaign's ImpactB on $APP_NODES)"
: >"$OUT/rho_pairs.txt"
IFS=, read -r -a CFG <<<"$CONFIGS"
for c in "${CFG[@]}"; do
    IFS=: read -r B P Mm <<<"$c"
    sleep_us=$(awk -v b="$B" 'BEGIN{printf "%.3f", b / 2600}')
    usample "$OUT/cb_$c.counters.json" -- timeout 120 srun -N2 -w "$LOAD_NODES" --exclusive --mpi=pmix \
        "$BUILD/bin/compressionb" --partners "$P" --messages "$Mm" --sleep-us "$sleep_us" \
        --duration-s "$IB_S" --output "$OUT/cb_$c.json" >/dev/null 2>"$OUT/cb_$c.err" ||
        { tail -n 3 "$OUT/cb_$c.err"; die "compressionb $c failed"; }
    python3 - "$M" "$c" "$OUT/cb_$c.counters.json" >>"$OUT/rho_pairs.txt" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); B, P, M = sys.argv[2].split(":")
cnt = json.load(open(sys.argv[3]))
ts = [t for t in m["training_set"] if t["partners"] == int(P) and t["messages"] == int(M)
      and abs(t["bubble_cycles"] - float(B)) <= 1e-6 * float(B)]
rho_lat = ts[0]["utilization"] if ts else float("nan")
lat = ts[0]["latency"]["mean_us"] if ts else float("nan")
u = max(x["utilization"] or 0 for x in cnt["uplink"])
bl = max(x["backlog"]["mean"] for x in cnt["uplink"])
print("%s %.4f %.4f %.1f %.0f" % (sys.argv[2], rho_lat, u, lat, bl))
PY
done
python3 - "$OUT/rho_pairs.txt" <<'PY'
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("  %-14s %14s %18s %14s %16s" % ("config B:P:M", "ImpactB W (us)", "rho P-K (latency)", "rho = lambda/mu", "mean backlog (B)"))
for c, rl, rc, w, bl in rows:
    print("  %-14s %14s %18s %14s %16s" % (c, w, rl, rc, bl))
x = [float(r[1]) for r in rows]; y = [float(r[2]) for r in rows]
ok = [(a, b) for a, b in zip(x, y) if math.isfinite(a) and math.isfinite(b)]
if len(ok) >= 3:
    mx = sum(a for a, _ in ok) / len(ok); my = sum(b for _, b in ok) / len(ok)
    sxy = sum((a - mx) * (b - my) for a, b in ok); sx = sum((a - mx) ** 2 for a, _ in ok); sy = sum((b - my) ** 2 for _, b in ok)
    r = sxy / math.sqrt(sx * sy) if sx > 0 and sy > 0 else float("nan")
    print("  Pearson correlation of the two routes over %d configurations: %.3f" % (len(ok), r))
else:
    print("  correlation: needs at least 3 configurations (have %d)" % len(ok))
PY

# -------------------------------------------- 3. every ordered pair
PROFILE_ENV=ALL # run_app's environment: the profiler preloaded in step 3a only
# run_app A NODES OUT: one timed run of A; prints its runtime_s (the same
# figure the campaign records with --runtime-key runtime_s)
# shellcheck disable=SC2317 # run through usample and measured
run_app() {
    local t0 t1 key=${RTKEY[$1]}
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046 # the app's command and options, one word each
    timeout 600 srun -N2 -w "$2" --exclusive --mpi=pmix --export="$PROFILE_ENV" $(proxy_cmd "$1") >"$3" 2>"$3.err" || return 1
    t1=$(date +%s.%N)
    if [ "$key" = wall ]; then
        awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f\n", b - a}'
    else
        tr ' ' '\n' <"$3" | sed -n "s/^$key=\([0-9.]*\)\$/\1/p" | tail -n 1
    fi
}
# beside A B NODES_B N_B OUT: A on $APP_NODES while B loops on NODES_B
# (N_B nodes, two ranks in all)
# shellcheck disable=SC2317 # run through measured
beside() {
    local a=$1 b=$2 nb=$3 nn=$4 out=$5 stop=$OUT/.stop.$$
    rm -f "$stop"
    ( while [ ! -e "$stop" ]; do
          # shellcheck disable=SC2046 # the app's command and options, one word each
          timeout 600 srun -N"$nn" -n2 -w "$nb" --exclusive --mpi=pmix --job-name=nveval-bg $(proxy_cmd "$b") >/dev/null 2>&1 || sleep 0.5
      done ) &
    local loop=$!
    BGPIDS="$BGPIDS $loop"
    sleep 2 # the neighbour is running before A starts
    local t
    t=$(usample "$out.counters.json" -- run_app "$a" "$APP_NODES" "$out")
    local rc=$?
    touch "$stop"
    scancel --name=nveval-bg --quiet 2>/dev/null
    wait "$loop" 2>/dev/null
    rm -f "$stop"
    [ "$rc" = 0 ] && echo "$t"
}

# A measured run during which the hypervisor took more than STEAL_RERUN %
# of the machine's CPU time (steal, recorded in its counter file) is run
# once more: a burst of steal lengthens every runtime measured then, and
# the network does not show it (2026-11-29c).  The first attempt's files
# are kept beside (.stolen) and listed in rerun.txt; the second attempt
# counts whatever its steal, so the scorer's gate still sees it.
STEAL_RERUN=${EVAL_STEAL_RERUN_PCT:-5}
[[ $STEAL_RERUN =~ ^[0-9]+([.][0-9]+)?$ ]] || die "EVAL_STEAL_RERUN_PCT=$STEAL_RERUN: not a percentage"
STEAL_RERUN_MAX=${EVAL_STEAL_RERUN_MAX:-}
[[ $STEAL_RERUN_MAX =~ ^[0-9]*$ ]] || die "EVAL_STEAL_RERUN_MAX=$STEAL_RERUN_MAX: not a whole number"
: >"$OUT/rerun.txt" # kind app with rep steal_pct first_runtime_s
# steal_of COUNTERS: percent of all CPU time stolen over that run ("" when
# the file has no host record)
steal_of() {
    python3 - "$1" <<'PY' 2>/dev/null
import json, sys
s = ((json.load(open(sys.argv[1])).get("host") or {}).get("cpu_pct") or {}).get("steal")
print("" if s is None else "%.1f" % s)
PY
}
# measured KIND A B REP COUNTERS OUT COMMAND...: runs COMMAND (it prints the
# runtime and writes COUNTERS, OUT and OUT.err) and prints the runtime; once
# more when the host stole more than STEAL_RERUN % during it and fewer than
# STEAL_RERUN_MAX runs were (rerun.txt counts them: each run is a subshell)
measured() {
    local kind=$1 a=$2 b=$3 r=$4 cnt=$5 out=$6 t s f
    shift 6
    t=$("$@") || return 1
    s=$(steal_of "$cnt")
    if [ -n "$s" ] && awk -v s="$s" -v m="$STEAL_RERUN" 'BEGIN{exit !(s > m)}' &&
        { [ -z "$STEAL_RERUN_MAX" ] || [ "$(wc -l <"$OUT/rerun.txt")" -lt "$STEAL_RERUN_MAX" ]; }; then
        echo "  $kind $a beside $b, rep $r: $t s with $s % of the CPU stolen (over $STEAL_RERUN %): run once more" >&2
        echo "$kind $a $b $r $s $t" >>"$OUT/rerun.txt"
        for f in "$cnt" "$out" "$out.err"; do [ -e "$f" ] && mv -f "$f" "$f.stolen"; done
        t=$("$@") || return 1
    fi
    echo "$t"
}

# a progress line on a terminal (stderr; never in a log): runs done, time
# spent, time left at the pace so far
P_T0=$(date +%s)
progress() { # done total
    [ -t 2 ] || return 0
    local now el left
    now=$(date +%s); el=$((now - P_T0))
    left=$(( $1 > 0 ? el * ($2 - $1) / $1 : 0 ))
    printf '\r%-79s' "eval-netlab: runs $1 of $2, $((el / 60)) min spent, about $((left / 60)) min left" >&2
    [ "$1" -lt "$2" ] || printf '\r%79s\r' "" >&2
}

# ------------------------ 3a. one profiled alone run per app (issue 48)
# the segment profiler preloaded (what `--netvar=segments` does in a job):
# the app's signature, its time in MPI by message class, comes from it
if [ "$FABRIC" = 1 ]; then
    step "3a. one profiled alone run per app on $APP_NODES (the segment profiler: its signature)"
    : >"$OUT/profiled.txt" # app runtime_s
    for a in $APPS; do
        rm -rf "$OUT/profile_$a"
        mkdir -m 0755 "$OUT/profile_$a"
        PROFILE_ENV="ALL,LD_PRELOAD=$BUILD/lib/libnetvar_pmpi.so,NETVAR_PROFILE_DIR=$OUT/profile_$a"
        t=$(usample "$OUT/profiled_$a.counters.json" -- run_app "$a" "$APP_NODES" "$OUT/profiled_$a.out") ||
            die "profiled run of $a failed: $(tail -n 3 "$OUT/profiled_$a.out.err")"
        PROFILE_ENV=ALL
        echo "$a $t" >>"$OUT/profiled.txt"
        echo "  $a: $t s profiled ($(find "$OUT/profile_$a" -name '*.json' | wc -l) profile file)"
    done
fi

step "3. every ordered pair sharing the uplink (A on $APP_NODES, B on $LOAD_NODES), $REPS repetitions; runtimes: the proxy's runtime_s"
: >"$OUT/runs.txt" # kind app with rep runtime_s
n_apps=$(wc -w <<<"$APPS")
p_total=$((REPS * n_apps * (n_apps + 2))) p_done=0 P_T0=$(date +%s)
for r in $(seq 1 "$REPS"); do
    for a in $APPS; do
        t=$(measured alone "$a" - "$r" "$OUT/alone_${a}_$r.counters.json" "$OUT/alone_${a}_$r.out" \
            usample "$OUT/alone_${a}_$r.counters.json" -- run_app "$a" "$APP_NODES" "$OUT/alone_${a}_$r.out") || die "alone run of $a failed: $(tail -n 3 "$OUT/alone_${a}_$r.out.err")"
        echo "alone $a - $r $t" >>"$OUT/runs.txt"
        p_done=$((p_done + 1)); progress "$p_done" "$p_total"
        for b in $APPS; do
            t=$(measured pair "$a" "$b" "$r" "$OUT/pair_${a}_${b}_$r.out.counters.json" "$OUT/pair_${a}_${b}_$r.out" \
                beside "$a" "$b" "$LOAD_NODES" 2 "$OUT/pair_${a}_${b}_$r.out") || die "pair $a beside $b failed"
            echo "pair $a $b $r $t" >>"$OUT/runs.txt"
            [ -t 2 ] && printf '\r%79s\r' "" >&2
            echo "  rep $r: $a beside $b: $t s"
            p_done=$((p_done + 1)); progress "$p_done" "$p_total"
        done
    done
done
# confounder: the heaviest neighbour kept inside leaf s1 (both ranks on h2)
HEAVY=alltoall
for r in $(seq 1 "$REPS"); do
    for a in $APPS; do
        t=$(measured inleaf "$a" "$HEAVY" "$r" "$OUT/inleaf_${a}_$r.out.counters.json" "$OUT/inleaf_${a}_$r.out" \
            beside "$a" "$HEAVY" h2 1 "$OUT/inleaf_${a}_$r.out") || die "in-leaf run of $a failed"
        echo "inleaf $a $HEAVY $r $t" >>"$OUT/runs.txt"
        p_done=$((p_done + 1)); progress "$p_done" "$p_total"
    done
done

# ------------------------------------------- the dataset's manifest
# Everything above is measurement; everything below only reads these files,
# so a model change is re-scored offline: eval/netlab_score.py OUT.
# shellcheck disable=SC2086 # APPS: app names (A-Za-z0-9._-), one argument each
python3 - "$OUT/dataset.json" "$APPS_FILE" "$CONFIGS" "$REPS" "$IB_S" "$CAL_S" "$SHORT" "$RESUMED" \
    "$FABRIC:$FABRIC_REPEAT:$FABRIC_SCALE" "$(git -C "$ROOT" rev-parse HEAD 2>/dev/null)" $APPS <<'PY'
import json, os, sys, time
out, apps_file, configs, reps, ib_s, cal_s, short, resumed, fabric, commit = sys.argv[1:11]
apps = sys.argv[11:]
fab_on, fab_rep, fab_scale = fabric.split(":")
lines = {}
for l in open(apps_file):
    f = l.split(None, 2)
    if f and not f[0].startswith("#") and len(f) == 3:
        lines[f[0]] = {"runtime": f[1], "command": f[2].strip()}
json.dump({"schema": "netvar-netlab-dataset", "version": 1,
           "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "apps": [dict(name=a, **lines.get(a, {})) for a in apps],
           "configs": configs.split(","), "config_form": "B cycles at 2.6 GHz:P:M",
           "repetitions": int(reps), "impactb_s": float(ib_s), "calibration_s": float(cal_s),
           "short": short == "1",
           # the build measured with (the rules frozen before the run)
           "commit": commit or None,
           "fabric": ({"file": "fabric.json", "repetitions": int(fab_rep),
                       "scale": float(fab_scale), "kept_from": os.environ.get("EVAL_FABRIC_FILE") or None, "profiled": "profiled.txt: app runtime_s; "
                       "profile_APP/ (the segment profiler's one run)"}
                      if fab_on == "1" else None),
           "resumed": ({"steps_kept": "1-2 (calibration, ImpactB, campaigns)",
                        "model_written": resumed} if resumed else None),
           "lab": {"nodes": 4, "leaves": {"s1": ["h1", "h2"], "s2": ["h3", "h4"]},
                   "uplink": "100mbit tbf, limit 65536 bytes", "app_nodes": "h1,h3",
                   "load_nodes": "h2,h4", "inleaf_nodes": "h2",
                   # the data route's congestion control (netlab up --tcp-cc):
                   # "cubic", or "kernel:NAME" when the host's default was kept
                   "tcp_congestion_control": os.environ.get("NETVAR_NETLAB_TCP_CC") or None,
                   # Open MPI's tcp BTL eager limit in bytes (netlab up
                   # --mpi-eager), or "default" (64 KiB; every run before
                   # 2026-11-29b)
                   "mpi_eager_limit": os.environ.get("NETVAR_NETLAB_MPI_EAGER") or None},
           "files": {"runs": "runs.txt: kind app with rep runtime_s",
                     "alone counters": "alone_APP_REP.counters.json (uplink series)",
                     "pair counters": "pair_APP_WITH_REP.out.counters.json",
                     "impact": "impact_APP.json, impact_APP.counters.json",
                     "campaign": "campaign_APP.json; model.json training_set; campaign_APP.counters.json "
                                 "(1 s reads over the whole campaign, no series: the host's CPU)",
                     "configs alone": "cb_CONFIG.counters.json, cb_CONFIG.json",
                     "calibration": "calibrate.json"}}, open(out, "w"), indent=1)
PY

# --------------------------- 4-5. predictions, errors, tables, blending
step "4-5. predictions and errors"
python3 - "$OUT/runs.txt" "$OUT/pairs.txt" "$OUT/pairs_reps.txt" "$OUT/confounder.txt" "$ROOT/eval" <<'PY'
import statistics as st, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[5])
from netlab_score import ALONE_STALL_RATIO, alone_baselines  # the scorer's baseline
runs = [l.split() for l in open(sys.argv[1]) if l.strip()]
base, left_out = alone_baselines(runs, ALONE_STALL_RATIO)
for line in left_out:
    print(f"alone baseline: {line}")
pair, inleaf = {}, {}
for k, a, b, r, t in runs:
    if k in ("pair", "inleaf"):
        (pair if k == "pair" else inleaf).setdefault((a, b), []).append((int(r), (float(t) - base[a]) / base[a] * 100))
with open(sys.argv[2], "w") as f, open(sys.argv[3], "w") as g:
    f.write("# app with slowdown_pct (median over repetitions, against the alone baseline: "
            "the median of the alone runs not over %g times the fastest)\n" % ALONE_STALL_RATIO)
    for (a, b), v in sorted(pair.items()):
        f.write("%s %s %.3f\n" % (a, b, st.median(x for _, x in v)))
        for r, x in v:
            g.write("%s %s %d %.3f\n" % (a, b, r, x))
with open(sys.argv[4], "w") as f:
    for (a, b), v in sorted(inleaf.items()):
        cross = [x for _, x in pair.get((a, b), [])]
        f.write("%s %s %.3f %s\n" % (a, b, st.median(x for _, x in v),
                                      "%.3f" % st.median(cross) if cross else "nan"))
PY
echo "measured pairs: $OUT/pairs.txt"
"$NV" evaluate --model "$M" --pairs "$OUT/pairs.txt" | tee "$OUT/evaluate.txt" || die "netvar evaluate failed"
"$NV" evaluate --model "$M" --pairs "$OUT/pairs.txt" --json >"$OUT/evaluate.json" 2>/dev/null

# every predictor, both utilization routes, scored offline on what was
# measured above (leave-one-pair-out, leave-one-app-out, repeatability)
step "scores (eval/netlab_score.py $OUT)"
python3 "$ROOT/eval/netlab_score.py" "$OUT" --netvar "$NV" --out "$OUT/score.json" \
    ${EVAL_SUMMARY:+--summary "$EVAL_SUMMARY"} || die "scoring failed"

step "done; results in $OUT"
exit 0
