#!/usr/bin/env bash
# test_replay_smoke.sh - `netvar replay` end to end at a small size (about
# 20 s): a generated trace on a 256-node 2:1 fat-tree under every policy,
# the interference from the real simulator (netvar-replay-sim, SimGrid),
# the isolation bound at zero, netvar's rules acting; a hand-made trace of
# two jobs sharing a leaf's uplink; the simulator's aggregated flows
# against one flow per rank on a small case; the fabric from a small
# topology.conf and topology.yaml (--topology: the leaves and their sizes
# in the JSON, jobs run, trace node lists in the file's node order); bad
# input refused with one line.
set -u
cd "$ROOT" || exit 1
nv=$BUILD/bin/netvar
sim=$BUILD/bin/netvar-replay-sim
[ -x "$sim" ] || { echo "SKIP: $sim not built (libsimgrid-dev missing: make deps)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvreplay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
conf=(--config tests/fixtures/replay/netvar.conf --model tests/fixtures/jobsubmit/model.json)

out=$("$nv" replay "${conf[@]}" --nodes 256 --jobs 400 --load 1 --svg "$tmp/p.svg") || {
    echo "NOT OK - netvar replay failed: $out"; exit 1; }
python3 - "$out" "$tmp/p.svg" <<'PY' || fail=1
import json, sys
r = json.loads(sys.argv[1])
p = {x["policy"]: x for x in r["policies"]}
bad = []
if sorted(p) != ["isolated", "netvar", "none", "switches"]: bad.append("policies %s" % sorted(p))
for name, x in p.items():
    if x["ran"] + x["never_ran"] != r["jobs"]: bad.append(name + ": jobs lost")
    if not 0 < x["utilization_pct"] <= 100: bad.append(name + ": utilization")
    if not x["slowdown_p95_pct"] <= x["slowdown_max_pct"]: bad.append(name + ": p95 > max")
if not p["none"]["slowdown_mean_pct"] > 0 or not p["none"]["simulated_batches"] > 0:
    bad.append("no simulated interference without a policy")
if p["isolated"]["slowdown_max_pct"] != 0 or not p["isolated"]["multi_leaf_jobs"] > 0:
    bad.append("the isolation bound is not interference-free")
if not p["netvar"]["contained"] > 0 or not p["netvar"]["predicted_jobs"] > 0:
    bad.append("netvar's rules never acted or predicted")
if not p["netvar"]["slowdown_mean_pct"] < p["none"]["slowdown_mean_pct"]:
    bad.append("netvar's contain did not lower the mean slowdown")
svg = open(sys.argv[2]).read()
if not svg.startswith("<svg") or svg.count("<rect") != 8: bad.append("svg")
if bad:
    print("NOT OK - " + "; ".join(bad)); sys.exit(1)
print("ok - 400 jobs, 256 nodes: slowdown mean none %.2f %%, netvar %.2f %%, isolated %.2f %%" % (
    p["none"]["slowdown_mean_pct"], p["netvar"]["slowdown_mean_pct"],
    p["isolated"]["slowdown_mean_pct"]))
PY

# --feedback 1: a second pass schedules each job for its runtime plus the
# slowdown the first simulated, so slowed jobs hold their nodes longer (by
# at most their slowdown) and the isolation bound, never slowed, is as before
"$nv" replay "${conf[@]}" --nodes 256 --jobs 400 --load 1 --policy none,isolated --per-job \
    >"$tmp/fb0.json" &&
    "$nv" replay "${conf[@]}" --nodes 256 --jobs 400 --load 1 --policy none,isolated \
        --per-job --feedback 1 >"$tmp/fb1.json" || {
    echo "NOT OK - netvar replay --feedback 1 failed"; exit 1; }
python3 - "$tmp/fb0.json" "$tmp/fb1.json" <<'PY' || fail=1
import json, sys
r0, r1 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p0 = {x["policy"]: x for x in r0["policies"]}
p1 = {x["policy"]: x for x in r1["policies"]}
bad = []
if r1.get("feedback_passes") != 1 or r0.get("feedback_passes") != 0: bad.append("feedback_passes")
for k in ("wait_mean_s", "utilization_pct", "makespan_s"):
    if p0["isolated"][k] != p1["isolated"][k]: bad.append("isolated moved: " + k)
alone = {j["id"]: j["end_s"] - j["start_s"] for j in p0["none"]["jobs"] if j["ran"]}
prev = {j["id"]: j["slowdown_pct"] for j in p0["none"]["jobs"] if j["ran"]}
longer = 0
for j in p1["none"]["jobs"]:
    if not j["ran"]: continue
    held = j["end_s"] - j["start_s"]
    if held < alone[j["id"]] - 1e-6 or held > alone[j["id"]] * (1 + prev[j["id"]] / 100) + 1e-3:
        bad.append("job %d held %.1f s, alone %.1f s, slowed %.1f %%" % (
            j["id"], held, alone[j["id"]], prev[j["id"]]))
        break
    longer += held > alone[j["id"]] + 1e-6
if not longer: bad.append("no slowed job held its nodes longer")
if bad:
    print("NOT OK - --feedback: " + "; ".join(bad)); sys.exit(1)
print("ok - --feedback 1: %d jobs held their nodes longer; wait none %.0f -> %.0f s" % (
    longer, p0["none"]["wait_mean_s"], p1["none"]["wait_mean_s"]))
PY

# two 3-node jobs on 3 leaves of 2 nodes, one uplink each: both cross leaf 1's
printf '0,3,1000,1000,lulesh\n1,3,1000,1000,amg\n' >"$tmp/two.csv"
out=$("$nv" replay "${conf[@]}" --nodes 6 --leaf-nodes 2 --trace "$tmp/two.csv" \
    --policy none,isolated) || { echo "NOT OK - two-job trace: $out"; exit 1; }
python3 - "$out" <<'PY' || fail=1
import json, sys
p = {x["policy"]: x for x in json.loads(sys.argv[1])["policies"]}
if not p["none"]["slowdown_max_pct"] > 1 or p["isolated"]["slowdown_max_pct"] != 0 \
        or not p["isolated"]["wait_mean_s"] > p["none"]["wait_mean_s"]:
    print("NOT OK - two jobs sharing an uplink: %s" % p); sys.exit(1)
print("ok - two jobs sharing an uplink: %.1f %% slowdown, none once isolated (wait %.0f s)" % (
    p["none"]["slowdown_max_pct"], p["isolated"]["wait_mean_s"]))
PY

# the simulator's three ways on one case: d-mod-k routes (the default),
# uplink trunks (--trunks), SimGrid's fat-tree with one comm per rank
# (--per-rank); two jobs whose flows cross leaf 0's two uplinks, one flow
# of each on each uplink
cat >"$tmp/b.flows" <<'EOF'
fabric 4 4 2 1.25e+10 1e-06
def 1 1000000000 4 0-1 4 5
def 2 1000000000 4 2-3 8-9
batch 0 1 1
batch 1 1 2
batch 2 2 1 2
EOF
"$sim" "$tmp/b.flows" >"$tmp/agg" && "$sim" --trunks "$tmp/b.flows" >"$tmp/trunk" &&
    "$sim" --per-rank "$tmp/b.flows" >"$tmp/rank" || {
    echo "NOT OK - the simulator failed on a hand-made batch file"; exit 1; }
python3 - "$tmp/agg" "$tmp/rank" "$tmp/trunk" <<'PY' || fail=1
import sys
def ratios(path):
    t = {}
    for line in open(path):
        b, j, s = line.split()
        t[(int(b), int(j))] = float(s)
    return {j: t[(2, j)] / t[(j - 1, j)] for j in (1, 2)}
agg, rank, trunk = ratios(sys.argv[1]), ratios(sys.argv[2]), ratios(sys.argv[3])
bad = [j for j in (1, 2) if not 1.5 < rank[j] < 2.5 or abs(agg[j] / rank[j] - 1) > 0.05
       or abs(trunk[j] / rank[j] - 1) > 0.05]
if bad:
    print("NOT OK - shared/alone d-mod-k %s, trunks %s, per rank %s" % (agg, trunk, rank))
    sys.exit(1)
print("ok - shared/alone on one uplink each: d-mod-k %.3f %.3f, trunks %.3f %.3f, per rank %.3f %.3f"
      % (agg[1], agg[2], trunk[1], trunk[2], rank[1], rank[2]))
PY

# trunks count a comm as its flows: 2 flows of job 1 and 1 of job 2 on one
# uplink share it three ways, both jobs end at 3 s (1 GB at 1/3 GB/s)
printf 'fabric 2 4 1 1e9 0\ndef 1 1000000000 4 0 1 4 5\ndef 2 1000000000 2 2 6\nbatch 0 2 1 2\n' >"$tmp/w.flows"
if "$sim" --trunks "$tmp/w.flows" | awk '{ if ($3 < 2.99 || $3 > 3.01) bad = 1 } END { exit bad || NR != 2 }'; then
    echo "ok - trunks share an uplink by flows, not by comms"
else
    echo "NOT OK - trunks' weighting: $("$sim" --trunks "$tmp/w.flows" | tr '\n' ' ')"; fail=1
fi

# per-flow max-min, checked by a fluid simulation of its own: four jobs
# of a replay whose flows meet on single spine links two and three at a
# time (8 leaves of 32, 8 uplinks), all starting their phase at once;
# max-min rates per rank flow until the next flow is through, then again;
# a job's phase ends with its last flow, on d-mod-k routes (the default)
# and on trunks (within 0.1 %: SimGrid's route latencies, 1 us a link)
cat >"$tmp/m.flows" <<'EOF'
fabric 8 32 8 1.25e+10 1e-06
def 180 28800000 32 224-229 234 237-255 160-165
def 195 28800000 8 230-233 235-236 63 99
def 196 19200000 64 64-95 192-207 211 176-190
def 223 38400000 64 128-159 40-41 44 46 54-62 115-127 166-171
batch 0 4 180 195 196 223
EOF
"$sim" "$tmp/m.flows" >"$tmp/m.dmodk" && "$sim" --trunks "$tmp/m.flows" >"$tmp/m.trunks" || {
    echo "NOT OK - the simulator failed on the max-min batch"; exit 1; }
python3 - "$tmp/m.flows" "$tmp/m.dmodk" "$tmp/m.trunks" <<'PY' || fail=1
import sys
lines = [l.split() for l in open(sys.argv[1])]
per_leaf, uplinks, bw = int(lines[0][2]), int(lines[0][3]), float(lines[0][4])
jobs = {}
for w in lines[1:]:
    if w[0] == "def":
        nodes = []
        for t in w[4:]:
            a, _, b = t.partition("-")
            nodes += range(int(a), int(b or a) + 1)
        jobs[int(w[1])] = (float(w[2]), nodes)


def maxmin(trunks):
    flows = []
    for j, (_, n) in jobs.items():
        for i in range(len(n)):
            s, d = n[i], n[(i + len(n) // 2) % len(n)]
            if s // per_leaf == d // per_leaf:
                continue
            k = "t" if trunks else d % uplinks
            flows.append((j, [("n>", s), ("n<", d), ("up", s // per_leaf, k),
                              ("dn", d // per_leaf, k)]))
    full = {l: (bw * uplinks if trunks and l[0] in ("up", "dn") else bw)
            for _, r in flows for l in r}
    left = {f: jobs[flows[f][0]][0] for f in range(len(flows))}
    now, end = 0.0, {}
    while left:
        cap, rate, live = dict(full), {}, set(left)
        while live:
            use = {}
            for f in live:
                for l in flows[f][1]:
                    use[l] = use.get(l, 0) + 1
            share, link = min((cap[l] / c, l) for l, c in use.items())
            for f in [f for f in live if link in flows[f][1]]:
                rate[f] = share
                live.discard(f)
                for l in flows[f][1]:
                    cap[l] -= share
        dt = min(left[f] / rate[f] for f in left)
        now += dt
        for f in list(left):
            left[f] -= rate[f] * dt
            if left[f] <= 1e-6 * jobs[flows[f][0]][0]:
                del left[f]
                end[flows[f][0]] = now
    return end


bad = []
for path, trunks in ((sys.argv[2], False), (sys.argv[3], True)):
    want = maxmin(trunks)
    got = {int(w[1]): float(w[2]) for w in (l.split() for l in open(path))}
    bad += ["%s job %d: %g s, max-min %g s" % ("trunks" if trunks else "dmodk", j,
                                                 got.get(j, 0), want[j])
            for j in want if abs(got.get(j, 0) / want[j] - 1) > 1e-3]
if bad:
    print("NOT OK - per-flow max-min: " + "; ".join(bad))
    sys.exit(1)
print("ok - per-flow max-min of 4 jobs on shared spine links and on trunks: %s s"
      % " ".join("%.6g" % v for v in maxmin(False).values()))
PY

# a malformed batch file stops the simulator with one line naming it:
# a run "9-4" backwards, and a batch naming a job never defined
for bad in 'def 1 1e9 2 9-4' 'def 1 1e9 2 0 4\nbatch 0 2 1 7'; do
    printf 'fabric 2 4 1 1e9 0\n%b\n' "$bad" >"$tmp/bad.flows"
    if msg=$("$sim" "$tmp/bad.flows" 2>&1 >/dev/null); then
        echo "NOT OK - the simulator took a malformed batch file ($bad)"; fail=1
    elif [ "$(printf '%s\n' "$msg" | grep -c '^netvar: replay-sim: .*bad.flows:[0-9]*: ')" != 1 ]; then
        echo "NOT OK - the simulator's error on a malformed batch file: $msg"; fail=1
    else
        echo "ok - a malformed batch file refused: $msg"
    fi
done

# and so does a fabric line whose timing precision is not a number in
# (0, 1) s, or that has a word after it
for bad in 'fabric 2 4 1 1e9 0 0' 'fabric 2 4 1 1e9 0 1e-6x' 'fabric 2 4 1 1e9 0 1e-6 7'; do
    printf '%s\n' "$bad" >"$tmp/bad.flows"
    if msg=$("$sim" "$tmp/bad.flows" 2>&1 >/dev/null); then
        echo "NOT OK - the simulator took a malformed fabric line ($bad)"; fail=1
    elif [ "$(printf '%s\n' "$msg" | grep -c '^netvar: replay-sim: .*bad.flows:1: not first "fabric')" != 1 ]; then
        echo "NOT OK - the simulator's error on a malformed fabric line: $msg"; fail=1
    else
        echo "ok - a malformed fabric line refused: $bad"
    fi
done

# the lab's own fabric (eval/replay_validate.py): alltoall beside alltoall
# in the first archived dataset.  Both bandwidth-bound (U 0.8) and alike,
# so the flow model halves the victim's rate for its whole phase: the
# simulated slowdown is 100 x U (within 5 %); the tbf uplink is
# work-conserving and two TCP flows share it about evenly, so the lab
# measured +75.2 %: the simulation within 15 pp of it.
ds=eval/results/netlab-2026-11-29b.dataset.tar.xz
if [ -f "$ds" ]; then
    python3 eval/replay_validate.py --netvar "$nv" --json "$ds" >"$tmp/val.json" || {
        echo "NOT OK - eval/replay_validate.py failed on $ds"; fail=1; }
    python3 - "$tmp/val.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["pairs"] if x["victim"] == "alltoall" and x["neighbour"] == "alltoall"][0]
want = 100 * r["victim_u"]
if r["mechanism"] != "bandwidth" or abs(r["simulated_pct"] / want - 1) > 0.05 \
        or abs(r["error_pp"]) > 15:
    print("NOT OK - lab pair alltoall/alltoall: %s (want simulated %.1f %%)" % (r, want))
    sys.exit(1)
print("ok - lab pair alltoall/alltoall: simulated %.1f %%, measured %.1f %%, uplink %.4g B/s"
      % (r["simulated_pct"], r["measured_pct"], d["simulated_uplink_bytes_per_s"]))
PY
fi

# the fabric from the site's topology: topology.conf with leaves of 2, 4
# and 4 nodes (the small one first), topology.yaml with two of 4; a trace's
# node indices count the file's nodes in order (1:2 is gpu2 and cn01, two
# leaves; 3:5 is cn02 and cn04, one), the per-job nodes given back so
topo=tests/fixtures/replay/topology
printf '0,2,1000,1000,lulesh,1:2\n0,2,1000,1000,amg,3:5\n' >"$tmp/topo.csv"
cp "$topo.yaml" "$tmp/site.topo"
out_conf=$("$nv" replay "${conf[@]}" --topology "$topo.conf" --jobs 40 --policy none,netvar) &&
    out_yaml=$("$nv" replay "${conf[@]}" --topology "$topo.yaml" --jobs 40 --policy none) &&
    out_fmt=$("$nv" replay "${conf[@]}" --topology "$tmp/site.topo" --topology-format yaml \
        --jobs 40 --policy none) &&
    out_trace=$("$nv" replay "${conf[@]}" --topology "$topo.conf" --trace "$tmp/topo.csv" \
        --policy none --per-job) || {
    echo "NOT OK - netvar replay --topology failed: $out_conf $out_yaml $out_fmt $out_trace"; exit 1; }
python3 - "$topo" "$tmp/site.topo" "$out_conf" "$out_yaml" "$out_fmt" "$out_trace" <<'PY' || fail=1
import json, sys
topo, copy = sys.argv[1], sys.argv[2]
c, y, f, t = (json.loads(a) for a in sys.argv[3:7])
bad = []
def fabric(r, name, path, fmt, sizes, switches):
    fa = r["fabric"]
    want = {"source": "topology", "topology_file": path, "topology_format": fmt,
            "leaf_sizes": sizes, "leaf_switches": switches, "nodes": sum(sizes),
            "leaves": len(sizes), "leaf_nodes": max(sizes), "uplinks_per_leaf": max(sizes) // 2}
    for k, v in want.items():
        if fa.get(k) != v:
            bad.append("%s: fabric %s is %r, not %r" % (name, k, fa.get(k), v))
    for p in r["policies"]:
        if not p["ran"] > 0 or p["ran"] + p["never_ran"] != r["jobs"]:
            bad.append("%s: %s ran %d of %d jobs" % (name, p["policy"], p["ran"], r["jobs"]))
fabric(c, "conf", topo + ".conf", "conf", [2, 4, 4], ["gpu", "cpu1", "cpu2"])
fabric(y, "yaml", topo + ".yaml", "yaml", [4, 4], ["leaf1", "leaf2"])
fabric(f, "--topology-format yaml", copy, "yaml", [4, 4], ["leaf1", "leaf2"])
fabric(t, "trace", topo + ".conf", "conf", [2, 4, 4], ["gpu", "cpu1", "cpu2"])
jobs = {j["app"]: j for j in t["policies"][0]["jobs"]}
if jobs["lulesh"]["nodes"] != [1, 2] or jobs["lulesh"]["leaves"] != 2 \
        or jobs["amg"]["nodes"] != [3, 5] or jobs["amg"]["leaves"] != 1:
    bad.append("trace node lists on the topology: %s" % jobs)
if bad:
    print("NOT OK - " + "; ".join(bad)); sys.exit(1)
print("ok - --topology: conf leaves %s, yaml %s, %d and %d jobs ran; node lists in file order"
      % (c["fabric"]["leaf_sizes"], y["fabric"]["leaf_sizes"], c["policies"][0]["ran"],
         y["policies"][0]["ran"]))
PY
printf -- '- topology: f\n  flat: true\n' >"$tmp/flat.yaml"
printf '0,1,1000,1000,amg,10\n' >"$tmp/far.csv"

# bad input: one line naming it, exit 1 or 2
printf '0,3,1000,10,lulesh\n' >"$tmp/bad.csv"
ln -s "$tmp/two.csv" "$tmp/link.csv"
for c in "--trace $tmp/bad.csv:1:bad.csv:1" "--trace $tmp/link.csv:1:link.csv" \
    "--policy bogus:2:--policy" "--nodes 100:2:--leaf-nodes" "--routing x:2:--routing" \
    "--trace $tmp/two.csv --apps $tmp/bad.csv:1:bad.csv:1" \
    "--topology $topo.conf --nodes 8:2:--topology" "--topology-format yaml:2:--topology-format" \
    "--topology $tmp/flat.yaml:1:flat.yaml" "--topology $topo.yaml --topology-format conf:1:topology.yaml" \
    "--topology $topo.conf --trace $tmp/far.csv:1:far.csv"; do
    IFS=: read -r args want word _ <<<"$c"
    # shellcheck disable=SC2086
    err=$("$nv" replay "${conf[@]}" $args 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" != "$want" ] || [ "$(echo "$err" | grep -c .)" != 1 ] || ! echo "$err" | grep -q -- "$word"; then
        echo "NOT OK - '$args': exit $rc (want $want), said: $err"; fail=1
    else
        echo "ok - '$args' refused (exit $rc): $err"
    fi
done
exit $fail
