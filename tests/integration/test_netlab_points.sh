#!/usr/bin/env bash
# test_netlab_points.sh - the campaign point rule the scorer asks netvar
# for (netvar labmodel --campaign-point, the campaign's own rule), which
# re-derives a dataset's campaign points from its rounds: fastest rounds
# against the fastest alone round, or the medians without the stalls; the
# scorer's reading of what netvar moved, and of the rule a campaign wrote.
# Seconds; no lab.  Env: BUILD, ROOT.
set -u
ROOT=$(readlink -f "${ROOT:-.}")
BUILD=$(readlink -f "${BUILD:-$ROOT/build}")
python3 - "$ROOT/eval" "$BUILD/bin/netvar" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import netlab_score as s
netvar = sys.argv[2]
fail = 0
def check(ok, what):
    global fail
    print(("ok - " if ok else "NOT OK - ") + what)
    fail |= not ok
# the campaign point rule, on a campaign of three rounds
import json, os, subprocess, tempfile, types
with tempfile.TemporaryDirectory() as tmp:
    camp = {"baseline": {"runtime_s": [10.0, 12.0, 11.0]},
            "configs": [{"id": "B1000-P1-M1", "runtime_s": [30.0, 20.0, 25.0]},
                        {"id": "B2000-P1-M1", "runtime_s": [11.0, 100.0, 12.0]}]}
    def dump(name, o):
        with open(os.path.join(tmp, name), "w") as f:
            json.dump(o, f)
    dump("campaign_A.json", camp)
    dump("dataset.json", {"schema": "netvar-netlab-dataset", "version": 1,
                          "apps": [{"name": "A"}], "configs": ["1000:1:1", "2000:1:1"]})
    with open(os.path.join(tmp, "runs.txt"), "w") as f:
        f.write("alone A - 1 10.0\n")
    hist = {"bins_per_decade": 16, "first_edge_us": 1, "counts": [0, 1]}
    lat = {"mean_us": 50.0, "sd_us": 5.0, "histogram": hist}
    def cfg(i, bb, pct):
        return {"id": i, "bubble_cycles": bb, "partners": 1, "messages": 1, "utilization": 0.5,
                "latency": lat, "slowdowns": [{"app": "A", "slowdown_pct": pct}]}
    dump("model.json", {
        "schema": "netvar-model", "version": 1,
        "calibration": {"method": "minimum", "quantile": 0, "service_us": 10.0, "var_s_us2": 1.0,
                        "idle_mean_us": 40.0, "samples": 100, "histogram": hist},
        "apps": [{"key": "A", "utilization": 0.3, "utilization_source": "latency",
                  "latency": lat, "compression": {"points": [], "fit": [], "residual_pct": 0.0},
                  "scaling": []}],
        "training_set": [cfg("B1000-P1-M1", 1000, 127.27), cfg("B2000-P1-M1", 2000, 0.0)],
        "colocation": []})
    def points(rule, ratio):
        out, summ = os.path.join(tmp, "out.json"), os.path.join(tmp, "summ.json")
        r = subprocess.run([netvar, "labmodel", "--dataset", tmp, "--variant", "latency",
                            "--out", out, "--campaign-point", rule, "--stall-ratio", str(ratio),
                            "--json-summary", summ], capture_output=True, text=True)
        if r.returncode:
            check(False, f"netvar labmodel --campaign-point {rule}: {r.stderr.strip()}")
            return [None, None], {}
        with open(out) as f, open(summ) as g:
            m, lab = json.load(f), json.load(g)
        return [t["slowdowns"][0]["slowdown_pct"] for t in m["training_set"]], lab
    got, lab = points("fastest", 0)
    moved = s.campaign_lines(lab, "fastest")
    check(None not in got and abs(got[0] - 100.0) < 1e-9 and abs(got[1] - 10.0) < 1e-9
          and len(moved) == 2,
          f"fastest rounds: 20 s against 10 s alone is +100 %, 11 s +10 % ({got}; {moved})")
    got, lab = points("median", 3)
    stalls = s.campaign_lines(lab, "median")
    check(None not in got and abs(got[0] - (25.0 / 11 - 1) * 100) < 1e-9
          and abs(got[1] - (11.5 / 11 - 1) * 100) < 1e-9 and len(stalls) == 1
          and "B2000-P1-M1: 1 round(s) left out" in stalls[0],
          f"medians, the 100 s round a stall: +127.3 % and +4.5 % ({got}; {stalls})")
    got, lab = points("median", 0)
    check(None not in got and abs(got[1] - (12.0 / 11 - 1) * 100) < 1e-9,
          f"medians keeping every round: the 100 s round counts, +9.1 % ({got})")
    d = types.SimpleNamespace(apps=["A"], dir=tmp)
    check(s.campaign_point_rules(d) == "median", "a campaign that wrote no rule made medians")
    camp["point_rule"] = "fastest"
    with open(os.path.join(tmp, "campaign_A.json"), "w") as f:
        json.dump(camp, f)
    check(s.campaign_point_rules(d) == "fastest", "a campaign's point_rule is read")
# the intervals reported beside the figures (netlab_stats)
import netlab_stats as ns
m, lo, hi = ns.bootstrap([1.0, 2.0, 3.0, 4.0, 100.0])
check(m == 22.0 and lo < m < hi and lo >= 1.0 and hi <= 100.0,
      f"a mean's bootstrap interval brackets it within the data's range ({m}, [{lo}, {hi}])")
check(ns.bootstrap([1.0, 2.0, 3.0, 4.0, 100.0]) == (m, lo, hi), "the same data, the same interval")
d = ns.paired([5.0, 6.0, 7.0], [5.0, 6.0, 7.0])
check(d == (0.0, 0.0, 0.0), f"a predictor against itself differs by 0 [0, 0] ({d})")
d = ns.paired([1.0, 2.0, 1.5, 1.0], [10.0, 12.0, 9.0, 11.0])
check(d[2] < 0, f"always better: the whole interval below 0 ({d})")
check(ns.bootstrap([]) == (None, None, None), "no pairs: no figure")
sys.exit(fail)
PY
