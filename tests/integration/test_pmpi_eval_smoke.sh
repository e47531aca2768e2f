#!/usr/bin/env bash
# test_pmpi_eval_smoke.sh - keeps eval/segments_eval.sh working: three short
# runs of the BSP proxy under rising injected interference, estimate per
# run, accuracy summary.  Asserts the pipeline and the injection, not
# accuracy figures (no timing assertions on a shared machine).
set -u
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
out=$(SMOKE=1 bash "$ROOT/eval/segments_eval.sh" "$BUILD" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: eval script exit $rc"; exit 1; }
[ "$(echo "$out" | grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ ')" = 3 ] || { echo "FAIL: want 3 run rows"; exit 1; }
echo "$out" | grep -q '^accuracy 1-|P_meas-P_est|: median [0-9.]*, minimum [0-9.]*' || { echo "FAIL: no accuracy summary"; exit 1; }
# the last run injected delays, the first did not
first=$(echo "$out" | awk '$1 == "0" {print $4}') last=$(echo "$out" | awk '$1 == "2" {print $4}')
[ "$first" = "0.0" ] || { echo "FAIL: run 0 injected $first ms"; exit 1; }
awk -v x="$last" 'BEGIN { exit !(x > 0) }' || { echo "FAIL: run 2 injected nothing"; exit 1; }
echo PASS
