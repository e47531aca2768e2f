#!/usr/bin/env bash
# test_pmpi_nonblocking.sh - nonblocking all-to-all collectives (MPI_Ialltoall,
# MPI_Iallreduce, MPI_Ibarrier, ...) are segment boundaries when their request
# completes: the polite proxies (MPI_Testall + nanosleep), the --busy-wait
# path (MPI_Waitall), NETVAR_SEGMENT_CALLS selecting the I-forms through the
# blocking names, the less common completion calls and a full request table
# (probes/pmpi/tests/nbc_edges.c, mpicc), and the Fortran bindings
# (probes/pmpi/tests/nonblocking_f.f90, mpifort; skipped without it).
# Segment counts are exact: each rank cuts one segment per completed
# job-wide collective, whatever its timing.
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
LIB=$BUILD/lib/libnetvar_pmpi.so NETVAR=$BUILD/bin/netvar
A2A=$BUILD/bin/netvar-proxy-alltoall CG=$BUILD/bin/netvar-proxy-cg
for f in "$LIB" "$NETVAR" "$A2A" "$CG"; do [ -e "$f" ] || { echo "skip: $f not built"; exit 77; }; done
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d /tmp/nv_pmpi_nb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# profiled NAME WANT_SEGMENTS [mpirun -x args...] -- PROGRAM ARGS...: runs
# under the profiler in $tmp/NAME, checks exit status, the segment count,
# rank alignment, and that `netvar estimate` (text and JSON) accepts it.
profiled() {
    local name=$1 want=$2; shift 2
    local xs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do xs+=("$1"); shift; done
    shift
    local d=$tmp/$name
    mkdir -p "$d"
    timeout 60 mpirun -np 2 --bind-to none -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$d" -x SLURM_JOB_ID=77 \
        -x SLURM_STEP_ID=0 "${xs[@]}" "$@" >"$d.out" 2>&1 || { cat "$d.out"; fail "$name: run failed"; }
    [ -f "$d/profile-77.0.json" ] || { ls -la "$d"; cat "$d.out"; fail "$name: no profile"; }
    # shellcheck disable=SC2010 # names the profiler writes: no blank or newline
    ls "$d" | grep -q partial && fail "$name: partial files left after MPI_Finalize"
    "$NETVAR" estimate "$d/profile-77.0.json" >"$d.txt" || fail "$name: netvar estimate refused the profile"
    "$NETVAR" estimate --json "$d/profile-77.0.json" >"$d.est" || fail "$name: netvar estimate --json"
    python3 - "$d/profile-77.0.json" "$d.est" "$name" "$want" <<'PY' || exit 1
import json, sys
p = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2])); name = sys.argv[3]; want = int(sys.argv[4])
def check(c, m):
    if not c: print("FAIL: %s: %s" % (name, m)); sys.exit(1)
check(p["segments"] == want, "want %d segments, got %d" % (want, p["segments"]))
check(e["segments"] == want and e["complete"], "estimate: segments %s complete %s" % (e["segments"], e["complete"]))
check(p["segments_unaligned"] == 0 and p["segments_dropped"] == 0, "ranks not aligned or segments dropped")
print("%s: %d segments" % (name, p["segments"]))
PY
}

# 1. the FFT-like proxy, polite waits (MPI_Ibarrier + 100 x MPI_Ialltoall
#    completed by MPI_Testall + nanosleep, then a final MPI_Ibarrier)
profiled a2a_polite 102 -- "$A2A" --size 4096 --iters 100 --compute sleep
python3 - "$tmp/a2a_polite/profile-77.0.json" <<'PY' || exit 1
import json, sys
p = json.load(open(sys.argv[1])); f = p["signature_fields"]
# per segment, over both ranks: 2 Ialltoall, each rank sends 2 x 2048 doubles
if not any(r[f.index("coll_all_to_all")] == 2 and r[f.index("bytes_sent")] == 2 * 2 * 2048 * 8 for r in p["signatures"]):
    print("FAIL: no segment signature with one Ialltoall per rank and its 64 KiB"); sys.exit(1)
for c in ("Alltoall", "Ialltoall", "Iallreduce", "Ibarrier"):
    if c not in p["segment_calls"].split(","):
        print("FAIL: segment_calls lacks", c, p["segment_calls"]); sys.exit(1)
PY
# 2. the same completed by MPI_Waitall (--busy-wait)
profiled a2a_busy 102 -- "$A2A" --size 4096 --iters 100 --compute sleep --busy-wait
# 3. the CG-like proxy: two MPI_Iallreduce per iteration (point-to-point
#    MPI_Testall in between cuts nothing)
profiled cg 202 -- "$CG" --size 2000 --iters 100 --compute sleep
# 4. NETVAR_SEGMENT_CALLS names blocking collectives; their I-forms follow
profiled cg_allreduce 200 -x NETVAR_SEGMENT_CALLS=Allreduce -- "$CG" --size 2000 --iters 100 --compute sleep
profiled a2a_only 100 -x NETVAR_SEGMENT_CALLS=Alltoall -- "$A2A" --size 4096 --iters 100 --compute sleep
grep -q '"segment_calls":"Alltoall,Ialltoall"' "$tmp/a2a_only/profile-77.0.json" || fail "segment_calls for Alltoall"

# 5. Testany/Waitsome/Waitany, null and p2p requests mixed in, 70 in flight
#    (64 tracked: the rest counted, logged once per rank, no boundary), and
#    a one-rank communicator: 1 + 64 + 2 + 1 + 1 segments
if command -v mpicc >/dev/null; then
    mpicc -O1 -o "$tmp/nbc_edges" "$ROOT/probes/pmpi/tests/nbc_edges.c" || fail "mpicc nbc_edges.c"
    profiled edges 69 -- "$tmp/nbc_edges"
    grep -q 'nbc_edges: ranks=2 errors=0' "$tmp/edges.out" || { cat "$tmp/edges.out"; fail "edges: program results changed"; }
    [ "$(grep -c '^netvar: more than 64 nonblocking boundary collectives in flight' "$tmp/edges.out")" = 2 ] ||
        { cat "$tmp/edges.out"; fail "edges: full table not logged once per rank"; }
else
    echo "note: no mpicc, nbc_edges.c not run"
fi

# 6. Fortran, 20 times after a barrier: MPI_IALLTOALL+MPI_WAIT,
#    MPI_IBCAST+MPI_WAIT and MPI_IREDUCE+MPI_WAIT (rooted, no boundary),
#    MPI_IALLREDUCE+MPI_TEST loop, MPI_IBARRIER+MPI_IALLGATHER+MPI_TESTALL
#    loop, MPI_IALLREDUCE+MPI_WAITANY, MPI_IBARRIER+MPI_TESTSOME loop
if mpifort --version >/dev/null 2>&1; then
    mpifort -O1 -o "$tmp/nonblocking_f" "$ROOT/probes/pmpi/tests/nonblocking_f.f90" || fail "mpifort nonblocking_f.f90"
    profiled fortran 121 -- "$tmp/nonblocking_f"
    grep -q 'nonblocking_f: ranks=2 total=   2.000 gathered=1' "$tmp/fortran.out" ||
        { cat "$tmp/fortran.out"; fail "fortran: program results changed"; }
    # the 256 B Ibcast and Ireduce and their waits: rooted, at most 256 B
    python3 - "$tmp/fortran/profile-77.0.json" <<'PY' || fail "fortran: MPI_IBCAST and MPI_IREDUCE not profiled as rooted"
import json, sys
p = json.load(open(sys.argv[1]))
f = p["comm_fields"]
t = dict.fromkeys(f, 0.0)
for c in p["segment_comm"]:
    for k, v in zip(f, p["comm_rows"][c]):
        t[k] += v
print("fortran: rooted <= 256 B %.0f us" % t["mpi_us_rooted_le256"])
sys.exit(0 if t["mpi_us_rooted_le256"] > 0 else 1)
PY
else
    echo "note: no working mpifort, Fortran part skipped"
fi

# 7. NETVAR_DISABLE still writes nothing for a nonblocking program
mkdir "$tmp/off"
(cd "$tmp/off" && timeout 60 mpirun -np 2 --bind-to none -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/off" \
    -x NETVAR_DISABLE=1 "$A2A" --size 4096 --iters 20 --compute sleep >"$tmp/off.out" 2>&1) || fail "disabled run failed"
[ -z "$(ls -A "$tmp/off")" ] || fail "NETVAR_DISABLE: files were written"
echo PASS
