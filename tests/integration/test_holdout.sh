#!/usr/bin/env bash
# test_holdout.sh - `netvar holdout`, the verb an evaluation asks for every
# held-out answer: the table it builds holds each pair's median run (netvar
# train's rule), and leaves out exactly what the hold-out names; the physics
# does not depend on the table; a held-out answer carries the factors
# netvar fitted; bad runs files are refused with one line, and a FIFO does
# not block.  Worked out by hand on a five-app fixture.  Seconds; no lab.
# Env: BUILD, ROOT.
set -u
ROOT=$(readlink -f "${ROOT:-.}")
BUILD=$(readlink -f "${BUILD:-$ROOT/build}")
NV=$BUILD/bin/netvar
M=$ROOT/tests/fixtures/model/nearest_small.json
T=$(mktemp -d /tmp/nvholdout.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/runs" <<'R'
# app with rep slowdown_pct
cg alltoall 1 100.0
cg alltoall 2 110.0
cg alltoall 3 400.0
stencil alltoall 1 50
stencil alltoall 2 54
cg stencil 1 5
cg stencil 2 7
R
for h in none all pair app neighbour repetition; do
    "$NV" holdout --model "$M" --runs "$T/runs" --hold-out $h --min-samples 1 >"$T/$h.json" 2>"$T/$h.err" ||
        { echo "NOT OK - holdout $h failed: $(cat "$T/$h.err")"; exit 1; }
done
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
fail = 0
def check(ok, what):
    global fail
    print(("ok - " if ok else "NOT OK - ") + what)
    fail |= not ok
def ans(h, a, b, rep=None):
    for x in json.load(open(f"{t}/{h}.json"))["answers"]:
        if x["app"] == a and x["with"] == b and x.get("rep") == rep:
            return x
    return None
x = ans("none", "cg", "alltoall")
check(x["measured_pct"] == 110 and x["runs"] == 3 and x["table_entries"] == 3,
      f"a pair is measured by its median run, 110 of 100/110/400 ({x['measured_pct']}, {x['runs']} runs)")
check(x["source"] == "table" and x["predicted_pct"] == 110,
      f"held out nothing, the table answers with the median ({x['source']}: {x['predicted_pct']})")
p = ans("pair", "cg", "alltoall")
check(p["table_entries"] == 2 and p["source"] != "table" and p["source"].endswith("+history"),
      f"the pair held out: two entries left, the corrected physics answers ({p['source']})")
check(0 < p["sensitivity"] <= 10 and 0 < p["pressure"] <= 10 and p["sensitivity_samples"] == 2,
      f"it carries cg's fitted sensitivity {p['sensitivity']} (2 samples) and alltoall's "
      f"pressure {p['pressure']}")
a = ans("all", "cg", "alltoall")
check(a["table_entries"] == 0 and not a["source"].endswith("+history")
      and abs(a["predicted_pct"] - p["physics_pct"]) < 1e-6,
      f"every run held out: the physics alone, {a['predicted_pct']}, as under the pair's "
      f"hold-out ({p['physics_pct']})")
x = ans("app", "cg", "alltoall")
check(x["table_entries"] == 1, f"cg held out: only stencil beside alltoall is left ({x['table_entries']})")
x = ans("neighbour", "cg", "stencil")
check(x["table_entries"] == 1, f"stencil held out either way: only cg beside alltoall is left "
      f"({x['table_entries']})")
x = ans("repetition", "cg", "alltoall", 3)
check(x["measured_pct"] == 400 and x["source"] == "table" and x["predicted_pct"] == 105,
      f"a repetition is answered by the others' median, 105 ({x['source']}: {x['predicted_pct']})")
check(len(json.load(open(f"{t}/repetition.json"))["answers"]) == 7, "every run answered once")
sys.exit(fail)
PY
fail=$?
bad() { echo "NOT OK - $*"; fail=1; }
# refusals: one line naming the file, nothing answered, exit 1
printf 'cg alltoall 1 0x10\n' >"$T/hex"
printf 'cg alltoall 1 10\n\0\n' >"$T/nul"
printf 'cg alltoall 10\n' >"$T/short"
mkfifo "$T/fifo"
for f in hex nul short fifo; do
    timeout 10 "$NV" holdout --model "$M" --runs "$T/$f" --hold-out pair >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$T/$f" "$T/err" && [ ! -s "$T/out" ] ||
        bad "runs file '$f': exit $rc, $(head -c 300 "$T/err")"
done
"$NV" holdout --model "$M" --runs "$T/runs" --hold-out nothing >/dev/null 2>&1
[ $? = 2 ] || bad "an unknown hold-out is a usage error"
[ $fail = 0 ] && echo "ok - netvar holdout"
exit $fail
