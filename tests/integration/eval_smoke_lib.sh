# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# eval_smoke_lib.sh - sourced by the smoke tests of the network-lab
# evaluations that set CG beside an all-to-all (test_contain_eval_smoke.sh,
# test_paths_eval_smoke.sh).  eval_smoke_run VAR SCRIPT runs the evaluation
# SCRIPT (under eval/) in its smoke size (VAR_SHORT=1, results in
# VAR_OUT=$OUT/r, its log in $OUT/log), skips (exit 77) where it cannot
# run, and checks that it exited 0 and that its lab is gone afterwards.
# bad TEXT records a failure; $fail is 1 once one was recorded.  Env:
# BUILD, ROOT.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
fail=0
bad() { echo "NOT OK - $*"; fail=1; }

eval_smoke_run() {
    local var=$1 script=$2 rc lab
    [ "$(id -u)" = 0 ] || { echo "skip: the network lab needs root"; exit 77; }
    OUT=$(mktemp -d /tmp/nvevalsmoke.XXXXXX)
    trap 'rm -rf "$OUT"' EXIT
    env "${var}_SHORT=1" "${var}_OUT=$OUT/r" BUILD="$BUILD" bash "$ROOT/eval/$script" >"$OUT/log" 2>&1
    rc=$?
    [ $rc = 77 ] && { echo "skip: $(tail -n 1 "$OUT/log")"; exit 77; }
    [ $rc = 0 ] || bad "eval exited $rc: $(tail -n 15 "$OUT/log")"
    lab=$(sed -n 's/^lab \([^:]*\): .*/\1/p' "$OUT/log" | head -n 1)
    [ -n "$lab" ] || bad "the log does not name the lab"
    [ -n "$lab" ] && [ -e "$lab" ] && bad "the lab directory $lab is still there"
    return 0
}
