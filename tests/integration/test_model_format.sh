#!/usr/bin/env bash
# test_model_format.sh - docs/model-format.md says what the model loader
# accepts: every field its tables name is read by the loaders, every field
# the loaders read is named (tests/check_model_format.py, both ways), the
# writer writes only named fields, and the document's example model loads
# and answers while the same file with another version is refused.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
T=$BUILD/test-logs/model-format
rm -rf "$T" && mkdir -p "$T"

out=$(python3 tests/check_model_format.py --root "$ROOT" 2>&1)
rc=$?
echo "$out" | tail -n 1
if [ "$rc" -eq 0 ]; then ok "model-format.md and the loaders name the same fields"
else not_ok "model-format.md and the loaders differ: $(echo "$out" | head -n 8)"; fi

# the check can fail, both ways: a field the loader does not read ...
# shellcheck disable=SC2016 # the backticks are the document's markdown, not a command
sed 's/^| `bottleneck.route` |/| `bottleneck.no_such_field` |/' docs/model-format.md >"$T/extra.md"
out=$(python3 tests/check_model_format.py --root "$ROOT" --doc "$T/extra.md" 2>&1)
contains "a documented field the loader does not read is named" "$out" "names 'no_such_field', which the loader does not read"
contains "a field the loader reads and the document lost is named" "$out" "reads 'route', which the document does not name"
# ... and a loader that reads a field the document does not name
sed 's/"shrink_samples"/"shrink_samples_new"/g' lib/model/model_load.c >"$T/loader.c"
out=$(python3 tests/check_model_format.py --root "$ROOT" --loader "$T/loader.c" 2>&1)
contains "a new loader field is named" "$out" "reads 'shrink_samples_new', which the document does not name"

# the example loads and answers from its co-location entry
# shellcheck disable=SC2016 # sed addresses: the $ anchors lines, no shell expansion meant
sed -n '/^```json$/,/^```$/p' docs/model-format.md | sed '1d;$d' >"$T/example.json"
check "the document has an example model" test -s "$T/example.json"
out=$("$NV" predict --model "$T/example.json" --app cg --with alltoall 2>&1)
contains "the example model loads and answers from its table" "$out" '"slowdown_pct":290'
sed 's/"version": 1/"version": 2/' "$T/example.json" >"$T/v2.json"
out=$("$NV" predict --model "$T/v2.json" --app cg --with alltoall 2>&1)
rc=$?
check "a version 2 file is refused" test "$rc" -ne 0
contains "the refusal names the version" "$out" "version: value 2 is not supported"
finish
