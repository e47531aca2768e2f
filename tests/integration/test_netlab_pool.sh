#!/usr/bin/env bash
# test_netlab_pool.sh - eval/netlab_pool.py on the kept lab runs
# (eval/results/netlab-*.summary.json): each run's figures it prints must be
# the ones the scorer wrote for that run (recomputed here from the rows, so a
# pooling or hold-out mix-up fails), the pool must hold every run's answers,
# every answer it lists as over the bar must be over it, and a summary
# without rows, a damaged one or a bad --bar get one line and exit 1 or 2.
# Seconds; no lab.  Asserts nothing about accuracy.  Env: BUILD, ROOT.
set -u
ROOT=$(readlink -f "${ROOT:-.}")
BUILD=$(readlink -f "${BUILD:-$ROOT/build}")
T=$(mktemp -d /tmp/nvpool.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "NOT OK - $*"; fail=1; }
runs=$(ls "$ROOT"/eval/results/netlab-2026-11-25c.summary.json "$ROOT"/eval/results/netlab-2026-11-27c.summary.json)
# shellcheck disable=SC2086 # runs: two summary paths from ls, one word each
python3 "$ROOT/eval/netlab_pool.py" $runs --bar 25 --json "$T/pool.json" >"$T/out" 2>"$T/err" ||
    bad "pool exited $?: $(cat "$T/err")"
grep -q "^counters wait|share+history, held out: pair$" "$T/out" || bad "no pair hold-out section"
grep -Eq "^  pooled +50 " "$T/out" || bad "the pooled row does not hold 2 x 25 answers"
# runs measured before the sampler recorded the host's CPU say so, and
# summaries that name no campaign point rule made medians, and those that
# name no entry rule, mean entries
grep -q "^2 runs: netlab-2026-11-25c (fixed reads; median campaign points; mean entries; host CPU not recorded), netlab-2026-11-27c (" "$T/out" ||
    bad "the runs line does not name each run's host record: $(head -n 1 "$T/out")"
# a summary that names its rules: 2026-11-29h's campaigns wrote the
# fastest rounds and it is scored with median entries
python3 "$ROOT/eval/netlab_pool.py" "$ROOT/eval/results/netlab-2026-11-29f.summary.json" \
    "$ROOT/eval/results/netlab-2026-11-29h.summary.json" --bar 25 >"$T/out2" 2>"$T/err2" ||
    bad "pool of 2026-11-29f and h exited $?: $(cat "$T/err2")"
grep -q "netlab-2026-11-29h (jittered reads; fastest campaign points; median entries; " "$T/out2" ||
    bad "the runs line does not name 2026-11-29h's rules: $(head -n 1 "$T/out2")"
python3 - "$ROOT/eval" <<'PY' || bad "host_named"
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from netlab_pool import host_named
assert host_named(None) == host_named({"recorded": 0}) == "host CPU not recorded"
assert host_named({"recorded": 20, "over": 1, "steal_pct": {"median": 0.4}, "steal_run_pct": 5, "reliable": True}) == \
    "steal median 0.4 %, 1 of 20 runs over 5 %"
assert host_named({"recorded": 20, "over": 9, "steal_pct": {"median": 7.25}, "steal_run_pct": 5,
                   "reliable": False}).endswith("9 of 20 runs over 5 %: UNRELIABLE")
assert host_named({"recorded": 3, "steal_pct": {"median": "x"}}) == "host CPU not recorded"
PY
# shellcheck disable=SC2086 # runs: two summary paths from ls, one word each
python3 - "$T/pool.json" $runs <<'PY' || bad "pooled figures disagree with the scorer's own"
import json, sys
pool = json.load(open(sys.argv[1]))
sums = [json.load(open(p)) for p in sys.argv[2:]]
ok = True
for ent in pool["predictors"]:
    for f, s in zip(ent["per_run"], sums):
        own = next(e for e in s["errors"] if (e["variant"], e["holdout"]) == (ent["variant"], ent["holdout"]))
        for k in ("median_pp", "mean_pp", "max_pp"):
            if k in own and abs(own[k] - f[k]) > 1e-3:
                print(f"{ent['variant']} {ent['holdout']} {f['run']}: {k} {f[k]} against {own[k]}")
                ok = False
    n = sum(f["n"] for f in ent["per_run"])
    if ent["pooled"]["n"] != n or ent["pooled"].get("over_bar", 0) != len(ent["over_bar"]):
        print(f"{ent['variant']} {ent['holdout']}: pooled n {ent['pooled']['n']} of {n}")
        ok = False
    if any(o.get("error_pp", 1e9) <= pool["bar_pp"] for o in ent["over_bar"]):
        print(f"{ent['variant']}: an answer listed over the bar is not over it")
        ok = False
sys.exit(0 if ok else 1)
PY
# a lower bar lists more answers, never fewer
a=$(grep -c "^  over: " "$T/out")
# shellcheck disable=SC2086 # runs: two summary paths from ls, one word each
python3 "$ROOT/eval/netlab_pool.py" $runs --bar 5 >"$T/out5" 2>&1 || bad "--bar 5 failed"
b=$(grep -c "^  over: " "$T/out5")
[ "$b" -gt "$a" ] || bad "--bar 5 lists $b answers, --bar 25 $a"
# bad input: one line, no traceback
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s.pop("rows"); json.dump(s, open(sys.argv[2], "w"))' \
    "$ROOT/eval/results/netlab-2026-11-27c.summary.json" "$T/norows.json"
python3 "$ROOT/eval/netlab_pool.py" "$T/norows.json" >/dev/null 2>"$T/e1"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/e1")" = 1 ] && grep -q "norows.json: no per-answer rows" "$T/e1" ||
    bad "a summary without rows: exit $rc, $(cat "$T/e1")"
head -c 300 "$ROOT/eval/results/netlab-2026-11-27c.summary.json" >"$T/cut.json"
python3 "$ROOT/eval/netlab_pool.py" "$T/cut.json" >/dev/null 2>"$T/e2"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/e2")" = 1 ] && grep -q "^netlab_pool: .*cut.json: " "$T/e2" ||
    bad "a cut summary: exit $rc, $(cat "$T/e2")"
# shellcheck disable=SC2086 # runs: two summary paths from ls, one word each
python3 "$ROOT/eval/netlab_pool.py" $runs --bar -3 >/dev/null 2>"$T/e3"; rc=$?
[ $rc = 2 ] && grep -q "must be 0 or more pp" "$T/e3" || bad "--bar -3: exit $rc, $(cat "$T/e3")"
# two labs (a summary that says it ran under cubic beside one from before the
# lab set the congestion control: bbr) are not pooled together
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["tcp_cc"]="cubic"; json.dump(s, open(sys.argv[2], "w"))' \
    "$ROOT/eval/results/netlab-2026-11-27c.summary.json" "$T/cubic.json"
python3 "$ROOT/eval/netlab_pool.py" "$ROOT/eval/results/netlab-2026-11-25c.summary.json" "$T/cubic.json" \
    >/dev/null 2>"$T/e4"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/e4")" = 1 ] && grep -q "different labs (TCP congestion control, Open MPI's eager limit: cubic, MPI eager default: cubic.json; kernel:bbr, MPI eager default: netlab-2026-11-25c)" "$T/e4" ||
    bad "runs of two labs: exit $rc, $(cat "$T/e4")"
python3 "$ROOT/eval/netlab_pool.py" "$T/cubic.json" 2>&1 | grep -q "; lab: TCP cubic, MPI eager default$" ||
    bad "one cubic run: the pool does not name its lab"
# nor are two runs whose Open MPI eager limit differs (netlab up --mpi-eager)
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["mpi_eager"]="524288"; json.dump(s, open(sys.argv[2], "w"))' \
    "$T/cubic.json" "$T/eager.json"
python3 "$ROOT/eval/netlab_pool.py" "$T/cubic.json" "$T/eager.json" >/dev/null 2>"$T/e5"; rc=$?
[ $rc = 1 ] && grep -q "cubic, MPI eager 524288 bytes: eager.json" "$T/e5" ||
    bad "runs of two eager limits: exit $rc, $(cat "$T/e5")"
# the scorer's alone baseline, netvar's (netvar labmodel's summary): an
# alone run over 1.5 times the app's fastest is its own slow state and is
# left out (2026-11-29's all-to-all), said in one line; --alone-stall-ratio
# 0 keeps every run
mkdir -p "$T/al"
python3 - "$ROOT/eval" "$BUILD/bin/netvar" "$T/al" <<'PY' || bad "the scorer's alone baseline"
import json, os, subprocess, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from netlab_score import ALONE_STALL_RATIO, Dataset, alone_baselines
netvar, d = sys.argv[2], sys.argv[3]
def dump(name, o):
    with open(os.path.join(d, name), "w") as f:
        json.dump(o, f)
dump("dataset.json", {"schema": "netvar-netlab-dataset", "version": 1,
                      "apps": [{"name": "a"}, {"name": "c"}], "configs": []})
with open(os.path.join(d, "runs.txt"), "w") as f:
    f.write("alone a - 1 17.4\nalone a - 2 10.9\nalone a - 3 18.5\n"
            "alone c - 1 12.4\nalone c - 2 14.1\nalone c - 3 13.6\npair a c 1 30.0\n")
hist = {"bins_per_decade": 16, "first_edge_us": 1, "counts": [0, 1]}
lat = {"mean_us": 50.0, "sd_us": 5.0, "histogram": hist}
dump("model.json", {
    "schema": "netvar-model", "version": 1,
    "calibration": {"method": "minimum", "quantile": 0, "service_us": 10.0, "var_s_us2": 1.0,
                    "idle_mean_us": 40.0, "samples": 100, "histogram": hist},
    "apps": [{"key": k, "utilization": 0.3, "utilization_source": "latency", "latency": lat,
              "compression": {"points": [], "fit": [], "residual_pct": 0.0}, "scaling": []}
             for k in ("a", "c")],
    "training_set": [], "colocation": []})
def baselines(ratio):
    summ = os.path.join(d, "summ.json")
    subprocess.run([netvar, "labmodel", "--dataset", d, "--variant", "latency", "--out",
                    os.path.join(d, "m.json"), "--alone-stall-ratio", repr(ratio),
                    "--json-summary", summ], check=True)
    ds = Dataset(d)
    with open(summ) as f:
        ds.set_baselines(json.load(f))
    return ds
assert ALONE_STALL_RATIO == 1.5, ALONE_STALL_RATIO
ds = baselines(ALONE_STALL_RATIO)
left = ds.alone_left_out
assert ds.base == {"a": 10.9, "c": 13.6}, ds.base
assert len(left) == 1 and left[0].startswith("a alone: 2 of 3 runs") and "17.40, 18.50 s" in left[0], left
assert abs(ds.pairs[("a", "c")][0][1] - (30.0 / 10.9 - 1) * 100) < 1e-9, ds.pairs
ds = baselines(0)
assert ds.base == {"a": 17.4, "c": 13.6} and not ds.alone_left_out, (ds.base, ds.alone_left_out)
# the same from the runs alone (what netlab_eval.sh has before its dataset)
runs = [x.split() for x in open(os.path.join(d, "runs.txt"))]
assert alone_baselines(runs, 1.5, netvar) == ({"a": 10.9, "c": 13.6}, left), runs
assert alone_baselines(runs, 0, netvar)[0] == {"a": 17.4, "c": 13.6}
PY
# the host-CPU section: steal per run from each counter file's host record,
# the gate (over a tenth of the runs above 5 % steal), and files without a
# record (older datasets) counted as not recorded
mkdir -p "$T/rr" "$T/none"
printf 'pair a a 2 7.3 52.10\nalone a - 1 11.0 20.50\n' >"$T/rr/rerun.txt"
python3 - "$ROOT/eval" "$T/rr" "$T/none" <<'PY' || bad "the scorer's host-CPU section"
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from netlab_score import host_cpu, host_report, STEAL_RUN_PCT, STEAL_RUNS_FRAC
assert (STEAL_RUN_PCT, STEAL_RUNS_FRAC) == (5.0, 0.1)
def cnt(steal, thr=(10.0, 30.0)):
    return {"elapsed_s": 10.0, "host": {"cpu_pct": {"steal": steal, "busy": 40.0 + steal},
            "cgroups": [{"cgroup": "h%d" % (i + 1), "throttled_ms": t} for i, t in enumerate(thr)]}}
assert host_cpu(cnt(2.0)) == (2.0, 42.0, 3.0)       # the busiest cgroup: 30 ms in 10 s
assert host_cpu({"elapsed_s": 1, "host": {"error": "x"}}) is None and host_cpu(None) is None
class DS:
    def __init__(self, steals, d=sys.argv[3]):
        self.dir = d
        self.apps, self.meta, self.base = ["a"], {"configs": []}, {"a": 10.0}
        self.runs = [("pair", "a", "a", r + 1, 11.0 + r) for r in range(len(steals))]
        self.pairs = {("a", "a"): [(r + 1, 10.0 + 10 * r) for r in range(len(steals))]}
        self.files = {f"pair_a_a_{r + 1}.out.counters.json": cnt(s) for r, s in enumerate(steals) if s is not None}
    def counters(self, name):
        return self.files.get(name)
h = host_report(DS([1.0] * 18 + [9.0, 12.0]))      # 2 of 20 over 5 %: a tenth, still reliable
assert h["recorded"] == 20 and h["runs"] == 22 and h["over"] == 2 and h["reliable"] is True, h
assert h["worst"][0]["steal_pct"] == 12.0 and h["steal_pct"]["max"] == 12.0, h
h = host_report(DS([1.0] * 17 + [9.0, 12.0, 30.0]))  # 3 of 20: unreliable
assert h["over"] == 3 and h["reliable"] is False, h
h = host_report(DS([None] * 4))                    # measured before the sampler recorded it
assert h["recorded"] == 0 and h["reliable"] is None, h
assert h["rerun"] is None, h                         # and before the eval measured runs again
# the runs the eval measured once more after a burst of steal (rerun.txt)
h = host_report(DS([1.0] * 3, sys.argv[2]))
assert h["rerun"] == [{"kind": "pair", "app": "a", "with": "a", "rep": 2, "steal_pct": 7.3,
                       "first_runtime_s": 52.1},
                      {"kind": "alone", "app": "a", "with": "-", "rep": 1, "steal_pct": 11.0,
                       "first_runtime_s": 20.5}], h["rerun"]
PY
# a bad option value is a usage error (exit 2), named with its bounds
python3 "$ROOT/eval/netlab_score.py" "$T" --alone-stall-ratio 1.2 >/dev/null 2>"$T/e6"; rc=$?
[ $rc = 2 ] && grep -q "not 0 or a ratio in \[1.5, 1000\]" "$T/e6" || bad "--alone-stall-ratio 1.2: exit $rc, $(cat "$T/e6")"
[ $fail = 0 ] && echo "ok - pooled 2 kept runs: $(grep -A4 '^counters wait|share+history, held out: pair$' "$T/out" | tail -n 1 | tr -s ' ')"
exit $fail
