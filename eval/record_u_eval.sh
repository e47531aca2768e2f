#!/usr/bin/env bash
# record_u_eval.sh - 'make eval-record-u': does a job record's bottleneck U
# (the job's own cross-leaf traffic from its nodes' NIC counters, split by
# the job's nodes per leaf, over UplinkRate of netvar.conf) agree with the
# uplink counters' U over the same windows?  Six namespaced nodes under two
# leaf switches joined by one rate-limited uplink (lab/netlab: h1-h3 on s1,
# h4-h6 on s2); netlab writes the shaper's rate as UplinkRate= and names
# each node's switch_port= and its leaf's uplink= in the blade map.  Each
# run is one job alone (sbatch -W, --netvar=counters): an all-to-all, CG
# or the stencil proxy on 2 to 4 nodes drawn at random across both leaves
# (seeded), so each run crosses the uplink.  The SPANK epilog writes the
# job record; its bottleneck object gives the job's U (u_up, u_down: the
# busiest leaf per direction) and the same leaves' uplink counters
# (uplink_u_up, uplink_u_down: the switch side of the uplink, read in the
# same node deltas).  eval/record_u_stats.py prints, per direction, Pearson
# r and the mean difference record - uplink in percentage points with a 95 %
# bootstrap interval, and writes OUT/record_u.json (schema
# netvar-record-u-eval).
# Env: BUILD (default build), RECU_RUNS (default 20), RECU_SEED (default 1),
# RECU_OUT (a directory; default a new one under /tmp), RECU_SHORT=1 (the
# smoke size: 2 runs, short ones).  Exit 0 done, 77 the lab cannot run here,
# 1 failed.  The lab always goes down at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(readlink -f "${BUILD:-build}")
WHO="netvar eval-record-u"
NETLAB=$ROOT/lab/netlab
RUNS=${RECU_RUNS:-20} SEED=${RECU_SEED:-1} SCALE=1
if [ "${RECU_SHORT:-0}" = 1 ]; then RUNS=2 SCALE=20; fi
case $RUNS in '' | *[!0-9]* | 0) echo "$WHO: RECU_RUNS=$RUNS: not a whole number from 1" >&2; exit 1 ;; esac
case $SEED in '' | *[!0-9]*) echo "$WHO: RECU_SEED=$SEED: not a whole number" >&2; exit 1 ;; esac
OUT=${RECU_OUT:-$(mktemp -d /tmp/netvar-eval.XXXXXX)}
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
t0=$(date +%s)
since() { echo "$(( $(date +%s) - t0 )) s"; }
[ "$(id -u)" = 0 ] || { echo "$WHO: the network lab needs root" >&2; exit 77; }
. "$ROOT/lab/netlab_session.sh"
netlab_session_up 6 "$ROOT/conf/netvar.conf" "$WHO"
echo "lab $LAB: 6 nodes, h1-h3 on s1, h4-h6 on s2, uplink ${NETVAR_NETLAB_RATE}; $RUNS runs, seed $SEED"
grep -q '^UplinkRate=' etc/netvar.conf || { echo "$WHO: netlab wrote no UplinkRate= into etc/netvar.conf" >&2; exit 1; }
grep -q 'uplink=' etc/blades.conf || { echo "$WHO: netlab's blade map names no uplink= port" >&2; exit 1; }

# the apps: heavy, light and between, so the runs spread over U
app_cmd() {
    case $1 in
    alltoall) echo "$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters $((40 / SCALE))" ;;
    cg) echo "$BUILD/bin/netvar-proxy-cg --compute sleep --iters $((2500 / SCALE))" ;;
    stencil) echo "$BUILD/bin/netvar-proxy-stencil --compute sleep --iters $((400 / SCALE))" ;;
    esac
}
APPS=(alltoall cg stencil)
RANDOM=$SEED
: >"$OUT/runs.jsonl"
for ((r = 1; r <= RUNS; r++)); do
    app=${APPS[$(( (r - 1) % 3 ))]}
    n=$(( 2 + RANDOM % 3 ))
    # at least one node on each leaf, the rest anywhere
    nodes="h$(( 1 + RANDOM % 3 )) h$(( 4 + RANDOM % 3 ))"
    while [ "$(echo "$nodes" | wc -w)" -lt "$n" ]; do
        h="h$(( 1 + RANDOM % 6 ))"
        case " $nodes " in *" $h "*) ;; *) nodes="$nodes $h" ;; esac
    done
    list=$(echo "$nodes" | tr ' ' '\n' | sort | paste -sd, -)
    # shellcheck disable=SC2046 # app_cmd: the command and its options, one word each
    j=$(sbatch --parsable -W -N"$n" -w "$list" -J "$app" --netvar=counters --netvar-app="$app" \
        -o "$OUT/run$r.out" --wrap "srun --mpi=pmix $(app_cmd "$app")" 2>"$OUT/run$r.err") ||
        { echo "$WHO: run $r ($app on $list) failed: $(tail -n 2 "$OUT/run$r.err")" >&2; exit 1; }
    rec=$SPOOL/jobs/$j/job.json
    for _ in $(seq 1 100); do [ -s "$rec" ] && break; sleep 0.1; done
    [ -s "$rec" ] || { echo "$WHO: run $r: job $j has no job record ($rec)" >&2; exit 1; }
    python3 - "$rec" "$r" "$app" "$list" >>"$OUT/runs.jsonl" <<'PY'
import json
import sys
rec = json.load(open(sys.argv[1]))
b = rec.get("bottleneck") or {}
print(json.dumps({"run": int(sys.argv[2]), "app": sys.argv[3], "nodes": sys.argv[4],
                  "job_id": rec.get("job_id"), "version": rec.get("version"),
                  "runtime_s": rec.get("runtime_s"), "source": b.get("source"),
                  "capacity_Bps": b.get("capacity_Bps"),
                  "u_up": b.get("u_up"), "u_down": b.get("u_down"),
                  "uplink_u_up": b.get("uplink_u_up"),
                  "uplink_u_down": b.get("uplink_u_down")}))
PY
    echo "run $r: $app on $list, job $j: $(tail -n 1 "$OUT/runs.jsonl" | cut -c 1-240) at $(since)"
done
python3 "$ROOT/eval/record_u_stats.py" --seed "$SEED" --rate "$NETVAR_NETLAB_RATE" \
    --out "$OUT/record_u.json" "$OUT/runs.jsonl"
echo "results in $OUT (runs.jsonl, record_u.json) after $(since)"
