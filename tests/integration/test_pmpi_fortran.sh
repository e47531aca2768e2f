#!/usr/bin/env bash
# test_pmpi_fortran.sh - a Fortran program (mpifort, `use mpi`) calling
# MPI_ALLTOALL / MPI_ALLREDUCE / MPI_BARRIER is profiled: Open MPI's
# Fortran bindings call PMPI directly, so this checks the mpi_*_ wrappers.
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
LIB=$BUILD/lib/libnetvar_pmpi.so NETVAR=$BUILD/bin/netvar
for f in "$LIB" "$NETVAR"; do [ -e "$f" ] || { echo "skip: $f not built"; exit 77; }; done
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
mpifort --version >/dev/null 2>&1 || { echo "skip: mpifort does not work (Debian: gfortran, libopenmpi-dev)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d /tmp/nv_pmpi_fortran.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mpifort -O1 -o "$tmp/alltoall_f" "$ROOT/probes/pmpi/tests/alltoall_f.f90" || { echo "FAIL: mpifort build"; exit 1; }
timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp" -x SLURM_JOB_ID=9 -x SLURM_STEP_ID=1 \
    "$tmp/alltoall_f" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: Fortran run failed"; exit 1; }
grep -q 'alltoall_f: ranks=2' "$tmp/out" || { cat "$tmp/out"; echo "FAIL: program output changed"; exit 1; }
[ -f "$tmp/profile-9.1.json" ] || { ls -la "$tmp"; echo "FAIL: no profile for the Fortran run"; exit 1; }
"$NETVAR" estimate --json "$tmp/profile-9.1.json" >"$tmp/est.json" || { echo "FAIL: estimate"; exit 1; }
python3 - "$tmp/est.json" "$tmp/profile-9.1.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
# 20 iterations x (ALLTOALL, ALLREDUCE, BARRIER) + the first BARRIER
if e["segments"] != 61:
    print("FAIL: want 61 segments from the Fortran calls, got", e["segments"]); sys.exit(1)
if p["executable"] != "alltoall_f":
    print("FAIL: executable", p["executable"]); sys.exit(1)
f = p["signature_fields"]
if not any(r[f.index("bytes_sent")] == 2 * 2 * 64 * 4 for r in p["signatures"]):
    print("FAIL: no segment with the ALLTOALL's 2 ranks x 2 x 64 integers sent"); sys.exit(1)
print("fortran ok:", e["segments"], "segments")
PY
