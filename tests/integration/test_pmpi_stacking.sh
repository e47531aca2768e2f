#!/usr/bin/env bash
# test_pmpi_stacking.sh - the segment profiler with a user's own PMPI tool
# (probes/pmpi/tests/count_tool.c, which counts the calls it wraps) under
# real Open MPI, on a program with known call counts (stack_app.c):
#  - profiler first in LD_PRELOAD (what the SPANK plugin does): the tool
#    still counts every call, the profile has every segment and names the
#    tool under pmpi_tools.after;
#  - the tool first: it still counts every call; the profiler says so in one
#    netvar: line on rank 0 (no profile when it wraps MPI_Init or
#    MPI_Finalize); when it leaves those two alone, the
#    profile names it under pmpi_tools.before;
#  - the profiler alone: no pmpi_tools in the profile.
set -u
. "$(dirname "$0")/pmpi_common.sh" nv_pmpi_stack
src=$ROOT/probes/pmpi/tests
mpicc -O1 -Wall -shared -fPIC -o "$tmp/libcount.so" "$src/count_tool.c" || fail "cannot build count_tool"
mpicc -O1 -Wall -shared -fPIC -DCOUNT_NO_INIT -o "$tmp/libcount_noinit.so" "$src/count_tool.c" || fail "cannot build"
mpicc -O1 -Wall -o "$tmp/stack_app" "$src/stack_app.c" || fail "cannot build stack_app"
# per rank: 5 rounds of 2 Allreduce, Bcast, Alltoall; ranks 0-1 add Send, Recv, Isend, Irecv, Waitall
want="Init=1 Send=5 Recv=5 Isend=5 Irecv=5 Wait=1 Waitall=5 Allreduce=10 Bcast=5 Barrier=1 Alltoall=5 Iallreduce=1"
segments=17 # Barrier + 10 Allreduce + 5 Alltoall + Iallreduce

# run NAME PRELOAD: mpirun -np 2 in $tmp/NAME
run() {
    mkdir -p "$tmp/$1"
    timeout 60 mpirun -np 2 -x LD_PRELOAD="$2" -x NETVAR_PROFILE_DIR="$tmp/$1" "$tmp/stack_app" \
        >"$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out"; fail "$1: run failed"; }
}
# counted NAME WANT: both ranks' tool lines say WANT
counted() {
    local n
    n=$(grep -c "^count_tool: rank [01] $2\$" "$tmp/$1.out")
    [ "$n" = 2 ] || { cat "$tmp/$1.out"; fail "$1: the tool did not count every call (want '$2' on 2 ranks)"; }
}
profile() { ls "$tmp/$1"/netvar-profile-*.json 2>/dev/null; }
check_profile() { # NAME PYTHON-CONDITION MESSAGE
    python3 - "$(profile "$1")" "$2" "$tmp/libcount.so" "$tmp/libcount_noinit.so" <<'PY' || fail "$1: $3"
import json, sys
p = json.load(open(sys.argv[1])); tool, noinit = sys.argv[3], sys.argv[4]
t = p.get("pmpi_tools")
ok = eval(sys.argv[2])
print("segments", p["segments"], "pmpi_tools", t)
sys.exit(0 if ok else 1)
PY
}

run alone "$tmp/libcount.so"
counted alone "$want"

run first "$LIB:$tmp/libcount.so"
counted first "$want"
[ -n "$(profile first)" ] || fail "first: no profile"
check_profile first "p['segments'] == $segments and t and t['after'] == [tool] and t['before'] == []" \
    "want $segments segments and the tool under pmpi_tools.after"
grep -q '^netvar:' "$tmp/first.out" && { cat "$tmp/first.out"; fail "first: the profiler logged"; }

run last "$tmp/libcount.so:$LIB"
counted last "$want"
[ "$(grep -c '^netvar: LD_PRELOAD has the PMPI tool .*libcount.so before the segment profiler' "$tmp/last.out")" = 1 ] \
    || { cat "$tmp/last.out"; fail "last: want one netvar: line naming the tool"; }
[ -z "$(profile last)" ] || fail "last: a profile although the tool hid MPI_Init"

run partial "$tmp/libcount_noinit.so:$LIB"
counted partial "${want/Init=1/Init=0}"
[ "$(grep -c '^netvar: LD_PRELOAD has the PMPI tool .*libcount_noinit.so before the segment profiler' "$tmp/partial.out")" = 1 ] \
    || { cat "$tmp/partial.out"; fail "partial: want one netvar: line naming the tool"; }
check_profile partial "t and t['before'] == [noinit] and p['segments'] < $segments" \
    "want the tool under pmpi_tools.before and segments missing"

run netvar "$LIB"
check_profile netvar "p['segments'] == $segments and t is None" "want $segments segments and no pmpi_tools"
echo "PASS"
