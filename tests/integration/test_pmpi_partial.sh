#!/usr/bin/env bash
# test_pmpi_partial.sh - a run that never reaches MPI_Finalize (_exit, or
# SIGTERM mid-run) leaves per-rank partial profiles that `netvar estimate`
# reads; a truncated or corrupt profile gets one clear error line, exit 1.
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
LIB=$BUILD/lib/libnetvar_pmpi.so PROXY=$BUILD/bin/netvar-proxy-bsp NETVAR=$BUILD/bin/netvar
for f in "$LIB" "$PROXY" "$NETVAR"; do [ -e "$f" ] || { echo "skip: $f not built"; exit 77; }; done
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d /tmp/nv_pmpi_partial.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for how in --exit-after --sigterm-after; do
    d=$tmp/${how#--}; mkdir "$d"
    if timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$d" -x SLURM_JOB_ID=5 -x SLURM_STEP_ID=0 \
        "$PROXY" --iters 200 --work 100 "$how" 40 >"$tmp/out" 2>&1; then
        fail "$how: the run should have failed"
    fi
    ls "$d"/*.json >/dev/null 2>&1 && fail "$how: a full profile without MPI_Finalize?"
    set -- "$d"/profile-5.0.rank*.partial
    [ $# -eq 2 ] && [ -f "$1" ] || { ls -la "$d"; fail "$how: want 2 partial files"; }
    "$NETVAR" estimate --json "$@" >"$tmp/est.json" 2>"$tmp/err" || { cat "$tmp/err"; fail "$how: estimate on partials"; }
    python3 - "$tmp/est.json" "$how" <<'PY' || exit 1
import json, sys
e = json.load(open(sys.argv[1]))
# rank that stopped recorded the barrier + 40 Alltoalls; the other rank may
# be a few ahead or blocked: the aligned count is what both recorded
if e["complete"] or not (35 <= e["segments"] <= 41):
    print("FAIL: %s: partial profile: complete=%s segments=%s" % (sys.argv[2], e["complete"], e["segments"])); sys.exit(1)
print("%s: partial profile with %d segments" % (sys.argv[2], e["segments"]))
PY
    "$NETVAR" estimate "$1" | grep -q 'partial: run ended before MPI_Finalize' || fail "$how: text does not say partial"
done

# truncated profiles: one line naming the file, exit 1
for f in "$ROOT/tests/fixtures/segments/truncated-profile.json" "$ROOT/tests/fixtures/segments/truncated.rank0.partial"; do
    "$NETVAR" estimate "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "$f: exit $rc, want 1"
    [ "$(wc -l <"$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "$f: want exactly one error line"; }
    grep -q "^netvar: estimate: $f: .*truncated" "$tmp/err" || { cat "$tmp/err"; fail "$f: unclear error"; }
    [ -s "$tmp/out" ] && fail "$f: printed an estimate anyway"
done
# the intact fixture still reads
"$NETVAR" estimate "$ROOT/tests/fixtures/segments/small-profile.json" >/dev/null || fail "small-profile.json"
echo PASS
