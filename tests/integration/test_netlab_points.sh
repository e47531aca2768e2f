#!/usr/bin/env bash
# test_netlab_points.sh - the scorer's campaign point rule (restall,
# --campaign-point), which re-derives a dataset's campaign points from its
# rounds: fastest rounds against the fastest alone round, or the medians
# without the stalls; and the rule a campaign wrote is read back.
# Seconds; no lab.  Env: ROOT.
set -u
ROOT=$(readlink -f "${ROOT:-.}")
python3 - "$ROOT/eval" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import netlab_score as s
fail = 0
def check(ok, what):
    global fail
    print(("ok - " if ok else "NOT OK - ") + what)
    fail |= not ok
# the campaign point rule, on a campaign of three rounds
import json, os, tempfile, types
with tempfile.TemporaryDirectory() as tmp:
    camp = {"baseline": {"runtime_s": [10.0, 12.0, 11.0]},
            "configs": [{"id": "c1", "runtime_s": [30.0, 20.0, 25.0], "slowdown_pct": 127.27},
                        {"id": "c2", "runtime_s": [11.0, 100.0, 12.0], "slowdown_pct": 0.0}]}
    with open(os.path.join(tmp, "campaign_A.json"), "w") as f:
        json.dump(camp, f)
    def ds():
        return types.SimpleNamespace(apps=["A"], dir=tmp, model={"training_set": [
            {"id": "c1", "slowdowns": [{"app": "A", "slowdown_pct": 127.27}]},
            {"id": "c2", "slowdowns": [{"app": "A", "slowdown_pct": 0.0}]}]})
    def pts(d):
        return [t["slowdowns"][0]["slowdown_pct"] for t in d.model["training_set"]]
    d = ds()
    moved = s.restall(d, 0, "fastest")
    got = pts(d)
    check(abs(got[0] - 100.0) < 1e-9 and abs(got[1] - 10.0) < 1e-9 and len(moved) == 2,
          f"fastest rounds: 20 s against 10 s alone is +100 %, 11 s +10 % ({got}; {moved})")
    d = ds()
    s.restall(d, 3.0, "median")
    got = pts(d)
    check(abs(got[0] - (25.0 / 11 - 1) * 100) < 1e-9 and abs(got[1] - (11.5 / 11 - 1) * 100) < 1e-9,
          f"medians, the 100 s round a stall: +127.3 % and +4.5 % ({got})")
    d = ds()
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
