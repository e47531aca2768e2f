#!/bin/bash
# lane: netlab
# test_paths_eval_smoke.sh - 'make eval-paths' (eval/paths_eval.sh) in its
# smoke size (PATHS_SHORT=1: one repetition, short runs, ~90 s) runs end to
# end so it cannot rot: a lab of four leaf switches under a core comes up,
# job_submit read CG's --nodelist against topology.conf and answered 0 %
# from the path beside the all-to-all whose leaves CG misses, and a model
# answer beside the ones that share leaf s1's uplink or both of CG's;
# every placement has a runtime alone and beside, paths.json is written
# with the model's record for the bound on the queueing answer (the
# all-to-all's wait octiles, consistent with the bound's count) and the
# queue waits the sampler read on CG's path (all eight uplink ends, alone
# and in each placement), and the lab is gone afterwards.  It asserts nothing about the slowdowns.
# Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
. "$(dirname "$0")/eval_smoke_lib.sh"
eval_smoke_run PATHS paths_eval.sh
python3 - "$OUT/r/paths.json" 2>"$OUT/py.err" <<'PY' || bad "paths.json: $(cat "$OUT/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))
def need(ok, why):
    if not ok:
        print(why, file=sys.stderr)
        sys.exit(1)
need(r["schema"] == "netvar-paths-eval" and r["repetitions"] == 1, "schema or repetitions")
rows = {x["placement"]: x for x in r["rows"]}
need(sorted(rows) == ["apart", "both", "shared"], f"placements {sorted(rows)}")
for x in rows.values():
    need(all(isinstance(v, float) and v > 0 for v in (x["alone_median_s"], x["beside_median_s"])),
         f"{x['placement']}: a runtime is missing")
a, s = rows["apart"], rows["shared"]
need(a["predicted_pct"] == 0 and a["predicted_source"] == "path: no shared uplink",
     f"apart: predicted {a['predicted_pct']} ({a['predicted_source']}), 0 from the path expected")
for x in (s, rows["both"]):
    need(x["predicted_pct"] is not None and x["predicted_source"].startswith("model:"),
         f"{x['placement']}: predicted {x['predicted_pct']} ({x['predicted_source']}), a model answer expected")
b = r.get("wait_bound")
need(isinstance(b, dict), "wait_bound: missing (app_alltoall.json or app_cg.json unreadable?)")
prof = b["neighbour_wait_profile_us"]
need(isinstance(prof, list) and 1 <= len(prof) <= 8 and all(w >= 0 for w in prof),
     f"wait_bound: the all-to-all's wait profile {prof}")
z = sum(1 for w in prof if w <= 0)
need(b["octiles_at_no_wait"] == z, f"wait_bound: {b['octiles_at_no_wait']} octiles at no wait, {z} counted")
need((b["wait_answer_at_most_pct"] is None) == (z == 0), "wait_bound: a bound without an octile at no wait")
# the sampler read every uplink end while CG ran, alone and in each placement
for tag, pw in [("alone", r["alone_path_wait"])] + [(x["placement"], x["path_wait"]) for x in rows.values()]:
    need(isinstance(pw, dict) and len(pw["ports_ms"]) == 4 and len(pw["uplink_ends_ms"]) == 8
         and all(v >= 0 for v in pw["uplink_ends_ms"].values())
         and abs(pw["sum_ms"] - sum(pw["ports_ms"].values())) < 1e-9,
         f"{tag}: the waits on cg's path {pw}")
    rt = r["alone_cg_rtt"] if tag == "alone" else rows[tag]["cg_rtt"]
    need(rt is None or (rt["median_ms"] > 0 and rt["reads"] > 0), f"{tag}: cg's round trip {rt}")
PY
[ $fail = 0 ] && echo "paths eval smoke: pipeline complete ($(grep -c '' "$OUT/log") log lines)"
exit $fail
