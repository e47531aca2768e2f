#!/bin/sh
# test_variability_smoke.sh - seconds-long end-to-end check of `netvar
# variability` (train on a small SYNTHETIC data set into a model file, then
# estimate) and `netvar diagnose` (hand-built node records of a many-to-one
# reduction on a two-leaf topology -> communication pattern; a node outside
# the topology and records without counters -> clear refusal).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NETVAR=$BUILD/bin/netvar
GEN=$BUILD/bin/variability_gen
[ -x "$NETVAR" ] || { echo "skip: $NETVAR not built"; exit 77; }
if [ ! -x "$GEN" ]; then
    make -C "$ROOT" --no-print-directory BUILD="$BUILD" variability-gen >/dev/null 2>&1 ||
        { echo "skip: cannot build variability_gen"; exit 77; }
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/netvar-ve-smoke.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

# ---- variability: train and estimate
"$GEN" --out "$TMP/data" --jobs 200 --seed 3 >/dev/null || fail "generator"
cp "$ROOT/tests/fixtures/model/valid_small.json" "$TMP/model.json"
# records a job's user planted under its profiles/ (which the user owns), at
# any depth, and a job.json not owned by the jobs directory's owner are not
# training records (issue 17)
mkdir -p "$TMP/data/jobs/6/profiles/deep/er"
cp "$TMP/data/jobs/5/job.json" "$TMP/data/jobs/6/profiles/job.json"
cp "$TMP/data/jobs/5/job.json" "$TMP/data/jobs/6/profiles/deep/er/job.json"
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$TMP/data/jobs/99999"
    cp "$TMP/data/jobs/5/job.json" "$TMP/data/jobs/99999/job.json"
    chown 4242 "$TMP/data/jobs/99999/job.json"
fi
"$NETVAR" variability train --records "$TMP/data" --model "$TMP/model.json" --folds 3 \
    --C-grid 10 --gamma-grid 0.01 --trees 20 --json >"$TMP/train.json" 2>"$TMP/train.err" ||
    fail "train: $(cat "$TMP/train.err")"
python3 - "$TMP/train.json" <<'PY' || fail "train output"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["jobs_used"] == 200, t
assert t["records_read"] == 200, t
assert 0.3 < t["cv_r2"] <= 1, t
assert 0 <= t["abstention"] <= 1 and 0 <= t["coverage"] <= 1, t
PY
grep -q '"variability"' "$TMP/model.json" || fail "model file has no variability section"
out=$("$NETVAR" variability estimate --model "$TMP/model.json" "$TMP/data/jobs/5/job.json") ||
    fail "estimate exit status"
echo "$out" | grep -Eq '^([+-][0-9]+\.[0-9] σ \(± [0-9]+\.[0-9]\): ran in|no estimate: outside training data)' ||
    fail "estimate text: $out"
"$NETVAR" variability estimate --model "$TMP/model.json" --json "$TMP/data/jobs/5/job.json" |
    python3 -c 'import json,sys; o=json.load(sys.stdin); assert "answered" in o and "text" in o' ||
    fail "estimate --json"
printf '{"schema":"netvar-job-record","nodes":["n1"],"runtime_s":5}' >"$TMP/nocounters.json"
if "$NETVAR" variability estimate --model "$TMP/model.json" "$TMP/nocounters.json" 2>"$TMP/e"; then
    fail "a record without counters was estimated"
fi
grep -q "no counter metrics" "$TMP/e" || fail "no-counters message: $(cat "$TMP/e")"
# an old model (no section) still loads and says what is missing
if "$NETVAR" variability estimate --model "$ROOT/tests/fixtures/model/valid_small.json" \
       "$TMP/data/jobs/5/job.json" 2>"$TMP/e"; then fail "estimate without a section"; fi
grep -q "no variability section" "$TMP/e" || fail "old-model message: $(cat "$TMP/e")"

# ---- diagnose: many-to-one reduction into n0 over 2 s on 100 Gb/s links
mkdir -p "$TMP/spool/jobs/7" "$TMP/spool/jobs/8" "$TMP/spool/jobs/9"
cat >"$TMP/topology.conf" <<'T'
SwitchName=leaf0 Nodes=n[0-1]
SwitchName=leaf1 Nodes=n[2-3]
SwitchName=top Switches=leaf[0-1]
T
rec() { # node bytes_in bytes_out stall -> node record with one InfiniBand port
    printf '{"schema":"netvar-node-record","version":1,"job_id":7,"node":"%s","start_unix_s":100,"end_unix_s":102,' "$1"
    printf '"delta":{"backend":"infiniband","dt_ns":2000000000,"ports":[{"name":"mlx5_0/1","kind":"ib_port","fields":{'
    printf '"bytes_in":{"value":%s,"unit":"bytes"},"bytes_out":{"value":%s,"unit":"bytes"},"stall":{"value":%s,"unit":"ticks"}}}]}}' "$2" "$3" "$4"
}
rec n0 23150000000 1000000 23103700000 >"$TMP/spool/jobs/7/node-n0.json"
for n in n1 n2 n3; do rec $n 1000000 7716666666 6500000000 >"$TMP/spool/jobs/7/node-$n.json"; done
out=$("$NETVAR" diagnose 7 --spool "$TMP/spool" --topology "$TMP/topology.conf" --line-rate 100) ||
    fail "diagnose exit status: $out"
echo "$out" | grep -q "^cause:  communication pattern" || fail "diagnose cause: $out"
echo "$out" | grep -q "endpoint, the node's own link: n0:mlx5_0/1" || fail "diagnose root: $out"
echo "$out" | grep -q "no traffic matrix recorded" || fail "diagnose mapping note: $out"
"$NETVAR" diagnose 7 --spool "$TMP/spool" --topology "$TMP/topology.conf" --line-rate 100 --json |
    python3 -c 'import json,sys; o=json.load(sys.stdin); assert o["cause"]=="communication pattern", o' ||
    fail "diagnose --json"
# with a traffic matrix: hop-bytes of all-to-n0
printf '{"ranks":["n0","n1","n2","n3"],"bytes":[[0,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0]]}' \
    >"$TMP/spool/jobs/7/traffic-matrix.json"
out=$("$NETVAR" diagnose 7 --spool "$TMP/spool" --topology "$TMP/topology.conf" --line-rate 100)
echo "$out" | grep -q "hop-bytes 10 byte-links" || fail "hop-bytes: $out"

# a node outside the topology: refused, nothing guessed
rec n9 1 1 1 >"$TMP/spool/jobs/8/node-n9.json"
if "$NETVAR" diagnose 8 --spool "$TMP/spool" --topology "$TMP/topology.conf" 2>"$TMP/e" >/dev/null; then
    fail "diagnosed counters from an unknown topology"
fi
grep -q "not in the topology" "$TMP/e" || fail "unknown-topology message: $(cat "$TMP/e")"
# records without counters
printf '{"schema":"netvar-node-record","node":"n1","counter_source":"none"}' >"$TMP/spool/jobs/9/node-n1.json"
if "$NETVAR" diagnose 9 --spool "$TMP/spool" --topology "$TMP/topology.conf" 2>"$TMP/e" >/dev/null; then
    fail "diagnosed a job without counters"
fi
grep -q "no node record holds counters" "$TMP/e" || fail "no-counters message: $(cat "$TMP/e")"
echo "ok: variability train/estimate and diagnose"
