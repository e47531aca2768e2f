#!/usr/bin/env bash
# bench_profiler.sh - overhead of libnetvar_pmpi.so on an Alltoall-heavy
# run of the BSP proxy: runs with and without the profiler alternate (A/B
# pairs, so slow drifts of the machine hit both), medians of the loop time
# are compared.  Budget (DESIGN.md): median <= 1 %, worst pair <= 3 %,
# memory <= 4 MiB per rank; the profiler's peak memory per rank is read
# from the profile it wrote.
# Usage: eval/bench_profiler.sh [BUILD]   Env: PAIRS (9), NP (2), ITERS, WORK, BYTES
set -u
BUILD=$(readlink -f "${1:-${BUILD:-build}}")
LIB=$BUILD/lib/libnetvar_pmpi.so PROXY=$BUILD/bin/netvar-proxy-bsp
for f in "$LIB" "$PROXY"; do [ -e "$f" ] || { echo "netvar: $f is not built (run make)" >&2; exit 77; }; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
PAIRS=${PAIRS:-9} NP=${NP:-2} ITERS=${ITERS:-4000} WORK=${WORK:-200} BYTES=${BYTES:-4096}
out=$(mktemp -d /tmp/nv_bench_pmpi.XXXXXX)
trap 'rm -rf "$out"' EXIT
run() { # $1 = with|without
    local pre=()
    [ "$1" = with ] && pre=(-x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$out")
    timeout 600 mpirun -np "$NP" "${pre[@]}" "$PROXY" --iters "$ITERS" --work "$WORK" --bytes "$BYTES" 2>/dev/null |
        sed -n 's/.*loop_us=\([0-9]*\).*/\1/p'
}
with=() without=()
for p in $(seq 1 "$PAIRS"); do
    a=$(run without); b=$(run with)
    [ -n "$a" ] && [ -n "$b" ] || { echo "netvar: bench run failed" >&2; exit 1; }
    without+=("$a"); with+=("$b")
    printf 'pair %d: without %d µs, with %d µs (%+.2f %%)\n' "$p" "$a" "$b" "$(echo "($b - $a) * 100 / $a" | bc -l)"
done
peak=$(python3 -c 'import json,glob,sys; print(max(json.load(open(f))["peak_profiler_bytes_per_rank"] for f in glob.glob(sys.argv[1]+"/*.json")))' "$out")
segs=$(python3 -c 'import json,glob,sys; f=sorted(glob.glob(sys.argv[1]+"/*.json"))[0]; p=json.load(open(f)); print("%d segments in %.2f s: %.0f segments/s" % (p["segments"], p["runtime_us"]/1e6, p["segments"]/(p["runtime_us"]/1e6)))' "$out")
python3 - "${without[*]}" "${with[*]}" "$peak" "$segs" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
med = (statistics.median(b) / statistics.median(a) - 1) * 100
pairs = [(y / x - 1) * 100 for x, y in zip(a, b)]
print("profiled run: %s" % sys.argv[4])
print("median loop time: without %.0f µs, with %.0f µs" % (statistics.median(a), statistics.median(b)))
print("overhead: median %+.2f %% (budget <= 1 %%), worst pair %+.2f %% (budget <= 3 %%), best pair %+.2f %%" % (med, max(pairs), min(pairs)))
print("profiler peak memory per rank: %.0f bytes (%.2f MiB; budget 4 MiB)" % (float(sys.argv[3]), float(sys.argv[3]) / 2**20))
PY
