#!/usr/bin/env bash
# run.sh - runs every tests/integration/test_*.sh (or those named in $TESTS)
# with BUILD and ROOT in the environment.  Exit 0 pass, 77 skip, else fail.
# Each test's output goes to $BUILD/test-logs/<name>.log; a failure prints
# its tail.  Ends with the plain line "N passed, N failed, N skipped".
set -u
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export BUILD ROOT
logs=$BUILD/test-logs
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed=""
tests=${TESTS:-$(ls "$ROOT"/tests/integration/test_*.sh)}
for t in $tests; do
    [ -f "$t" ] || t=$ROOT/tests/integration/$t
    name=$(basename "$t" .sh)
    start=$(date +%s)
    timeout --kill-after=10 "${TEST_TIMEOUT:-600}" bash "$t" >"$logs/$name.log" 2>&1 </dev/null
    rc=$?
    secs=$(( $(date +%s) - start ))
    case $rc in
    0) pass=$((pass + 1)); echo "PASS $name (${secs} s)" ;;
    77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$logs/$name.log")" ;;
    *) fail=$((fail + 1)); failed="$failed $name"
       echo "FAIL $name (exit $rc, ${secs} s); last lines of $logs/$name.log:"
       tail -n 40 "$logs/$name.log" | sed 's/^/    /' ;;
    esac
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
