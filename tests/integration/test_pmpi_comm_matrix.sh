#!/usr/bin/env bash
# test_pmpi_comm_matrix.sh - the traffic matrix on communicators other than
# MPI_COMM_WORLD (probes/pmpi/tests/comm_matrix.c, 4 ranks): ranks of a
# reordered split and of a duplicate are translated to world ranks, and the
# per-communicator cache dies with its communicator, so a recycled handle
# is not translated with the freed one's table.
set -u
. "$(dirname "$0")/pmpi_common.sh" nv_pmpi_comm
mpicc -O1 -Wall -o "$tmp/comm_matrix" "$ROOT/probes/pmpi/tests/comm_matrix.c" || fail "cannot build comm_matrix"
mkdir "$tmp/prof"
timeout 60 mpirun -np 4 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/prof" "$tmp/comm_matrix" >"$tmp/out" 2>&1 \
    || { cat "$tmp/out"; fail "run failed"; }
cat "$tmp/out"
grep -q '^netvar:' "$tmp/out" && fail "the profiler complained"
python3 - "$tmp"/prof/*.json <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))["traffic_matrix"]
want = [[0] * 4 for _ in range(4)]
want[3][2] = 1000
want[0][1] = 4000
print("matrix", m["bytes"], "other", m["other_bytes"])
if m["bytes"] != want or m["other_bytes"] != 0:
    print("FAIL: want", want, "and no other bytes"); sys.exit(1)
PY
echo "PASS"
