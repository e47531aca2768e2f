#!/usr/bin/env python3
"""netlab_compare.py - two sets of answers on one dataset, pair by pair.

Usage: netlab_compare.py BEFORE.json AFTER.json [--variant TEXT] [--json FILE]

BEFORE.json and AFTER.json are what `eval/netlab_score.py DIR --out FILE`
(or --summary FILE) wrote for the same network-lab dataset (every answer
both hold must have been measured the same), scored by two netvar builds:
say the commit before a rule and the commit that adds it.
For every predictor and hold-out in both, on the pairs both answered, it
prints the mean absolute error of each, and AFTER's error minus BEFORE's on
the same pairs with its 95 % bootstrap interval over pairs (below 0: AFTER
is better; the two are apart when the interval excludes 0), for all pairs
and for those measured slowed by at least 10 %, and the largest error of
each.  --variant keeps the predictors whose name contains TEXT.

A rule is tested by such a comparison only on a dataset it was not chosen
on: the dataset's own summary names the commit it was frozen at.

Exit 0 when compared, 1 on a bad file or two datasets that are not the
same (one line on stderr), 2 on bad usage.
"""
import json
import os
import signal
import sys

sys.dont_write_bytecode = True  # nothing written beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netlab_stats import SLOWED_PCT, bootstrap, interval, load_rows, paired  # noqa: E402


def die(msg, code=1):
    print("netlab_compare: " + msg, file=sys.stderr)
    sys.exit(code)


def load(path):
    try:
        s, rows = load_rows(path)
    except ValueError as e:
        die(str(e))
    out = {}
    for r in rows:
        if r["holdout"] != "repetition":  # the table's repeatability: no predictor
            out[(r["variant"], r["holdout"], r["app"], r["with"])] = (r["measured_pct"],
                                                                      r["predicted_pct"])
    return s, out


def main(argv):
    args, variant, json_out = [], None, None
    it = iter(argv)
    for a in it:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a in ("--variant", "--json"):
            v = next(it, None)
            if v is None:
                die(f"{a} needs a value", 2)
            if a == "--variant":
                variant = v
            else:
                json_out = v
        elif a.startswith("-"):
            die(f"unknown option {a} (try --help)", 2)
        else:
            args.append(a)
    if len(args) != 2:
        die("give BEFORE.json and AFTER.json (try --help)", 2)
    (sa, a), (_, b) = load(args[0]), load(args[1])
    both = sorted(k for k in a if k in b)
    # one dataset: every answer both hold was measured the same
    for k in both:
        ma, mb = a[k][0], b[k][0]
        if (ma is None) != (mb is None) or (ma is not None and abs(ma - mb) > 1e-9):
            die(f"{k[2]} beside {k[3]} measured {ma} in {args[0]} and {mb} in {args[1]}: "
                "not the same dataset")
    da = sa.get("dataset") or sa.get("dataset_created") or args[0]
    keys = []
    for k in both:
        if k[:2] not in keys and (variant is None or variant in k[0]):
            keys.append(k[:2])
    if not keys:
        die("no predictor answered in both" + (f" matching '{variant}'" if variant else ""))
    print(f"dataset {da}: {args[1]} minus {args[0]}, on the pairs both answered; mean absolute "
          "error, pp [95 % bootstrap interval over pairs]")
    print("  %-44s %-6s %3s %-22s %-22s %-24s %7s %7s" % (
        "predictor, held out", "pairs", "n", "before", "after", "after minus before",
        "max bef", "max aft"))
    out = []
    for var, hold in keys:
        ks = [k for k in both if k[:2] == (var, hold)]
        for subset, keep in (("all", lambda m: True),
                             (f">={SLOWED_PCT:g}%", lambda m: m >= SLOWED_PCT)):
            sel = [k for k in ks if a[k][0] is not None and keep(a[k][0])]
            # a failed answer (None) counts as a failure, not as a small error
            failed = [k for k in sel if a[k][1] is None or b[k][1] is None]
            sel = [k for k in sel if k not in failed]
            if not sel:
                continue
            ea = [abs(a[k][1] - a[k][0]) for k in sel]
            eb = [abs(b[k][1] - b[k][0]) for k in sel]
            ent = {"variant": var, "holdout": hold, "pairs": subset, "n": len(sel),
                   "failed": len(failed), "before_pp": bootstrap(ea), "after_pp": bootstrap(eb),
                   "after_minus_before_pp": paired(eb, ea), "max_before_pp": max(ea),
                   "max_after_pp": max(eb)}
            out.append(ent)
            print("  %-44s %-6s %3d %-22s %-22s %-24s %7.1f %7.1f%s" % (
                f"{var} ({hold})"[:44], subset, len(sel), interval(*ent["before_pp"]),
                interval(*ent["after_pp"]), interval(*ent["after_minus_before_pp"]),
                ent["max_before_pp"], ent["max_after_pp"],
                f"  ({len(failed)} failed in one, left out)" if failed else ""))
    if json_out:
        try:
            with open(json_out, "w") as f:
                json.dump({"dataset": da, "dataset_commit": sa.get("dataset_commit"),
                           "before": args[0], "after": args[1], "rows": out}, f, indent=1)
        except OSError as e:
            die(f"{json_out}: {e}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
