#!/usr/bin/env python3
"""replay_validate.py - `netvar replay` against the lab's measured pairs.

For each archived netlab dataset (eval/results/netlab-*.dataset.tar.xz)
it replays the lab's own fabric in `netvar replay` (2 leaves of 2 nodes,
one uplink per leaf, every link 100 Mbit/s: the lab's tbf uplink is the
only link below line rate, so the simulator's node links, also 100 Mbit/s,
bind no tighter) with the lab apps' measured traffic, and compares each
ordered pair's simulated slowdown with the measured one.

- An app's traffic: its alone runs' uplink utilization, the busier
  direction, median over repetitions, given to netvar by --apps (netvar
  makes it the communication fraction and the bytes per phase, and
  classifies the app latency-bound by its own rule, read back from its
  --per-job output; nothing of that rule is here).
- A pair (A, B): A on nodes 0 and 2 (h1, h3: one node of each leaf), B on
  1 and 3 (h2, h4), both submitted at 0 with their trace node lists.  A's
  runtime is its measured alone runtime (median of reps); B's is its own,
  stretched to cover A's, because the lab's neighbour loops for as long
  as A runs (eval/netlab_eval.sh's beside()).
- Measured slowdown: 100 x (median of the pair's runtimes / median of
  A's alone runtimes - 1), the plain medians (not the scorer's baseline).
- Simulated: A's slowdown_pct in `netvar replay --policy none --per-job`.

Prints one line per pair and the mean absolute error per mechanism (the
victim A bandwidth-bound or latency-bound), per dataset and pooled;
--json prints the same as JSON.  Exit 1 when netvar fails or a dataset
lacks what is needed, with one line naming it.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FABRIC = ["--nodes", "4", "--leaf-nodes", "2", "--oversubscription", "2",
          "--link-gbps", "0.1"]
UPLINK_BPS = 12.5e6  # the lab's 100 Mbit/s tbf, bytes/s


def die(msg):
    print("netvar: replay_validate: " + msg, file=sys.stderr)
    sys.exit(1)


def read_dataset(top):
    """runs and the apps' alone uplink U of one unpacked dataset"""
    runs = glob.glob(os.path.join(top, "*", "runs.txt"))
    if len(runs) != 1:
        die("%s: not one */runs.txt in the dataset; nothing compared" % top)
    d = os.path.dirname(runs[0])
    alone, pair = {}, {}
    with open(runs[0]) as f:
        for no, line in enumerate(f, 1):
            w = line.split()
            if len(w) != 5:
                die("%s:%d: not \"kind app with rep runtime_s\"; nothing compared"
                    % (runs[0], no))
            kind, app, with_, _, rt = w
            if kind == "alone":
                alone.setdefault(app, []).append(float(rt))
            elif kind == "pair":
                pair.setdefault((app, with_), []).append(float(rt))
    apps = {}
    for app in alone:
        us, pk = [], []
        for path in sorted(glob.glob(os.path.join(d, "alone_%s_*.counters.json" % app))):
            with open(path) as f:
                up = json.load(f)["uplink"]
            busy = max(up, key=lambda x: x["utilization"])
            us.append(busy["utilization"])
            pk.append(busy["mean_packet_bytes"])
        if not us:
            die("%s: no alone_%s_*.counters.json; nothing compared" % (d, app))
        apps[app] = {"u": statistics.median(us),
                     "mean_packet_bytes": statistics.median(pk),
                     "alone_s": statistics.median(alone[app])}
    return os.path.basename(d), apps, pair


def replay(netvar, work, a, b, apps):
    """A's (and B's) job as `netvar replay` ran them beside each other"""
    ra = apps[a]["alone_s"]
    rb = max(apps[b]["alone_s"], ra)
    trace = os.path.join(work, "trace.csv")
    with open(trace, "w") as f:
        f.write("0,2,%.6f,%.6f,%s,0:2\n" % (ra, ra, a))
        f.write("0,2,%.6f,%.6f,%s,1:3\n" % (rb, rb, b))
    appf = os.path.join(work, "apps.txt")
    with open(appf, "w") as f:
        for k, v in apps.items():
            f.write("%s %.6f\n" % (k, v["u"]))
    cmd = [netvar, "replay", "--trace", trace, "--apps", appf, "--policy", "none",
           "--per-job", "--model", os.devnull] + FABRIC
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode:
        die("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    jobs = json.loads(p.stdout)["policies"][0]["jobs"]
    return [j for j in jobs if j["app"] == a and j["nodes"] == [0, 2]][0]


def mae(rows):
    return sum(abs(r["error_pp"]) for r in rows) / len(rows) if rows else float("nan")


def summary(rows):
    out = {"pairs": len(rows), "mae_pp": mae(rows)}
    for mech in ("bandwidth", "latency"):
        g = [r for r in rows if r["mechanism"] == mech]
        out[mech] = {"pairs": len(g), "mae_pp": mae(g),
                     "bias_pp": sum(r["error_pp"] for r in g) / len(g) if g else float("nan")}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*",
                    help="netlab-*.dataset.tar.xz (default: eval/results/netlab-2026-11-29*)")
    ap.add_argument("--netvar", default=os.environ.get("NETVAR",
                                                       os.path.join(ROOT, "build/bin/netvar")))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sets = args.datasets or sorted(glob.glob(
        os.path.join(ROOT, "eval/results/netlab-2026-11-29*.dataset.tar.xz")))
    if not sets:
        die("no datasets; nothing compared")
    rows, per = [], {}
    check = None
    with tempfile.TemporaryDirectory(prefix="netvar-validate-") as tmp:
        for k, path in enumerate(sets):
            top = os.path.join(tmp, "d%d" % k)
            os.makedirs(top)
            with tarfile.open(path) as t:
                t.extractall(top, filter="data")
            name, apps, pair = read_dataset(top)
            mine = []
            for (a, b), rts in sorted(pair.items()):
                if a not in apps or b not in apps:
                    continue
                j = replay(args.netvar, tmp, a, b, apps)
                if check is None and j["phase_alone_s"] > 0:
                    check = j["phase_bytes"] / j["phase_alone_s"]
                meas = 100 * (statistics.median(rts) / apps[a]["alone_s"] - 1)
                mine.append({"dataset": name, "victim": a, "neighbour": b,
                             "victim_u": apps[a]["u"], "neighbour_u": apps[b]["u"],
                             "victim_mean_packet_bytes": apps[a]["mean_packet_bytes"],
                             "mechanism": "latency" if j["latency_bound"] else "bandwidth",
                             "measured_pct": meas, "simulated_pct": j["slowdown_pct"],
                             "error_pp": j["slowdown_pct"] - meas})
            rows += mine
            per[name] = summary(mine)
    if check is None or abs(check / UPLINK_BPS - 1) > 0.01:
        die("the simulated uplink carries %s B/s alone, not the lab's %.4g; nothing compared"
            % (check, UPLINK_BPS))
    out = {"simulated_uplink_bytes_per_s": check, "datasets": per, "pooled": summary(rows),
           "pairs": rows,
           "measured": "median pair runtime / median alone runtime - 1 (plain medians)",
           "simulated": "netvar replay --policy none, SimGrid flow level, lab fabric"}
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    print("simulated uplink alone: %.4g B/s (lab tbf %.4g B/s)" % (check, UPLINK_BPS))
    print("%-10s %-10s %-10s %6s %6s %-9s %9s %9s %8s" % (
        "dataset", "victim", "neighbour", "U_v", "U_n", "mech", "meas%", "sim%", "err_pp"))
    for r in rows:
        print("%-10s %-10s %-10s %6.3f %6.3f %-9s %9.1f %9.1f %+8.1f" % (
            r["dataset"], r["victim"], r["neighbour"], r["victim_u"], r["neighbour_u"],
            r["mechanism"], r["measured_pct"], r["simulated_pct"], r["error_pp"]))
    print("%-10s %6s %10s %10s %10s %10s %10s" % (
        "dataset", "pairs", "MAE_pp", "bw_MAE", "bw_bias", "lat_MAE", "lat_bias"))
    for name, s in list(per.items()) + [("pooled", out["pooled"])]:
        print("%-10s %6d %10.1f %10.1f %+10.1f %10.1f %+10.1f" % (
            name, s["pairs"], s["mae_pp"], s["bandwidth"]["mae_pp"], s["bandwidth"]["bias_pp"],
            s["latency"]["mae_pp"], s["latency"]["bias_pp"]))


if __name__ == "__main__":
    main()
