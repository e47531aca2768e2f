#!/bin/bash
# lane: netlab
# test_stream_eval_smoke.sh - 'make eval-stream' (eval/stream_eval.sh) in its
# smoke size (STREAM_SHORT=1: 12 jobs of two apps, one baseline each, one
# short campaign per app) runs end to end so it cannot rot: every phase-two
# job has a record, a runtime and a baseline, job_submit answered at least
# one submission from the history-only model, every trained model variant
# answered for the neighbours the jobs had, stream.json holds the tables
# and the in-sample floor, and the lab is gone afterwards.  It asserts nothing about the accuracy.
# Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
. "$(dirname "$0")/eval_smoke_lib.sh"
eval_smoke_run STREAM stream_eval.sh
python3 - "$OUT/r/stream.json" 2>"$OUT/py.err" <<'PY' || bad "stream.json: $(cat "$OUT/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))
def need(ok, why):
    if not ok:
        print(why, file=sys.stderr)
        sys.exit(1)
need(r["schema"] == "netvar-stream-eval", "schema")
jobs = r["jobs"]
need(len(jobs) == 6, f"{len(jobs)} phase-two jobs, 6 expected")
for j in jobs:
    need(j["runtime_s"] and j["runtime_s"] > 0 and j["baseline_s"] and j["baseline_s"] > 0,
         f"{j['tag']}: runtime {j['runtime_s']} or baseline {j['baseline_s']} missing")
    need(isinstance(j["measured_pct"], float), f"{j['tag']}: no measured slowdown")
    # against its app alone under its own shape (nodes per leaf), measured in stage 0
    need(r["baselines_s"].get(f"{j['app']}@{j['shape']}") == j["baseline_s"],
         f"{j['tag']}: baseline {j['baseline_s']} is not {j['app']} alone under {j['shape']}")
    need(set(j["answers"]) == {"history-25", "history-50", "history-100",
                               "history-100-campaigns"}, f"{j['tag']}: answers {sorted(j['answers'])}")
need(any(j["job_submit_pct"] is not None for j in jobs), "job_submit answered no phase-two job")
need(any(j["neighbours"] for j in jobs), "no phase-two job had a neighbour")
for t in r["tables"]:
    need(t["jobs"] == 6 and 0 <= t["answered"] <= 6, f"table {t['answer']}: {t['answered']}/{t['jobs']}")
fl = r["floor"]["all"]
need(fl["jobs"] == 6 and 1 <= fl["groups"] <= 6 and fl["mae_pp"][0] >= 0,
     f"the in-sample floor: {fl}")
camp = next(t for t in r["tables"] if t["answer"].endswith("history-100-campaigns"))
need(camp["answered"] >= 1, "the campaign variant answered nothing")
PY
grep -q "^phase two: 6 jobs" "$OUT/log" || bad "the report's summary line is missing"
[ $fail = 0 ] && echo "stream eval smoke: pipeline complete ($(grep -c '' "$OUT/log") log lines)"
exit $fail
