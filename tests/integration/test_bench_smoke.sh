#!/usr/bin/env bash
# test_bench_smoke.sh - short runs of the job_submit benchmarks, so they
# cannot rot: the in-process harness (small model, few calls) and the
# slurmctld sdiag comparison (1 round, few jobs). Checks only that they run
# and print their figures; timings are never asserted.
set -u
cd "$ROOT" || exit 1
fail=0
make -s --no-print-directory BUILD="$BUILD" "$BUILD/bin/bench_job_submit" || exit 1
out=$("$BUILD/bin/bench_job_submit" "$BUILD/plugins/job_submit_netvar.so" 3000 200 200 2>&1)
echo "$out"
echo "$out" | grep -Eq "job_submit\(\): 3000 calls, 200 apps, 200 running jobs, 60 environment variables and a [0-9]+-byte script each: median" || fail=1
# with the nearest configurations' data: they answer, and the calls are timed
out=$(NETVAR_BENCH_JOINT=100 "$BUILD/bin/bench_job_submit" "$BUILD/plugins/job_submit_netvar.so" 3000 200 200 2>&1)
echo "$out"
echo "$out" | grep -q "^a pair of the built model is answered by: nearest-configurations$" || fail=1
echo "$out" | grep -Eq "job_submit\(\): 3000 calls, 200 apps, .* median" || fail=1
# the model benchmark (10 000 apps, few predictions): its rows, and no
# allocation inside any prediction (that one is a property, not a timing)
make -s --no-print-directory BUILD="$BUILD" "$BUILD/bin/bench_model" || exit 1
out=$("$BUILD/bin/bench_model" 2000 2>&1)
echo "$out"
echo "$out" | grep -Eq "^load: median [0-9.]+ ms" || fail=1
echo "$out" | grep -Eq "^  queue +1 +[0-9.]+ .*the answer alone, as job_submit's loop asks" || fail=1
rows=$(echo "$out" | grep -Ec "^  (queue|averagelt|averagestdevlt|pdflt) +[0-9]+ +[0-9.]+ ")
[ "$rows" -eq 13 ] || { echo "bench_model printed $rows prediction rows, want 13"; fail=1; }
echo "$out" | awk '/^  (queue|averagelt|averagestdevlt|pdflt) +[0-9]+ +[0-9.]+ / {
    a = ($4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/) ? $5 : $4; if (a != 0) bad = 1 }
  END { exit bad }' || { echo "bench_model: a prediction allocated"; fail=1; }
out=$(ROUNDS=1 JOBS=10 bash lab/bench/sdiag_compare.sh "$BUILD" 2>&1)
echo "$out"
echo "$out" | grep -q "median paired added time: job_submit/all_partitions (C floor)" || fail=1
echo "$out" | grep -q "job_submit/netvar above the C floor:" || fail=1
echo "$out" | grep -Eq "job_submit/netvar's own time per call inside slurmctld: median [0-9.]+ us" || fail=1
exit $fail
