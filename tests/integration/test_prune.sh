#!/usr/bin/env bash
# test_prune.sh - `netvar prune` on a generated (SYNTHETIC) spool while
# `netvar train` runs on it again and again: the old half goes, the young
# half and a running job stay, every training run succeeds, and a dry run
# removes nothing.  Then the time to prune a spool of N job directories
# (a figure, not a pass/fail).
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
T=$(mktemp -d /tmp/netvar-prune.XXXXXX)
trap 'touch "$T/stop" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
"$BUILD/bin/netvar-train-gen" "$T/g" --seed 5 >/dev/null || { echo "generator failed"; exit 1; }
S=$T/g/spool
mkdir -p "$S/running"
# shellcheck disable=SC2012 # job ids: digits
ids=$(ls "$S/jobs" | sort -n)
n=$(echo "$ids" | wc -l)
old=$(echo "$ids" | head -n $((n / 2)))
for j in $old; do touch -h -d '400 days ago' "$S/jobs/$j"; done
running=$(echo "$old" | head -n 1)
echo '{}' >"$S/running/$running.json"

out=$("$NV" prune --spool "$S" --older-than 365 --dry-run --json)
echo "$out"
check "dry run counts the old half but the running job" test "$(jq .removed <<<"$out")" -eq $((n / 2 - 1))
# shellcheck disable=SC2012 # job ids: digits
check "dry run removes nothing" test "$(ls "$S/jobs" | wc -l)" -eq "$n"

# train in a loop while the prune runs.  Each finished run appends one byte
# to train.count; the loop stops at the next run's start once "stop" exists,
# so it is never killed half-way through a run or a write.
( while [ ! -e "$T/stop" ]; do
      "$NV" train --spool "$S" --model "$T/g/base-model.json" --out "$T/m.json" --quiet 2>>"$T/train.err" ||
          echo "train failed" >>"$T/train.fail"
      printf . >>"$T/train.count"
  done ) &
trainer=$!
# the prune starts only once a training run has finished: the loop is running
for _ in $(seq 1 300); do [ -s "$T/train.count" ] && break; sleep 0.1; done
before=$(wc -c <"$T/train.count" 2>/dev/null || echo 0)
out=$("$NV" prune --spool "$S" --older-than 365 --json)
rc=$?
# let one more run start and finish after the prune, then stop the loop
for _ in $(seq 1 300); do [ "$(wc -c <"$T/train.count")" -ge $((before + 2)) ] && break; sleep 0.1; done
touch "$T/stop"; wait "$trainer"; trainer=""
runs=$(wc -c <"$T/train.count" 2>/dev/null || echo 0)
echo "$out"
check "prune exits 0" test $rc -eq 0
check "prune removed the old half but the running job" test "$(jq .removed <<<"$out")" -eq $((n / 2 - 1))
check "the running job's record stays" test -d "$S/jobs/$running"
# shellcheck disable=SC2012 # job ids: digits
check "the young half stays" test "$(ls "$S/jobs" | wc -l)" -eq $((n - n / 2 + 1))
check "nothing is left in .pruning" test -z "$(ls -A "$S/.pruning")"
check "the training loop ran across the prune ($before runs before it, $runs in all)" test "$before" -ge 1 -a "$runs" -ge $((before + 2))
check "every training run succeeded" test ! -e "$T/train.fail"
"$NV" train --spool "$S" --model "$T/g/base-model.json" --out "$T/m2.json" --quiet
check "train works on the pruned spool" test -s "$T/m2.json"
out=$("$NV" prune --spool "$S" --older-than abc 2>&1); rc=$?
check "a bad --older-than is a usage error" test $rc -eq 2
contains "and says why" "$out" "not a number of days"

# the figure: prune time on N job directories of three small files each
N=${PRUNE_BENCH_JOBS:-5000}
B=$T/bench
mkdir -p "$B/jobs"
python3 - "$B/jobs" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
old = 1_000_000_000
for j in range(1, n + 1):
    d = os.path.join(root, str(j))
    os.makedirs(os.path.join(d, "profiles"))
    for name in ("node-n1.json", "node-n2.json", "job.json"):
        with open(os.path.join(d, name), "w") as f:
            f.write('{"schema":"netvar-node-record","pad":"%s"}\n' % ("x" * 1000))
    os.utime(d, (old, old))
PY
out=$("$NV" prune --spool "$B" --older-than 30 --json)
check "the bench spool is emptied" test "$(jq .removed <<<"$out")" -eq "$N"
echo "figure: prune of $N job directories ($(jq .files_removed <<<"$out") files, $(jq .bytes_removed <<<"$out") bytes): $(jq .elapsed_s <<<"$out") s"
finish
