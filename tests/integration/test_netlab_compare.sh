#!/usr/bin/env bash
# test_netlab_compare.sh - eval/netlab_compare.py on a kept run scored by
# two builds (eval/results/netlab-dev-2026-12-06: the share term's commit
# and the one before it).  The figures it prints must be the ones
# recomputed here from the rows; the routes the change did not touch must
# read 0.0 apart; two datasets, a file without rows and bad usage get one
# line and exit 1 or 2.  Seconds; no lab.  Asserts nothing about accuracy.
# Env: ROOT.
set -u
ROOT=$(readlink -f "${ROOT:-.}")
T=$(mktemp -d /tmp/nvcompare.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "NOT OK - $*"; fail=1; }
R=$ROOT/eval/results/netlab-dev-2026-12-06
C=$ROOT/eval/netlab_compare.py
python3 "$C" "$R.before-35bd42f.summary.json" "$R.summary.json" --json "$T/c.json" >"$T/out" 2>"$T/err" ||
    bad "compare exited $?: $(cat "$T/err")"
python3 - "$T/c.json" "$R.before-35bd42f.summary.json" "$R.summary.json" <<'PY' || bad "the figures are not the rows'"
import json, statistics as st, sys
c = json.load(open(sys.argv[1]))
rows = [json.load(open(p))["rows"] for p in sys.argv[2:4]]
def err(rs, var, hold, slowed):
    return {(r["app"], r["with"]): abs(r["predicted_pct"] - r["measured_pct"]) for r in rs
            if (r["variant"], r["holdout"]) == (var, hold)
            and (not slowed or r["measured_pct"] >= 10)}
seen = 0
for e in c["rows"]:
    a = err(rows[0], e["variant"], e["holdout"], e["pairs"] != "all")
    b = err(rows[1], e["variant"], e["holdout"], e["pairs"] != "all")
    assert len(a) == len(b) == e["n"], (e, len(a), len(b))
    assert abs(st.mean(a.values()) - e["before_pp"][0]) < 1e-9, e
    assert abs(st.mean(b.values()) - e["after_pp"][0]) < 1e-9, e
    d = st.mean(b[k] - a[k] for k in a)
    assert abs(d - e["after_minus_before_pp"][0]) < 1e-9, e
    lo, hi = e["after_minus_before_pp"][1:]
    assert lo <= d <= hi, e
    assert abs(max(a.values()) - e["max_before_pp"]) < 1e-9 and abs(max(b.values()) - e["max_after_pp"]) < 1e-9
    # only the profile route's composition changed between the two builds
    if "profile" not in e["variant"]:
        assert e["after_minus_before_pp"] == [0.0, 0.0, 0.0], e
    seen += 1
assert seen >= 30, seen
prof = [e for e in c["rows"] if e["variant"] == "netvar nearest U,W, profile route"]
assert prof and all(e["after_minus_before_pp"][0] != 0 for e in prof), prof
PY
grep -q "^  netvar nearest U,W, profile route (its campa >=10%  " "$T/out" || bad "no slowed-pairs row for the profile route"
# --variant keeps only matching predictors
python3 "$C" "$R.before-35bd42f.summary.json" "$R.summary.json" --variant "profile" >"$T/v" 2>&1 || bad "--variant exited $?"
[ "$(grep -c '^  ' "$T/v")" = 7 ] || bad "--variant profile: $(grep -c '^  ' "$T/v") lines, want the header and 6 rows"
# another dataset (wavefront beside wavefront in both, measured apart): refused
python3 "$C" "$ROOT/eval/results/netlab-dev-2026-12-03.summary.json" "$R.summary.json" >/dev/null 2>"$T/e2"
rc=$?
[ "$rc" = 1 ] || bad "two datasets: exit $rc"
[ "$(wc -l <"$T/e2")" = 1 ] && grep -q "^netlab_compare: .*: not the same dataset$" "$T/e2" ||
    bad "two datasets: not one line: $(cat "$T/e2")"
# the same pairs measured differently: refused
python3 - "$R.summary.json" "$T/moved.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["rows"][0]["measured_pct"] += 1
json.dump(s, open(sys.argv[2], "w"))
PY
python3 "$C" "$R.summary.json" "$T/moved.json" >/dev/null 2>"$T/e3"
rc=$?
[ "$rc" = 1 ] && grep -q "not the same dataset" "$T/e3" || bad "a changed measurement: exit $rc, $(cat "$T/e3")"
echo '{"rows": []}' >"$T/empty.json"
python3 "$C" "$T/empty.json" "$R.summary.json" >/dev/null 2>"$T/e4"
rc=$?
[ "$rc" = 1 ] && grep -q "no per-answer rows" "$T/e4" || bad "no rows: exit $rc, $(cat "$T/e4")"
python3 "$C" "$R.summary.json" >/dev/null 2>"$T/e5"
rc=$?
[ "$rc" = 2 ] || bad "one file: exit $rc"
python3 "$C" --help | grep -q "^Usage: netlab_compare.py BEFORE.json AFTER.json" || bad "--help"
[ "$fail" = 0 ] && echo "ok - netlab_compare.py printed the rows' figures and refused what it must"
exit "$fail"
