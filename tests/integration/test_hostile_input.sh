#!/bin/sh
# test_hostile_input.sh - the CLI against hostile input (issue 52): a FIFO
# or /dev/zero as an admin-named file refused at once; a job directory
# linked out of the spool neither read (train, report) nor written through
# (collect --write); names with terminal escapes never reach the terminal
# raw (report JOBID, report --cluster, evaluate, predict), and the verbs'
# text output passes such names through nv_cli_shown; refused registry
# files not counted as running jobs; absurd numbers refused (a record's
# runtime, a profile's bins).
set -u
: "${BUILD:?}" "${ROOT:?}"
NV=$BUILD/bin/netvar
[ -x "$NV" ] || { echo "skip: $NV not built"; exit 77; }
T=$(mktemp -d /tmp/nv-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "NOT OK - $*"; fails=$((fails + 1)); }
expect() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
ESC=$(printf '\033')
no_esc() { ! grep -q "$ESC" "$1"; }

# ---- 1. FIFOs and devices as admin-named files: refused without blocking
mkfifo "$T/fifo"
MODEL=$ROOT/tests/fixtures/model/valid_small.json
timeout 10 "$NV" evaluate --model "$MODEL" --pairs "$T/fifo" >/dev/null 2>"$T/err"
rc=$?
expect "evaluate --pairs FIFO: refused, not blocked (exit $rc)" [ $rc -eq 1 ]
expect "... with one line: a FIFO" grep -q "^netvar evaluate: $T/fifo: a FIFO; not read; nothing evaluated$" "$T/err"
timeout 10 "$NV" evaluate --model "$MODEL" --pairs /dev/zero >/dev/null 2>"$T/err"
rc=$?
expect "evaluate --pairs /dev/zero: refused, not looping (exit $rc)" [ $rc -eq 1 ]
expect "... with one line: a device" grep -q "/dev/zero: a device; not read" "$T/err"
for opt in --topology --blade-map; do
    timeout 10 "$NV" diagnose 1 --spool "$T/nospool" $opt "$T/fifo" >/dev/null 2>"$T/err"
    rc=$?
    expect "diagnose $opt FIFO: does not block (exit $rc)" [ $rc -ne 124 ]
done

# ---- a spool: job 7001 a good record, 2004 a link out of it
S=$T/spool
mkdir -p "$S/jobs/7001" "$S/jobs/7002" "$S/running" "$T/outside/2004" "$T/outside/7002"
rec() { # id app start end runtime
    printf '{"schema":"netvar-job-record","version":1,"job_id":%s,"app":"%s","nodes":["n1","n2"],"switches":["s1","s2"],"start_unix_s":%s,"end_unix_s":%s,"runtime_s":%s}\n' \
        "$1" "$2" "$3" "$4" "$5"
}
rec 7001 "evil${ESC}]0;owned${ESC}\\\\x" 1700000000 1700000100 100 >"$S/jobs/7001/job.json"
rec 2004 outsider 1700000000 1700000100 100 >"$T/outside/2004/job.json"
ln -s "$T/outside/2004" "$S/jobs/2004"
ln -s "$T/outside/7002" "$S/jobs/7003"

# ---- 3. linked job directories
"$NV" report 2004 --spool "$S" >"$T/out" 2>"$T/err"
expect "report of a linked job directory fails" [ $? -ne 0 ]
expect "... saying its directory is a link" grep -q "its directory is a symbolic link; not followed" "$T/err"
"$NV" train --spool "$S" --model "$MODEL" --out "$T/m.json" >"$T/out" 2>"$T/err"
expect "train skips the linked job directory with one line" \
    [ "$(grep -c "jobs/2004/job.json: its directory is a symbolic link; not followed; skipped it" "$T/err")" -eq 1 ]
printf '{"schema":"netvar-node-record","version":1,"job_id":7003,"node":"n1","start_unix_s":1700000000,"end_unix_s":1700000100}\n' \
    >"$T/outside/7002/node-n1.json"
"$NV" collect 7003 --spool "$S" --write >/dev/null 2>"$T/err"
expect "collect --write through a linked job directory fails" [ $? -ne 0 ]
expect "... and writes nothing outside the spool" [ ! -e "$T/outside/7002/job.json" ]
expect "... saying why" grep -q "the job's spool directory is a symbolic link; not followed" "$T/err"

# ---- 4. a record copied into another job's directory counts once
V=$T/vspool
mkdir -p "$V/jobs/5" "$V/jobs/6"
printf '{"schema":"netvar-job-record","version":1,"job_id":5,"app":"a","nodes":["n1"],"runtime_s":10,"metrics":{}}\n' \
    >"$V/jobs/5/job.json"
cp "$V/jobs/5/job.json" "$V/jobs/6/job.json"
cp "$MODEL" "$T/vmodel.json"
"$NV" variability train --records "$V" --model "$T/vmodel.json" >/dev/null 2>"$T/err"
expect "variability train skips a copy under another job id" \
    grep -q "jobs/6/job.json: job_id 5 is not its directory's 6; skipped it" "$T/err"

# ---- 7. terminal escapes: report JOBID, report --cluster, evaluate, predict
"$NV" report 7001 --spool "$S" >"$T/out" 2>"$T/err"
expect "report JOBID exits 0" [ $? -eq 0 ]
expect "report JOBID prints the app escaped" grep -q 'app evil\\x1b]0;owned\\x1b\\\\x' "$T/out"
expect "... and no raw ESC on stdout or stderr" sh -c "! grep -q '$ESC' '$T/out' '$T/err'"
printf '{"schema":"netvar-running","version":1,"job_id":11,"app":"a%sb","start_unix_s":%s,"nodes":["n%s1"],"switches":["s%s1"]}\n' \
    "$ESC" "$(date +%s)" "$ESC" "$ESC" >"$S/running/11.json"
# ---- 10. refused registry files are not running jobs
printf '{not json' >"$S/running/12.json"
printf '{"schema":"other"}' >"$S/running/13.json"
mkfifo "$S/running/14.json"
timeout 20 "$NV" report --cluster --spool "$S" >"$T/out" 2>"$T/err"
expect "report --cluster exits 0" [ $? -eq 0 ]
expect "report --cluster: one running job, three files refused" \
    grep -q "^cluster: 1 running job, 0 with an app the model knows (no model loaded); 3 registry files refused, not counted$" "$T/out"
expect "... each refused file one line" [ "$(grep -c '^netvar: registry: .*ignoring that job$' "$T/err")" -eq 3 ]
expect "... names escaped" grep -q 'a\\x1bb' "$T/out"
expect "... no raw ESC" no_esc "$T/out"
timeout 20 "$NV" report --cluster --spool "$S" --json >"$T/out" 2>/dev/null
expect "report --cluster --json counts them" grep -q '"registry_files_refused":3' "$T/out"
printf 'ok%sapp b 10\n' "$ESC" >"$T/esc.pairs"
"$NV" evaluate --model "$MODEL" --pairs "$T/esc.pairs" >"$T/out" 2>"$T/err"
expect "evaluate: a bad app named escaped" grep -q "app 'ok\\\\x1bapp' is not a valid app key" "$T/err"
expect "... no raw ESC" no_esc "$T/err"
"$NV" predict --model "$MODEL" --app "x${ESC}y" --with a >/dev/null 2>"$T/err"
expect "predict --app with ESC: escaped" sh -c "grep -q 'x\\\\x1by' '$T/err' && ! grep -q '$ESC' '$T/err'"
# the verbs' text output: a name field printed without nv_cli_shown
unshown=$(grep -n 'printf' "$ROOT"/cli/verbs/verb_report.c "$ROOT"/cli/verbs/verb_evaluate.c \
    "$ROOT"/cli/verbs/verb_predict.c "$ROOT"/cli/verbs/verb_alloc.c -A3 |
    grep -E '(->|\.)(app|with|switches|source|action|key|model_app|profile|segment_note|annotation_note)\s*[,)]' |
    grep -vE 'nv_cli_shown|nv_printable|json_object|nv_json|snprintf\(row|sizeof|strlen|=|compared\.' || true)
expect "every name a verb prints goes through nv_cli_shown${unshown:+: $unshown}" [ -z "$unshown" ]

# ---- 2, 8. absurd numbers
rec 7002 absurd 1700000000 1700000100 1e308 >"$S/jobs/7002/job.json"
"$NV" report 7002 --spool "$S" >"$T/out" 2>/dev/null
expect "report: a runtime of 1e308 s shows as n/a" grep -q '^  runtime  *n/a$' "$T/out"
"$NV" train --spool "$S" --model "$MODEL" --out "$T/m.json" >"$T/out" 2>"$T/err"
expect "train: exits 0 beside a runtime of 1e308 s (was: model not saved)" [ $? -eq 0 ]
expect "... and skips it with one line" grep -q "jobs/7002/job.json: runtime_s: 1e+308 s is more than a year" "$T/err"
printf '{"format":"netvar-segment-profile","version":1,"runtime_us":10,"bins":{"work":[1],"time_us":[1e308]},"segment_work_bin":[0],"segment_time_bin":[0],"segment_signature":[0],"signatures":[[0,0,0,0,0,0,0,0,0,0]]}\n' \
    >"$T/p.json"
"$NV" estimate "$T/p.json" >"$T/out" 2>"$T/err"
expect "estimate: bins of 1e308 refused (was: exit 0, runtime inf s)" [ $? -ne 0 ]
expect "... naming the bound" grep -q "outside \[0, a year\]" "$T/err"

# an option or value the user typed, quoted back in a usage error
"$NV" predict "--evil${ESC}[31m" >"$T/out" 2>"$T/err"
expect "a typed option with ESC: one usage line, exit 2, ESC escaped" \
    sh -c "[ \$(wc -l <'$T/err') = 1 ] && ! grep -q '$ESC' '$T/err' && grep -q 'x1b' '$T/err'"
"$NV" train --min-runs "1${ESC}]0;t" >"$T/out" 2>"$T/err"
expect "a typed value with ESC: ESC escaped" sh -c "! grep -q '$ESC' '$T/err' && grep -q 'x1b' '$T/err'"

echo "$fails failed"
[ "$fails" -eq 0 ]
