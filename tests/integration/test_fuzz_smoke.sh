#!/usr/bin/env bash
# test_fuzz_smoke.sh - builds the libFuzzer targets (the model loader, the
# other parsers of outside input, the registry and record readers, the
# training state reader) and runs each for a few seconds on its
# seeds, so they cannot rot. A crash fails the test. Longer runs:
# make fuzz-model / make fuzz-inputs FUZZ_SECONDS=600.
set -u
cd "$ROOT" || exit 1
command -v clang >/dev/null || { echo "clang not installed"; exit 77; }
# the five targets build side by side first (one clang run each, minutes
# one after another on 2 cores), then each runs on its seeds
if ! make -s --no-print-directory -j"$(nproc)" BUILD="$BUILD" fuzz-targets >"$BUILD/test-logs/fuzz-targets.log" 2>&1; then
    echo "building the fuzz targets failed:"; tail -n 30 "$BUILD/test-logs/fuzz-targets.log"; exit 1
fi
for t in fuzz-model fuzz-inputs fuzz-registry fuzz-records fuzz-state; do
    if ! make -s --no-print-directory BUILD="$BUILD" FUZZ_SECONDS=5 "$t" >"$BUILD/test-logs/$t.log" 2>&1; then
        echo "$t failed:"; tail -n 30 "$BUILD/test-logs/$t.log"; exit 1
    fi
    grep -E "Done [0-9]+ runs" "$BUILD/test-logs/$t.log" || { echo "$t: no run summary"; exit 1; }
done
exit 0
