#!/usr/bin/env python3
"""replay_bar.py - issue 51's bar through `netvar replay`: a generated year
of a 1 024-node 2:1 fat-tree (32 leaves of 32 nodes, 16 uplinks each) at
load 1.0, 5 000 jobs, for each seed and uplink routing given.

Per trace it runs no policy, Slurm's --switches, netvar's rules under each
netvar.conf given, and the isolation bound, and prints for each policy the
mean slowdown (%), the share of no policy's interference it removes (%),
the node utilization against no policy's (points) and the mean wait against
no policy's (%).  The bar: removed >= 90 %, utilization within 1 point,
mean wait within +10 %.  --feedback N has netvar replay schedule each
policy N more times, every job for its runtime plus the slowdown simulated
the time before, so a slowed job holds its nodes longer.  Every figure
is netvar's own output (--json); nothing here simulates or decides.  Exit 1 when netvar fails.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def replay(a, conf, seed, routing, policies):
    cmd = [a.netvar, "replay", "--config", conf, "--model", a.model, "--nodes", str(a.nodes),
           "--oversubscription", "2", "--jobs", str(a.jobs), "--load", str(a.load),
           "--routing", routing, "--seed", str(seed), "--policy", policies,
           "--feedback", str(a.feedback), "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"netvar: eval-replay-bar: {' '.join(cmd)} failed: {r.stderr.strip()}")
    return {p["policy"]: p for p in json.loads(r.stdout)["policies"]}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--netvar", default=os.path.join(ROOT, "build/bin/netvar"))
    p.add_argument("--model", default=os.path.join(ROOT, "tests/fixtures/jobsubmit/model.json"))
    p.add_argument("--conf", action="append",
                   help="a netvar.conf for the netvar policy (repeatable; default the "
                        "replay fixture's and eval/replay_leaf.conf)")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--routing", default="balanced,dmodk")
    p.add_argument("--nodes", type=int, default=1024)
    p.add_argument("--jobs", type=int, default=5000)
    p.add_argument("--load", type=float, default=1.0)
    p.add_argument("--feedback", type=int, default=0,
                   help="netvar replay's --feedback passes (default 0)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--save", metavar="FILE", help="also write the JSON to FILE")
    a = p.parse_args()
    confs = a.conf or [os.path.join(ROOT, "tests/fixtures/replay/netvar.conf"),
                       os.path.join(ROOT, "eval/replay_leaf.conf")]
    rows = []
    for routing in a.routing.split(","):
        for seed in (int(s) for s in a.seeds.split(",")):
            base = replay(a, confs[0], seed, routing, "none,switches,isolated")
            runs = [("none", base["none"]), ("switches", base["switches"])]
            for c in confs:
                runs.append((f"netvar {os.path.basename(c)}", replay(a, c, seed, routing,
                                                                     "netvar")["netvar"]))
            runs.append(("isolated", base["isolated"]))
            none = base["none"]
            for name, m in runs:
                rows.append(dict(
                    routing=routing, seed=seed, policy=name,
                    slowdown_mean_pct=m["slowdown_mean_pct"],
                    removed_pct=100 * (1 - m["slowdown_mean_pct"] / none["slowdown_mean_pct"])
                    if none["slowdown_mean_pct"] > 0 else None,
                    utilization_pct=m["utilization_pct"],
                    utilization_vs_none_pt=m["utilization_pct"] - none["utilization_pct"],
                    wait_mean_s=m["wait_mean_s"],
                    wait_vs_none_pct=100 * (m["wait_mean_s"] / none["wait_mean_s"] - 1),
                    contained=m["contained"]))
    doc = dict(nodes=a.nodes, jobs=a.jobs, load=a.load, feedback=a.feedback, rows=rows)
    if a.save:
        with open(a.save, "w") as out:
            json.dump(doc, out, indent=1)
    if a.json:
        json.dump(doc, sys.stdout, indent=1)
        print()
        return
    print(f"{a.nodes} nodes (2:1, 32 a leaf), {a.jobs} generated jobs at load {a.load}, "
          f"{a.feedback} feedback passes; bar: removed >= 90 %, utilization within 1 point, "
          "mean wait within +10 %")
    print(f"{'routing':9} {'seed':>4} {'policy':32} {'slowdown %':>10} {'removed %':>9} "
          f"{'util %':>7} {'vs none':>8} {'wait s':>8} {'vs none':>8} {'contained':>9}")
    for r in rows:
        rem = "-" if r["removed_pct"] is None else f"{r['removed_pct']:.1f}"
        print(f"{r['routing']:9} {r['seed']:>4} {r['policy']:32} {r['slowdown_mean_pct']:>10.3f} "
              f"{rem:>9} {r['utilization_pct']:>7.2f} {r['utilization_vs_none_pt']:>+8.2f} "
              f"{r['wait_mean_s']:>8.0f} {r['wait_vs_none_pct']:>+7.1f}% {r['contained']:>9}")
    print("\nper policy over the traces above: removed % (min / median / max), worst "
          "utilization against none (points), mean wait against none (%, median / worst), "
          "traces meeting the bar")
    for name in dict.fromkeys(r["policy"] for r in rows):
        if name == "none":
            continue
        sel = [r for r in rows if r["policy"] == name and r["removed_pct"] is not None]
        if not sel:
            continue
        rem = sorted(r["removed_pct"] for r in sel)
        ok = sum(r["removed_pct"] >= 90 and r["utilization_vs_none_pt"] >= -1
                 and r["wait_vs_none_pct"] <= 10 for r in sel)
        print(f"  {name:32} {rem[0]:6.1f} / {statistics.median(rem):6.1f} / {rem[-1]:6.1f}   "
              f"{min(r['utilization_vs_none_pt'] for r in sel):+6.2f}   "
              f"{statistics.median(r['wait_vs_none_pct'] for r in sel):+6.1f} / "
              f"{max(r['wait_vs_none_pct'] for r in sel):+6.1f}   {ok} of {len(sel)}")


if __name__ == "__main__":
    main()
