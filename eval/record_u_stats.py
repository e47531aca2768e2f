#!/usr/bin/env python3
"""record_u_stats.py - the agreement of the job records' bottleneck U with
the uplink counters' U (eval/record_u_eval.sh's runs.jsonl, one run a
line): per direction, the runs with both, Pearson r, and the mean of
record - uplink in percentage points with a 95 % bootstrap interval
(percentile, resampling runs, seeded).  Prints a table and writes --out
(schema netvar-record-u-eval).  Exit 0, or 1 when a direction has fewer
than two runs with both figures."""
import argparse
import json
import math
import random
import sys


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def bootstrap_mean(d, rng, reps=2000):
    means = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(reps))
    return means[int(0.025 * reps)], means[int(0.975 * reps) - 1]


def number(v):
    return isinstance(v, (int, float)) and math.isfinite(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", help="runs.jsonl of eval/record_u_eval.sh")
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("--seed", type=int, default=1, help="bootstrap seed")
    ap.add_argument("--rate", default="", help="the lab's uplink rate, as netlab names it")
    a = ap.parse_args()
    runs = [json.loads(s) for s in open(a.runs) if s.strip()]
    rng = random.Random(a.seed)
    out = {"schema": "netvar-record-u-eval", "runs": len(runs), "uplink_rate": a.rate,
           "unit": "U: fraction of the uplink's capacity; differences: percentage points",
           "directions": {}}
    rc = 0
    print(f"{len(runs)} runs, uplink {a.rate}: job record U against the uplink counters' U")
    print(f"{'direction':<10} {'runs':>5} {'Pearson r':>10} {'mean diff (pp)':>15}"
          f" {'95 % interval (pp)':>22} {'record U range (%)':>20}")
    for d in ("up", "down"):
        pairs = [(r["u_" + d], r["uplink_u_" + d]) for r in runs
                 if number(r.get("u_" + d)) and number(r.get("uplink_u_" + d))]
        row = {"runs": len(pairs)}
        if len(pairs) < 2:
            print(f"{d:<10} {len(pairs):>5}  fewer than two runs with both figures")
            out["directions"][d] = row
            rc = 1
            continue
        x = [p[0] for p in pairs]
        y = [p[1] for p in pairs]
        diff = [100 * (p - q) for p, q in pairs]
        r = pearson(x, y)
        lo, hi = bootstrap_mean(diff, rng)
        row.update({"pearson_r": r, "mean_diff_pp": sum(diff) / len(diff),
                    "mean_diff_ci95_pp": [lo, hi],
                    "record_u_min": min(x), "record_u_max": max(x)})
        out["directions"][d] = row
        rs = f"{r:.4f}" if r is not None else "n/a"
        print(f"{d:<10} {len(pairs):>5} {rs:>10} {row['mean_diff_pp']:>+15.2f}"
              f" {f'[{lo:+.2f}, {hi:+.2f}]':>22}"
              f" {f'{100 * min(x):.1f}-{100 * max(x):.1f}':>20}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
