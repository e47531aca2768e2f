#!/usr/bin/env bash
# test_pmpi_lammps.sh - smoke run of `make bench-profiler`'s LAMMPS part
# (tests/bench/bench_profiler_lammps.sh): one pair per setting, few steps,
# under real Open MPI.  Checks the pipeline (LAMMPS runs with and without
# the profiler, every profiled run wrote one complete profile, the figures
# and the JSON come out, thermo 1 cuts more segments per step than thermo
# 100); never a timing.  Installs lammps through install-deps.sh when root.
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
[ -e "$BUILD/lib/libnetvar_pmpi.so" ] || { echo "skip: libnetvar_pmpi.so not built"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
if ! command -v lmp >/dev/null; then
    [ "$(id -u)" -eq 0 ] && sh "$ROOT/packaging/install-deps.sh" lammps
    command -v lmp >/dev/null || { echo "skip: no lmp (run 'sh packaging/install-deps.sh lammps' as root)"; exit 77; }
fi
tmp=$(mktemp -d /tmp/nv_pmpi_lammps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

PAIRS=1 LOW_STEPS=200 HIGH_STEPS=50 KEEP="$tmp/keep" \
    bash "$ROOT/tests/bench/bench_profiler_lammps.sh" --json "$BUILD" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] || fail "bench exit $rc"
grep -q "whole-process wall time overhead: median" "$tmp/out" || fail "no wall-time figure"
grep -q "LAMMPS loop time        overhead: median" "$tmp/out" || fail "no loop-time figure"
tail -n 1 "$tmp/out" | python3 -c '
import json, sys
o = json.load(sys.stdin)
s = {x["thermo"]: x for x in o["settings"]}
def check(c, m):
    if not c: print("FAIL:", m); sys.exit(1)
check(sorted(s) == [1, 100] and o["ranks"] == 2, "settings/ranks")
check(all(x["pairs"] == 1 and x["segments"] > 0 for x in s.values()), "pairs or segments")
for x in s.values():
    for k in ("median", "min", "q1", "q3", "max"):
        check(k in x["wall_overhead_pct"] and k in x["loop_overhead_pct"], "spread field " + k)
# thermo 1 adds several Allreduce per step: more segments per step
check(s[1]["segments"] / s[1]["steps"] > 2 * s[100]["segments"] / s[100]["steps"],
      "thermo 1 did not cut more segments per step (%s vs %s)" % (s[1]["segments"], s[100]["segments"]))
print("json ok")
' || exit 1
# the profiled runs left no partial files, the unprofiled ones no profile
# shellcheck disable=SC2010 # names the profiler writes: no blank or newline
ls "$tmp/keep"/prof-*/ | grep -q partial && fail "partial files left"
# shellcheck disable=SC2012 # names the profiler writes: no blank or newline
[ "$(ls "$tmp/keep"/prof-*/*.json | wc -l)" = 2 ] || fail "want 2 profiles (one per setting)"
ls "$tmp/keep"/*.json >/dev/null 2>&1 && fail "an unprofiled run wrote a profile"
echo "PASS"
