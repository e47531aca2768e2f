#!/bin/sh
# eval/train_holdout.sh - hold out pair runs, train on the rest, predict the
# held-out pairs and print the seed-000-style error table per predictor
# (`netvar evaluate`).  Data: a SYNTHETIC history from netvar-train-gen
# (four made-up apps with known utilizations and sensitivity curves), or a
# real spool with SPOOL=DIR HOLDOUT=DIR (held-out jobs' records) MODEL=base.
# Run: make eval-train  (env BUILD, ROOT)
set -eu
: "${BUILD:=build}" "${ROOT:=.}"
NV=$BUILD/bin/netvar
GEN=$BUILD/bin/netvar-train-gen
command -v jq >/dev/null || { echo "eval-train: needs jq (Debian package jq)"; exit 77; }
T=$(mktemp -d /tmp/nv-eval-train.XXXXXX)
trap 'rm -rf "$T"' EXIT

# pairs file from the held-out jobs: each job's app, its neighbours' apps
# and its observed slowdown against the trained baseline (netvar report)
pairs_of() { # holdout-spool model out
    for d in "$1"/jobs/*/; do
        id=$(basename "$d")
        "$NV" report "$id" --spool "$1" --model "$2" --json 2>/dev/null |
            jq -r 'select(.slowdown.observed_pct != null and (.neighbours|length) > 0)
                   | "\(.app) \([.neighbours[].app] | unique | join(",")) \(.slowdown.observed_pct)"'
    done > "$3"
}

run() { # label train-spool holdout-spool base-model
    label=$1
    "$NV" train --spool "$2" --model "$4" --out "$T/$label.json" --quiet 2>/dev/null
    pairs_of "$3" "$T/$label.json" "$T/$label.pairs"
    n=$(grep -c . "$T/$label.pairs" || true)
    echo
    echo "== $label: $n held-out pair measurements"
    "$NV" evaluate --model "$T/$label.json" --pairs "$T/$label.pairs"
}

if [ -n "${SPOOL:-}" ]; then
    echo "eval-train: REAL data from $SPOOL (held out: ${HOLDOUT:?set HOLDOUT}); small samples"
    run real "$SPOOL" "$HOLDOUT" "${MODEL:?set MODEL}"
    exit 0
fi
echo "eval-train: SYNTHETIC data (eval/train_gen.c: 4 made-up apps, 1-1.5 % runtime noise,"
echo "            30 % of pair events held out). These figures check the pipeline, they do"
echo "            not measure any machine."
"$GEN" "$T/prod" --seed 1 --pair-events 6 >/dev/null
run "production-history-only" "$T/prod/spool" "$T/prod/holdout" "$T/prod/base-model.json"
echo "-- same, the co-location table allowed to answer (--use-table, >= 3 samples)"
"$NV" evaluate --model "$T/production-history-only.json" --pairs "$T/production-history-only.pairs" --use-table
"$GEN" "$T/camp" --seed 1 --pair-events 6 --campaign >/dev/null
run "with-synthetic-campaign" "$T/camp/spool" "$T/camp/holdout" "$T/camp/base-model.json"
