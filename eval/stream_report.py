#!/usr/bin/env python3
"""stream_report.py - the plan, the history spools and the scoring of
'make eval-stream' (eval/stream_eval.sh).  Every answer comes from netvar:
job_submit's from the job's annotation, the answer for the neighbours a job
actually had from `netvar predict` with each trained model.  This file
only draws the stream, copies records and counts.

  plan     the stream: phase, app, nodes and arrival of every job (TSV)
  history  spools holding the baselines and the first F % of phase one
  score    the tables and OUT/stream.json (schema netvar-stream-eval)
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys

MEASURED_MIN_PCT = 10.0  # "slowed by at least 10 %"
BOOT = 2000


def node_leaf(i, nodes, leaves):
    """netlab's layout: nodes spread over leaves in order, as evenly as
    possible, the first nodes %% leaves leaves taking one more."""
    base, extra = divmod(nodes, leaves)
    first = 1
    for j in range(1, leaves + 1):
        size = base + (1 if j <= extra else 0)
        if first <= i < first + size:
            return j
        first += size
    raise ValueError(f"node h{i} outside 1..{nodes}")


def cmd_plan(a):
    rng = random.Random(a.seed)
    rows = []
    for phase, count in ((1, a.jobs // 2), (2, a.jobs - a.jobs // 2)):
        t = 0.0
        for k in range(count):
            t += rng.expovariate(1.0 / a.gap_s)
            n = rng.choice((2, 4))
            while True:
                pick = sorted(rng.sample(range(1, a.nodes + 1), n))
                if len({node_leaf(i, a.nodes, a.leaves) for i in pick}) >= 2:
                    break
            rows.append((f"p{phase}-{k + 1:03d}", phase, rng.choice(a.apps),
                         ",".join(f"h{i}" for i in pick), f"{t:.2f}"))
    print("tag\tphase\tapp\tnodes\tarrival_s")
    for r in rows:
        print("\t".join(str(x) for x in r))


def read_stream(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def cmd_history(a):
    rows = read_stream(a.stream)
    base = [r for r in rows if r["phase"] == "0"]
    one = [r for r in rows if r["phase"] == "1"]
    for f in (int(x) for x in a.fractions.split(",")):
        keep = base + one[:(len(one) * f + 99) // 100]
        dst = os.path.join(a.out, f"h{f}", "jobs")
        os.makedirs(dst, exist_ok=True)
        copied = 0
        for r in keep:
            src = os.path.join(a.spool, "jobs", r["job"])
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(dst, r["job"]), dirs_exist_ok=True)
                copied += 1
        print(f"history {f} %: {copied} job records (of {len(keep)} jobs)")


def expand(hostlist):
    """h[1-2],h5 -> h1 h2 h5 (the forms the lab's topology.conf uses)."""
    out = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", hostlist):
        m = re.fullmatch(r"([^\[]+)\[([^\]]*)\]", part)
        if not m:
            out.append(part)
            continue
        for rng in m.group(2).split(","):
            lo, _, hi = rng.partition("-")
            for i in range(int(lo), int(hi or lo) + 1):
                out.append(f"{m.group(1)}{i}")
    return out


def shape(nodes, leaf):
    """how many of the nodes sit under each leaf, in the order the node list
    meets the leaves: the ranks follow the node list, so a chain of four
    ranks with its middle two under one leaf (1+2+1) sends two flows up that
    leaf's uplink, with its first two there (2+1+1) one"""
    count = collections.Counter(leaf.get(h, "?") for h in nodes.split(","))
    return tuple(count.values())  # a Counter keeps the order of first sight


def read_topology(path):
    leaf = {}
    for line in open(path):
        m = re.search(r"SwitchName=(\S+)\s+Nodes=(\S+)", line)
        if m:
            for h in expand(m.group(2)):
                leaf[h] = m.group(1)
    return leaf


def runtime(out_dir, tag, key, rec):
    if key == "wall":
        if rec and rec.get("end_unix_s") and rec.get("start_unix_s"):
            return rec["end_unix_s"] - rec["start_unix_s"]
        return None
    try:
        text = open(os.path.join(out_dir, "jobs", tag + ".out"), errors="replace").read()
    except OSError:
        return None
    v = re.findall(rf"\b{re.escape(key)}=([0-9.]+)", text)
    return float(v[-1]) if v else None


def annotation(rec, job_file):
    """job_submit's answer: the last netvar:{...} of the record's
    annotation, else of the Comment scontrol showed at submission."""
    texts = [rec.get("annotation") or "" if rec else ""]
    try:
        texts.append(open(job_file, errors="replace").read())
    except OSError:
        pass
    for t in texts:
        found = re.findall(r"netvar:(\{[^{}]*\})", t)
        if found:
            try:
                return json.loads(found[-1])
            except ValueError:
                continue
    return None


def predict(netvar, model, app, leaves, with_apps, with_leaves):
    if not with_apps:
        return 0.0, "no neighbour"
    cmd = [netvar, "predict", "--model", model, "--app", app, "--with", ",".join(with_apps),
           "--leaves", "+".join(leaves),
           "--with-leaves", ",".join("+".join(x) for x in with_leaves)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["no answer"])[-1][:120]
    o = json.loads(p.stdout)
    v = o.get("slowdown_pct")
    return (float(v) if v is not None else None), o.get("source", "?")


def boot_mean(xs, seed=49):
    if not xs:
        return None, None, None
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(xs, k=len(xs))) for _ in range(BOOT))
    return statistics.fmean(xs), means[int(0.025 * BOOT)], means[int(0.975 * BOOT) - 1]


def fmt(m):
    mean, lo, hi = m
    return "-" if mean is None else f"{mean:.1f} [{lo:.1f}, {hi:.1f}]"


def cmd_score(a):
    rows = read_stream(os.path.join(a.out, "stream.tsv"))
    seen = {}
    for r in rows:  # a tag names the run's output file: two runs, one file
        if r["tag"] in seen:
            sys.exit(f"stream_report: {a.out}/stream.tsv: tag {r['tag']} names jobs "
                     f"{seen[r['tag']]} and {r['job']}, whose outputs share one file; "
                     "nothing scored")
        seen[r["tag"]] = r["job"]
    with open(os.path.join(a.out, "apps.tsv")) as f:
        keys = dict(line.split("\t")[:2] for line in f.read().splitlines())
    leaf = read_topology(a.topology)
    recs = {}
    for r in rows:
        try:
            with open(os.path.join(a.spool, "jobs", r["job"], "job.json")) as f:
                recs[r["job"]] = json.load(f)
        except (OSError, ValueError):
            recs[r["job"]] = None
        r["runtime_s"] = runtime(a.out, r["tag"], keys[r["app"]], recs[r["job"]])
        r["n"] = len(r["nodes"].split(","))
        r["leaves"] = sorted({leaf.get(h, "?") for h in r["nodes"].split(",")})
    # a job is slowed against its app alone under the same shape (as many of
    # its nodes under each leaf: two under one leaf load its uplink together
    # even alone); runs scored before the shapes were measured fall back to
    # the node count
    for r in rows:
        r["shape"] = shape(r["nodes"], leaf)
    base, base_n = {}, {}
    for r in rows:
        if r["phase"] == "0" and r["runtime_s"]:
            base.setdefault((r["app"], r["shape"]), []).append(r["runtime_s"])
            base_n.setdefault((r["app"], r["n"]), []).append(r["runtime_s"])
    base = {k: statistics.median(v) for k, v in base.items()}
    base_n = {k: statistics.median(v) for k, v in base_n.items()}
    models = sorted(f[:-5] for f in os.listdir(os.path.join(a.out, "models"))
                    if f.startswith("history-") and f.endswith(".json"))
    jobs = []
    for r in rows:
        if r["phase"] != "2":
            continue
        rec = recs[r["job"]]
        b = base.get((r["app"], r["shape"])) or base_n.get((r["app"], r["n"]))
        meas = (r["runtime_s"] / b - 1) * 100 if b and r["runtime_s"] else None
        ann = annotation(rec, os.path.join(a.out, "jobs", r["tag"] + ".job")) or {}
        # an app the model knows, with no running job to meet: job_submit's
        # answer is 0 % (it says so at sbatch and writes no own_pct)
        js = ann.get("own_pct")
        if js is None and ann.get("model") == "known":
            js, ann["src"] = 0.0, "no running job"
        j = dict(tag=r["tag"], job=int(r["job"]), app=r["app"], nodes=r["nodes"],
                 leaves=r["leaves"], shape="+".join(map(str, r["shape"])),
                 runtime_s=r["runtime_s"], baseline_s=b, measured_pct=meas,
                 job_submit_pct=js,
                 job_submit_source=ann.get("src") if js is not None else None,
                 job_submit_vs=ann.get("vs_job"), neighbours=[], answers={})
        if rec and rec.get("start_unix_s") and rec.get("end_unix_s"):
            s, e = rec["start_unix_s"], rec["end_unix_s"]
            for o in rows:
                ro = recs[o["job"]]
                if o is r or not ro or not ro.get("start_unix_s") or not ro.get("end_unix_s"):
                    continue
                ov = min(e, ro["end_unix_s"]) - max(s, ro["start_unix_s"])
                if e > s and ov >= a.min_overlap_frac * (e - s):
                    j["neighbours"].append(dict(job=int(o["job"]), app=o["app"], leaves=o["leaves"],
                                                overlap_s=round(ov, 2)))
        for mname in models:
            v, src = predict(a.netvar, os.path.join(a.out, "models", mname + ".json"), r["app"],
                             r["leaves"], [x["app"] for x in j["neighbours"][:32]],
                             [x["leaves"] for x in j["neighbours"][:32]])
            j["answers"][mname] = dict(pct=v, source=src)
        jobs.append(j)

    def table(name, get):
        sel = [x for x in jobs if x["measured_pct"] is not None]
        answered = [x for x in sel if get(x) is not None]
        err = [abs(get(x) - x["measured_pct"]) for x in answered]
        zero = [abs(x["measured_pct"]) for x in answered]
        big = [x for x in answered if x["measured_pct"] >= MEASURED_MIN_PCT]
        err_b = [abs(get(x) - x["measured_pct"]) for x in big]
        zero_b = [abs(x["measured_pct"]) for x in big]
        return dict(answer=name, jobs=len(sel), answered=len(answered),
                    coverage_pct=100.0 * len(answered) / len(sel) if sel else None,
                    mae_pp=boot_mean(err), predict0_mae_pp=boot_mean(zero),
                    slowed=len(big), mae_slowed_pp=boot_mean(err_b),
                    predict0_mae_slowed_pp=boot_mean(zero_b),
                    max_err_slowed_pp=max(err_b) if err_b else None)

    tables = [table("job_submit at submission (history-100)", lambda x: x["job_submit_pct"])]
    for mname in models:
        tables.append(table(f"neighbours it had, {mname}",
                            lambda x, m=mname: x["answers"][m]["pct"]))

    # The floor of any answer that is a function of the job's app and its
    # neighbours' apps: within each such group the median of the group's own
    # measured slowdowns minimises the absolute error, so no such answer does
    # better on these jobs (in-sample; the slowed jobs' floor takes the
    # median of the group's slowed jobs).  What is left above it is the
    # spread of one pair's measurements, not the model.
    def floor(sel):
        grp = {}
        for x in sel:
            grp.setdefault((x["app"], tuple(sorted(n["app"] for n in x["neighbours"]))),
                           []).append(x["measured_pct"])
        med = {k: statistics.median(v) for k, v in grp.items()}
        err = [abs(med[(x["app"], tuple(sorted(n["app"] for n in x["neighbours"])))]
                   - x["measured_pct"]) for x in sel]
        return dict(jobs=len(sel), groups=len(grp), mae_pp=boot_mean(err))
    measured = [x for x in jobs if x["measured_pct"] is not None]
    floors = dict(all=floor(measured),
                  slowed=floor([x for x in measured if x["measured_pct"] >= MEASURED_MIN_PCT]))
    sources = {}
    for x in jobs:
        s = x["job_submit_source"] or "no answer"
        sources[s] = sources.get(s, 0) + 1
    n_meas = sum(x["measured_pct"] is not None for x in jobs)
    n_slow = sum((x["measured_pct"] or 0) >= MEASURED_MIN_PCT for x in jobs)
    print(f"phase two: {len(jobs)} jobs; measured: {n_meas}; "
          f"slowed >= {MEASURED_MIN_PCT:.0f} %: {n_slow}")
    print("baselines (s, median of the alone runs, per app and nodes per leaf): "
          + ", ".join(f"{k[0]}@{'+'.join(map(str, k[1]))} {v:.2f}"
                      for k, v in sorted(base.items())))
    print("job_submit's sources: " + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    print("\nabsolute error, pp: mean [95 % bootstrap interval over jobs]; "
          "predict 0 % on the same jobs")
    print(f"{'answer':44} {'cover':>10} {'all jobs':>20} {'predict 0':>20} "
          f"{'slowed>=10%':>20} {'predict 0':>20} {'max':>6}")
    for t in tables:
        cov = f"{t['answered']}/{t['jobs']}"
        mx = "-" if t["max_err_slowed_pp"] is None else f"{t['max_err_slowed_pp']:.0f}"
        print(f"{t['answer']:44} {cov:>10} {fmt(t['mae_pp']):>20} {fmt(t['predict0_mae_pp']):>20} "
              f"{fmt(t['mae_slowed_pp']):>20} {fmt(t['predict0_mae_slowed_pp']):>20} {mx:>6}")
    print(f"{'floor: per app and neighbours apps, in-sample':44} {'':>10} "
          f"{fmt(floors['all']['mae_pp']):>20} {'':>20} {fmt(floors['slowed']['mae_pp']):>20}"
          f" ({floors['slowed']['groups']} groups of slowed jobs)")
    worst = sorted((x for x in jobs
                    if x["measured_pct"] is not None and x["job_submit_pct"] is not None),
                   key=lambda x: -abs(x["job_submit_pct"] - x["measured_pct"]))[:5]
    print("\nworst job_submit answers:")
    for x in worst:
        print(f"  {x['tag']} job {x['job']} {x['app']} on {x['nodes']}: "
              f"said {x['job_submit_pct']:+.1f} % "
              f"({x['job_submit_source']}), measured {x['measured_pct']:+.1f} %, beside "
              + (", ".join(f"{n['app']}({'+'.join(n['leaves'])})" for n in x["neighbours"])
                 or "nobody"))
    with open(os.path.join(a.out, "stream.json"), "w") as f:
        json.dump(dict(schema="netvar-stream-eval", version=1,
                       baselines_s={f"{k[0]}@{'+'.join(map(str, k[1]))}": v
                                    for k, v in base.items()},
                       sources=sources, tables=tables, floor=floors, jobs=jobs), f, indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True)
    q = sub.add_parser("plan", help="draw the stream")
    q.add_argument("--jobs", type=int, required=True)
    q.add_argument("--gap-s", type=float, required=True)
    q.add_argument("--seed", type=int, required=True)
    q.add_argument("--nodes", type=int, default=8)
    q.add_argument("--leaves", type=int, default=4)
    q.add_argument("--apps", nargs="+", required=True)
    q = sub.add_parser("history", help="spools of the first F %% of phase one")
    q.add_argument("--stream", required=True)
    q.add_argument("--spool", required=True)
    q.add_argument("--out", required=True)
    q.add_argument("--fractions", default="25,50,100")
    q = sub.add_parser("score", help="the tables and stream.json")
    q.add_argument("--out", required=True)
    q.add_argument("--spool", required=True)
    q.add_argument("--netvar", required=True)
    q.add_argument("--topology", required=True)
    q.add_argument("--min-overlap-frac", type=float, default=0.3)
    a = p.parse_args()
    {"plan": cmd_plan, "history": cmd_history, "score": cmd_score}[a.verb](a)


if __name__ == "__main__":
    sys.exit(main())
