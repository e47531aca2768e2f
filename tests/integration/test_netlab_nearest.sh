#!/usr/bin/env bash
# test_netlab_nearest.sh - the scorer's exploration "nearest configurations
# in (U, W)" (eval/netlab_score.py nearest_predict) on hand-made
# configurations and neighbour windows, whose answers are worked out here:
# a window on a configuration answers that configuration's slowdown; between
# two, their inverse-distance mean; the idle point (0 %) is one of them, so
# an idle window reads 0 % and a light one little; several windows
# average progress rates, not slowdowns; a victim with no campaign point or
# a neighbour without a window fails with a reason.  And fit_history, the
# Python copy of netvar's history fit that corrects it: with no pair it
# changes nothing, and a victim measured at twice its physics beside two
# neighbours gets a sensitivity above 1 (pulled toward 1 by the ridge).
# And the campaign point rule (restall, --campaign-point): fastest rounds
# against the fastest alone round, or the medians without the stalls.
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
# two configurations: (U 0.4, W 0) slows A by 10 %, (U 0.8, W 2000 us) by
# 100 %; W is scaled by 2000 us, and the idle point (0, 0) reads 0 %
cfg = {"c1": (0.4, 0.0, {"A": 10.0}), "c2": (0.8, 2000.0, {"A": 100.0})}
def nm(wins):
    return (cfg, 2000.0, wins)
v, src = s.nearest_predict(nm({"B": [(0.8, 2000.0)]}), "A", "B")
check(abs(v - 100.0) < 1e-9 and src == "nearest U,W", f"on a configuration: its slowdown ({v})")
# (0.6, 0.5 scaled): 0.539 from both configurations, 0.781 from idle
v, _ = s.nearest_predict(nm({"B": [(0.6, 1000.0)]}), "A", "B")
check(abs(v - 55.0) < 1e-9, f"halfway between two configurations: their mean, 55 % ({v})")
v, _ = s.nearest_predict(nm({"B": [(0.2, 0.0)]}), "A", "B")
check(abs(v - 5.0) < 1e-9, f"halfway between idle and a configuration: 5 % ({v})")
# a quarter of the way from idle: distances 1:3, weights 3:1 -> 10 / 4
v, _ = s.nearest_predict(nm({"B": [(0.1, 0.0)]}), "A", "B")
check(abs(v - 2.5) < 1e-9, f"a quarter of the way from idle: 2.5 % ({v})")
v, _ = s.nearest_predict(nm({"B": [(0.0, 0.0)]}), "A", "B")
check(v == 0.0, f"an idle window: 0 % ({v})")
# two windows, 100 % and idle: progress rates 0.5 and 1 -> 1 / 0.75 - 1
v, _ = s.nearest_predict(nm({"B": [(0.8, 2000.0), (0.0, 0.0)]}), "A", "B")
check(abs(v - 100.0 / 3) < 1e-9, f"100 % half the time, idle the rest: +33.3 % ({v})")
v, why = s.nearest_predict(nm({"B": [(0.5, 1.0)]}), "C", "B")
check(v is None and "C" in why, f"a victim with no campaign point fails: {why}")
v, why = s.nearest_predict(nm({"B": []}), "A", "B")
check(v is None and "B" in why, f"a neighbour without a window fails: {why}")
# the history fit
phys = {("A", "B"): 50.0, ("A", "C"): 40.0, ("D", "B"): 20.0}
sens, press, victims = s.fit_history([], lambda a, b: phys.get((a, b)))
check(not sens and not press and not victims, "no pair: no factor")
entries = [{"app": "A", "with": "B", "slowdown_pct": 100.0, "samples": 3, "sd_pct": 1.0},
           {"app": "A", "with": "C", "slowdown_pct": 80.0, "samples": 3, "sd_pct": 1.0}]
sens, press, victims = s.fit_history(entries, lambda a, b: phys.get((a, b)))
check(victims == {"A"} and 1.0 < sens["A"] * press["B"] < 2.0 and 1.0 < sens["A"] * press["C"] < 2.0,
      f"measured twice the physics: s_A q_B {sens['A'] * press['B']:.3f}, in (1, 2): the ridge pulls toward 1")
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
sys.exit(fail)
PY
