#!/usr/bin/env bash
# test_replay_bar_smoke.sh - `make eval-replay-bar` (eval/replay_bar.py) at
# a smoke size so it cannot rot: a 256-node trace of 600 jobs, one seed,
# balanced routing.  Every policy has a row; the isolation bound removes all
# of no policy's interference; ContainSpanWaitSeconds=0 (eval/replay_leaf.conf)
# contains fewer jobs than the fixture's conf, which contains jobs of every
# size; the text table ends with the per-policy summary.  Nothing about the
# bar itself is asserted.  Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
set -u
cd "$ROOT" || exit 1
[ -x "$BUILD/bin/netvar-replay-sim" ] || { echo "SKIP: netvar-replay-sim not built"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/nvbar.XXXXXX")
trap 'rm -rf "$out"' EXIT
args=(--netvar "$BUILD/bin/netvar" --nodes 256 --jobs 600 --seeds 1 --routing balanced)
python3 eval/replay_bar.py "${args[@]}" --json >"$out/bar.json" 2>"$out/err" ||
    { echo "FAIL: replay_bar.py --json: $(cat "$out/err")"; exit 1; }
python3 - "$out/bar.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["rows"]
def need(ok, why):
    if not ok:
        print("FAIL:", why)
        sys.exit(1)
pol = {x["policy"]: x for x in r}
need(set(pol) == {"none", "switches", "netvar netvar.conf", "netvar replay_leaf.conf",
                  "isolated"}, f"policies {sorted(pol)}")
need(pol["none"]["slowdown_mean_pct"] > 0, "no interference without a policy: nothing to remove")
need(pol["isolated"]["removed_pct"] == 100, f"isolation removed {pol['isolated']['removed_pct']}")
leaf, fix = pol["netvar replay_leaf.conf"], pol["netvar netvar.conf"]
need(0 < leaf["contained"] < fix["contained"],
     f"contained: leaf conf {leaf['contained']}, fixture {fix['contained']}")
need(all(x["utilization_pct"] > 0 and x["wait_mean_s"] >= 0 for x in r), "utilization or wait")
PY
python3 eval/replay_bar.py "${args[@]}" >"$out/bar.txt" 2>"$out/err" ||
    { echo "FAIL: replay_bar.py: $(cat "$out/err")"; exit 1; }
grep -q "netvar replay_leaf.conf .* of 1$" "$out/bar.txt" ||
    { echo "FAIL: no summary line:"; cat "$out/bar.txt"; exit 1; }
echo "replay bar smoke: $(grep -c . "$out/bar.txt") lines, every policy"
