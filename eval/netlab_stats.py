"""netlab_stats.py - the intervals the lab evaluation reports beside its
figures: a mean absolute error with its 95 % bootstrap interval over pairs,
and the paired difference between two predictors on the same pairs.

Resampling is over pairs (the unit a site predicts), with a fixed seed so
that a re-score prints the same interval.  Pure functions; no netvar rule
lives here."""
import json
import random
import statistics as st

SLOWED_PCT = 10.0    # pairs measured slowed by at least this are reported apart
RESAMPLES = 4000
SEED = 20261201


ROW_KEYS = ("variant", "holdout", "app", "with", "measured_pct", "predicted_pct")


def load_rows(path):
    """(the summary, its rows) of what eval/netlab_score.py wrote (--out or
    --summary); ValueError naming the file and what is wrong"""
    try:
        with open(path) as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: {e}")
    rows = s.get("rows") if isinstance(s, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{path}: no per-answer rows (scored before the rows were written); "
                         "re-score its dataset with eval/netlab_score.py --summary")
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not all(k in r for k in ROW_KEYS):
            raise ValueError(f"{path}: rows[{i}]: not an answer ({', '.join(ROW_KEYS)})")
        for k in ("measured_pct", "predicted_pct"):
            v = r[k]
            if v is not None and not isinstance(v, (int, float)):
                raise ValueError(f"{path}: rows[{i}].{k}: not a number")
    return s, rows


def bootstrap(values, stat=st.mean, resamples=RESAMPLES, seed=SEED):
    """(stat(values), 2.5th and 97.5th percentiles of stat over resamples of
    values with replacement); (None, None, None) when values is empty"""
    if not values:
        return None, None, None
    rng = random.Random(seed)
    n = len(values)
    got = sorted(stat([values[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    return stat(values), got[int(0.025 * resamples)], got[int(0.975 * resamples) - 1]


def paired(errors_a, errors_b):
    """mean of a's error minus b's on the same pairs, with its interval:
    (mean, lo, hi); below 0 favours a; the two are apart when the interval
    excludes 0"""
    return bootstrap([x - y for x, y in zip(errors_a, errors_b)])


def interval(m, lo, hi, unit="pp"):
    return "-" if m is None else f"{m:.1f} {unit} [{lo:.1f}, {hi:.1f}]"


SEED_QUEUE = ("latency queue", "pair and app")  # the seed paper's Queue predictor


def against_baselines(runs, keys):
    """every predictor beside the naive baselines on the same pairs, pooled
    over the runs: predicting 0 % for every pair, and the seed's Queue; all
    pairs and those measured slowed by at least SLOWED_PCT apart, with 95 %
    bootstrap intervals over pairs, and the paired differences"""
    def errors(variant, hold):
        return {(r["run"], x["app"], x["with"]): (abs(x["predicted_pct"] - x["measured_pct"]),
                                                  x["measured_pct"])
                for r in runs for x in r["rows"]
                if (x["variant"], x["holdout"]) == (variant, hold)
                and x["predicted_pct"] is not None and x["measured_pct"] is not None}
    seed = errors(*SEED_QUEUE)
    print("\nbeside the baselines (every run given, pooled): mean absolute error "
          "[95 % bootstrap interval over "
          "pairs]; the differences are this predictor's error minus the baseline's on the same "
          "pairs (below 0: better; apart when the interval excludes 0)")
    print("  %-44s %-6s %5s %-22s %-24s %-24s" % ("predictor, held out", "pairs", "n", "mean error",
                                                  "minus predict 0 %", "minus the seed's Queue"))
    out = []
    for variant, hold in keys:
        if hold == "repetition" or variant.startswith("in-leaf"):
            continue
        e = errors(variant, hold)
        for subset, keep in (("all", lambda m: True),
                             (f">={SLOWED_PCT:g}%", lambda m: m >= SLOWED_PCT)):
            ks = sorted(k for k, (_, m) in e.items() if keep(m))
            if not ks:
                continue
            mine = [e[k][0] for k in ks]
            zero = [abs(e[k][1]) for k in ks]
            both = [k for k in ks if k in seed and (variant, hold) != SEED_QUEUE]
            ent = {"variant": variant, "holdout": hold, "pairs": subset, "n": len(ks),
                   "mean_pp": bootstrap(mine), "minus_zero_pp": paired(mine, zero),
                   "minus_seed_queue_pp": paired([e[k][0] for k in both],
                                                 [seed[k][0] for k in both]),
                   "seed_pairs": len(both)}
            out.append(ent)
            print("  %-44s %-6s %5d %-22s %-24s %-24s" % (
                f"{variant} ({hold})"[:44], subset, len(ks), interval(*ent["mean_pp"]),
                interval(*ent["minus_zero_pp"]), interval(*ent["minus_seed_queue_pp"])))
    # the baselines themselves on every pair the seed's Queue answered
    for subset, keep in (("all", lambda m: True),
                         (f">={SLOWED_PCT:g}%", lambda m: m >= SLOWED_PCT)):
        ks = sorted(k for k, (_, m) in seed.items() if keep(m))
        if ks:
            print("  %-44s %-6s %5d %-22s" % ("predict 0 %", subset, len(ks),
                                              interval(*bootstrap([abs(seed[k][1]) for k in ks]))))
    return out
