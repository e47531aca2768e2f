#!/bin/bash
# lane: netlab
# test_campaign_bottleneck.sh - `netvar campaign --bottleneck` on the network
# lab: the counters route reads U and the queue wait at the uplink's own
# qdiscs while the campaign runs, and the model gets them: bottleneck.route
# "counters", the app's U, utilization profile and queue-wait profile from
# the uplink, each configuration's U from the uplink (a saturating load
# reads higher than a light one, and queues longer), the wait points of the
# queueing mechanism, the app's joint windows and each configuration's
# queue wait; netvar predict then answers by the nearest configurations.  A port
# that does not exist is refused before anything runs, naming --bottleneck,
# and the model file is left as it was.  Env: BUILD, ROOT.  Exit 0 pass, 77
# skip, 1 fail.
set -u
. "$(dirname "$0")/netlab4_lib.sh"
netlab4_up nvcampbn
timeout 120 salloc -Q -N2 -w h1,h3 --exclusive "$NV" calibrate --model "$M" --duration-s 2 \
    --interval-us 5000 >"$OUT/cal.json" 2>"$OUT/cal.err" || bad "calibrate: $(tail -n 3 "$OUT/cal.err")"
CMD="$BUILD/bin/netvar-proxy-cg --compute sleep --iters 600"
# shellcheck disable=SC2086 # CMD: the proxy and its options, one word each
timeout 300 salloc -Q -N4 -w 'h[1-4]' --exclusive "$NV" campaign --model "$M" --app cg \
    --configs 2.6e7:1:1,250:1:10 --repeat 1 --duration-s 2 --ghz 2.6 --interval-us 5000 \
    --load-nodes h2,h4 --runtime-key runtime_s --bottleneck "$BN" --json -- $CMD \
    >"$OUT/campaign.json" 2>"$OUT/campaign.err" || bad "campaign: $(tail -n 3 "$OUT/campaign.err")"
python3 - "$OUT/campaign.json" "$M" <<'PY' || bad "the counters route did not reach the campaign's output and the model"
import json, sys
c = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
def check(cond, what):
    if not cond:
        print("  failed:", what); sys.exit(1)
check(c["route"] == "counters", "campaign route counters")
check(c["app_counter_steps"] > 0 and 0 <= c["app_utilization_counters"] <= 1, "app U from the uplink")
check(len(c["app_utilization_profile"]) >= 1, "app profile")
lo, hi = c["configs"]
check(0 < lo["utilization_counters"] < hi["utilization_counters"] <= 1, "light < saturating on the counters")
check(lo["counter_steps"] > 0 and hi["counter_steps"] > 0, "steps per configuration")
check(hi["queue_wait_us"] > lo["queue_wait_us"] >= 0, "the saturating load queues longer")
check(c["wait_gauge"] == "queue_us", "a qdisc's gauge is its queue, in us")
# each port's U: the busiest step-by-step is at least each port's mean, and
# the saturating load shows on one of the two uplink ends
check(len(c["ports"]) == 2 and len(c["app_port_utilization"]) == 2, "per-port U of the app")
for x in (lo, hi):
    check(len(x["port_utilization"]) == 2, "per-port U of " + x["id"])
    check(max(x["port_utilization"]) <= x["utilization_counters"] + 1e-6, "busiest >= each port")
check(max(hi["port_utilization"]) > max(lo["port_utilization"]), "the saturating load on a port")
check(m["bottleneck"]["route"] == "counters", "model bottleneck.route")
app = next(a for a in m["apps"] if a["key"] == "cg")
check(app["utilization_source"] == "counters", "app utilization_source")
check(abs(app["utilization"] - c["app_utilization_counters"]) < 1e-6, "app U is the counters'")
check(len(app["utilization_profile"]) == len(c["app_utilization_profile"]), "model profile")
qw = app["queue_wait"]
check(len(qw["points"]) == 2 and len(qw["fit"]) >= 1 and len(qw["profile_us"]) >= 1, "queue_wait")
us = {t["id"]: t["utilization"] for t in m["training_set"]}
check(abs(us[hi["id"]] - hi["utilization_counters"]) < 1e-6, "configuration U is the counters'")
# the nearest configurations' data: the app's joint windows (U and wait over
# half seconds of its timed run) and each configuration's queue wait
jw = app["joint_windows"]
cj = c["app_joint_windows"]
check(jw["window_s"] == 0.5 == cj["window_s"], "joint windows of 0.5 s")
check(1 <= len(jw["utilization"]) == len(jw["queue_wait_us"]) == cj["kept"] <= cj["measured"],
      "joint windows kept: %s" % cj)
check(all(0 <= u <= 1 for u in jw["utilization"]) and all(w >= 0 for w in jw["queue_wait_us"]),
      "joint windows in range")
qws = {t["id"]: t["queue_wait_us"] for t in m["training_set"]}
check(abs(qws[hi["id"]] - hi["queue_wait_us"]) < 1e-3 * max(1, hi["queue_wait_us"]),
      "configuration queue_wait_us is the campaign's")
PY
"$NV" predict --model "$M" --app cg --with cg >"$OUT/pred.json" 2>"$OUT/pred.err" ||
    bad "predict: $(cat "$OUT/pred.err")"
# one neighbour with joint windows, a victim measured under every
# configuration: the nearest configurations answer
grep -q '"mechanism":"nearest-configurations"' "$OUT/pred.json" || bad "predict: not the nearest configurations: $(cat "$OUT/pred.json")"
grep -q '"source":"model:queue-nearest' "$OUT/pred.json" || bad "predict: source not model:queue-nearest: $(cat "$OUT/pred.json")"
grep -q '"wait_gauge":"queue_us"' "$OUT/pred.json" || bad "predict names no wait gauge: $(cat "$OUT/pred.json")"
# the app's report shows what the two mechanisms read of it
"$NV" report --app cg --model "$M" --json >"$OUT/rep.json" 2>"$OUT/rep.err" || bad "report --app: $(cat "$OUT/rep.err")"
python3 - "$OUT/rep.json" "$M" <<'PY' || bad "report --app does not show the mechanisms' data"
import json, sys
r = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
app = next(a for a in m["apps"] if a["key"] == "cg")
def check(cond, what):
    if not cond:
        print("  failed:", what); sys.exit(1)
check(r["bottleneck"]["wait_gauge"] == "queue_us", "report's wait gauge")
check(len(r["utilization_profile"]) == len(app["utilization_profile"]), "report's utilization profile")
check(len(r["queue_wait"]["own_profile"]) == len(app["queue_wait"]["profile_us"]), "report's own wait profile")
check(len(r["queue_wait"]["fit_wait_pct"]) == len(app["queue_wait"]["fit"]), "report's wait curve")
idle = r["bottleneck"]["idle_utilization"]
check(abs(r["share_weight"] - min(1, max(0, app["utilization"] - idle))) < 1e-4, "share weight = own U above idle")
# a campaign adds no pair: on the counters route cg is answered from its physics
check(r["history_corrections"]["sensitivity_samples"] == 0
      and r["history_corrections"]["neighbour_pressures_apply"] is False, "no pair: no neighbour pressures")
jw = app["joint_windows"]
check(r["joint_windows"]["count"] == len(jw["utilization"]) and r["nearest_victim"] is True,
      "report's joint windows and nearest victim")
check(abs(r["joint_windows"]["mean_utilization"] - sum(jw["utilization"]) / len(jw["utilization"])) < 1e-4,
      "report's mean window U")
PY
"$NV" report --app cg --model "$M" >"$OUT/rep.txt" 2>&1
grep -q "queue-wait curve p_A(W)" "$OUT/rep.txt" || bad "report --app text shows no wait curve"
grep -q "no pair of its own: as a victim it is answered from its physics" "$OUT/rep.txt" ||
    bad "report --app text does not say cg, without pairs, gets its physics"
# a port that is not there: refused before anything runs, model unchanged
sum=$(md5sum <"$M")
# shellcheck disable=SC2086 # CMD: the proxy and its options, one word each
timeout 120 salloc -Q -N4 -w 'h[1-4]' --exclusive "$NV" campaign --model "$M" --app cg \
    --configs 2.6e7:1:1 --load-nodes h2,h4 --bottleneck qdisc:nosuchdev0 -- $CMD \
    >"$OUT/bad.json" 2>"$OUT/bad.err"
rc=$?
[ "$rc" = 1 ] || bad "a missing bottleneck port: exit $rc, expected 1"
grep -q -- "--bottleneck qdisc:nosuchdev0" "$OUT/bad.err" && grep -q "nothing run" "$OUT/bad.err" ||
    bad "the error does not name the port and say nothing ran: $(cat "$OUT/bad.err")"
[ "$(md5sum <"$M")" = "$sum" ] || bad "the model changed after a refused campaign"
# a bad spec is a usage error
"$NV" campaign --model "$M" --app cg --configs 2.6e7:1:1 --bottleneck eth0 -- true >/dev/null 2>"$OUT/usage.err"
[ $? = 2 ] && grep -q "KIND:PORT" "$OUT/usage.err" || bad "--bottleneck eth0 is not a usage error: $(cat "$OUT/usage.err")"
[ $fail = 0 ] && echo "ok - campaign --bottleneck: $(python3 -c "
import json,sys; c=json.load(open(sys.argv[1]))
print('app U %.3g (%d steps), configurations U %s, queue wait %s us, routes r %s' % (c['app_utilization_counters'], c['app_counter_steps'],
  ' '.join('%.3g' % x['utilization_counters'] for x in c['configs']), ' '.join('%.0f' % x['queue_wait_us'] for x in c['configs']), c['route_agreement']))" "$OUT/campaign.json")"
exit $fail
