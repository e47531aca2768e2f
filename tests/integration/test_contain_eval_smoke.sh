#!/bin/bash
# lane: netlab
# test_contain_eval_smoke.sh - 'make eval-contain' (eval/contain_eval.sh) in
# its smoke size (CONTAIN_SHORT=1: one repetition, short runs, ~100 s) runs
# end to end so it cannot rot: the model answered at submission, the avoid
# rule added contain beside the all-to-all that spans both leaves, Slurm
# placed the submitted CG under one leaf switch with Switches=1, every
# placement has a runtime alone and beside, contain.json is written, and
# the lab is gone afterwards.  It asserts nothing about the slowdowns.
# Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
. "$(dirname "$0")/eval_smoke_lib.sh"
eval_smoke_run CONTAIN contain_eval.sh
python3 - "$OUT/r/contain.json" 2>"$OUT/py.err" <<'PY' || bad "contain.json: $(cat "$OUT/py.err")"
import json, re, sys
r = json.load(open(sys.argv[1]))
def need(ok, why):
    if not ok:
        print(why, file=sys.stderr)
        sys.exit(1)
need(r["schema"] == "netvar-contain-eval" and r["repetitions"] == 1, "schema or repetitions")
need([x["placement"] for x in r["rows"]] == ["span", "leaf", "submitted"], "the three placements")
for x in r["rows"]:
    need(all(isinstance(v, float) and v > 0 for v in (x["alone_median_s"], x["beside_median_s"])),
         f"{x['placement']}: a runtime is missing")
need(r["predicted_pct"] is not None and r["predicted_source"].startswith("model:"),
     "no model prediction at submission")
need(r["actions"] is not None and "contain" in r["actions"].split(",")
     and "avoid" in r["actions"].split(","), f"actions {r['actions']}: contain and avoid expected")
nodes = r["submitted_nodes"]
need(len(nodes) == 1, f"submitted placements {nodes}")
m = re.fullmatch(r"h\[?([0-9,-]+)\]?\(switches=1@[0-9:]+\)", nodes[0])
need(m is not None, f"submitted cg at {nodes[0]}: Switches=1 expected")
ids = set()
for part in m.group(1).split(","):
    a, _, b = part.partition("-")
    ids.update(range(int(a), int(b or a) + 1))
need(len(ids) == 2 and (ids <= {1, 2, 3} or ids <= {4, 5, 6}), f"cg on {sorted(ids)}: not under one leaf")
PY
grep -q "avoid also keeps this job under one leaf switch" "$OUT/log" || bad "the user was not told why contain was added"
[ $fail = 0 ] && echo "contain eval smoke: pipeline complete ($(grep -c '' "$OUT/log") log lines)"
exit $fail
