#!/bin/sh
# Runs every unit-test binary under $1/tests/unit and prints one summary line.
# Exit status is non-zero when any binary failed.
build=${1:-build}
pass=0; fail=0; failed=""
for t in "$build"/tests/unit/*/test_*; do
    [ -x "$t" ] || continue
    if out=$("$t" 2>&1); then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); failed="$failed $(basename "$t")"
        echo "---- $t failed; last lines:"; echo "$out" | tail -n 25
    fi
done
echo "unit test binaries ($build): $pass passed, $fail failed${failed:+ (}${failed# }${failed:+)}"
[ "$fail" -eq 0 ]
