#!/usr/bin/env bash
# test_pmpi_comm_times.sh - the segment profiler's time in MPI by operation
# and size class, and its overlap, under real Open MPI (2 ranks):
#  - probes/pmpi/tests/comm_times.c times its own calls: the profile's
#    per-kind times add up to the program's own MPI time within 10 % + 5 ms,
#    each of its calls lands in its class (1 KiB Sendrecv: p2p <= 8 KiB;
#    64 KiB Allreduce: all-to-all <= 256 KiB; 300 KiB Bcast: rooted
#    > 256 KiB; 2 KiB Ireduce and its Wait: rooted <= 8 KiB; the 16 KiB
#    exchange's Waitall: p2p <= 256 KiB), and the overlap is its
#    computation between Isend/Irecv and Waitall within 15 %;
#  - netvar-proxy-overlap (sleep compute, polite waiting) shows at least
#    90 % of its modelled overlap; netvar-proxy-coll (no nonblocking p2p
#    overlapped) under 5 % of its runtime; its 32 KiB Ibcast, completed by
#    MPI_Test, is rooted <= 256 KiB, and none of its
#    time is in an all-to-all class.
set -u
. "$(dirname "$0")/pmpi_common.sh" nv_pmpi_times
mpicc -O1 -Wall -o "$tmp/comm_times" "$ROOT/probes/pmpi/tests/comm_times.c" || fail "cannot build comm_times"
for p in overlap coll; do [ -x "$BUILD/bin/netvar-proxy-$p" ] || { echo "skip: netvar-proxy-$p not built"; exit 77; }; done

# prof NAME CMD...: one profiled run into $tmp/NAME/
prof() {
    local name=$1; shift
    mkdir "$tmp/$name"
    timeout 120 mpirun -np 2 --bind-to none -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$tmp/$name" "$@" \
        >"$tmp/$name.out" 2>&1 || { cat "$tmp/$name.out"; fail "$name: run failed"; }
    grep '^netvar:' "$tmp/$name.out" && fail "$name: the profiler complained"
}
prof app "$tmp/comm_times" 150
prof overlap "$BUILD/bin/netvar-proxy-overlap" --size 8192 --iters 150 --overlap-us 2000 --compute sleep
prof coll "$BUILD/bin/netvar-proxy-coll" --kind allreduce --iters 150 --compute-us 2000 --compute sleep
prof bcast "$BUILD/bin/netvar-proxy-coll" --kind bcast --iters 150 --compute-us 2000 --compute sleep

python3 - "$tmp" <<'PY' || exit 1
import glob, json, re, sys
tmp = sys.argv[1]
bad = []

def load(name):
    (f,) = glob.glob("%s/%s/*.json" % (tmp, name))
    p = json.load(open(f))
    if p["version"] != 2 or len(p["comm_fields"]) != 14:
        sys.exit("FAIL: %s: version %s, %d comm fields" % (name, p["version"], len(p["comm_fields"])))
    tot = dict.fromkeys(p["comm_fields"], 0.0)
    for c in p["segment_comm"]:
        for k, v in zip(p["comm_fields"], p["comm_rows"][c]):
            tot[k] += v / 1e6
    return p, tot

def out(name):
    txt = open("%s/%s.out" % (tmp, name)).read()
    return dict(re.findall(r"(\w+)=([0-9.]+)", txt))

p, t = load("app")
o = out("app")
mpi = sum(v for k, v in t.items() if k.startswith("mpi_us_"))
want, ov = float(o["mpi_s"]), float(o["overlap_s"])
print("app: own clock mpi %.4f s overlap %.4f s; profile mpi %.4f s overlap %.4f s" % (want, ov, mpi, t["overlap_us"]))
print("  by class (s):", {k: round(v, 4) for k, v in t.items() if v})
if abs(mpi - want) > 0.10 * want + 0.005:
    bad.append("per-kind MPI time %.4f s is not within 10 %% of the program's %.4f s" % (mpi, want))
if abs(t["overlap_us"] - ov) > 0.15 * ov:
    bad.append("overlap %.4f s is not within 15 %% of the program's %.4f s" % (t["overlap_us"], ov))
for k in ("mpi_us_p2p_le8k", "mpi_us_all_le256k", "mpi_us_rooted_gt256k", "mpi_us_rooted_le8k",
          "mpi_us_p2p_le256k"):
    if not t[k] > 0:
        bad.append("no time in %s" % k)
for k in ("mpi_us_rooted_le256", "mpi_us_p2p_gt256k", "mpi_us_io"):
    if t[k] > 0.01 * want:
        bad.append("%.4f s in %s, which no call of the program is" % (t[k], k))

p, t = load("overlap")
o = out("overlap")
model = 150 * 2000e-6
print("overlap proxy: overlap %.4f s (modelled %.4f s), runtime %s s" % (t["overlap_us"], model, o["runtime_s"]))
if t["overlap_us"] < 0.9 * model:
    bad.append("overlap proxy: overlap %.4f s is under 90 %% of its %.4f s" % (t["overlap_us"], model))

p, t = load("coll")
o = out("coll")
rt = float(o["runtime_s"])
print("coll proxy: overlap %.4f s, all-to-all time %.4f s, runtime %.4f s" % (t["overlap_us"], t["mpi_us_all_le256k"], rt))
if t["overlap_us"] > 0.05 * rt:
    bad.append("coll proxy: overlap %.4f s is over 5 %% of its runtime %.4f s" % (t["overlap_us"], rt))
if not t["mpi_us_all_le256k"] > 0:
    bad.append("coll proxy: no time in its 32 KiB Iallreduce's class")
p, t = load("bcast")
o = out("bcast")
rooted, alls = t["mpi_us_rooted_le256k"], sum(v for k, v in t.items() if k.startswith("mpi_us_all_"))
print("bcast proxy: rooted <= 256 KiB %.4f s, all-to-all classes %.4f s, runtime %s s" % (rooted, alls, o["runtime_s"]))
if not rooted > 0:
    bad.append("bcast proxy: no time in its 32 KiB Ibcast's class (rooted <= 256 KiB)")
if alls > 0.1 * rooted + 0.002:
    bad.append("bcast proxy: %.4f s in all-to-all classes, beside %.4f s rooted" % (alls, rooted))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "PASS"
