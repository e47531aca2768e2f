#!/usr/bin/env bash
# test_labmodel.sh - `netvar labmodel`, the model variants the lab scorer
# asks about, built from a dataset directory: on a hand-made dataset (two
# CompressionB configurations, two apps, counter files in the lab sampler's
# format) its U, queue waits, profiles, refitted curves and joint windows
# are the values worked out by hand below; the nearest variant needs every
# configuration's counter file; --campaign-point makes a campaign's points
# again from its rounds by the campaign's rule, and the summary's alone
# baselines leave out the slow alone runs; bad files are refused with one
# line, exit 1 and nothing written, and a FIFO does not block.  Seconds;
# no lab.
# Env: BUILD, ROOT.
set -u
ROOT=$(readlink -f "${ROOT:-.}")
BUILD=$(readlink -f "${BUILD:-$ROOT/build}")
NV=$BUILD/bin/netvar
T=$(mktemp -d /tmp/nvlabmodel.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
D=$T/ds
mkdir -p "$D"
# The dataset, worked out by hand (rates 1e6 bytes/s, passes every 0.125 s,
# so every figure below is exact):
#  cb_1000:1:1  two uplink ends, passes k = 0..24 (t = k/8 s).  End 0 sends
#    62 500 bytes a pass (U 0.5), end 1 37 500 (0.3): the busier is 0.5,
#    offered 0.5 x 31/30 (end 1 dropped 30 packets of 1000 bytes in 3 s:
#    (300 000 + 10 000) / 300 000).  Trimmed by 1 s at each end of its U
#    steps (k 1..24): k 9..16, U 31/60.  Its W is end 1's backlog, the
#    longer wait: 9000 us outside t in [1, 2], 2000 inside; the W steps
#    (k 0..24) trimmed: k 8..16, all 2000 us.
#  cb_2000:1:10  one end, 25 000 bytes a pass (U 0.2), backlog 500: W 500.
#  alone_a_1  one end, runtime 1 s.  U 0.01 for k 1..4, 0.1 to 0.8 for k 5..12,
#    0 after; backlog 100 k bytes for k 4..12 (W 400..1200 us), else 0; and
#    the sampler's final read 30 ms after the last pass, with 1 MB more sent,
#    which is left out (closer than 0.45 interval).  The window is the 1 s
#    ending at the last busy step (k 12, t 1.5): k 4..12, U 0.01, 0.1..0.8,
#    octiles (index (i + 1/2) 9/8) [0.01 0.1 0.2 0.3 0.5 0.6 0.7 0.8], mean
#    0.40125; W 400..1200, octiles [400 500 600 700 900 1000 1100 1200],
#    mean 800; joint windows of 0.5 s from t 0.5: k 4..7 (U 0.1525, W 550),
#    k 8..11 (0.55, 950), k 12 alone (one step: dropped).  With
#    --wait-window-s 0.5 its W are the windows' means 550, 950, 1200.
#  b  its alone run has no counter file: it keeps the base model's values.
#  Campaign slowdowns (base model): a 40 % under 1000:1:1, 10 % under
#    2000:1:10; b 20 % and 30 %: on the counters' U, b's points (0.2, 30)
#    and (31/60, 20) violate the order and pool to 25, 25; on W likewise.
python3 - "$D" <<'PY'
import json, os, sys
d = sys.argv[1]
def dump(name, o):
    with open(os.path.join(d, name), "w") as f:
        json.dump(o, f)
dump("dataset.json", {"schema": "netvar-netlab-dataset", "version": 1,
                      "apps": [{"name": "a"}, {"name": "b"}], "configs": ["1000:1:1", "2000:1:10"]})
with open(os.path.join(d, "runs.txt"), "w") as f:
    f.write("alone a - 1 1.0\nalone b - 1 2.0\npair a b 1 1.2\npair b a 1 2.4\n")
def up(rate, bps, drops=0, pkt=1000):
    return {"dev": "u", "kind": "tbf", "rate_bytes_per_s": rate, "bytes_per_s": bps,
            "packets_per_s": bps / pkt, "mean_packet_bytes": pkt, "drops": drops}
def cnt(ups, series, elapsed):
    return {"schema": "netvar-netlab-counters", "version": 1, "interval_ms": 125.0,
            "elapsed_s": elapsed, "uplink": ups, "series": series}
s = []
for k in range(25):
    t = k / 8
    s.append([t, 0, 1000, 1, 62500 * k])
    s.append([t, 1, 2000 if 1 <= t <= 2 else 9000, 2, 37500 * k])
dump("cb_1000:1:1.counters.json", cnt([up(1e6, 500000), up(1e6, 300000, 30)], s, 3.0))
dump("cb_2000:1:10.counters.json",
     cnt([up(1e6, 200000)], [[k / 8, 0, 500, 1, 25000 * k] for k in range(25)], 3.0))
u = [0] + [0.01] * 4 + [0.1 * i for i in range(1, 9)] + [0] * 4
b, s = 0, []
for k in range(17):
    b += round(u[k] * 125000)
    s.append([k / 8, 0, 100 * k if 4 <= k <= 12 else 0, 0, b])
s.append([2.03, 0, 0, 0, b + 1000000])
dump("alone_a_1.counters.json", cnt([up(1e6, 100000)], s, 2.03))
hist = {"bins_per_decade": 16, "first_edge_us": 1, "counts": [0, 1]}
lat = {"mean_us": 50.0, "sd_us": 5.0, "histogram": hist}
def app(k, u):
    return {"key": k, "utilization": u, "utilization_source": "latency", "latency": lat,
            "compression": {"points": [], "fit": [], "residual_pct": 0.0}, "scaling": []}
def cfg(i, bb, p, m, u, sa, sb):
    return {"id": i, "bubble_cycles": bb, "partners": p, "messages": m, "utilization": u,
            "latency": lat, "slowdowns": [{"app": "a", "slowdown_pct": sa},
                                          {"app": "b", "slowdown_pct": sb}]}
dump("model.json", {"schema": "netvar-model", "version": 1,
                    "calibration": {"method": "minimum", "quantile": 0, "service_us": 10.0,
                                    "var_s_us2": 1.0, "idle_mean_us": 40.0, "samples": 100,
                                    "histogram": hist},
                    "apps": [app("a", 0.33), app("b", 0.44)],
                    "training_set": [cfg("B1000-P1-M1", 1000, 1, 1, 0.9, 40.0, 20.0),
                                     cfg("B2000-P1-M10", 2000, 1, 10, 0.1, 10.0, 30.0)],
                    "colocation": []})
PY
fail=0
bad() { echo "NOT OK - $*"; fail=1; }
for v in counters wait nearest; do
    "$NV" labmodel --dataset "$D" --variant $v --out "$T/$v.json" --json-summary "$T/$v.sum" \
        2>"$T/$v.err" || bad "labmodel --variant $v failed: $(cat "$T/$v.err")"
done
"$NV" labmodel --dataset "$D" --variant wait --out "$T/w5.json" --wait-window-s 0.5 \
    --json-summary "$T/w5.sum" 2>"$T/w5.err" || bad "--wait-window-s 0.5 failed: $(cat "$T/w5.err")"
# campaign points made again from the rounds (--campaign-point), by netvar
# campaign's rule: a's campaign ran the baseline 10, 11, 40 s (40 over 3
# times 10: a stall), 1000:1:1 12, 15, 16 s and 2000:1:10 13, 50, 14 s (50
# over 3 times 13).  fastest: 1000:1:1 (12 - 10) / 10 = +20 %, 2000:1:10
# +30 %; median, stall ratio 3: baseline 10.5 s, 15 s: +42.857 %, 13.5 s:
# +28.571 %; stall ratio 0: 11 s, 15 s: +36.364 %, 14 s: +27.273 %.  b has
# no campaign file: it keeps 20 % and 30 %, and a line says so.  Alone
# runs of a 1.0, 1.2 and 1.7 s: 1.7 over 1.5 times 1.0 is left out, the
# baseline 1.1 s (1.2 s keeping every run).
D2=$T/ds2
cp -r "$D" "$D2"
python3 -c "
import json, sys
json.dump({'app': 'a', 'point_rule': 'fastest', 'baseline': {'runtime_s': [10, 11, 40]},
           'configs': [{'id': 'B1000-P1-M1', 'runtime_s': [12, 15, 16]},
                       {'id': 'B2000-P1-M10', 'runtime_s': [13, 50, 14]}]},
          open(sys.argv[1], 'w'))" "$D2/campaign_a.json"
printf 'alone a - 2 1.2\nalone a - 3 1.7\n' >>"$D2/runs.txt"
for p in fastest:3 median:3 median:0; do
    "$NV" labmodel --dataset "$D2" --variant latency --out "$T/lat-${p%:*}${p#*:}.json" \
        --campaign-point "${p%:*}" --stall-ratio "${p#*:}" \
        --json-summary "$T/lat-${p%:*}${p#*:}.sum" 2>"$T/lat.err" ||
        bad "labmodel --campaign-point $p failed: $(cat "$T/lat.err")"
done
grep -q "campaign_b.json: absent" "$T/lat.err" && [ "$(wc -l <"$T/lat.err")" = 1 ] ||
    bad "an app without a campaign file is named on one line: $(cat "$T/lat.err")"
"$NV" labmodel --dataset "$D2" --variant counters --out "$T/cf.json" --campaign-point fastest \
    2>/dev/null || bad "labmodel --variant counters --campaign-point fastest failed"
"$NV" labmodel --dataset "$D2" --variant latency --out "$T/aw.json" --alone-stall-ratio 0 \
    --json-summary "$T/aw.sum" || bad "labmodel --variant latency as written failed"
rm "$D2/model.json"
"$NV" labmodel --dataset "$D2" --json-summary "$T/only.sum" ||
    bad "labmodel with only --json-summary (no model file) failed"
cp "$D/model.json" "$D2/model.json"
python3 - "$T" <<'PY' || fail=1
import json, sys
t = sys.argv[1]
fail = 0
def check(ok, what):
    global fail
    print(("ok - " if ok else "NOT OK - ") + what)
    fail |= not ok
def close(x, y, tol=1e-12):
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(close(a, b, tol) for a, b in zip(x, y))
    return x is not None and abs(x - y) <= tol * max(1.0, abs(y))
def load(n):
    return json.load(open(f"{t}/{n}"))
def app(m, k):
    return next(a for a in m["apps"] if a["key"] == k)
def curve(c, x="utilization"):
    return [[p[x], p["slowdown_pct"]] for p in c]
U1 = 0.5 * 31 / 30
cm, wm, nm, s = load("counters.json"), load("wait.json"), load("nearest.json"), load("counters.sum")
cu = [c["utilization"] for c in cm["training_set"]]
check(close(cu, [U1, 0.2]), f"a configuration's U: the busier end, offered, trimmed ({cu})")
check(all("queue_wait_us" not in c for c in cm["training_set"]), "counters: no queue wait placed")
a, b = app(cm, "a"), app(cm, "b")
check(close(a["utilization_profile"], [0.01, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8]) and
      close(a["utilization"], 0.40125) and a["utilization_source"] == "counters",
      f"a's octiles over its timed window, the final read left out ({a['utilization_profile']}, "
      f"U {a['utilization']})")
check(close(curve(a["compression"]["fit"]), [[0.2, 10], [U1, 40]]),
      f"a's slowdowns refitted on the counters' U ({curve(a['compression']['fit'])})")
check(b["utilization"] == 0.44 and "utilization_profile" not in b and
      close(curve(b["compression"]["fit"]), [[0.2, 25], [U1, 25]]),
      f"b without a counter file keeps its U; its violators pool to 25 % "
      f"({curve(b['compression']['fit'])})")
check(cm["bottleneck"]["route"] == "counters" and s["configs_moved"] == 2,
      "the route is counters, two configurations moved")
cw = [c["queue_wait_us"] for c in wm["training_set"]]
check(close(cw, [2000, 500]), f"a configuration's W: the longer wait, trimmed ({cw})")
qa, qb = app(wm, "a")["queue_wait"], app(wm, "b")["queue_wait"]
check(close(qa["profile_us"], [400, 500, 600, 700, 900, 1000, 1100, 1200]) and
      close(curve(qa["fit"], "wait_us"), [[500, 10], [2000, 40]]),
      f"a's wait octiles and its slowdowns against W ({qa['profile_us']})")
check("profile_us" not in qb and close(curve(qb["fit"], "wait_us"), [[500, 25], [2000, 25]]),
      f"b: no wait profile, its points pooled ({curve(qb['fit'], 'wait_us')})")
nc = [[c["utilization"], c["queue_wait_us"]] for c in nm["training_set"]]
check(close(nc, [[U1, 2000], [0.2, 500]]), f"nearest: each configuration at its joint mean ({nc})")
jw = app(nm, "a")["joint_windows"]
check(jw["window_s"] == 0.5 and close(jw["utilization"], [0.1525, 0.55], 1e-6) and
      close(jw["queue_wait_us"], [550, 950], 1e-6) and "joint_windows" not in app(nm, "b"),
      f"a's joint windows, a one-step window dropped ({jw})")
sa = next(x for x in s["apps"] if x["app"] == "a")
check(sa["joint_windows"] == 2 and close(sa["queue_wait_mean_us"], 800) and sa["counter_files"] == 1,
      f"the summary: a's windows, mean wait, counter files ({sa['joint_windows']}, "
      f"{sa['queue_wait_mean_us']}, {sa['counter_files']})")
sc = s["configs"][0]
check(close(sc["utilization"], U1) and sc["utilization_steps"] == 8 and sc["queue_wait_steps"] == 9
      and s["nearest"]["available"] is True,
      f"the summary: the first configuration's U over 8 steps, W over 9 ({sc})")
w5 = load("w5.sum")
sa5 = next(x for x in w5["apps"] if x["app"] == "a")
check(close(sa5["queue_wait_profile_us"], [550, 950, 1200]) and close(sa5["queue_wait_mean_us"], 900),
      f"--wait-window-s 0.5: a's waits are the windows' means ({sa5['queue_wait_profile_us']})")
def sl(m, app):
    return [next(s["slowdown_pct"] for s in c["slowdowns"] if s["app"] == app)
            for c in m["training_set"]]
for name, want in (("fastest3", [20, 30]), ("median3", [300 / 7, 200 / 7]),
                   ("median0", [400 / 11, 300 / 11])):
    m = load(f"lat-{name}.json")
    check(close(sl(m, "a"), want, 1e-9) and close(sl(m, "b"), [20, 30]),
          f"--campaign-point {name}: a's points {sl(m, 'a')} (want {want}), b's kept {sl(m, 'b')}")
s = load("lat-median3.sum")
pa = next(x for x in s["campaign_points"] if x["app"] == "a")
check(pa["baseline_stalled_rounds"] == [3] and
      [p["stalled_rounds"] for p in pa["points"]] == [[], [2]] and
      [p["as_written_pct"] for p in pa["points"]] == [40, 10],
      f"the summary names the stalled rounds and the points as written ({pa})")
check(sl(load("aw.json"), "a") == [40, 10], "as written: a keeps 40 % and 10 %")
fa = next(a for a in load("cf.json")["apps"] if a["key"] == "a")["compression"]["fit"]
check(close([p["slowdown_pct"] for p in fa], [25, 25]),
      f"counters on the fastest points: a's (0.2, 30) and (U1, 20) pool to 25 % ({fa})")
al = next(x for x in s["alone"] if x["app"] == "a")
check(abs(al["baseline_s"] - 1.1) < 1e-12 and al["left_out_s"] == [1.7] and al["runs"] == 3
      and al["fastest_s"] == 1.0 and al["median_all_s"] == 1.2,
      f"a's alone baseline leaves out 1.7 s, over 1.5 times 1.0 s ({al})")
only = load("only.sum")
check(only["variant"] is None and only["model"] is None and only["alone"] == s["alone"],
      "--json-summary alone: no model read, the same alone baselines")
al0 = next(x for x in load("aw.sum")["alone"] if x["app"] == "a")
check(al0["baseline_s"] == 1.2 and al0["left_out_s"] == [],
      f"--alone-stall-ratio 0 keeps every run ({al0})")
sys.exit(fail)
PY
# answers: netvar loads what it built
"$NV" predict --model "$T/nearest.json" --app a --with b --min-samples 1 >"$T/p" 2>&1 ||
    bad "netvar predict on the nearest variant: $(cat "$T/p")"
# the nearest variant needs every configuration's counter file
mv "$D/cb_2000:1:10.counters.json" "$T/cb2"
"$NV" labmodel --dataset "$D" --variant nearest --out "$T/n2.json" --json-summary "$T/n2.sum" \
    >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "2000:1:10" "$T/err" && [ ! -e "$T/n2.json" ] ||
    bad "nearest without cb_2000:1:10: exit $rc, $(cat "$T/err")"
"$NV" labmodel --dataset "$D" --variant counters --out "$T/c2.json" --json-summary "$T/c2.sum" ||
    bad "counters without one configuration's file"
python3 -c "
import json, sys
s = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
ok = s['nearest'] == {'available': False, 'missing': '2000:1:10'} and s['configs_moved'] == 1 \
     and m['training_set'][1]['utilization'] == 0.1
sys.exit(0 if ok else 1)" "$T/c2.sum" "$T/c2.json" ||
    bad "a configuration without its file keeps the base U, and the summary says nearest cannot be built"
[ $fail = 0 ] && echo "ok - the nearest variant is refused without every configuration's counters"
mv "$T/cb2" "$D/cb_2000:1:10.counters.json"
"$NV" labmodel --dataset "$D2" --variant latency --out "$T/r.json" --stall-ratio 2 2>"$T/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -e "$T/r.json" ] ||
    bad "--stall-ratio without --campaign-point: exit $rc, $(cat "$T/err")"
python3 -c "
import json, sys
json.dump({'baseline': {'runtime_s': [10, 11]},
           'configs': [{'id': 'B1000-P1-M1', 'runtime_s': [12, 15, 16]}]}, open(sys.argv[1], 'w'))" \
    "$D2/campaign_a.json"
"$NV" labmodel --dataset "$D2" --variant latency --out "$T/r.json" --campaign-point median \
    >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "campaign_a.json" "$T/err" &&
    [ ! -e "$T/r.json" ] && echo "ok - a campaign file with uneven rounds: refused ($(cat "$T/err"))" ||
    bad "uneven rounds: exit $rc, $(cat "$T/err")"
# refusals: one line naming the file, exit 1, nothing written; a FIFO does not block
refuse() { # what file-to-break how
    local what=$1 f=$2
    timeout 10 "$NV" labmodel --dataset "$D" --variant wait --out "$T/r.json" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$f" "$T/err" && [ ! -e "$T/r.json" ]; then
        echo "ok - $what: refused ($(cat "$T/err"))"
    else
        bad "$what: exit $rc, $(cat "$T/err")"
    fi
}
mv "$D/dataset.json" "$T/meta"
refuse "no dataset.json" dataset.json
mv "$T/meta" "$D/dataset.json"
cp "$D/alone_a_1.counters.json" "$T/keep"
printf '{"schema": "netvar-netlab-counters", "series": [[0.1, 0, 1' >"$D/alone_a_1.counters.json"
refuse "a truncated counter file" alone_a_1.counters.json
printf '{"schema": "netvar-netlab-counters", "series": [[0.1, 0, "x", 0, 1]]}' >"$D/alone_a_1.counters.json"
refuse "a series row with a string" alone_a_1.counters.json
printf '{"schema": "netvar-model", "series": []}' >"$D/alone_a_1.counters.json"
refuse "a file of another schema" alone_a_1.counters.json
rm "$D/alone_a_1.counters.json"
mkfifo "$D/alone_a_1.counters.json"
refuse "a FIFO for a counter file" alone_a_1.counters.json
rm "$D/alone_a_1.counters.json"
mv "$T/keep" "$D/alone_a_1.counters.json"
printf 'alone a - one 1.0\n' >>"$D/runs.txt"
refuse "runs.txt with a repetition that is no number" runs.txt
"$NV" labmodel --dataset "$D" --variant sideways --out "$T/r.json" 2>"$T/err"
[ $? = 2 ] || bad "an unknown variant is bad usage"
exit $fail
