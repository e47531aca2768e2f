#!/bin/bash
# test_probes_mpirun.sh - ImpactB and CompressionB under real Open MPI on
# this host, with NETVAR_PROBE_FAKE_NODES splitting ranks into pseudo-nodes.
# Asserts on their JSON (fields, plausible counts, bandwidth that grows
# with P and M and shrinks with B), on clear errors with exit 2 (P > nodes,
# duration 0), and on SIGTERM ending ImpactB cleanly with output written.
# Env: BUILD (build dir), ROOT (repo root).  Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
IMPACTB=$BUILD/bin/impactb
COMPB=$BUILD/bin/compressionb
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3 for JSON checks"; exit 77; }
[ -x "$IMPACTB" ] && [ -x "$COMPB" ] || { echo "skip: $IMPACTB or $COMPB not built"; exit 77; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=tcp,self \
  OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
  OMPI_MCA_mpi_yield_when_idle=1
T=$(mktemp -d /tmp/nvprobes.XXXXXX)
MPIRUN_PID=
cleanup() {
  [ -n "$MPIRUN_PID" ] && kill -KILL "$MPIRUN_PID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- ImpactB
NETVAR_PROBE_FAKE_NODES=2 mpirun -n 4 "$IMPACTB" --duration-s 2 --interval-us 20000 \
  --output "$T/ib.json" >"$T/ib.out" 2>&1 || { cat "$T/ib.out"; fail "impactb run failed"; }
python3 - "$T/ib.json" <<'PY' || fail "impactb JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "netvar-impactb" and d["version"] == 1, d["schema"]
lat = d["latency"]
for k in ("count", "min_us", "mean_us", "sd_us", "p50_us", "p90_us", "p99_us"):
    assert k in lat, k
# 2 pairs (local 0 and 1 of node 0 with node 1), 2 s / 20 ms ~ 100 rounds each
assert len(d["pairs"]) == 2, d["pairs"]
assert 20 <= d["count"] <= 220, d["count"]
assert lat["count"] == d["count"]
assert 0 < lat["min_us"] <= lat["p50_us"] <= lat["p90_us"] <= lat["p99_us"] <= lat["max_us"], lat
assert lat["min_us"] < 1e6 and lat["sd_us"] >= 0
h = d["histogram"]
assert len(h["edges_us"]) == len(h["counts"]) + 1 == 97
assert sum(h["counts"]) == d["count"]
p = d["placement"]
assert p["overridden"] is True and d["placement_overridden"] is True
assert p["source"] == "NETVAR_PROBE_FAKE_NODES" and p["nodes"] == 2
assert p["tasks_per_node"] == [2, 2] and p["rank_node"] == [0, 0, 1, 1], p
assert len(p["node_names"]) == 2
assert d["stopped_by"] == "duration" and d["interval_us"] == 20000 and d["duration_s"] == 2
PY
echo "ok: impactb JSON (count, stats, histogram, placement)"

# duration 0 and a single node: clear error, exit 2
NETVAR_PROBE_FAKE_NODES=2 mpirun -n 2 "$IMPACTB" --duration-s 0 >"$T/e1.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { cat "$T/e1.out"; fail "impactb --duration-s 0 exit $rc, want 2"; }
grep -q "netvar: impactb: --duration-s 0: the duration must be more than 0" "$T/e1.out" || fail "impactb duration message"
mpirun -n 2 "$IMPACTB" --duration-s 1 >"$T/e2.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "needs at least 2 nodes" "$T/e2.out" || { cat "$T/e2.out"; fail "impactb on 1 node: exit $rc"; }
echo "ok: impactb bad input exits 2 with one clear line"

# SIGTERM to mpirun: ranks stop after the current exchange and rank 0 writes
NETVAR_PROBE_FAKE_NODES=2 mpirun -n 2 "$IMPACTB" --interval-us 20000 --output "$T/sig.json" >"$T/sig.out" 2>&1 &
MPIRUN_PID=$!
sleep 2
kill -TERM "$MPIRUN_PID"
for _ in $(seq 1 100); do kill -0 "$MPIRUN_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$MPIRUN_PID" 2>/dev/null && fail "impactb still running 10 s after SIGTERM"
wait "$MPIRUN_PID"; MPIRUN_PID=
[ -s "$T/sig.json" ] || { cat "$T/sig.out"; fail "no output after SIGTERM"; }
# shellcheck disable=SC2010 # names impactb writes: no blank or newline
ls "$T" | grep -q 'sig.json.tmp' && fail "temporary file left behind"
python3 - "$T/sig.json" <<'PY' || fail "impactb JSON after SIGTERM"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stopped_by"] == "signal", d["stopped_by"]
assert d["duration_s"] is None
assert d["count"] >= 10, d["count"]
PY
echo "ok: SIGTERM ends impactb cleanly with output written"

# ----------------------------------------------------------- CompressionB
bw() { # args...: prints mean injected bytes/s per node
  NETVAR_PROBE_FAKE_NODES=4 mpirun -n 4 "$COMPB" --duration-s 2 "$@" --output "$T/c.json" \
    >"$T/c.out" 2>&1 || { cat "$T/c.out"; fail "compressionb $* failed"; }
  python3 - "$T/c.json" <<'PY' || fail "compressionb JSON for $*"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "netvar-compressionb" and d["version"] == 1
b = d["injected_bandwidth"]
assert b["unit"] == "bytes/s" and len(b["per_node"]) == 4
assert all(x > 0 for x in b["per_node"]), b
assert d["placement"]["nodes"] == 4 and d["rounds_per_rank"] > 0
assert d["bytes_sent_total"] > 0 and d["stopped_by"] == "duration"
for k in ("partners", "messages", "msg_bytes", "sleep_us", "sleep_at"):
    assert k in d["parameters"], k
print("%.0f" % b["mean_per_node"])
PY
}
p1=$(bw --partners 1 --messages 1 --sleep-us 5000 --sleep-at round) || exit 1
p3=$(bw --partners 3 --messages 1 --sleep-us 5000 --sleep-at round) || exit 1
m1=$(bw --partners 1 --messages 1 --sleep-us 5000) || exit 1
m4=$(bw --partners 1 --messages 4 --sleep-us 5000) || exit 1
b_short=$(bw --partners 1 --messages 1 --sleep-us 500) || exit 1
b_cyc=$(bw --partners 1 --messages 1 --cycles 13000000 --ghz 2.6) || exit 1   # 5000 us
echo "bandwidth bytes/s per node: P1=$p1 P3=$p3 M1=$m1 M4=$m4 B500us=$b_short B5000us(cycles)=$b_cyc"
python3 - "$p1" "$p3" "$m1" "$m4" "$b_short" "$b_cyc" <<'PY' || fail "bandwidth does not follow P, M, B"
import sys
p1, p3, m1, m4, bs, bc = map(float, sys.argv[1:])
assert p3 > 1.5 * p1, ("P", p1, p3)
assert m4 > 1.5 * m1, ("M", m1, m4)
assert bc < 0.7 * bs and m1 < 0.7 * bs, ("B", bs, bc, m1)
PY
echo "ok: injected bandwidth grows with P and M and shrinks with B"

NETVAR_PROBE_FAKE_NODES=2 mpirun -n 2 "$COMPB" --partners 2 --duration-s 1 >"$T/e3.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "netvar: compressionb: --partners 2: P must be from 1 to nodes-1 = 1" "$T/e3.out" \
  || { cat "$T/e3.out"; fail "compressionb P > nodes-1: exit $rc"; }
NETVAR_PROBE_FAKE_NODES=2 mpirun -n 2 "$COMPB" --duration-s 0 >"$T/e4.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "the duration must be more than 0" "$T/e4.out" \
  || { cat "$T/e4.out"; fail "compressionb duration 0: exit $rc"; }
echo "ok: compressionb bad input exits 2 with one clear line"
echo "PASS"
