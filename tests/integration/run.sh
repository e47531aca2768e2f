#!/usr/bin/env bash
# run.sh - runs every tests/integration/test_*.sh (or those named in $TESTS)
# with BUILD and ROOT in the environment.  Exit 0 pass, 77 skip, else fail.
# Each test's output goes to $BUILD/test-logs/<name>.log; a failure prints
# its failed checks (NOT OK lines) and its tail.  Ends with the plain line "N passed, N failed, N skipped".
#
# Two lanes run side by side (INTEGRATION_LANES=1 runs one after another):
# the tests marked '# lane: netlab' (each brings up a namespaced network lab
# and mostly waits on its rate-limited uplink, or is a loopback-lab test that
# mostly waits, marked so to balance the lanes' times) one after another in
# one lane, every other test one after another in the other.  The labs of the two
# lanes share nothing: a network lab lives in namespaces and cgroups of its
# own id, a loopback lab on ports it found free.
set -u
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export BUILD ROOT
logs=$BUILD/test-logs
mkdir -p "$logs"
tests=${TESTS:-$(ls "$ROOT"/tests/integration/test_*.sh)}
lanes=${INTEGRATION_LANES:-2}
case $lanes in 1 | 2) ;; *) echo "run.sh: INTEGRATION_LANES=$lanes: not 1 or 2; running 2 lanes" >&2; lanes=2 ;; esac

# run_lane FILE TEST...: runs the tests one after another; each result is
# one line on stdout and in FILE (PASS, FAIL or SKIP first)
run_lane() {
    local res=$1 t name start rc secs line
    shift
    : >"$res"
    for t in "$@"; do
        name=$(basename "$t" .sh)
        start=$(date +%s)
        timeout --kill-after=10 "${TEST_TIMEOUT:-600}" bash "$t" >"$logs/$name.log" 2>&1 </dev/null
        rc=$?
        secs=$(($(date +%s) - start))
        case $rc in
        0) line="PASS $name (${secs} s)" ;;
        77) line="SKIP $name: $(tail -n 1 "$logs/$name.log")" ;;
        *) line="FAIL $name (exit $rc, ${secs} s); its failed checks, then the last lines of $logs/$name.log:
$(grep -m 10 -A 3 '^NOT OK' "$logs/$name.log" | cut -c 1-600 | sed 's/^/    /')
    ...
$(tail -n 40 "$logs/$name.log" | sed 's/^/    /')" ;;
        esac
        echo "$line"
        echo "$line" | head -n 1 >>"$res"
    done
}

netlab=() others=()
for t in $tests; do
    [ -f "$t" ] || t=$ROOT/tests/integration/$t
    if [ "$lanes" = 2 ] && grep -q '^# lane: netlab$' "$t"; then netlab+=("$t"); else others+=("$t"); fi
done
res=$(mktemp -d /tmp/nvintegration.XXXXXX)
lane_pid=""
trap 'rm -rf "$res"' EXIT
trap '[ -n "$lane_pid" ] && kill -TERM "$lane_pid" 2>/dev/null; exit 130' INT TERM
if [ ${#netlab[@]} -gt 0 ]; then
    echo "integration: ${#netlab[@]} network-lab tests in one lane, ${#others[@]} others in another, side by side"
    run_lane "$res/netlab" "${netlab[@]}" &
    lane_pid=$!
fi
[ ${#others[@]} -gt 0 ] && run_lane "$res/others" "${others[@]}"
[ -n "$lane_pid" ] && wait "$lane_pid"

all=$(cat "$res/netlab" "$res/others" 2>/dev/null)
pass=$(grep -c '^PASS ' <<<"$all")
fail=$(grep -c '^FAIL ' <<<"$all")
skip=$(grep -c '^SKIP ' <<<"$all")
failed=$(sed -n 's/^FAIL \([^ ]*\) .*/\1/p' <<<"$all" | tr '\n' ' ')
echo "integration: $pass passed, $fail failed, $skip skipped"
[ -z "$failed" ] || echo "failed: $failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
