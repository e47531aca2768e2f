#!/usr/bin/env bash
# test_pmpi_matrix.sh - the segment profiler records the job's traffic
# matrix and placement in the profile: mpi_volume 4 under mpirun -np 4 puts
# >= 4 MiB in [0][3] of a 4 x 4 matrix; an Alltoall proxy fills every
# off-diagonal entry; NETVAR_MATRIX_MAX_RANKS below the job's size records
# nothing and says so; the estimator still reads the amended profile; and
# `netvar diagnose` on a spool holding that profile prints hop-bytes.
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
LIB=$BUILD/lib/libnetvar_pmpi.so VOL=$BUILD/tests/mpi/mpi_volume PROXY=$BUILD/bin/netvar-proxy-bsp
NETVAR=$BUILD/bin/netvar
for f in "$LIB" "$VOL" "$PROXY" "$NETVAR"; do [ -e "$f" ] || { echo "skip: $f not built"; exit 77; }; done
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d /tmp/nv_pmpi_matrix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
prof=$tmp/spool/jobs/7/profiles
mkdir -p "$prof"
run() { # step np program args...
    local step=$1 np=$2; shift 2
    timeout 60 mpirun -np "$np" -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$prof" -x SLURM_JOB_ID=7 \
        -x SLURM_STEP_ID="$step" "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "step $step: exit status $?"; }
    grep -q '^netvar:' "$tmp/out" && { cat "$tmp/out"; fail "step $step: profiler complained"; }
    [ -f "$prof/profile-7.$step.json" ] || { ls -la "$prof"; fail "no profile-7.$step.json"; }
}
run 0 4 "$VOL" 4
run 1 3 "$PROXY" --iters 5 --work 10
run 2 3 -x NETVAR_MATRIX_MAX_RANKS=2 "$PROXY" --iters 5 --work 10
python3 - "$prof" "$(hostname)" <<'PY' || exit 1
import json, sys
d, host = sys.argv[1], sys.argv[2]
def check(c, m):
    if not c: print("FAIL:", m); sys.exit(1)
p = json.load(open(d + "/profile-7.0.json")); t = p["traffic_matrix"]; b = t["bytes"]
check(t["ranks"] == 4 and t["unit"] == "bytes" and len(b) == 4 and all(len(r) == 4 for r in b), "not 4 x 4: %s" % t)
check(b[0][3] >= 4 << 20, "[0][3] = %s, want >= 4 MiB" % b[0][3])
check(sum(map(sum, b)) - b[0][3] < 1 << 20, "unexpected traffic besides 0 -> 3: %s" % b)
check("ring" in t["collectives"] and t["other_bytes"] == 0, "collectives note / other_bytes")
check(len(p["placement"]) == 4 and all(n for n in p["placement"]), "placement: %s" % p.get("placement"))
check(p["format"] == "netvar-segment-profile" and p["ranks"] == 4, "profile fields lost")
a = json.load(open(d + "/profile-7.1.json"))["traffic_matrix"]["bytes"]
check(all(a[i][j] > 0 for i in range(3) for j in range(3) if i != j), "Alltoall left an empty entry: %s" % a)
check(all(a[i][i] == 0 for i in range(3)), "collectives counted self traffic: %s" % a)
q = json.load(open(d + "/profile-7.2.json"))
check(q["traffic_matrix"]["bytes"] is None and "NETVAR_MATRIX_MAX_RANKS" in q["traffic_matrix"]["note"],
      "over the rank bound: %s" % q["traffic_matrix"])
check("placement" not in q, "placement written without a matrix")
print("matrix ok: [0][3] = %d bytes" % b[0][3])
PY
"$NETVAR" estimate "$prof/profile-7.0.json" >/dev/null 2>"$tmp/e" || fail "estimate of the amended profile: $(cat "$tmp/e")"

# diagnose: node records of this host, the profile's placement on a topology
host=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["placement"][0])' "$prof/profile-7.0.json")
printf 'SwitchName=leaf0 Nodes=%s\nSwitchName=leaf1 Nodes=n9\nSwitchName=top Switches=leaf[0-1]\n' "$host" \
    >"$tmp/topology.conf"
printf '{"schema":"netvar-node-record","version":1,"job_id":7,"node":"%s","start_unix_s":100,"end_unix_s":102,"delta":{"backend":"infiniband","dt_ns":2000000000,"ports":[{"name":"mlx5_0/1","kind":"ib_port","fields":{"bytes_in":{"value":5000000,"unit":"bytes"},"bytes_out":{"value":5000000,"unit":"bytes"},"stall":{"value":10,"unit":"ticks"}}}]}}' \
    "$host" >"$tmp/spool/jobs/7/node-$host.json"
out=$("$NETVAR" diagnose 7 --spool "$tmp/spool" --topology "$tmp/topology.conf" --line-rate 100 2>&1) ||
    fail "diagnose exit status: $out"
# every rank on one node: the job's bytes cross no link
echo "$out" | grep -q "^mapping: hop-bytes 0 byte-links" || fail "diagnose with the profile's matrix: $out"
# the same profile with ranks 0 and 3 on different leaves of one group: 4 MiB x 4 links
python3 - "$prof/profile-7.0.json" "$host" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["placement"] = [sys.argv[2]] * 3 + ["n9"]
json.dump(p, open(sys.argv[1], "w"))
PY
"$NETVAR" diagnose 7 --spool "$tmp/spool" --topology "$tmp/topology.conf" --line-rate 100 --json >"$tmp/d.json" ||
    fail "diagnose --json"
python3 - "$tmp/d.json" <<'PY' || exit 1
import json, sys
o = json.load(open(sys.argv[1])); m = o["mapping"]
if not m or m["hop_bytes"] != 4 * (4 << 20) or "segment profiler" not in o["mapping_note"]:
    print("FAIL: mapping from the profile:", o.get("mapping"), o.get("mapping_note")); sys.exit(1)
print("diagnose ok: hop-bytes %.0f byte-links, worst link %s" % (m["hop_bytes"], m["worst_link"]))
PY
