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
out=$(ROUNDS=1 JOBS=10 bash lab/bench/sdiag_compare.sh "$BUILD" 2>&1)
echo "$out"
echo "$out" | grep -q "median paired added time: job_submit/all_partitions (C floor)" || fail=1
echo "$out" | grep -q "job_submit/netvar above the C floor:" || fail=1
echo "$out" | grep -Eq "job_submit/netvar's own time per call inside slurmctld: median [0-9.]+ us" || fail=1
exit $fail
