#!/usr/bin/env python3
"""split_corpus.py - splits an apps file once into a development set and a
validation set, at random with a stated seed, so the split is reproducible
and chosen before any rule is looked at.

Usage: eval/split_corpus.py [--seed N] [--validation K] APPS DEV_OUT VAL_OUT

APPS is an eval-netlab apps file (format: eval/apps/proxies.apps); DEV_OUT
and VAL_OUT are written as apps files with the same lines, each headed by a
comment naming the source, the seed and the other set.  Defaults: seed
20261202, K = max(4, a quarter of the apps, rounded up).  Exit status: 0,
2 on bad usage or an apps file with fewer than K + 1 apps."""
import argparse
import random
import sys

DEFAULT_SEED = 20261202


def read_apps(path):
    apps = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if len(line) > 4096:
                sys.exit("split_corpus: %s:%d: line longer than 4096 bytes" % (path, n))
            body = line.split("#", 1)[0].strip()
            if body:
                if len(body.split()) < 3:
                    sys.exit("split_corpus: %s:%d: needs NAME RUNTIME COMMAND" % (path, n))
                apps.append(body)
    return apps


def write(path, lines, src, seed, role, other):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# netvar eval-netlab apps file (format: eval/apps/proxies.apps):\n"
                "# the %s set of %s, split once by eval/split_corpus.py\n"
                "# --seed %d (the other set: %s).  Do not edit by hand.\n"
                % (role, src, seed, other))
        for line in lines:
            f.write(line + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--validation", type=int, default=0,
                    help="apps in the validation set (default max(4, n/4))")
    ap.add_argument("apps")
    ap.add_argument("dev_out")
    ap.add_argument("val_out")
    a = ap.parse_args()
    apps = read_apps(a.apps)
    k = a.validation or max(4, -(-len(apps) // 4))
    if k < 1 or k >= len(apps):
        print("split_corpus: %s has %d apps; cannot hold out %d" % (a.apps, len(apps), k),
              file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    val = set(rng.sample(range(len(apps)), k))
    write(a.dev_out, [x for i, x in enumerate(apps) if i not in val], a.apps, a.seed,
          "development", a.val_out)
    write(a.val_out, [x for i, x in enumerate(apps) if i in val], a.apps, a.seed,
          "validation", a.dev_out)
    print("split_corpus: seed %d: %d development apps in %s, %d validation apps in %s: %s"
          % (a.seed, len(apps) - k, a.dev_out, k, a.val_out,
             " ".join(x.split()[0] for i, x in enumerate(apps) if i in val)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
