#!/usr/bin/env bash
# test_systemd_train.sh - the training timer: 'make install' into a scratch
# prefix, systemd-analyze verify on the installed netvar-train.service and
# .timer (their ExecStart and man pages must exist), then the service's
# script on a generated (SYNTHETIC) spool: the model is installed where
# netvar.conf's ModelFile says, the summary is what it prints (the
# journal's lines), the replaced model is kept for a rollback, and a
# failed training leaves the live model alone.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed"; exit 77; }
T=$(mktemp -d /tmp/netvar-sdtest.XXXXXX)
trap 'rm -rf "$T"' EXIT
make -s --no-print-directory BUILD="$BUILD" install PREFIX="$T/usr" SYSCONFDIR="$T/etc" LOCALSTATEDIR="$T/var" \
    SLURM_PLUGIN_DIR="$T/plugins" UNITDIR="$T/usr/lib/systemd/system" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; exit 1; }
U=$T/usr/lib/systemd/system
out=$(MANPATH=$T/usr/share/man systemd-analyze verify "$U/netvar-train.service" "$U/netvar-train.timer" 2>&1)
check "systemd-analyze verify passes: $out" test -z "$out"
contains "the timer runs daily" "$(cat "$U/netvar-train.timer")" "OnCalendar=daily"
# the check can fail: a unit whose ExecStart is missing is refused
sed "s|^ExecStart=.*|ExecStart=$T/nonexistent|" "$U/netvar-train.service" >"$T/netvar-broken.service"
check "systemd-analyze refuses a unit without its program" \
    sh -c "! MANPATH=$T/usr/share/man systemd-analyze verify $T/netvar-broken.service >/dev/null 2>&1"

"$BUILD/bin/netvar-train-gen" "$T/g" --seed 3 >/dev/null || { echo "generator failed"; exit 1; }
conf=$T/etc/netvar/netvar.conf
sed -i "s|^SpoolDir=.*|SpoolDir=$T/g/spool|; s|^ModelFile=.*|ModelFile=$T/var/lib/netvar/model.json|" "$conf"
run=$T/usr/libexec/netvar/netvar-train-run
export NETVAR_CONF=$conf NETVAR_BASE_MODEL=$T/g/base-model.json NETVAR_KEEP_MODELS=2
out=$("$run" 2>&1); rc=$?
echo "$out"
check "netvar-train-run exits 0" test $rc -eq 0
contains "its output is the train summary" "$out" "records"
contains "it says where the model went" "$out" "installed $T/var/lib/netvar/model.json"
M=$T/var/lib/netvar/model.json
check "the model is installed" test -s "$M"
check "the model answers" sh -c "'$BUILD/bin/netvar' predict --model '$M' --app alltoall-fft --with halo-stencil >/dev/null"
# shellcheck disable=SC2010 # names netvar-train writes: no blank or newline
check "no temporary file is left" test -z "$(ls -A "$T/var/lib/netvar" | grep '^\.model-new')"
cp "$M" "$T/first.json"
sleep 1.1; "$run" >/dev/null 2>&1
# shellcheck disable=SC2012 # names netvar-train writes: no blank or newline
check "the replaced model is kept in models/" test "$(ls "$T/var/lib/netvar/models" | wc -l)" -eq 1
check "the kept model is the one it replaced" cmp -s "$T/first.json" "$T/var/lib/netvar/models/$(ls "$T/var/lib/netvar/models")"
check "retraining the same spool gives the same model" cmp -s "$T/first.json" "$M"
check "the training state is kept beside the model" test -s "$T/var/lib/netvar/train-state"
check "and only root reads it" test "$(stat -c %a "$T/var/lib/netvar/train-state")" = 600
sleep 1.1; out=$(NETVAR_TRAIN_ARGS=--json "$run" 2>&1)
contains "a retrain reads no record twice" "$out" '"records_read":0'
check "and gives the same model" cmp -s "$T/first.json" "$M"
echo garbage >"$T/var/lib/netvar/train-state"
sleep 1.1; out=$(NETVAR_TRAIN_ARGS=--json "$run" 2>&1); rc=$?
check "a damaged state does not fail the training" test $rc -eq 0
contains "it says what it did instead" "$out" "reading every record instead"
check "the model is the same" cmp -s "$T/first.json" "$M"
# shellcheck disable=SC2012 # names netvar-train writes: no blank or newline
check "only NETVAR_KEEP_MODELS=2 earlier models are kept" test "$(ls "$T/var/lib/netvar/models" | wc -l)" -eq 2
# the allocation advice retrained from the records and a sweep data set
printf 'SwitchName=leaf0 Nodes=n[1-2]\nSwitchName=leaf1 Nodes=n[3-4]\nSwitchName=top Switches=leaf[0-1]\n' >"$T/topology.conf"
sleep 1.1; out=$(NETVAR_ALLOC_TOPOLOGY=$T/topology.conf NETVAR_ALLOC_DATASETS=$ROOT/eval/results/alloc-netlab-1.json \
    "$run" 2>&1); rc=$?
echo "$out" | tail -n 4
check "with NETVAR_ALLOC_TOPOLOGY the service still succeeds" test $rc -eq 0
contains "it reads the job records for the trees" "$out" "job records: 0 rows"
check "the installed model has communication-time trees" python3 -c \
    'import json,sys; a=json.load(open(sys.argv[1]))["alloc"]; assert a["predictors"] and len(a["switches"]) == 2' "$M"
sleep 1.1; out=$(NETVAR_ALLOC_TOPOLOGY=$T/nonexistent "$run" 2>&1); rc=$?
check "a failed alloc training does not fail the service" test $rc -eq 0
contains "it says what it kept" "$out" "keeps the allocation advice of the base model"
check "and the model is the one netvar train gave" cmp -s "$T/first.json" "$M"
echo "not json" >"$T/bad-base.json"
NETVAR_BASE_MODEL=$T/bad-base.json "$run" >"$T/bad.out" 2>&1; rc=$?
check "a failed training fails the service" test $rc -ne 0
check "a failed training leaves the live model alone" cmp -s "$T/first.json" "$M"
# shellcheck disable=SC2010 # names netvar-train writes: no blank or newline
check "and no temporary file" test -z "$(ls -A "$T/var/lib/netvar" | grep '^\.model-new')"
finish
