#!/usr/bin/env bash
# slurm_burst.sh - 'make burst-slurm-modern': a burst of parallel
# submissions, the way slurmctld runs job_submit plugins from 23.02 (in
# parallel, under read locks).
#
#   lab/bench/slurm_burst.sh BUILD        (NETVAR_LAB_SLURM=PREFIX for a built Slurm)
#
# Two configurations, each on a fresh 2-node lab whose state and logs live on
# /dev/shm: job_submit/netvar loaded (with the policy and model of
# tests/fixtures/jobsubmit and a running-jobs registry of two running jobs),
# and no job_submit plugin.  In each, LOOPS parallel sbatch loops submit JOBS
# held jobs in all (default 8 and 2 000); with netvar, the model file is
# replaced halfway through, so the plugin reloads it while submissions run.
# Prints, per configuration: submitted, accepted, lost (sbatch failed or the
# job is not in the queue), annotated (jobs whose Comment carries netvar's
# annotation: job_submit/netvar ran on them), the model reloads seen in
# slurmctld's log,
# whether slurmctld is still alive, and sdiag's REQUEST_SUBMIT_BATCH_JOB
# count and mean time; then the mean time netvar added.
# Exit status 1 when netvar's configuration lost a submission, left a job
# unannotated or slurmctld died (a correctness check; the times are figures, never pass/fail).
set -euo pipefail
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$ROOT/lab/lab
LOOPS=${LOOPS:-8}
JOBS=${JOBS:-2000}
FIX=$ROOT/tests/fixtures/jobsubmit
current="" work=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    [ -z "$current" ] || "$LAB" down "$current" >/dev/null 2>&1 || true
    [ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
work=$(mktemp -d /tmp/netvar-burst.XXXXXX)

sdiag_field() { # sdiag_field NAME: REQUEST_SUBMIT_BATCH_JOB's NAME: value
    sdiag | awk -v f="$1:" '/REQUEST_SUBMIT_BATCH_JOB/ {for (i = 1; i <= NF; i++) if (index($i, f) == 1) {sub(f, "", $i); print $i; exit}}'
}

# one_config CFG: prints "submitted accepted lost reloads alive count mean_us"
one_config() {
    local cfg=$1 args=() dir=/dev/shm/netvar-burst.$$.$1
    [ "$cfg" = none ] && args=(--no-jobsubmit) || args=(--netvar-conf "$FIX/netvar.conf")
    rm -rf "$dir"
    current=$("$LAB" up --build "$BUILD" --nodes 2 --dir "$dir" "${args[@]}" 2>"$work/$cfg.up") ||
        { cat "$work/$cfg.up" >&2; return 1; }
    eval "$("$LAB" env "$current")"
    local ctld
    ctld=$(awk '$2 == "slurmctld" {print $1}' "$current/pids")
    if [ "$cfg" = netvar ]; then
        cp "$FIX/model.json" "$current/netvar/model.json"
        for _ in $(seq 1 50); do grep -q "model .* loaded" "$current/log/slurmctld.log" && break; sleep 0.2; done
    fi
    # two running jobs: the running-jobs registry is not empty
    sbatch -Q -N1 -w n1 --netvar-app=fftw --wrap "sleep 600" >/dev/null 2>&1 || true
    sbatch -Q -N1 -w n2 --netvar-app=amg --wrap "sleep 600" >/dev/null 2>&1 || true
    sleep 2.5
    local loads0
    loads0=$(grep -c "model .* loaded" "$current/log/slurmctld.log" || true)
    sdiag --reset >/dev/null 2>&1 || true
    local per=$((JOBS / LOOPS)) l
    rm -f "$work/$cfg".ok.* "$work/$cfg".err.*
    for ((l = 0; l < LOOPS; l++)); do
        (
            n=$per
            [ $l -eq $((LOOPS - 1)) ] && n=$((JOBS - per * (LOOPS - 1)))
            apps=(lulesh amg fftw unknownapp "")
            for ((i = 0; i < n; i++)); do
                a=${apps[$(((i + l) % 5))]}
                if out=$(sbatch --parsable --hold -N1 -J "burst$l.$i" ${a:+--netvar-app=$a} --wrap true 2>&1); then
                    # the id is the last line (netvar's messages to the user come first)
                    id=${out##*$'\n'}
                    echo "${id%%;*}" >>"$work/$cfg.ok.$l"
                else
                    printf '%s\n' "$out" | tr '\n' ' ' >>"$work/$cfg.err.$l"; echo >>"$work/$cfg.err.$l"
                fi
            done
        ) &
    done
    # halfway: a new model file (new mtime), picked up by the refresher
    # within a second while the loops go on submitting
    if [ "$cfg" = netvar ]; then
        for _ in $(seq 1 3000); do
            [ "$(cat "$work/$cfg".ok.* 2>/dev/null | wc -l)" -ge $((JOBS / 2)) ] && break
            sleep 0.1
        done
        cp "$FIX/model.json" "$current/netvar/model.json.new"
        mv "$current/netvar/model.json.new" "$current/netvar/model.json"
    fi
    wait
    local accepted failed queued annotated alive reloads count mean
    accepted=$(cat "$work/$cfg".ok.* 2>/dev/null | grep -c '^[0-9]' || true)
    failed=$(cat "$work/$cfg".err.* 2>/dev/null | grep -c . || true)
    queued=$(squeue -h -t PD -o '%j' 2>/dev/null | grep -c '^burst' || true)
    # every job netvar saw carries its annotation in the Comment
    annotated=$(squeue -h -t PD -o '%j %k' 2>/dev/null | grep -c '^burst.* netvar:{' || true)
    alive=no
    [ -e "/proc/$ctld" ] && ! grep -q '^State:.*Z' "/proc/$ctld/status" 2>/dev/null && alive=yes
    count=$(sdiag_field count)
    mean=$(sdiag_field ave_time)
    reloads=$(( $(grep -c "model .* loaded" "$current/log/slurmctld.log" || true) - loads0 ))
    [ "$cfg" = netvar ] || reloads=-
    if [ "$failed" -gt 0 ]; then
        echo "burst: $cfg: first sbatch failures:" >&2
        cat "$work/$cfg".err.* | head -n 5 | sed 's/^/    /' >&2
    fi
    grep -h "netvar:.*\(error\|cannot\|keeping the previous\)" "$current/log/slurmctld.log" | head -n 5 | sed "s/^/    $cfg slurmctld: /" >&2 || true
    "$LAB" down "$current" >/dev/null 2>&1 || true
    current=""
    echo "$JOBS $accepted $((JOBS - queued)) $annotated $reloads $alive ${count:-?} ${mean:-?}"
}

ver=$(PATH=${NETVAR_LAB_SLURM:+$NETVAR_LAB_SLURM/sbin:}$PATH slurmctld -V | awk '{print $2}')
echo "burst: Slurm $ver; $LOOPS parallel sbatch loops, $JOBS held jobs per configuration; state and logs on /dev/shm"
printf '%-7s %9s %8s %5s %9s %7s %10s %11s %13s\n' config submitted accepted lost annotated reloads ctld_alive sdiag_count sdiag_mean_us
rc=0
declare -A mean
for cfg in netvar none; do
    one_config "$cfg" >"$work/$cfg.result" || { echo "burst: $cfg: lab failed" >&2; exit 1; }
    read -r sub acc lost ann rel alive cnt mu <"$work/$cfg.result"
    printf '%-7s %9s %8s %5s %9s %7s %10s %11s %13s\n' "$cfg" "$sub" "$acc" "$lost" "$ann" "$rel" "$alive" "$cnt" "$mu"
    mean[$cfg]=$mu
    if [ "$cfg" = netvar ] && { [ "$lost" != 0 ] || [ "$alive" != yes ] || [ "$acc" != "$sub" ] ||
        [ "$ann" != "$sub" ]; }; then rc=1; fi
done
if [[ ${mean[netvar]} =~ ^[0-9]+$ && ${mean[none]} =~ ^[0-9]+$ ]]; then
    echo "burst: sdiag mean submit time: with job_submit/netvar ${mean[netvar]} us, without ${mean[none]} us ($((mean[netvar] - mean[none])) us added)"
fi
[ $rc = 0 ] && echo "burst: netvar lost no submission and slurmctld stayed up" ||
    echo "burst: FAILED: submissions lost or slurmctld died with job_submit/netvar"
exit $rc
