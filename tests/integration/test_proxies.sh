#!/bin/bash
# test_proxies.sh - the network lab's proxy apps (alltoall, stencil, cg,
# montecarlo, phased) and the corpus's (wavefront, pulse, medium, coll with
# each --kind, overlap) each run about a second under real Open MPI on this
# host (2 ranks, no binding) and print their result line; options are
# checked (--help exits 0, bad values exit 2 with one line); --busy-wait and
# --compute sleep work.  Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
PROXIES="alltoall stencil cg montecarlo phased wavefront pulse medium coll overlap"
for p in $PROXIES; do
    [ -x "$BUILD/bin/netvar-proxy-$p" ] || { echo "skip: $BUILD/bin/netvar-proxy-$p not built"; exit 77; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=tcp,self \
  OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
  OMPI_MCA_mpi_yield_when_idle=1
T=$(mktemp -d /tmp/nvproxies.XXXXXX)
trap 'rm -rf "$T"' EXIT
failures=0
ok() { echo "ok - $*"; }
not_ok() { echo "NOT OK - $*"; failures=$((failures + 1)); }

# run NAME EXPECTED_ITERS ARGS...: one ~1 s run, its line checked
run() {
    local name=$1 iters=$2; shift 2
    local out bin=${name%%-*}
    out=$(timeout 120 mpirun -n 2 --bind-to none "$BUILD/bin/netvar-proxy-$bin" "$@" 2>"$T/$name.err")
    local rc=$?
    local line
    line=$(printf '%s\n' "$out" | grep '^proxy=' | tail -n 1)
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        not_ok "$name $*: exit $rc, output: $(printf %s "$out" | head -c 300) $(head -c 300 "$T/$name.err")"
        return
    fi
    # exactly one result line (rank 0 only), the iterations asked, a positive runtime
    local nlines rt it
    nlines=$(printf '%s\n' "$out" | grep -c '^proxy=')
    it=$(printf '%s\n' "$line" | sed -n 's/.* iterations=\([0-9]*\) .*/\1/p')
    rt=$(printf '%s\n' "$line" | sed -n 's/.* runtime_s=\([0-9.]*\) .*/\1/p')
    if [ "$nlines" = 1 ] && [ "$it" = "$iters" ] && [ -n "$rt" ] &&
        awk -v t="$rt" 'BEGIN{exit !(t > 0 && t < 120)}' &&
        printf '%s' "$line" | grep -q "proxy=$name ranks=2 "; then
        ok "$name: $line"
    else
        not_ok "$name: bad result line(s): $out"
    fi
}

run alltoall 20 --size 8192 --iters 20
run stencil 50 --size 256 --iters 50
run cg 200 --iters 200
run montecarlo 20 --size 200000 --iters 20 --reduce-every 5
run phased 40 --size 4096 --iters 40 --phase-iters 5
run cg 100 --iters 100 --busy-wait
run alltoall 10 --size 4096 --iters 10 --compute sleep --compute-scale 0.5
# the corpus's proxies (eval/apps/corpus.apps)
run wavefront 100 --size 512 --iters 100 --blocks 3
run pulse 20 --size 4096 --iters 20 --gap-us 2000
run medium 100 --size 16384 --iters 100
run overlap 50 --size 8192 --iters 50 --overlap-us 500
for k in allreduce bcast allgather reduce_scatter alltoallv; do
    run "coll-$k" 60 --kind "$k" --size 2048 --iters 60 --compute-us 200 --compute sleep
done
# coll's --kind is checked: a bad one exits 2 with one line naming it
"$BUILD/bin/netvar-proxy-coll" --kind scan >"$T/bad.out" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "'scan'" "$T/bad.out" && [ "$(wc -l <"$T/bad.out")" = 1 ]; then
    ok "coll --kind scan -> exit 2, one line"
else not_ok "coll --kind scan: rc $rc, $(head -c 200 "$T/bad.out")"; fi
# the pulse's gap is its quiet time: 20 gaps of 20 ms take at least 0.4 s
line=$(timeout 60 mpirun -n 2 --bind-to none "$BUILD/bin/netvar-proxy-pulse" --size 64 --iters 20 \
    --gap-us 20000 --compute sleep 2>/dev/null | grep '^proxy=')
rt=$(printf '%s\n' "$line" | sed -n 's/.* runtime_s=\([0-9.]*\) .*/\1/p')
if [ -n "$rt" ] && awk -v t="$rt" 'BEGIN{exit !(t >= 0.4)}'; then ok "pulse: 20 x 20 ms gaps take $rt s"
else not_ok "pulse with 20 ms gaps: $line"; fi

# --compute sleep and --busy-wait are echoed in the line
line=$(timeout 60 mpirun -n 2 --bind-to none "$BUILD/bin/netvar-proxy-stencil" --size 64 --iters 5 \
    --compute sleep --busy-wait 2>/dev/null | grep '^proxy=')
case $line in *"compute=sleep wait=busy"*) ok "stencil echoes compute=sleep wait=busy" ;;
    *) not_ok "stencil line lacks compute=sleep wait=busy: $line" ;; esac

# usage: --help exits 0 with a synopsis; bad values exit 2 with one line
for p in $PROXIES; do
    h=$("$BUILD/bin/netvar-proxy-$p" --help 2>&1); rc=$?
    if [ $rc -eq 0 ] && printf '%s' "$h" | grep -q "Usage: .*netvar-proxy-$p" &&
        printf '%s' "$h" | grep -q -- "--busy-wait"; then ok "$p --help"; else not_ok "$p --help (rc $rc)"; fi
    "$BUILD/bin/netvar-proxy-$p" --iters 0 >"$T/bad.out" 2>&1; rc=$?
    if [ $rc -eq 2 ] && grep -q "needs an integer" "$T/bad.out"; then ok "$p --iters 0 -> exit 2"
    else not_ok "$p --iters 0: rc $rc, $(head -c 200 "$T/bad.out")"; fi
    "$BUILD/bin/netvar-proxy-$p" --compute gpu >"$T/bad.out" 2>&1; rc=$?
    if [ $rc -eq 2 ]; then ok "$p --compute gpu -> exit 2"; else not_ok "$p --compute gpu: rc $rc"; fi
done
"$BUILD/bin/netvar-proxy-montecarlo" --phase-iters 3 >"$T/bad.out" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "unknown option" "$T/bad.out"; then ok "montecarlo rejects phased's option"
else not_ok "montecarlo --phase-iters: rc $rc $(head -c 200 "$T/bad.out")"; fi

echo "# $failures failed"
[ $failures -eq 0 ]
