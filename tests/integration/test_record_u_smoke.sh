#!/bin/bash
# lane: netlab
# test_record_u_smoke.sh - 'make eval-record-u' (eval/record_u_eval.sh) in
# its smoke size (RECU_SHORT=1: two short jobs alone across two leaves,
# ~30 s) runs end to end so it cannot rot: netlab wrote UplinkRate= and the
# blade map's switch_port=/uplink= keys, the SPANK epilog wrote version 2
# job records whose bottleneck U comes from the switch side of each node's
# own link over the lab's shaper rate (100mbit: 12.5e6 B/s), with the
# uplink counters' U beside it, the stats script wrote both directions, and
# the lab is gone afterwards.  It asserts nothing about the agreement.
# Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
. "$(dirname "$0")/eval_smoke_lib.sh"
eval_smoke_run RECU record_u_eval.sh
python3 - "$OUT/r/runs.jsonl" "$OUT/r/record_u.json" 2>"$OUT/py.err" <<'PY' || bad "$(cat "$OUT/py.err")"
import json, math, sys
runs = [json.loads(s) for s in open(sys.argv[1]) if s.strip()]
def need(ok, why):
    if not ok:
        print(why, file=sys.stderr)
        sys.exit(1)
need(len(runs) == 2, f"{len(runs)} runs, 2 expected")
for r in runs:
    need(r["version"] == 2, f"run {r['run']}: record version {r['version']}")
    need("switch_port=" in (r["source"] or ""), f"run {r['run']}: source {r['source']}")
    need(r["capacity_Bps"] == 12.5e6, f"run {r['run']}: capacity {r['capacity_Bps']} B/s")
    for k in ("u_up", "u_down", "uplink_u_up", "uplink_u_down"):
        v = r[k]
        need(isinstance(v, (int, float)) and 0 <= v <= 1.5, f"run {r['run']}: {k} = {v}")
    need(r["u_up"] > 0 and r["uplink_u_up"] > 0, f"run {r['run']}: nothing crossed the uplink")
s = json.load(open(sys.argv[2]))
need(s["schema"] == "netvar-record-u-eval" and s["runs"] == 2, "record_u.json: schema or runs")
for d in ("up", "down"):
    x = s["directions"][d]
    need(x["runs"] == 2 and math.isfinite(x["mean_diff_pp"]), f"{d}: {x}")
    lo, hi = x["mean_diff_ci95_pp"]
    need(lo <= x["mean_diff_pp"] <= hi, f"{d}: mean outside its interval {x}")
PY
grep -q "Pearson r" "$OUT/log" || bad "the table is not printed: $(tail -n 5 "$OUT/log")"
[ $fail = 0 ] && echo "OK - record U smoke"
exit $fail
