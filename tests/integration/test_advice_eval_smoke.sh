#!/usr/bin/env bash
# test_advice_eval_smoke.sh - `make eval-advice` at CI size: the evaluation
# runs on the SYNTHETIC cluster (--small) and on the network lab's sweep
# fixture, and prints every class's figures and a decision score.  It
# asserts on the pipeline, never on accuracy or time.
set -u
cd "$ROOT" || exit 1
make -s --no-print-directory BUILD="$BUILD" "$BUILD/bin/netvar-advice-eval" || exit 1
fail=0
out=$("$BUILD/bin/netvar-advice-eval" --synthetic --small 2>&1) || { echo "synthetic run failed: $out"; exit 1; }
for want in "held out: every row of the 3-D Jacobi app" "xgboost      C" "extra-trees  A" "decision score "; do
    case $out in *"$want"*) echo "ok - synthetic: $want" ;; *) echo "NOT OK - synthetic: no '$want'"; fail=1 ;; esac
done
out=$("$BUILD/bin/netvar-advice-eval" --dataset tests/fixtures/alloc/netlab_sweep.json --json 2>&1) ||
    { echo "dataset run failed: $out"; exit 1; }
for want in '"held_out": "leave one configuration (N, PPN, switches) out"' '"class": "B"' '"decision_cases"'; do
    case $out in *"$want"*) echo "ok - lab sweep: $want" ;; *) echo "NOT OK - lab sweep: no '$want'"; fail=1 ;; esac
done
exit $fail
