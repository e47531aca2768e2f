# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# lab_lib.sh - sourced by integration tests that need the lab cluster.
# Provides lab_start (brings a lab up and arranges its teardown on any exit),
# check/ok/not_ok assertion helpers that count, and finish (exit status).
# A test that sources this must call `finish` last.
set -u
: "${ROOT:?ROOT unset}" "${BUILD:?BUILD unset}"
LAB=$ROOT/lab/lab
NV=$BUILD/bin/netvar
_checks=0 _failures=0
LAB_DIRS=""

_lab_cleanup() {
    local d
    for d in $LAB_DIRS; do
        if [ "${_failures:-0}" -gt 0 ] && [ -d "$d/log" ]; then
            for f in "$d"/log/*.log; do echo "---- tail $f"; tail -n 20 "$f"; done
        fi
        "$LAB" down "$d" >/dev/null 2>&1 || true
    done
}
trap _lab_cleanup EXIT
trap 'exit 130' INT TERM

# lab_start [lab up options...]: sets NETVAR_LAB, SLURM_CONF and MPI env.
lab_start() {
    local d
    d=$("$LAB" up --build "$BUILD" "$@") || { echo "lab did not come up"; exit 1; }
    LAB_DIRS="$LAB_DIRS $d"
    eval "$("$LAB" env "$d")"
    cd "$d" || exit 1
}

# nv_sbatch ARGS...: sbatch's output (what the user sees), then the lines
# job_submit/netvar logged for the submission in the model's terms
# ("netvar: job_submit: uid N: app ..."), each as "log: netvar: app ...";
# sbatch's exit status.
nv_sbatch() {
    local n rc
    n=$(wc -l <"$NETVAR_LAB/log/slurmctld.log")
    sbatch "$@" 2>&1
    rc=$?
    tail -n +"$((n + 1))" "$NETVAR_LAB/log/slurmctld.log" | sed -n 's/.*netvar: job_submit: uid [0-9]*: /log: netvar: /p'
    return $rc
}
# user_lines TEXT: TEXT without nv_sbatch's log lines
user_lines() { printf '%s\n' "$1" | grep -v '^log: '; }

ok() { _checks=$((_checks + 1)); echo "ok - $*"; }
not_ok() { _checks=$((_checks + 1)); _failures=$((_failures + 1)); echo "NOT OK - $*"; }
# check "description" command...: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# contains "description" haystack needle
contains() { case $2 in *"$3"*) ok "$1" ;; *) not_ok "$1: expected '$3' in: $(printf %s "$2" | head -c 600)" ;; esac; }
lacks() { case $2 in *"$3"*) not_ok "$1: did not expect '$3' in: $(printf %s "$2" | head -c 600)" ;; *) ok "$1" ;; esac; }

# mpi_srun OUT ERR srun-args...: an MPI launch under srun with
# --kill-on-bad-exit (a crashed rank ends the step, instead of leaving the
# others waiting for it) and a timeout, made once more when a rank crashed
# (srun's exit status above 128): on a busy host Open MPI 4.1 can crash a
# rank in MPI_Init when a peer's first message comes early (lab/lab env
# avoids that), which is not what a test checks.  The retry is a "# " line
# in the log.  srun's exit status.
mpi_srun() {
    local out=$1 err=$2 rc a
    shift 2
    for a in 1 2; do
        timeout -k 10 "${MPI_SRUN_TIMEOUT:-180}" srun --kill-on-bad-exit=1 "$@" >"$out" 2>"$err" </dev/null
        rc=$?
        [ "$rc" -gt 128 ] && [ "$a" = 1 ] || return "$rc"
        echo "# srun $(printf '%s ' "$@" | head -c 120)crashed (exit $rc; $(grep -m 1 -i -e 'segmentation' -e 'signal' -e 'killed' "$err" | head -c 200)); launching it once more"
    done
}

# wait_job JOBID [seconds]: waits until the job has left the queue
wait_job() {
    local j=$1 t=${2:-60}
    for _ in $(seq 1 $((t * 5))); do
        [ -z "$(squeue -h -j "$j" 2>/dev/null)" ] && return 0
        sleep 0.2
    done
    return 1
}

job_field() { # job_field JOBID Field (fields alone on a line, e.g. Comment, keep their spaces)
    local all
    all=$(scontrol show job "$1" 2>/dev/null)
    if printf '%s\n' "$all" | grep -q "^ *$2="; then
        printf '%s\n' "$all" | sed -n "s/^ *$2=//p" | sed 's/ *$//' | head -n 1
    else
        printf '%s\n' "$all" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
    fi
}

finish() {
    echo "# $_checks checks, $_failures failed"
    [ "$_failures" -eq 0 ] && [ "$_checks" -gt 0 ]
}
