#!/usr/bin/env bash
# test_pmpi_profile.sh - libnetvar_pmpi.so profiles a C MPI program under
# mpirun: one profile per job step (Slurm ids in the name), no partial files
# left, exit status untouched, injection recorded, NETVAR_DISABLE and
# NETVAR_EXCLUDE write nothing, and the no-directory fallback says so.
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
LIB=$BUILD/lib/libnetvar_pmpi.so PROXY=$BUILD/bin/netvar-proxy-bsp NETVAR=$BUILD/bin/netvar
for f in "$LIB" "$PROXY" "$NETVAR"; do [ -e "$f" ] || { echo "skip: $f not built"; exit 77; }; done
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d /tmp/nv_pmpi_profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. profiled run with Slurm-style ids and injection
mkdir "$tmp/spool"
timeout 60 mpirun -np 3 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/spool" -x SLURM_JOB_ID=42 \
    -x SLURM_STEP_ID=0 -x NETVAR_INJECT="prob=1,mean_us=200,sd_us=0,calls=Alltoall,seed=7" \
    "$PROXY" --iters 30 --work 100 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/out"; fail "profiled run exit $rc"; }
[ -f "$tmp/spool/profile-42.0.json" ] || { ls -la "$tmp/spool"; fail "no profile-42.0.json"; }
# shellcheck disable=SC2010 # names the profiler writes: no blank or newline
ls "$tmp/spool" | grep -q partial && fail "partial files left after MPI_Finalize"
"$NETVAR" estimate --json "$tmp/spool/profile-42.0.json" >"$tmp/est.json" || fail "estimate failed"
python3 - "$tmp/est.json" "$tmp/spool/profile-42.0.json" <<'PY' || exit 1
import json, sys
e = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
def check(c, m):
    if not c: print("FAIL:", m); sys.exit(1)
check(e["segments"] == 31, "expected 31 segments (barrier + 30 Alltoall), got %s" % e["segments"])
check(e["ranks"] == 3 and e["complete"], "ranks/complete wrong")
check(p["work_source"] in ("thread_cputime_ns", "papi_fp_ops", "papi_tot_ins"), "work_source")
check(p["injection"]["events"] == 90, "prob=1 on 30 Alltoall x 3 ranks: want 90 events, got %s" % p["injection"]["events"])
check(p["injection"]["total_us"] >= 90 * 200, "injected time too small")
check(p["injection"]["seed"] == 7 and p["injection"]["calls"] == "Alltoall", "injection spec not recorded")
check(0 < p["peak_profiler_bytes_per_rank"] <= 4 << 20, "peak bytes")
sig = p["signatures"]; f = p["signature_fields"]
check(any(row[f.index("coll_all_to_all")] == 3 and row[f.index("bytes_sent")] == 3 * 3 * 1024 for row in sig),
      "no signature with 1 Alltoall and 3x3 KiB sent per segment")
print("profile ok:", e["segments"], "segments,", p["injection"]["events"], "injections")
PY

# 2. NETVAR_DISABLE and NETVAR_EXCLUDE write nothing and change nothing
for kill in "NETVAR_DISABLE=1" "NETVAR_EXCLUDE=foo,netvar-proxy-bsp"; do
    mkdir -p "$tmp/off" && rm -f "$tmp/off"/*
    (cd "$tmp/off" && timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/off" -x "$kill" \
        "$PROXY" --iters 5 --work 10 >"$tmp/out" 2>&1) || { cat "$tmp/out"; fail "$kill: run failed"; }
    [ -z "$(ls -A "$tmp/off")" ] || { ls -la "$tmp/off"; fail "$kill: files were written"; }
    grep -q netvar: "$tmp/out" && fail "$kill: profiler printed something"
done

# 3. without NETVAR_PROFILE_DIR: netvar-profile-<pid>.json in the cwd, said once
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" "$PROXY" --iters 5 --work 10 >"$tmp/out" 2>&1) \
    || fail "cwd run failed"
# shellcheck disable=SC2010 # names the profiler writes: no blank or newline
n=$(ls "$tmp/cwd" | grep -c '^netvar-profile-[0-9]*\.json$')
[ "$n" = 1 ] || { ls -la "$tmp/cwd"; fail "want one netvar-profile-<pid>.json, found $n"; }
[ "$(grep -c '^netvar: NETVAR_PROFILE_DIR is not set' "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "fallback not announced once"; }
# 4. a directory the profile cannot be written to (missing: no partial
# file, no final file): the loss is said, although the one-time message
# went to the partial file (before: nothing said about the profile)
timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/missing/dir" "$PROXY" --iters 5 --work 10 \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "missing-dir run failed (the job must not)"; }
grep -q '^netvar: cannot create .*/missing/dir/.*partial' "$tmp/out" || { cat "$tmp/out"; fail "no partial-file line"; }
[ "$(grep -c 'segment profile of this run is lost' "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "the lost profile not said once"; }

# 5. a NETVAR_PROFILE_DIR over 3000 bytes: said as that, not as "not set"
long=$(printf '/x%.0s' $(seq 1600))
(cd "$tmp/cwd" && rm -f ./*.json && timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$long" \
    "$PROXY" --iters 5 --work 10 >"$tmp/out" 2>&1) || fail "long-dir run failed"
grep -q '^netvar: NETVAR_PROFILE_DIR is longer than 3000 bytes; segment profile written to' "$tmp/out" \
    || { cat "$tmp/out"; fail "long NETVAR_PROFILE_DIR reported as something else"; }
grep -q 'is not set' "$tmp/out" && { cat "$tmp/out"; fail "long NETVAR_PROFILE_DIR reported as not set"; }
# 6. the user's own NETVAR_PROFILE_DIR replaced by the spool's (the spank
# plugin sets NETVAR_PROFILE_DIR_REPLACED to the user's): said once
mkdir -p "$tmp/spool6"
timeout 60 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/spool6" \
    -x NETVAR_PROFILE_DIR_REPLACED="/home/u/my-profiles" "$PROXY" --iters 5 --work 10 >"$tmp/out" 2>&1 \
    || fail "replaced-dir run failed"
[ "$(grep -c "^netvar: NETVAR_PROFILE_DIR=/home/u/my-profiles is replaced by the job's spool directory $tmp/spool6" \
    "$tmp/out")" = 1 ] || { cat "$tmp/out"; fail "the replaced NETVAR_PROFILE_DIR not said once"; }
echo "PASS"
