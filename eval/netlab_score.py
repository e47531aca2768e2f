#!/usr/bin/env python3
"""netlab_score.py - score netvar's predictors offline on a network-lab dataset.

Usage: netlab_score.py DATASET_DIR [--netvar BIN] [--out FILE.json] [--summary FILE.json]
                        [--wait-window-s S] [--stall-ratio R] [--alone-stall-ratio R]
                        [--campaign-point fastest|median]

--wait-window-s S (default 0.1, the sampler's step) builds each app's
queue-wait profile from S-second means instead of single 100 ms steps: a
victim feels a neighbour's millisecond bursts as their mean, and only
phases longer than its own iteration as phases.  An exploration (chosen
after the 2026-11-27b run), not the product's rule: the campaign measures
each configuration's mean wait.

--stall-ratio R (default 0: each campaign's slowdowns as its model.json
holds them) re-derives every campaign point from its rounds by the median
rule (--campaign-point median, unless another is given) as `netvar
campaign --stall-ratio R` does since 2026-11-28: a run over R times the
fastest of its configuration (or of the baseline) is left out of the
median.  Datasets measured before then kept every run.  netvar re-derives
the points (`netvar labmodel --campaign-point RULE --stall-ratio R`, the
campaign's own rule on the rounds in campaign_APP.json); the points moved
are printed on stderr.

--campaign-point fastest|median (default: each campaign's slowdowns as
its model.json holds them) re-derives every campaign point from its
rounds: `fastest` takes the fastest round under the configuration against
the fastest baseline round, as `netvar campaign --point fastest` does (its
default since 2026-11-29); `median` takes the medians of the rounds that
are not stalls (--stall-ratio R, default 3 as netvar campaign's), the
rule before.
Chosen after the 2026-11-29f run, on the five eager runs 2026-11-29b to
2026-11-29f: cg's point under the all-to-all's configuration read +294,
+410, +463 and +296 % by its medians in four of them and +266 to +304 % by
its fastest rounds, beside +274 to +304 % for the pair itself.  Held out:
2026-11-29g (measured after the rule was committed, its campaigns by the
build before): the nearest configurations with history, pair held out,
0.9 / 4.5 / 22.5 pp with it and 0.9 / 4.1 / 26.6 without; the app held out
1.2 / 3.6 / 22.3 and 1.2 / 6.5 / 61.1.

--alone-stall-ratio R (default 1.5; 0 keeps every run) sets each app's
alone baseline, against which every pair and in-leaf run is measured: the
median of its alone runs, leaving out a run over R times its fastest alone
run (netvar labmodel --alone-stall-ratio R reports it, by the stall rule of
the campaign's medians).  An
alone run has no neighbour, so a run half as long again as the same
command's fastest is the app's own slow state, not its baseline: in the
2026-11-29 run the all-to-all ran 17.4, 10.9 and 18.5 s alone (10.6-10.8 s
in its fast state, 16 of 16 other alone runs on the cubic lab within 1.14
times their fastest), and the median made every slowdown of it 38 % too
small.  Each run left out is printed.  Chosen after that run; scored runs
measured before it changed nowhere else (no other alone run over 1.27
times its fastest in 18 kept runs).

Co-location tables: netvar builds every table an answer reads (`netvar
holdout`, from the dataset's pair runs, with what the answer predicts held
out), by netvar train's rule: an entry is the median of its pair's runs.
The explorations of other entry rules and of leaving stalled pair runs
out are in docs/lab-notes/.

DATASET_DIR is what `make eval-netlab` (eval/netlab_eval.sh) measured:
dataset.json, runs.txt, the counter samples of every alone, pair and
CompressionB run, the impact and campaign outputs and model.json (the
latency route, as `netvar campaign` wrote it).  Nothing here touches the
lab: a model change is re-scored in seconds.

Every prediction and every fitted history factor is netvar's own (`netvar
holdout` for the held-out answers, `netvar predict` for the placement), so
what is scored is the code job_submit runs; netvar also builds every
model variant from the dataset (`netvar labmodel`: model.json with its
campaign points made again as the campaign options above say, the lab's
counter files, and each app's alone baseline), and this script summarizes
the errors; it edits no model file.  Two model files are scored:

  latency route   model.json as measured (netvar labmodel --variant
                  latency): U of apps and CompressionB
                  configurations from ImpactB latency through inverse P-K
  counters route  the same campaign slowdowns placed on U measured at the
                  bottleneck: offered bytes/s at the uplink over its
                  capacity (bytes sent + bytes dropped, per direction, the
                  busier one), for the configurations (CompressionB alone)
                  and the apps (their alone runs, trimmed to the timed
                  window), with each app's utilization profile over time

Hold-outs (each answer uses no run of what it predicts):
  pair        leave-one-pair-out: (A,B)'s runs are absent from the
              co-location table the model file carries, and so from the
              history corrections fitted from it
  app         leave-one-app-out: no pair involving A is in the table
  neighbour   the same for B: no pair involving the neighbour is in the
              table (what a known victim's sensitivity says beside a
              neighbour nobody has run beside anything)
  repetition  repeatability: (A,B) answered by the table built from the
              other repetitions of (A,B) (how repeatable a known pair is;
              not a prediction)
A prediction that fails is counted as a failure and printed, never dropped.

The host's CPU: each counter file of a run measured since the sampler
records it (2026-11-29c on) carries the machine's CPU over its run
(/proc/stat: busy and steal, in percent of all CPU time; the lab nodes'
cgroup throttling; each whole campaign is sampled too).  On a virtual
machine, steal (the hypervisor running another guest while this one was
ready) lengthens every runtime measured then, alone or beside a neighbour,
and the network does not show it.  The scorer prints steal over the measured runs, whether a
repetition's steal explains its distance from its pair's median, and marks
the figures UNRELIABLE when more than a tenth of the measured runs lost
over 5 % of the CPU time to steal.  Older datasets say "not recorded".

The nearest configurations ("netvar nearest U,W", netvar's mechanism in
lib/model/model_bottleneck.c) match the neighbour to CompressionB
configurations in both counter axes at once, as the seed's AverageLT
matched it by mean latency.  netvar labmodel places each configuration's
mean (U, W) and each app's 0.5 s joint windows of its alone runs in the
model file; netvar answers as physics (pair and app held out) and corrected by
its history fit (pair, app or neighbour held out).  It is the headline
route when the dataset has every configuration's counter file.

Placement: the confounder's in-leaf runs (the neighbour on one node under
leaf s1, the app across both leaves: no shared port) are scored twice,
"in-leaf, placement known" (netvar predict --with-leaves 1: the
path's answer, 0 %) and "... placement unknown" (the best route with the
pair held out, as for a shared uplink).

Exit 0 when scored, 1 on a dataset problem (one line on stderr).
"""
import argparse
import json
import math
import os
import statistics as st
import subprocess
import sys
import tempfile

from netlab_stats import against_baselines

# an alone run over this many times the app's fastest alone run is its own
# slow state and is left out of its baseline (--alone-stall-ratio)
ALONE_STALL_RATIO = 1.5
# the in-leaf runs scored as predictions: with the placement, and without
# the host-CPU gate: a run that lost more than STEAL_RUN_PCT % of the
# machine's CPU time to the hypervisor was measured on a busy host; more
# than STEAL_RUNS_FRAC of the runs so marks the figures unreliable
STEAL_RUN_PCT = 5.0
STEAL_RUNS_FRAC = 0.1
PLACED = "in-leaf, placement known"
BLIND = "in-leaf, placement unknown"


def die(msg):
    print("netlab_score: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")


def quart(v):
    v = sorted(v)
    n = len(v)

    def q(p):
        if n == 1:
            return v[0]
        x = p * (n - 1)
        i = int(x)
        return v[i] + (v[min(i + 1, n - 1)] - v[i]) * (x - i)
    return q(0.25), q(0.5), q(0.75)


def pearson(x, y):
    ok = [(a, b) for a, b in zip(x, y) if math.isfinite(a) and math.isfinite(b)]
    if len(ok) < 3:
        return float("nan")
    mx = sum(a for a, _ in ok) / len(ok)
    my = sum(b for _, b in ok) / len(ok)
    sxy = sum((a - mx) * (b - my) for a, b in ok)
    sx = sum((a - mx) ** 2 for a, _ in ok)
    sy = sum((b - my) ** 2 for _, b in ok)
    return sxy / math.sqrt(sx * sy) if sx > 0 and sy > 0 else float("nan")


# ------------------------------------------------------------ counters
def uplink_loss(cnt):
    """(drops per second, fraction of packets dropped) at the uplink over a
    whole run, the lossier direction: the lab's TCP loses packets when the
    shaper's queue is full (the counts cover the run, not a timed window)"""
    best = (float("nan"), float("nan"))
    dt = (cnt or {}).get("elapsed_s") or 0
    for u in (cnt or {}).get("uplink") or []:
        drops = u.get("drops") or 0
        sent = (u.get("packets_per_s") or 0) * dt
        if dt > 0 and drops + sent > 0:
            x = (drops / dt, drops / (drops + sent))
            if not best[1] >= x[1]:
                best = x
    return best


# ------------------------------------------- nearest configurations in (U, W)
# netvar's nearest-configurations mechanism (lib/model/model_bottleneck.c)
# answers from each app's joint windows and each configuration's
# queue_wait_us, which netvar labmodel reads off the counter files into the
# model file; the answers are netvar's (netvar holdout)
NEAREST_C = "netvar nearest U,W+history"
NEAREST_C_PHYS = "netvar nearest U,W (physics)"
# the app without its campaign (issue 48): its one profiled alone run and
# the fabric's response answer; the neighbours' alone runs as for the others
PROFILE_N = "netvar nearest U,W, profile route"
PROFILE_N_HIST = "netvar nearest U,W, profile+history"
PROFILE_W = "counters wait|share, profile route"
NO_CAMPAIGN = "its campaign"  # the hold-out's name in the tables
NO_CAMPAIGN_PAIR = "campaign, pair"


# ------------------------------------------------------------ host CPU
def host_cpu(cnt):
    """(steal %, busy %, the busiest node cgroup's throttled ms per second)
    of a counter file's host record; None without one (older datasets) or
    when the sampler could not read /proc/stat"""
    h = (cnt or {}).get("host")
    c = (h or {}).get("cpu_pct")
    if not c or c.get("steal") is None:
        return None
    el = (cnt or {}).get("elapsed_s") or 0
    thr = max((g.get("throttled_ms") or 0 for g in h.get("cgroups") or []), default=0.0)
    return c["steal"], c.get("busy", float("nan")), thr / el if el > 0 else float("nan")


def node_throttle(cnt, nodes):
    """ms per second the busiest of the named node cgroups spent throttled
    for its CPU quota over a counter file's window (None: not recorded)"""
    el = (cnt or {}).get("elapsed_s") or 0
    g = [x.get("throttled_ms") or 0 for x in (((cnt or {}).get("host") or {}).get("cgroups") or [])
         if x.get("cgroup") in nodes]
    return max(g) / el if g and el > 0 else None


def host_report(ds):
    """the host's CPU over the measured runs (see the module's text)"""
    runs = []   # (kind, label, steal, busy, throttled ms/s, deviation pp or None)
    pair_med = {k: st.median(x for _, x in v) for k, v in ds.pairs.items()}
    for k, a, b, r, t in ds.runs:
        name = {"alone": f"alone_{a}_{r}.counters.json",
                "pair": f"pair_{a}_{b}_{r}.out.counters.json",
                "inleaf": f"inleaf_{a}_{r}.out.counters.json"}.get(k)
        h = host_cpu(ds.counters(name)) if name else None
        dev = None
        if k == "alone":
            dev = (t - ds.base[a]) / ds.base[a] * 100
        elif k == "pair":
            dev = (t - ds.base[a]) / ds.base[a] * 100 - pair_med[(a, b)]
        runs.append((k, f"{k} {a}" + (f" beside {b}" if k == "pair" else "") + f" #{r}", h, dev))
    for a in ds.apps:
        runs.append(
            ("impact",
             f"impact {a} (ImpactB beside it)",
             host_cpu(
                 ds.counters(f"impact_{a}.counters.json")),
                None))
    for a in ds.apps:
        runs.append(("campaign", f"campaign {a} (every round)", host_cpu(
            ds.counters(f"campaign_{a}.counters.json")), None))
    for c in ds.meta["configs"]:
        runs.append(
            ("config",
             f"config {c} (CompressionB, ImpactB)",
             host_cpu(
                 ds.counters(f"cb_{c}.counters.json")),
                None))
    have = [x for x in runs if x[2] is not None]
    out = {"runs": len(runs), "recorded": len(have), "steal_run_pct": STEAL_RUN_PCT,
           "steal_runs_frac": STEAL_RUNS_FRAC, "rerun": rerun_list(ds.dir)}
    if not have:
        out["reliable"] = None
        return out
    steal = [x[2][0] for x in have]
    over = [x for x in have if x[2][0] > STEAL_RUN_PCT]
    q1, q2, q3 = quart(steal)
    out.update({"steal_pct": {"median": q2, "q1": q1, "q3": q3, "max": max(steal),
                              "mean": st.mean(steal)},
                "busy_pct_median": st.median(x[2][1] for x in have),
                "throttled_ms_per_s_median": st.median(x[2][2] for x in have),
                "over": len(over),
                "worst": [{"run": x[1], "steal_pct": x[2][0], "deviation_pp": x[3]}
                          for x in sorted(have, key=lambda x: -x[2][0])[:5]],
                "reliable": len(over) <= STEAL_RUNS_FRAC * len(have)})
    # does steal explain a repetition's distance from its pair's median?
    pr = [(x[2][0], abs(x[3])) for x in have if x[0] == "pair" and x[3] is not None]
    out["pearson_steal_vs_pair_spread"] = pearson(
        [p[0] for p in pr], [p[1] for p in pr]) if len(pr) > 2 else float("nan")
    al = [(x[2][0], x[3]) for x in have if x[0] == "alone"]
    out["pearson_steal_vs_alone_excess"] = pearson(
        [p[0] for p in al], [p[1] for p in al]) if len(al) > 2 else float("nan")
    return out


def rerun_list(d):
    """the runs measured once more because the host stole CPU time during
    the first attempt (netlab_eval.sh rerun.txt, since 2026-11-29d); None
    when the dataset has no such list"""
    p = os.path.join(d, "rerun.txt")
    if not os.path.exists(p):
        return None
    out = []
    with open(p) as f:
        for line in f:
            x = line.split()
            if len(x) == 6:
                try:
                    out.append({"kind": x[0], "app": x[1], "with": x[2], "rep": int(x[3]),
                                "steal_pct": float(x[4]), "first_runtime_s": float(x[5])})
                except ValueError:
                    die(f"{p}: '{line.strip()[:80]}': not kind app with rep steal runtime")
    return out


def print_host_report(h):
    print("\nthe host's CPU during the measured runs (/proc/stat in each run's counter file)")
    if h.get("rerun") is None:
        print("  runs measured once more after a burst of steal: none "
              "(measured before the eval did so)")
    else:
        print(f"  runs measured once more after a burst of steal: {len(h['rerun'])}" + "".join(
            f"; {x['kind']} {x['app']}" + (f" beside {x['with']}" if x["kind"] == "pair" else "")
            + f" #{x['rep']} (first attempt {x['steal_pct']:.1f} % stolen, "
            f"{x['first_runtime_s']:.2f} s)"
            for x in h["rerun"][:5]) + ("; ..." if len(h["rerun"]) > 5 else ""))
    if not h["recorded"]:
        print(f"  not recorded: none of the {h['runs']} runs' counter files has the host's CPU "
              "(measured before the sampler recorded it)")
        return
    s = h["steal_pct"]
    print(f"  runs with the host's CPU: {h['recorded']} of {h['runs']}")
    print(f"  stolen by the hypervisor, percent of all CPU time: median {s['median']:.1f}, "
          f"Q1 {s['q1']:.1f}, Q3 {s['q3']:.1f}, max {s['max']:.1f}, mean {s['mean']:.1f}; "
          f"host busy (steal included) median {h['busy_pct_median']:.1f} %")
    print(f"  the busiest node cgroup throttled for its CPU quota: median "
          f"{h['throttled_ms_per_s_median']:.1f} ms per s")
    for w in h["worst"]:
        dv = "" if w["deviation_pp"] is None else (
            f" (runtime {w['deviation_pp']:+.1f} pp from its "
            f"{'baseline' if w['run'].startswith('alone') else 'pair median'})")
        print(f"  {w['run']}: steal {w['steal_pct']:.1f} %{dv}")
    print(f"  Pearson, a pair repetition's steal against its distance from the pair's median: "
          f"{h['pearson_steal_vs_pair_spread']:.2f}; an alone run's steal against its excess over "
          f"the baseline: {h['pearson_steal_vs_alone_excess']:.2f}")
    if h["reliable"]:
        print(f"  {h['over']} of {h['recorded']} runs lost over {h['steal_run_pct']:g} % to steal "
              f"(at most a tenth): the host did not confound the figures")
    else:
        print(f"  UNRELIABLE: {h['over']} of {h['recorded']} runs lost over "
              f"{h['steal_run_pct']:g} % of the machine's CPU time to the hypervisor (more than a "
              "tenth of the runs): their runtimes carry time the network did not take; read the "
              "figures above with that margin")


# ------------------------------------------------------------ dataset
class Dataset:
    def __init__(self, d):
        self.dir = d
        self.meta = load(os.path.join(d, "dataset.json"))
        self.apps = [a["name"] for a in self.meta["apps"]]
        self.model = load(os.path.join(d, "model.json"))
        self._counters = {}
        self.runs = []
        with open(os.path.join(d, "runs.txt")) as f:
            for line in f:
                p = line.split()
                if len(p) == 5:
                    self.runs.append((p[0], p[1], p[2], int(p[3]), float(p[4])))

    def set_baselines(self, lab):
        """each app's alone baseline as netvar labmodel set it (its
        --json-summary's alone), one line for each app that had runs left
        out, and every pair and in-leaf run against it"""
        self.base, self.alone_left_out = baseline_lines(lab)
        missing = [a for a in self.apps if a not in self.base]
        if missing:
            die(f"{self.dir}/runs.txt: no alone run of {', '.join(missing)}")
        self.pairs = {}   # (a, b) -> [(rep, pct)]
        self.inleaf = {}
        for k, a, b, r, t in self.runs:
            if k in ("pair", "inleaf"):
                (self.pairs if k == "pair" else self.inleaf).setdefault((a, b), []).append(
                    (r, (t - self.base[a]) / self.base[a] * 100))

    def counters(self, name):
        """a counter file, read once (the scorer's passes all read them only)"""
        if name not in self._counters:
            p = os.path.join(self.dir, name)
            self._counters[name] = load(p) if os.path.exists(p) else None
        return self._counters[name]

    def app_loss(self, a):
        """uplink_loss over a's alone runs: their means (NaN: none)"""
        got = []
        for k, x, _b, r, _t in self.runs:
            if k == "alone" and x == a:
                c = self.counters(f"alone_{a}_{r}.counters.json")
                if c:
                    g = uplink_loss(c)
                    if g[1] == g[1]:
                        got.append(g)
        if not got:
            return float("nan"), float("nan")
        return st.mean(g[0] for g in got), st.mean(g[1] for g in got)

    def uplink_reads(self):
        """how the sampler read the uplink in this dataset's counter files:
        "jittered", "fixed" (before the jitter: a periodic load can alias),
        "mixed", or "none" (no counter file)"""
        kinds = set()
        for name in sorted(os.listdir(self.dir)):
            if name.endswith(".counters.json"):
                c = self.counters(name)
                kinds.add("jittered" if (c or {}).get("gaps") else "fixed")
        return "none" if not kinds else kinds.pop() if len(kinds) == 1 else "mixed"


def baseline_lines(lab):
    """each app's alone baseline from netvar labmodel's --json-summary, and
    one line for each app that had runs left out"""
    base, left = {}, []
    ratio = lab["alone_stall_ratio"]
    for x in lab["alone"]:
        if x["baseline_s"] is None:
            continue
        base[x["app"]] = x["baseline_s"]
        out = x["left_out_s"]
        if out:
            left.append(f"{x['app']} alone: {len(out)} of {x['runs']} runs over {ratio:g} times "
                        f"its fastest ({x['fastest_s']:.2f} s) left out "
                        f"({', '.join('%.2f' % v for v in out)} s): baseline "
                        f"{x['baseline_s']:.2f} s, where the median of all is "
                        f"{x['median_all_s']:.2f} s")
    return base, left


def default_netvar():
    """$NETVAR, else $BUILD/bin/netvar, else the tree's build/bin/netvar"""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.environ.get("BUILD") or "build"
    return os.environ.get("NETVAR") or os.path.join(root, build, "bin", "netvar")


def alone_baselines(runs, ratio, netvar=None):
    """each app's alone baseline from runs (kind, app, with, rep, runtime_s),
    as netvar labmodel computes it (the median of its alone runs not over
    ratio times its fastest; 0: of all), and one line for each app that had
    runs left out: for a script that has the runs but no dataset yet"""
    apps = list(dict.fromkeys(r[1] for r in runs if r[0] == "alone"))
    with tempfile.TemporaryDirectory(prefix="netvar-alone-") as tmp:
        with open(os.path.join(tmp, "dataset.json"), "w") as f:
            json.dump({"schema": "netvar-netlab-dataset", "version": 1,
                       "apps": [{"name": a} for a in apps], "configs": []}, f)
        with open(os.path.join(tmp, "runs.txt"), "w") as f:
            f.writelines(" ".join(str(x) for x in r) + "\n" for r in runs if len(r) == 5)
        summ = os.path.join(tmp, "summary.json")
        r = subprocess.run([netvar or default_netvar(), "labmodel", "--dataset", tmp,
                            "--alone-stall-ratio", repr(float(ratio)), "--json-summary", summ],
                           capture_output=True, text=True)
        if r.returncode != 0:
            die("netvar labmodel (alone baselines) failed: "
                + (r.stderr.strip().splitlines() or ["no output"])[-1])
        return baseline_lines(load(summ))


def tcp_cc_named(v):
    """the lab's TCP congestion control for the MPI traffic as a dataset or a
    summary names it: "cubic" (netlab up --tcp-cc, since 2026-11-28),
    "kernel:NAME" (the host's default kept).  Datasets from before the lab
    set it do not say; they were measured on this project's lab machine,
    whose default is bbr (the all-to-all ran 19-22 s alone in all of them,
    as it does under bbr, against 10.6 s under cubic)"""
    return v if isinstance(v, str) and v else "kernel:bbr"


def tcp_cc_of(meta):
    """tcp_cc_named of a dataset.json's lab.tcp_congestion_control"""
    return tcp_cc_named(((meta or {}).get("lab") or {}).get("tcp_congestion_control"))


def mpi_eager_named(v):
    """the lab's Open MPI tcp BTL eager limit as a dataset or a summary names
    it: a number of bytes as a string (netlab up --mpi-eager, since
    2026-11-29b), or "default" (Open MPI's own 64 KiB: every dataset before
    then, which does not say)"""
    return str(v) if isinstance(v, (int, str)) and str(v).isdigit() else "default"


def lab_named(tcp_cc, eager):
    """one lab's transport, as pooling tells labs apart"""
    return f"{tcp_cc}, MPI eager {'default' if eager == 'default' else eager + ' bytes'}"


def campaign_lines(lab, point):
    """what netvar labmodel --campaign-point did to the campaign points, one
    line each: the points moved by over 1 pp (fastest), the rounds left out
    as stalls (median), and the apps without a campaign file"""
    found = []
    for x in lab.get("campaign_points") or []:
        a = x["app"]
        if not x["campaign_file"]:
            found.append(f"{a}: no campaign file: its slowdowns as model.json holds them")
            continue
        if point == "fastest":
            found += [f"{a} under {p['config']}: {p['as_written_pct']:+.0f} % -> "
                      f"{p['slowdown_pct']:+.0f} %" for p in x["points"]
                      if abs(p["slowdown_pct"] - p["as_written_pct"]) > 1]
            continue
        if x["baseline_stalled_rounds"]:
            found.append(f"{a} alone: {len(x['baseline_stalled_rounds'])} round(s) left out")
        found += [f"{a} under {p['config']}: {len(p['stalled_rounds'])} round(s) left out "
                  f"({p['as_written_pct']:+.0f} % -> {p['slowdown_pct']:+.0f} %)"
                  for p in x["points"] if p["stalled_rounds"]]
    return found


def campaign_point_rules(ds):
    """how the dataset's campaigns made their points, as they wrote them:
    'fastest', 'median' (campaigns before 2026-11-29 wrote no rule) or
    'mixed'"""
    rules = set()
    for a in ds.apps:
        try:
            with open(os.path.join(ds.dir, f"campaign_{a}.json")) as f:
                rules.add(json.load(f).get("point_rule", "median"))
        except (OSError, ValueError):
            rules.add("median")
    return rules.pop() if len(rules) == 1 else "mixed"


def cfg_u_of(cm, cid):
    return next((tr["utilization"] for tr in cm["training_set"] if tr["id"] == cid),
                float("nan"))


def netvar_models(ds, netvar, tmp, args, point, stall_ratio):
    """the model variants netvar builds from the dataset (netvar labmodel,
    the campaign points made again as point and stall_ratio say, None: as
    written): {variant: (path, the model as read)}, the nearest variant
    None when a configuration has no counter file; and what netvar
    measured (its --json-summary: the alone baselines too)"""
    measured = os.path.join(tmp, "measured.json")
    got = {}
    for v in ("latency", "counters", "wait", "nearest"):
        if v == "nearest" and not load(measured)["nearest"]["available"]:
            got[v] = None
            continue
        path = os.path.join(tmp, v + ".json")
        cmd = [netvar, "labmodel", "--dataset", ds.dir, "--variant", v, "--out", path,
               "--wait-window-s", repr(args.wait_window_s), "--alone-stall-ratio",
               repr(args.alone_stall_ratio), "--json-summary", measured]
        if point:
            cmd += ["--campaign-point", point, "--stall-ratio", repr(stall_ratio)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            die(f"netvar labmodel --variant {v} failed: "
                + (r.stderr.strip().splitlines() or ["no output"])[-1])
        got[v] = (path, load(path))
    # the profile route: every app without its campaign (its signature
    # from its profiled alone run, the fabric's response), when measured
    fabric = os.path.join(ds.dir, "fabric.json")
    have = os.path.exists(fabric) and os.path.exists(os.path.join(ds.dir, "profiled.txt"))
    for v in ("wait", "nearest"):
        got[v + "-profile"] = None
        if not have or got[v] is None:
            continue
        path = os.path.join(tmp, v + "-profile.json")
        cmd = [netvar, "labmodel", "--dataset", ds.dir, "--variant", v, "--out", path,
               "--wait-window-s", repr(args.wait_window_s), "--no-campaigns",
               "--fabric", fabric]
        r = subprocess.run(cmd, capture_output=True, text=True)
        for line in r.stderr.strip().splitlines():
            print(line, file=sys.stderr)
        if r.returncode != 0:
            die(f"netvar labmodel --variant {v} --no-campaigns failed: "
                + (r.stderr.strip().splitlines() or ["no output"])[-1])
        got[v + "-profile"] = (path, load(path))
    return got, load(measured)


# ------------------------------------------------------------ predicting
class Predictor:
    """netvar answers every prediction and every fitted factor: the model
    variants are netvar labmodel's, the co-location tables are built by
    `netvar holdout` from the dataset's pair runs, with what each answer
    predicts held out"""

    def __init__(self, netvar, tmp, ds):
        self.netvar = netvar
        self.tmp = tmp
        self.n = 0
        # every pair run, as measured: netvar builds each table from these
        self.runs = os.path.join(tmp, "pairs.runs")
        with open(self.runs, "w") as f:
            for (a, b), v in sorted(ds.pairs.items()):
                for r, x in v:
                    f.write(f"{a} {b} {r} {x!r}\n")

    def holdout(self, path, hold, predictor, ask=None):
        """netvar holdout's answers: [{app, with, [rep], measured_pct,
        predicted_pct or None, source, ...}]; dies when netvar cannot"""
        cmd = [self.netvar, "holdout", "--model", path, "--runs", self.runs, "--hold-out", hold,
               "--predictor", predictor, "--min-samples", "1"]
        if ask:
            self.n += 1
            p = os.path.join(self.tmp, f"ask{self.n}.txt")
            with open(p, "w") as f:
                f.writelines(f"{a} {b} {x!r}\n" for a, b, x in ask)
            cmd += ["--ask", p]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            die(f"netvar holdout --hold-out {hold} --predictor {predictor} failed: "
                + (r.stderr.strip().splitlines() or ["no output"])[-1])
        try:
            return json.loads(r.stdout)["answers"]
        except (ValueError, KeyError, TypeError) as e:
            die(f"netvar holdout: unreadable answer: {e}")

    def predict(self, path, a, b, predictor, extra=()):
        """one netvar predict answer: (slowdown %, source) or (None, why)"""
        r = subprocess.run([self.netvar, "predict", "--model", path, "--app", a, "--with", b,
                            "--predictor", predictor, "--min-samples", "1", *extra],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None, (r.stderr.strip().splitlines() or ["no output"])[-1]
        try:
            d = json.loads(r.stdout)
            return float(d["slowdown_pct"]), d.get("source", "?")
        except (ValueError, KeyError, TypeError) as e:
            return None, f"unreadable answer: {e}"


# what a row keeps of netvar's answer beside the prediction: the physics
# and the history factors netvar fitted on the answer's table
ANSWER_DETAIL = ("physics_pct", "sensitivity", "pressure", "utilization_used", "wait_used_us")


def answer_row(variant, holdout, ans):
    row = {"variant": variant, "holdout": holdout, "app": ans["app"], "with": ans["with"],
           "measured_pct": ans["measured_pct"], "predicted_pct": ans["predicted_pct"],
           "source": ans.get("error") if ans["predicted_pct"] is None else ans["source"]}
    if "rep" in ans:
        row["rep"] = ans["rep"]
    for k in ANSWER_DETAIL:
        if ans.get(k) is not None:
            row[k] = ans[k]
    return row


def ratio_arg(text):
    """a stall ratio option's value: 0 (keep every run) or 1.5..1000"""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v == 0 or 1.5 <= v <= 1000):
        raise argparse.ArgumentTypeError(f"{text}: not 0 or a ratio in [1.5, 1000]")
    return v


def window_arg(text):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0.1 <= v <= 60:
        raise argparse.ArgumentTypeError(f"{text}: not a number of seconds in [0.1, 60]")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="netlab_score.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1],
        usage="%(prog)s DATASET_DIR [options]")
    p.add_argument("dataset", metavar="DATASET_DIR", help="what make eval-netlab measured")
    p.add_argument("--netvar", default=os.environ.get("NETVAR", "build/bin/netvar"),
                   help="the netvar binary that answers (default $NETVAR or build/bin/netvar)")
    p.add_argument("--out", help="every answer, JSON (default DATASET_DIR/score.json)")
    p.add_argument("--summary", help="also write the summary the pool reads (eval/results/)")
    p.add_argument("--wait-window-s", type=window_arg, default=0.1, metavar="S",
                   help="queue-wait profiles from S-second means (0.1..60, default 0.1)")
    p.add_argument("--stall-ratio", type=ratio_arg, default=None, metavar="R",
                   help="re-derive campaign medians leaving out rounds over R times the fastest")
    p.add_argument("--alone-stall-ratio", type=ratio_arg, default=ALONE_STALL_RATIO,
                   metavar="R", help="alone baselines leave out runs over R times the fastest "
                   "(default 1.5; 0 keeps every run)")
    p.add_argument("--campaign-point", choices=("fastest", "median"),
                   help="re-derive every campaign point from its rounds by this rule")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv[1:])
    with tempfile.TemporaryDirectory(prefix="netvar-score-") as tmp:
        return score(args, tmp)


def score(args, tmp):
    d, netvar, point = args.dataset, args.netvar, args.campaign_point
    out_path = args.out or os.path.join(d, "score.json")
    summary_path = args.summary
    stall_ratio = args.stall_ratio or 0.0
    alone_ratio = args.alone_stall_ratio
    if not os.access(netvar, os.X_OK):
        die(f"{netvar}: not executable (build netvar, or give --netvar)")
    ds = Dataset(d)
    if point is None and stall_ratio:
        point = "median"
    if point == "median" and args.stall_ratio is None:
        stall_ratio = 3.0
    models, lab = netvar_models(ds, netvar, tmp, args, point, stall_ratio)
    ds.set_baselines(lab)
    stalls = campaign_lines(lab, point)
    for line in stalls:
        print(f"{'campaign point' if point == 'fastest' else 'stall'}: {line}", file=sys.stderr)
    cm, wm, lm = (models[v][1] for v in ("counters", "wait", "latency"))
    nvm = models["nearest"][1] if models["nearest"] else None
    paths = {id(models[v][1]): models[v][0] for v in models if models[v]}
    moved = lab["configs_moved"]
    lab_cfg = {x["config"]: x for x in lab["configs"]}
    lab_app = {x["app"]: x for x in lab["apps"]}
    measured = {k: st.median(x for _, x in v) for k, v in ds.pairs.items()}
    results = {"dataset": os.path.abspath(d), "wait_window_s": args.wait_window_s,
               "stall_ratio": stall_ratio, "stalls": stalls,
               "campaign_point": point or campaign_point_rules(ds),
               "alone_stall_ratio": alone_ratio, "alone_left_out": ds.alone_left_out,
               "pair_entry": "median",  # netvar holdout builds tables by netvar train's rule
               "alone_baseline_s": ds.base,
               "apps": ds.apps, "pairs": len(measured),
               "repetitions": ds.meta.get("repetitions"), "uplink_reads": ds.uplink_reads(),
               "tcp_cc": tcp_cc_of(ds.meta),
               "mpi_eager": mpi_eager_named(
                   ((ds.meta or {}).get("lab") or {}).get("mpi_eager_limit")),
               "rows": [], "failures": []}

    # the two routes' agreement
    lat_cfg = [tr["utilization"] for tr in ds.model["training_set"]]
    ctr_cfg = [tr["utilization"] for tr in cm["training_set"]]
    lat_app = [a["utilization"] for a in ds.model["apps"]]
    ctr_app = [a["utilization"] for a in cm["apps"]]
    routes = {"configs": [{"id": tr["id"], "u_latency": lu, "u_counters": cu}
                          for tr, lu, cu in zip(ds.model["training_set"], lat_cfg, ctr_cfg)],
              "apps": [{"app": a["key"], "u_latency": lu, "u_counters": cu}
                       for a, lu, cu in zip(ds.model["apps"], lat_app, ctr_app)],
              "pearson_configs": pearson(lat_cfg, ctr_cfg),
              "pearson_apps": pearson(lat_app, ctr_app),
              "configs_moved": moved}
    # the probe's view against the queue the sampler saw (phase-locking check):
    # ImpactB's mean one-way latency vs the uplink's mean queue wait

    def qwait(cnt):
        return max((u.get("queue_wait_us_mean") or 0 for u in (cnt or {}).get("uplink") or []),
                   default=float("nan"))
    probe = []
    for tr, c in zip(ds.model["training_set"], ds.meta["configs"]):
        probe.append({"what": "config " + tr["id"], "impactb_mean_us": tr["latency"]["mean_us"],
                      "uplink_queue_wait_us": qwait(ds.counters(f"cb_{c}.counters.json"))})
    # beside an app, ImpactB runs on the load nodes at the same time as the
    # sampler: what the host did to those nodes is read from the same window
    probe_nodes = [
        n for n in str(
            ((ds.meta or {}).get("lab") or {}).get("load_nodes") or "").split(",") if n]
    for a in ds.apps:
        imp = ds.counters(f"impact_{a}.json") or {}
        cnt = ds.counters(f"impact_{a}.counters.json")
        h = host_cpu(cnt)
        probe.append({"what": "app " + a,
                      "impactb_mean_us": (imp.get("latency") or {}).get("mean_us", float("nan")),
                      "uplink_queue_wait_us": qwait(cnt),
                      "probe_nodes_throttled_ms_per_s": node_throttle(cnt, probe_nodes),
                      "steal_pct": h[0] if h else None})
    routes["probe_vs_queue"] = probe
    routes["pearson_probe_vs_queue"] = pearson([x["impactb_mean_us"] for x in probe],
                                               [x["uplink_queue_wait_us"] for x in probe])
    results["routes"] = routes

    P = Predictor(netvar, tmp, ds)
    # (name, model, predictor, uses history): with history, each answer's
    # table holds out the pair, its app or its neighbour; without, the
    # table is empty and every hold-out is the same
    variants = ([(NEAREST_C, nvm, "queue", True), (NEAREST_C_PHYS, nvm, "queue", False)]
                if nvm else [])
    variants += [("counters wait|share+history", wm, "queue", True),
                 ("counters wait|share (physics)", wm, "queue", False),
                 ("counters queue+history", cm, "queue", True),
                 ("counters queue (physics)", cm, "queue", False),
                 ("latency queue", lm, "queue", False),
                 ("latency averagelt", lm, "averagelt", False),
                 ("latency averagestdevlt", lm, "averagestdevlt", False),
                 ("latency pdflt", lm, "pdflt", False)]
    for name, model, pred, hist in variants:
        path = paths[id(model)]
        for hold in (("pair", "app", "neighbour") if hist else ("all",)):
            for ans in P.holdout(path, hold, pred):
                results["rows"].append(answer_row(name, hold if hist else "pair and app", ans))
    # the app without its campaign: the profile route's models hold no
    # campaign of any app; the physics alone, and with the history of the
    # other pairs on top
    pn, pw = models.get("nearest-profile"), models.get("wait-profile")
    for name, mod, hold, label in ((PROFILE_N, pn, "all", NO_CAMPAIGN),
                                   (PROFILE_N_HIST, pn, "pair", NO_CAMPAIGN_PAIR),
                                   (PROFILE_W, pw, "all", NO_CAMPAIGN)):
        if mod:
            for ans in P.holdout(mod[0], hold, "queue"):
                results["rows"].append(answer_row(name, label, ans))
    results["profile_route"] = bool(pn or pw)
    # repeatability: each run answered by the table of the others
    for ans in P.holdout(paths[id(cm)], "repetition", "queue"):
        results["rows"].append(answer_row("table (repeatability)", "repetition", ans))
    # placement: the in-leaf runs kept the neighbour on one node under
    # leaf s1 while the app spanned both leaves, so the two shared no
    # port.  netvar told so (--with-leaves 1) answers from the path;
    # told nothing, it answers as for a shared uplink (the wait|share
    # route, the pair held out), which is what job_submit answered
    # before it knew the running jobs' leaf switches
    inleaf = [(a, b, st.median(x for _, x in v)) for (a, b), v in sorted(ds.inleaf.items())]
    for a, b, meas in inleaf:
        pv, src = P.predict(paths[id(wm)], a, b, "queue", extra=("--with-leaves", "1"))
        results["rows"].append({"variant": PLACED, "holdout": "pair", "app": a, "with": b,
                                "measured_pct": meas, "predicted_pct": pv, "source": src})
    if inleaf:
        for ans in P.holdout(paths[id(wm)], "pair", "queue", ask=inleaf):
            results["rows"].append(answer_row(BLIND, "pair", ans))
    results["failures"] = [r for r in results["rows"] if r["predicted_pct"] is None]

    # error tables
    groups = {}
    for row in results["rows"]:
        groups.setdefault((row["variant"], row["holdout"]), []).append(row)
    table = []
    print(f"dataset {d}: {len(ds.apps)} apps, {len(measured)} ordered pairs, "
          f"{ds.meta.get('repetitions')} repetitions; predictions by {netvar}")
    print("TCP congestion control of the MPI traffic: " + {
        "kernel:bbr": "the host's default, bbr (rate-based: it does not back off on the "
                      "uplink queue's loss)"}.get(results["tcp_cc"], results["tcp_cc"]))
    print("uplink reads: " + {
        "jittered": "at jittered instants (each gap uniform in [interval/2, 3 interval/2))",
        "fixed": "every fixed interval (the sampler before f5ca35f: a load that bursts with "
                 "a period near it is read at one phase, so a bursty configuration's wait may "
                 "be off)",
        "mixed": "some files jittered, some every fixed interval",
        "none": "no counter file"}[results["uplink_reads"]])
    print("Open MPI's tcp BTL eager limit: " + (
        "its default, 64 KiB (larger messages by rendezvous)" if results["mpi_eager"] == "default"
        else results["mpi_eager"] + " bytes (netlab up --mpi-eager)"))
    print("campaign points: " + {
        "fastest": "each configuration's fastest round against the fastest alone round",
        "median": "the medians of each configuration's rounds and of the alone rounds",
        "mixed": "the campaigns wrote different rules"}[results["campaign_point"]]
        + (" (re-derived from the rounds, --campaign-point)" if point else
           " (as the campaigns wrote them)"))
    for line in ds.alone_left_out:
        print(f"alone baseline (--alone-stall-ratio {results['alone_stall_ratio']:g}): {line}")
    print("\nabsolute error, percentage points (what was held out is named; failures count, "
          "they are not dropped)")
    print("  %-30s %-12s %5s %7s %7s %7s %7s %7s %6s" %
          ("predictor", "held out", "pairs", "median", "Q1", "Q3", "max", "mean", "failed"))
    for (name, hold), rows in groups.items():
        err = [abs(r["predicted_pct"] - r["measured_pct"]) for r in rows
               if r["predicted_pct"] is not None]
        failed = sum(1 for r in rows if r["predicted_pct"] is None)
        if err:
            q1, med, q3 = quart(err)
            ent = {"variant": name, "holdout": hold, "n": len(rows), "median_pp": med,
                   "q1_pp": q1, "q3_pp": q3, "max_pp": max(err), "mean_pp": st.mean(err),
                   "failed": failed}
            print("  %-30s %-12s %5d %7.1f %7.1f %7.1f %7.1f %7.1f %6d" %
                  (name, hold, len(rows), med, q1, q3, max(err), st.mean(err), failed))
        else:
            ent = {"variant": name, "holdout": hold, "n": len(rows), "failed": failed}
            print("  %-30s %-12s %5d %7s %7s %7s %7s %7s %6d" %
                  (name, hold, len(rows), "-", "-", "-", "-", "-", failed))
        table.append(ent)
    results["errors"] = table
    print("  (seed paper's Queue on its testbed: median 3.8 pp, mean 9.6 pp)")
    results["baselines"] = against_baselines([{"run": d, "rows": results["rows"]}], list(groups))

    for f in results["failures"][:10]:
        print(f"  FAILED: {f['variant']} ({f['holdout']}): {f['app']} beside {f['with']}: "
              f"{f['source']}")

    # netvar's answer: the nearest configurations where the model file can
    # carry them (every configuration with a counter file), else the two
    # mechanisms
    best = NEAREST_C if nvm else "counters wait|share+history"
    two = "counters wait|share+history"
    print(f"\nmeasured | predicted slowdown (%), {best}, leave-one-pair-out; "
          "row: the app, column: its neighbour")
    pred = {(r["app"], r["with"]): r["predicted_pct"] for r in results["rows"]
            if r["variant"] == best and r["holdout"] == "pair"}
    print("  %-11s" % "" + "".join("%-17s" % b for b in ds.apps))
    for a in ds.apps:
        cells = []
        for b in ds.apps:
            if (a, b) in measured:
                p = pred.get((a, b))
                cells.append("%6.1f | %-8s" %
                             (measured[(a, b)], "fail" if p is None else "%.1f" % p))
            else:
                cells.append("-")
        print("  %-11s" % a + "".join("%-17s" % c for c in cells))

    def reason_two(r):
        """what the two mechanisms read of the pair"""
        ub = next((x["u_counters"] for x in routes["apps"] if x["app"] == r["with"]), float("nan"))
        nb = next((x for x in wm["apps"] if x["key"] == r["with"]), {})
        wprof = nb.get("queue_wait", {}).get("profile_us") or [float("nan")]
        curve = next((x for x in wm["apps"] if x["key"] == r["app"]), {})
        top = curve.get("queue_wait", {}).get("fit", [{}])[-1:] or [{}]
        ua = next((x["u_counters"] for x in routes["apps"] if x["app"] == r["app"]), float("nan"))
        return (f"{r['app']} itself offers U {ua:.2f} (its share weight); "
                f"{r['with']} offers U {ub:.2f} at the uplink and makes it wait "
                f"{st.mean(wprof):.0f} us on average (octiles up to {max(wprof):.0f} us); "
                f"{r['app']}'s wait curve tops out at "
                f"{top[0].get('wait_us', float('nan')):.0f} us: "
                f"{top[0].get('slowdown_pct', float('nan')):+.1f} %; alone, {r['with']} "
                f"loses {ds.app_loss(r['with'])[1] * 100:.2f} % of the uplink's packets")

    def reason_nearest(r):
        """what netvar read of the neighbour, and what its history fit made
        of the pair (the factors fitted on the table without the pair)"""
        n = (lab_app.get(r["with"]) or {}).get("joint_windows", 0)

        def num(k, f):
            return f % r[k] if r.get(k) is not None else "-"
        return (f"{r['with']} alone over {n} windows of {lab['joint_window_s']:g} s: netvar read "
                f"U {num('utilization_used', '%.2f')}, W {num('wait_used_us', '%.0f')} us; "
                f"physics {num('physics_pct', '%+.1f')} %, {r['app']}'s sensitivity "
                f"{num('sensitivity', '%.2f')} and {r['with']}'s pressure "
                f"{num('pressure', '%.2f')}")

    def print_worst(variant, n, why, hold="pair"):
        rows = sorted((r for r in results["rows"] if r["variant"] == variant
                       and r["holdout"] == hold and r["predicted_pct"] is not None),
                      key=lambda r: -abs(r["predicted_pct"] - r["measured_pct"]))[:n]
        for r in rows:
            r = dict(r)
            reps = sorted(x for _, x in ds.pairs[(r["app"], r["with"])])
            r["repetitions_pct"] = reps
            r["reason"] = why(r)
            print(f"  {r['app']} beside {r['with']}: measured {r['measured_pct']:+.1f} % "
                  "(median of "
                  f"{'/'.join('%+.1f' % x for x in reps)}: {reps[-1] - reps[0]:.1f} pp apart), "
                  f"predicted {r['predicted_pct']:+.1f} % ({r['source']}); {r['reason']}")
            yield r

    print(f"\nworst five pairs, {best}, leave-one-pair-out")
    results["worst"] = list(
        print_worst(
            best,
            5,
            reason_nearest if best == NEAREST_C else reason_two))
    if best != two:
        print(f"\nworst three pairs, {two} (the two mechanisms: several neighbours, and a "
              "model without joint windows), leave-one-pair-out")
        results["worst_two_mechanisms"] = list(print_worst(two, 3, reason_two))
    if results["profile_route"]:
        prof = PROFILE_N if pn else PROFILE_W
        print(f"\nworst five pairs, {prof}, the app without its campaign")
        results["worst_profile"] = list(print_worst(
            prof, 5, reason_nearest if pn else reason_two, hold=NO_CAMPAIGN))
    # how far apart a pair's own repetitions lie: the measurement's own
    # noise, beside which the max error is read
    spread = sorted((max(x for _, x in v) - min(x for _, x in v), a, b)
                    for (a, b), v in ds.pairs.items() if len(v) > 1)
    if spread:
        sp = [s for s, _, _ in spread]
        print(f"  a pair's own repetitions lie {st.median(sp):.1f} pp apart (median over "
              f"{len(sp)} pairs), at most {sp[-1]:.1f} pp ({spread[-1][1]} beside {spread[-1][2]})")
        results["repetition_spread"] = {"median_pp": st.median(sp), "max_pp": sp[-1],
                                        "max_pair": [spread[-1][1], spread[-1][2]]}

    print("\ntwo routes to utilization (U in [0,1])")
    print("  %-22s %12s %12s" % ("CompressionB config", "latency P-K", "counters"))
    for x in routes["configs"]:
        print("  %-22s %12.3f %12.3f" % (x["id"], x["u_latency"], x["u_counters"]))
    print("  %-22s %12s %12s" % ("app (alone)", "latency P-K", "counters"))
    for x in routes["apps"]:
        print("  %-22s %12.3f %12.3f" % (x["app"], x["u_latency"], x["u_counters"]))
    print("  Pearson correlation: configurations %.3f, apps %.3f" %
          (routes["pearson_configs"], routes["pearson_apps"]))
    print("\nthe probe's view against the uplink queue (phase-locking check)")
    print("  %-28s %16s %20s" % ("", "ImpactB mean (us)", "uplink queue wait (us)"))
    for x in routes["probe_vs_queue"]:
        extra = ""
        if x.get("probe_nodes_throttled_ms_per_s") is not None:
            extra = "   probe's nodes throttled %5.1f ms/s, steal %4.1f %%" % (
                x["probe_nodes_throttled_ms_per_s"], x["steal_pct"] or 0)
        print(
            "  %-28s %16.1f %20.1f%s" %
            (x["what"],
             x["impactb_mean_us"],
                x["uplink_queue_wait_us"],
                extra))
    print("  Pearson correlation: %.3f" % routes["pearson_probe_vs_queue"])

    # what the wait axis does not show: loss.  A smooth configuration queues
    # without losing a packet; a bursty one, and a bursty neighbour, lose
    # packets at the same mean wait, which a latency-bound victim feels as
    # retransmissions
    loss = []
    for tr, c in zip(ds.model["training_set"], ds.meta["configs"]):
        cnt = ds.counters(f"cb_{c}.counters.json")
        if cnt:
            ps, frac = uplink_loss(cnt)
            w = lab_cfg[c]["queue_wait_us"]
            loss.append({"what": "config " + tr["id"], "u_counters": cfg_u_of(cm, tr["id"]),
                         "wait_us_mean": float("nan") if w is None else w,
                         "drops_per_s": ps, "loss_pct": frac * 100})
    for a in ds.apps:
        ps, frac = ds.app_loss(a)
        if frac == frac:
            w = (lab_app.get(a) or {}).get("queue_wait_mean_us")
            loss.append({"what": "app " + a, "u_counters": next(
                (x["u_counters"] for x in routes["apps"] if x["app"] == a), float("nan")),
                "wait_us_mean": float("nan") if w is None else w,
                "drops_per_s": ps, "loss_pct": frac * 100})
    results["loss"] = loss
    print("\nloss at the uplink (whole runs; an app alone: mean over its runs)")
    print("  %-28s %8s %14s %10s %8s" % ("", "U", "mean wait (us)", "drops/s", "loss %"))
    for x in loss:
        print("  %-28s %8.2f %14.0f %10.0f %8.2f" % (x["what"], x["u_counters"],
                                                     x["wait_us_mean"], x["drops_per_s"],
                                                     x["loss_pct"]))

    results["host_cpu"] = host_report(ds)
    print_host_report(results["host_cpu"])

    conf = []
    for (a, b), v in sorted(ds.inleaf.items()):
        conf.append({"app": a, "with": b, "inleaf_pct": st.median(x for _, x in v)})
    # a speed-up beside an in-leaf neighbour is as much not-the-network as a
    # slowdown: the gate is on the magnitude, and the message keeps the sign
    worst = max(conf, key=lambda c: abs(c["inleaf_pct"]), default=None)
    worst_signed = worst["inleaf_pct"] if worst else 0.0
    worst_conf = abs(worst_signed)
    results["confounder"] = {"runs": conf, "largest_inleaf_pct": worst_conf,
                             "largest_inleaf_signed_pct": worst_signed,
                             "reliable": worst_conf <= 3.0}
    print("\nconfounder check: the same load kept inside one leaf")
    for c in conf:
        print(f"  {c['app']} beside {c['with']} in one leaf: {c['inleaf_pct']:+.1f} %")
    if worst_conf > 3.0:
        print(f"  UNRELIABLE: an in-leaf neighbour changes an app's runtime by "
              f"{worst_signed:+.1f} % (more than 3 % either way): "
              "part of every measured slowdown is not the network; read the figures above "
              "with that margin")
    else:
        print(f"  largest in-leaf change {worst_signed:+.1f} % (within 3 % either way): the "
              "figures measure "
              "the network")

    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nresults: {out_path}")
    if summary_path:
        summ = {k: results[k] for k in (
            "wait_window_s", "stall_ratio", "stalls", "alone_stall_ratio", "alone_left_out",
            "alone_baseline_s", "apps", "pairs", "repetitions", "uplink_reads", "tcp_cc",
            "mpi_eager", "errors", "routes", "confounder", "loss", "host_cpu")}
        summ["worst"] = results["worst"]
        summ["worst_profile"] = results.get("worst_profile")
        summ["dataset_commit"] = ds.meta.get("commit")
        summ["fabric"] = ds.meta.get("fabric")
        for k in ("pair_entry", "campaign_point", "baselines"):
            if k in results:
                summ[k] = results[k]
        summ["failures"] = len(results["failures"])
        # every answer, so that runs can be pooled (eval/netlab_pool.py)
        summ["rows"] = [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
                        for r in results["rows"]]
        summ["repetition_spread"] = results.get("repetition_spread")
        summ["dataset_created"] = ds.meta.get("created")
        with open(summary_path, "w") as f:
            json.dump(summ, f, indent=1)
        print(f"summary: {summary_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
