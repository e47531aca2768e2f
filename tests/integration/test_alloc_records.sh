#!/usr/bin/env bash
# test_alloc_records.sh - production job records as communication-time
# training rows (`netvar alloc records`).  The halo benchmark runs under
# real Open MPI with the segment profiler into a spool, at two message
# sizes; each job's row must carry the features of the halo's matrix on the
# node that ran and a communication time near the one the benchmark timed
# itself at 256 KiB (the profile sees a barrier per phase as communication
# too, so within a factor of 4), growing with the message size.  Jobs
# without an app, without a matrix, on a node the topology lacks, with a
# profile that is a symbolic link or whose work is an instruction count
# give no row, and the bad ones are named on stderr; then `netvar alloc
# train` learns from the rows, and with --records also the apps; `netvar
# train` writes each profiled app's signature (the profile's sums) from its
# newest job, the linked profile skipped and named, with --state too.
set -u
source "$(dirname "$0")/pmpi_common.sh" nv_alloc_records
SWEEP=$BUILD/bin/netvar-sweep-stencil NETVAR=$BUILD/bin/netvar
for f in "$SWEEP" "$NETVAR"; do [ -e "$f" ] || { echo "skip: $f not built"; exit 77; }; done
T=$tmp
S=$T/spool
host=$(hostname)
job() { # id app [profile mode args...]: a job record; the profile is made by run
    mkdir -p "$S/jobs/$1/profiles"
    printf '{"schema":"netvar-job-record","job_id":%s,%s"nodes":["%s"],"runtime_s":5}' "$1" \
        "${2:+\"app\":\"$2\",}" "$host" >"$S/jobs/$1/job.json"
}
run() { # id bytes [env...]: the halo benchmark under the profiler as job id
    local id=$1 bytes=$2; shift 2
    timeout 120 mpirun -np 2 -x LD_PRELOAD="$LIB" -x NETVAR_PROFILE_DIR="$S/jobs/$id/profiles" \
        -x SLURM_JOB_ID="$id" -x SLURM_STEP_ID=0 "$@" "$SWEEP" --bytes "$bytes" --dims 1 --phases 300 \
        >"$T/out.$id" 2>&1 || { cat "$T/out.$id"; fail "job $id: exit status $?"; }
    grep -q '^netvar:' "$T/out.$id" && { cat "$T/out.$id"; fail "job $id: profiler complained"; }
    [ -f "$S/jobs/$id/profiles/profile-$id.0.json" ] || fail "job $id: no profile"
}
job 1 halo-small; run 1 1024
job 2 halo-large; run 2 262144
job 3 ""; run 3 1024                                     # no app
job 4 halo-time; run 4 1024 -x NETVAR_MATRIX_MAX_RANKS=1  # no matrix
job 5 halo-link                                          # a profile that is a link
ln -s "$S/jobs/1/profiles/profile-1.0.json" "$S/jobs/5/profiles/profile-5.0.json"
job 6 halo-ins                                           # work counted in instructions
sed 's/"work_source":"thread_cputime_ns"/"work_source":"papi_tot_ins"/' \
    "$S/jobs/1/profiles/profile-1.0.json" >"$S/jobs/6/profiles/profile-6.0.json"
grep -q papi_tot_ins "$S/jobs/6/profiles/profile-6.0.json" || fail "could not make the instruction-count profile"
mkdir -p "$S/jobs/7"                                     # still running: no job.json
job 8 halo-small; run 8 4096                             # a newer run of an app: its newest job

printf 'SwitchName=leaf0 Nodes=%s\nSwitchName=leaf1 Nodes=other\n' "$host" >"$T/topology.conf"
"$NETVAR" alloc records --spool "$S" --topology "$T/topology.conf" --out "$T/rows.json" --json \
    >"$T/sum.json" 2>"$T/err" || { cat "$T/err"; fail "alloc records: exit $?"; }
cat "$T/sum.json" "$T/err"
python3 - "$T/sum.json" "$T/rows.json" "$T/out.1" "$T/out.2" <<'PY' || exit 1
import json, sys
s, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
own = [json.loads(open(f).read()[open(f).read().rindex("{"):]) for f in sys.argv[3:5]]
def check(c, m):
    if not c: print("FAIL:", m); sys.exit(1)
check(s["jobs"] == 7 and s["rows"] == 3, "7 job records, 3 rows: %s" % s)
check(s["no_app"] == 1 and s["no_profile"] == 1 and s["unusable"] == 2, "reasons: %s" % s)
check(d["schema"] == "netvar-alloc-dataset" and d["source"] == "job records", "dataset header")
check([x["config"].split()[1] for x in d["rows"]] == ["8", "2", "1"], "rows, newest job first: %s"
      % [x["config"] for x in d["rows"]])
r = {x["config"].split()[1]: x for x in d["rows"]}
r = {"halo-small": r["1"], "halo-large": r["2"]}
for app, size, mine in (("halo-small", 1024, own[0]), ("halo-large", 262144, own[1])):
    x = r[app]
    f = x["features"]
    check(x["nodes"] == 1 and x["ppn"] == 2, "%s: N and PPN %s" % (app, x))
    check(f[0] == 1 and f[1] == 2, "%s: features N, PPN %s" % (app, f[:2]))
    # maxS: the halo's message (the profile adds the barrier's few bytes)
    check(size <= f[3] < size * 1.1 + 64, "%s: maxS %s for %d-byte messages" % (app, f[3], size))
    check(f[13] == 1, "%s: one switch spanned: %s" % (app, f[13]))
    # both are means over the same phases of the same run: the benchmark's
    # (its slowest rank's, the exchange alone) and the profile's (the
    # exchange and the barrier after it), so a preemption on a busy host
    # lands in both; the benchmark's 75th percentile is printed beside them
    ratio = x["comm_s"] / mine["mean_s"]
    print("%s: %d B, comm %.1f us per phase from the profile, %.1f us mean (%.1f us 75th percentile) "
          "timed by the benchmark (x%.2f)" % (app, size, x["comm_s"] * 1e6, mine["mean_s"] * 1e6,
                                              mine["comm_s"] * 1e6, ratio))
    # one preemption of a few ms in 300 phases of ~10 us moves the small
    # messages' figures by a multiple, so only the large messages' are compared
    check(size < 65536 or 1 / 4 < ratio < 4, "%s: the profile's comm time is not the benchmark's" % app)
    check(x["comm_s"] > 0, "%s: no communication time" % app)
# the order of the two sizes is checked only where the benchmark itself saw
# it: a busy host (make check runs two tests at once on 2 cores) can preempt
# the small run's ranks for tens of ms, and then both its timings say so
if own[1]["mean_s"] > 1.5 * own[0]["mean_s"]:
    check(r["halo-large"]["comm_s"] > r["halo-small"]["comm_s"], "256 KiB messages took no longer than 1 KiB")
else:
    print("the benchmark's own means do not order the sizes (%.1f us against %.1f us): "
          "the host was busy; the sizes' order is not checked" % (own[1]["mean_s"] * 1e6, own[0]["mean_s"] * 1e6))
PY
grep -q "jobs/5/profiles.*link" "$T/err" || fail "the symbolic link is not named: $(cat "$T/err")"
grep -q "jobs/6/profiles.*papi_tot_ins, not CPU time" "$T/err" || fail "the instruction count is not named"
[ "$(grep -c '^netvar: alloc records: ' "$T/err")" -eq 2 ] || fail "not one line per bad job"

# a node the topology lacks: named, no row
printf 'SwitchName=leaf0 Nodes=other\n' >"$T/elsewhere.conf"
"$NETVAR" alloc records --spool "$S" --topology "$T/elsewhere.conf" --out "$T/none.json" >"$T/o" 2>"$T/err"
grep -q "not in the topology; skipped the job" "$T/err" || fail "a node off the topology is not named"
grep -q "0 rows from 7 job records" "$T/o" || fail "rows on a topology without the node: $(cat "$T/o")"
# usage errors
"$NETVAR" alloc records --spool "$S" --out "$T/x.json" 2>/dev/null; [ $? -eq 2 ] || fail "no topology: not a usage error"
"$NETVAR" alloc records --spool "$T/nowhere" --topology "$T/topology.conf" --out "$T/x.json" 2>"$T/err"
[ $? -eq 1 ] && grep -q "nowhere/jobs" "$T/err" || fail "a missing spool is not named"

# the rows train trees (with a base model holding nothing else)
"$BUILD/bin/netvar-train-gen" "$T/g" --seed 5 >/dev/null || fail "netvar-train-gen"
"$NETVAR" alloc train --dataset "$T/rows.json" --model "$T/g/base-model.json" --out "$T/m2.json" --partition none \
    --learner extra-trees --json >"$T/train.json" 2>"$T/err" || { cat "$T/err"; fail "alloc train on the rows"; }
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); p=m["alloc"]["predictors"]; assert len(p) == 3 and all(x["samples"] == 3 for x in p), p' "$T/m2.json" ||
    fail "no trees from the records' rows"
echo "ok: job records give communication-time rows, bad ones are named, and trees learn from them"

# --records: the same rows straight from the spool, and every profiled app
"$NETVAR" alloc train --records "$S" --topology "$T/topology.conf" --model "$T/g/base-model.json" \
    --out "$T/m3.json" --partition none --learner extra-trees >"$T/train3" 2>"$T/err" ||
    { cat "$T/err"; fail "alloc train --records"; }
cat "$T/train3"
grep -q "job records: 3 rows and 2 apps from 7 jobs" "$T/train3" || fail "alloc train --records: $(cat "$T/train3")"
python3 - "$T/m3.json" "$S/jobs/2/profiles/profile-2.0.json" <<'PY' || exit 1
import json, sys
a = {x["key"]: x for x in json.load(open(sys.argv[1]))["alloc"]["apps"]}
p = json.load(open(sys.argv[2]))
def check(c, m):
    if not c: print("FAIL:", m); sys.exit(1)
check(set(a) == {"halo-small", "halo-large"}, "apps: %s" % list(a))
check(a["halo-small"]["source"] == "profile of job 8", "halo-small is not its newest job: %s" % a["halo-small"])
x = a["halo-large"]
check(x["source"] == "profile of job 2" and x["ranks"] == 2 and x["phases"] == p["segments"], "app: %s" % x)
# compute: CPU time outside MPI over both ranks, below the ranks' wall time
check(0 <= x["compute_core_s"] < 2 * p["runtime_us"] / 1e6, "compute %s s" % x["compute_core_s"])
check(any(abs(o["offset"]) == 1 and 262144 <= o["bytes"] < 262144 * 1.1 + 64 for o in x["pattern"]),
      "pattern: %s" % x["pattern"])
print("app halo-large from job 2: %d phases, compute %.4f core-s, pattern %s" %
      (x["phases"], x["compute_core_s"], x["pattern"]))
PY
"$NETVAR" alloc advise --model "$T/m3.json" --app halo-large --nodes 1 >"$T/adv" 2>&1 ||
    { cat "$T/adv"; fail "advise for an app learnt from a record"; }
grep -q "profile of job 2" "$T/adv" || fail "the advice does not name the record it came from: $(cat "$T/adv")"
echo "ok: alloc train --records learns the rows and the apps"

# netvar train: each profiled app's signature from its newest job's profile
"$NETVAR" train --spool "$S" --model "$T/g/base-model.json" --out "$T/m4.json" --json >"$T/t4.json" \
    2>"$T/err" || { cat "$T/err"; fail "train on the profiled spool"; }
cat "$T/t4.json" "$T/err"
grep -q "1 segment profiles skipped (0 of version 1), first: .*jobs/5/profiles" "$T/err" ||
    fail "the linked profile is not named once: $(cat "$T/err")"
python3 - "$T/m4.json" "$T/t4.json" "$S/jobs/8/profiles/profile-8.0.json" "$S/jobs/2/profiles/profile-2.0.json" <<'PY' || exit 1
import json, sys
a = {x["key"]: x for x in json.load(open(sys.argv[1]))["apps"]}
t = json.load(open(sys.argv[2]))
def check(c, m):
    if not c: print("FAIL:", m); sys.exit(1)
check(t["signatures"] == 4 and t["profiles_skipped"] == 1 and t["profiles_v1"] == 0, "summary: %s" % t)
check("signature" not in a.get("halo-link", {}), "a linked profile gave a signature")
for app, f in (("halo-small", sys.argv[3]), ("halo-large", sys.argv[4])):
    p = json.load(open(f))
    rows, seg = p["comm_rows"], p["segment_comm"]
    want = [sum(rows[r][c] for r in seg) for c in range(12)]
    g = a[app]["signature"]
    check(g["runs"] == 1 and g["runtime_us"] == 5e6, "%s: %s" % (app, g))
    check(all(abs(x - y) <= 1e-6 * max(1, y) for x, y in zip(g["comm_us"], want)),
          "%s: comm_us %s, the profile's sums %s" % (app, g["comm_us"], want))
    print("%s: signature %.0f us in MPI of %.0f us (p2p:le256KiB %.0f us)" %
          (app, sum(g["comm_us"]), g["runtime_us"], g["comm_us"][2]))
check(a["halo-large"]["signature"]["comm_us"][2] > 0, "256 KiB halo: no p2p:le256KiB time")
PY
# --state: the signatures are recomputed from the profiles, the model the same
for k in 5 6; do
    "$NETVAR" train --spool "$S" --model "$T/g/base-model.json" --out "$T/m$k.json" --state "$T/state" \
        --quiet 2>/dev/null || fail "train --state (run $k)"
done
cmp -s "$T/m4.json" "$T/m6.json" || fail "the incremental model differs from the full read's"
grep -q '"signature"' "$T/m6.json" || fail "the incremental model lost the signatures"
echo "ok: train keeps each profiled app's signature from its newest job, with --state too"
