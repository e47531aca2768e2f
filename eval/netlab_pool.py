#!/usr/bin/env python3
"""netlab_pool.py - pool the scored answers of several network-lab runs.

Usage: netlab_pool.py SUMMARY.json [SUMMARY.json ...] [--bar PP] [--json FILE]

Each SUMMARY.json is what `eval/netlab_score.py DIR --summary FILE` wrote for
one run (eval/results/netlab-*.summary.json).  One run is 25 ordered pairs,
and its max error is one number drawn from one campaign; this puts the
answers of several runs side by side and together:

  per run   for each predictor and hold-out: answers, median, mean and max
            absolute error (pp), and how many answers are over the bar
  pooled    the same over every run's answers, with Q1 and Q3
  over      each answer over the bar: its run, the pair, measured and
            predicted, and how far apart that pair's own repetitions lay in
            that run (the measurement's own noise, beside which it is read)

Every answer was held out inside its own run (the pair's runs absent from
the table and the corrections, or the app's), so the pool is as held out as
the runs: name only runs measured after the rules they test were frozen
(eval/results/README.md says which); runs measured under different TCP
congestion control (the summary's tcp_cc, netlab up --tcp-cc) or a
different Open MPI eager limit (mpi_eager, netlab up --mpi-eager) are two
labs and are not pooled together (exit 1).  A prediction that failed counts as a
failure, never as a small error.  --bar is the max error the issue sets
(25 pp).  --json FILE writes the figures as JSON.

Exit 0 when pooled, 1 on a bad file (one line on stderr), 2 on bad usage.
"""
import json
import os
import signal
import statistics as st
import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the scorer's quartiles (the same figures) and its reading of a run's lab
from netlab_score import lab_named, mpi_eager_named, quart, tcp_cc_named  # noqa: E402
from netlab_stats import against_baselines, load_rows  # noqa: E402


def die(msg, code=1):
    print("netlab_pool: " + msg, file=sys.stderr)
    sys.exit(code)


def run_name(path):
    b = os.path.basename(path)
    return b[:-len(".summary.json")] if b.endswith(".summary.json") else b


def host_named(h):
    """a run's host-CPU record (the scorer's host_cpu) in a few words"""
    if not isinstance(h, dict) or not isinstance(h.get("recorded"), int) or not h["recorded"]:
        return "host CPU not recorded"
    med = (h.get("steal_pct") or {}).get("median")
    if not isinstance(med, (int, float)):
        return "host CPU not recorded"
    return (f"steal median {med:.1f} %, {h.get('over')} of {h['recorded']} runs over "
            f"{h.get('steal_run_pct', 5):g} %"
            + ("" if h.get("reliable") is True else ": UNRELIABLE"))


def load_run(path):
    try:
        s, rows = load_rows(path)
    except ValueError as e:
        die(str(e))
    # each pair's own repetitions: how far apart they lay in this run
    reps = {}
    for r in rows:
        if r["holdout"] == "repetition" and isinstance(r["measured_pct"], (int, float)):
            reps.setdefault((r["app"], r["with"]), []).append(r["measured_pct"])
    spread = {k: max(v) - min(v) for k, v in reps.items() if len(v) > 1}
    return {"run": run_name(path), "uplink_reads": s.get("uplink_reads", "unknown"),
            "tcp_cc": tcp_cc_named(s.get("tcp_cc")),
            "mpi_eager": mpi_eager_named(s.get("mpi_eager")),
            "lab": lab_named(tcp_cc_named(s.get("tcp_cc")), mpi_eager_named(s.get("mpi_eager"))),
            "rows": rows, "spread": spread, "host": host_named(s.get("host_cpu")),
            # how its campaign points were made (summaries before 2026-11-29g
            # name none: the medians)
            "points": s.get("campaign_point") or "median",
            # how its co-location entries were made (summaries before the
            # scorer had --pair-entry name none: the means)
            "entries": s.get("pair_entry") or "mean"}


def figures(err, failed, bar):
    if not err:
        return {"n": failed, "failed": failed}
    q1, med, q3 = quart(err)
    return {"n": len(err) + failed, "failed": failed, "median_pp": med, "q1_pp": q1,
            "q3_pp": q3, "mean_pp": st.mean(err), "max_pp": max(err),
            "over_bar": sum(1 for e in err if e > bar) + failed}


def fmt(f):
    if "median_pp" not in f:
        return "%5d %7s %7s %7s %7s %7s %5d" % (f["n"], "-", "-", "-", "-", "-", f["failed"])
    return "%5d %7.1f %7.1f %7.1f %7.1f %7.1f %5d" % (
        f["n"], f["median_pp"], f["q1_pp"], f["q3_pp"], f["mean_pp"], f["max_pp"], f["over_bar"])


def main(argv):
    paths, bar, out = [], 25.0, None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a == "--bar" and i + 1 < len(argv):
            try:
                bar = float(argv[i + 1])
            except ValueError:
                die(f"--bar '{argv[i + 1][:40]}': not a number of pp", 2)
            if not bar >= 0:
                die(f"--bar '{argv[i + 1][:40]}': must be 0 or more pp", 2)
            i += 2
        elif a == "--json" and i + 1 < len(argv):
            out = argv[i + 1]
            i += 2
        elif a.startswith("-"):
            die(f"unknown option '{a[:40]}' (see --help)", 2)
        else:
            paths.append(a)
            i += 1
    if not paths:
        die("no summary given (see --help)", 2)
    runs = [load_run(p) for p in paths]
    labs = sorted({r["lab"] for r in runs})
    if len(labs) > 1:
        die("the runs were measured on different labs (TCP congestion control, Open MPI's eager "
            "limit: " + "; ".join(f"{c}: " + ", ".join(r["run"] for r in runs if r["lab"] == c)
                                  for c in labs)
            + "): pool each on its own")

    keys = []
    for r in runs:
        for row in r["rows"]:
            k = (row["variant"], row["holdout"])
            if k not in keys:
                keys.append(k)
    result = {"bar_pp": bar, "tcp_cc": runs[0]["tcp_cc"], "mpi_eager": runs[0]["mpi_eager"],
              "lab": labs[0],
              "runs": [{"run": r["run"], "uplink_reads": r["uplink_reads"], "host": r["host"],
                        "campaign_point": r["points"], "pair_entry": r["entries"]}
                       for r in runs],
              "predictors": []}
    print(f"{len(runs)} runs: "
          + ", ".join(f"{r['run']} ({r['uplink_reads']} reads; {r['points']} campaign points; "
                      f"{r['entries']} entries; {r['host']})"
                      for r in runs)
          + f"; lab: TCP {labs[0]}")
    print(f"absolute error, percentage points; 'over' counts answers over {bar:g} pp and "
          "failures (each run's answers were held out inside that run)")
    for variant, hold in keys:
        print(f"\n{variant}, held out: {hold}")
        print("  %-28s %5s %7s %7s %7s %7s %7s %5s" %
              ("run", "n", "median", "Q1", "Q3", "mean", "max", "over"))
        ent = {"variant": variant, "holdout": hold, "per_run": [], "over_bar": []}
        pooled, pooled_failed = [], 0
        for r in runs:
            rows = [x for x in r["rows"] if (x["variant"], x["holdout"]) == (variant, hold)]
            if not rows:
                continue
            err = []
            failed = 0
            for x in rows:
                if x["predicted_pct"] is None or x["measured_pct"] is None:
                    failed += 1
                    ent["over_bar"].append({"run": r["run"], "app": x["app"], "with": x["with"],
                                            "measured_pct": x["measured_pct"],
                                            "predicted_pct": None, "failed": True})
                    continue
                e = abs(x["predicted_pct"] - x["measured_pct"])
                err.append(e)
                if e > bar:
                    ent["over_bar"].append({
                        "run": r["run"], "app": x["app"], "with": x["with"],
                        "measured_pct": x["measured_pct"], "predicted_pct": x["predicted_pct"],
                        "error_pp": e, "source": x.get("source"),
                        "repetitions_apart_pp": r["spread"].get((x["app"], x["with"]))})
            f = figures(err, failed, bar)
            f["run"] = r["run"]
            ent["per_run"].append(f)
            pooled += err
            pooled_failed += failed
            print("  %-28s %s" % (r["run"], fmt(f)))
        ent["pooled"] = figures(pooled, pooled_failed, bar)
        print("  %-28s %s" % ("pooled", fmt(ent["pooled"])))
        runs_met = sum(1 for f in ent["per_run"] if f.get("max_pp", float("inf")) <= bar
                       and not f["failed"])
        ent["runs_max_within_bar"] = runs_met
        print(f"  runs whose max is within {bar:g} pp: {runs_met} of {len(ent['per_run'])}")
        for o in ent["over_bar"]:
            if o.get("failed"):
                print(f"  over: {o['run']}: {o['app']} beside {o['with']}: prediction FAILED")
                continue
            apart = o["repetitions_apart_pp"]
            print(f"  over: {o['run']}: {o['app']} beside {o['with']}: measured "
                  f"{o['measured_pct']:+.1f} %, predicted {o['predicted_pct']:+.1f} % "
                  f"({o['error_pp']:.1f} pp; its repetitions "
                  + (f"{apart:.1f} pp apart)" if apart is not None else "not repeated)"))
        result["predictors"].append(ent)
    result["baselines"] = against_baselines(runs, keys)
    if out:
        try:
            with open(out, "w") as f:
                json.dump(result, f, indent=1)
        except OSError as e:
            die(f"{out}: {e}")
        print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main(sys.argv))
