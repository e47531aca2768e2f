#!/usr/bin/env bash
# sdiag_compare.sh - 'make bench-sdiag': what job_submit/netvar adds to
# slurmctld's time per submission, against no job_submit plugin, against
# the C floor (Slurm's own job_submit/all_partitions: what any C plugin
# costs slurmctld) and against a trivial job_submit/lua script (the peer),
# in the lab.
#
# Each configuration gets a fresh slurmctld whose StateSaveLocation and logs
# live on tmpfs (/dev/shm), so file-system drift does not swamp the effect.
# netvar runs with a real model (tests/fixtures/jobsubmit) and a real
# running-jobs registry (two running jobs). Each round submits JOBS held
# batch jobs and reads sdiag's REQUEST_SUBMIT_BATCH_JOB ave_time; rounds
# alternate none, floor, lua, netvar. Prints per-round figures, the paired
# added microseconds, their medians, and netvar's time above the floor;
# and, from slurmctld's log, job_submit/netvar's own time per call inside
# the daemon (the plugin logs it at 8, 16, ... calls), so the part of
# the added time spent outside the plugin shows.  Asserts nothing.
# At a site's scale: SDIAG_MODEL=FILE loads that model (make bench-train's
# 1 M-job model; then SDIAG_APP=app-00001), and SDIAG_RUNNING=N adds N
# running jobs to netvar's registry (spread over 640 leaf switches, on
# nodes outside the lab; slurmctld never hears of them).
# PASSIVE=1 adds job_submit/netvar loaded with Enabled=no (the plugin
# returns at once: what loading it costs, without what it adds to a job).
#   ROUNDS=5 JOBS=300 bash lab/bench/sdiag_compare.sh build
set -euo pipefail
BUILD=$(readlink -f "${1:-build}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$ROOT/lab/lab
ROUNDS=${ROUNDS:-5}
JOBS=${JOBS:-300}
MODEL=${SDIAG_MODEL:-$ROOT/tests/fixtures/jobsubmit/model.json}
APP=${SDIAG_APP:-lulesh}
EXTRA=${SDIAG_RUNNING:-0}
current=""
own_file=$(mktemp)
trap 'rm -f "$own_file" "$own_file.conf"; [ -z "$current" ] || "$LAB" down "$current" >/dev/null 2>&1 || true' EXIT

one_run() { # cfg -> prints ave_time in us
    local cfg=$1
    local dir=/dev/shm/netvar-sdiag.$$.$cfg args=()
    case $cfg in
    none) args=(--no-jobsubmit) ;;
    floor) args=(--jobsubmit-plugin all_partitions) ;;
    lua) args=(--lua "$ROOT/lab/bench/trivial_job_submit.lua") ;;
    netvar) args=(--netvar-conf "$ROOT/tests/fixtures/jobsubmit/netvar.conf") ;;
    passive)
        sed 's/^Enabled=.*//' "$ROOT/tests/fixtures/jobsubmit/netvar.conf" >"$own_file.conf"
        echo Enabled=no >>"$own_file.conf"
        args=(--netvar-conf "$own_file.conf") ;;
    esac
    current=$("$LAB" up --build "$BUILD" --nodes 2 --dir "$dir" "${args[@]}" 2>/dev/null)
    export SLURM_CONF=$current/etc/slurm.conf
    if [ "$cfg" = netvar ] || [ "$cfg" = passive ]; then
        fake_registry "$current/netvar/spool/running" "$EXTRA"
        cp "$MODEL" "$current/netvar/model.json"
        for _ in $(seq 1 50); do grep -q "netvar: model .* loaded" "$current/log/slurmctld.log" && break; sleep 0.2; done
    fi
    # two running jobs, so the registry is real in every configuration
    sbatch -Q -N1 -w n1 --netvar-app=fftw --wrap "sleep 300" >/dev/null 2>&1
    sbatch -Q -N1 -w n2 --netvar-app=amg --wrap "sleep 300" >/dev/null 2>&1
    sleep 2.2
    local base
    base=$(sdiag | awk '/REQUEST_SUBMIT_BATCH_JOB/ {for (i=1;i<=NF;i++) if ($i ~ /^count:/) {sub("count:","",$i); print $i}}')
    sdiag --reset >/dev/null 2>&1 || true
    for i in $(seq 1 "$JOBS"); do
        sbatch -Q --hold -N1 -J "bench$i" --netvar-app="$APP" --wrap true >/dev/null 2>&1
    done
    sdiag | awk '/REQUEST_SUBMIT_BATCH_JOB/ {for (i=1;i<=NF;i++) if ($i ~ /^ave_time:/) {sub("ave_time:","",$i); print $i}}'
    if [ "$cfg" = netvar ]; then
        # the reload thread logs the plugin's own time within a second
        sleep 1.5
        grep -o "calls so far, the plugin's own time per call: median [0-9.]* us" \
            "$current/log/slurmctld.log" | tail -n 1 | awk '{print $(NF-1)}' >>"$own_file"
    fi
    "$LAB" down "$current" >/dev/null 2>&1
    current=""
    : "$base"
}

# N registry entries as the SPANK plugin writes them (netvar-running v1),
# started "now" so that the registry's liveness check (which skips entries
# younger than its skew) leaves them for the length of a round
fake_registry() {
    [ "$2" -gt 0 ] || return 0
    mkdir -p "$1"
    python3 - "$1" "$2" <<'PY'
import json, os, sys, time
d, n = sys.argv[1], int(sys.argv[2])
now = time.time()
for j in range(n):
    rec = {"schema": "netvar-running", "version": 1, "job_id": 1000000 + j,
           "app": "app-%05d" % (j % 5000), "mode": "counters", "start_unix_s": now,
           "nodes": ["f%d" % (2 * j), "f%d" % (2 * j + 1)], "switches": ["fs%d" % (j % 640)],
           "groups": ["g0"]}
    with open(os.path.join(d, "%d.json" % (1000000 + j)), "w") as f:
        json.dump(rec, f)
PY
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }

echo "bench-sdiag: $ROUNDS rounds x $JOBS held sbatch per configuration; slurmctld state and logs on /dev/shm"
echo "bench-sdiag: netvar's model $MODEL, app $APP, $EXTRA extra running jobs in its registry"
printf '%-6s %9s %9s %9s %9s %12s %12s %12s\n' round none_us floor_us lua_us netvar_us floor_added lua_added netvar_added
dl=() dn=() df=() dv=() an=() af=() al=() av=() dp=()
for r in $(seq 1 "$ROUNDS"); do
    n=$(one_run none); f=$(one_run floor); l=$(one_run lua); v=$(one_run netvar)
    an+=("$n"); af+=("$f"); al+=("$l"); av+=("$v")
    df+=($((f - n))); dl+=($((l - n))); dn+=($((v - n))); dv+=($((v - f)))
    printf '%-6s %9s %9s %9s %9s %+12d %+12d %+12d\n' "$r" "$n" "$f" "$l" "$v" "$((f - n))" "$((l - n))" "$((v - n))"
    if [ "${PASSIVE:-0}" = 1 ]; then
        p=$(one_run passive)
        dp+=($((p - n)))
        printf '%-6s passive (Enabled=no) %s us: %+d us against none\n' "$r" "$p" "$((p - n))"
    fi
done
mn=$(printf '%s\n' "${an[@]}" | median); mf=$(printf '%s\n' "${af[@]}" | median)
ml=$(printf '%s\n' "${al[@]}" | median); mv=$(printf '%s\n' "${av[@]}" | median)
mdf=$(printf '%s\n' "${df[@]}" | median); mdl=$(printf '%s\n' "${dl[@]}" | median)
mdn=$(printf '%s\n' "${dn[@]}" | median); mdv=$(printf '%s\n' "${dv[@]}" | median)
echo "median ave_time per submission: none $mn us, C floor $mf us, lua $ml us, netvar $mv us"
printf 'median paired added time: job_submit/all_partitions (C floor) %+.1f us, job_submit/lua %+.1f us, job_submit/netvar %+.1f us\n' "$mdf" "$mdl" "$mdn"
printf 'job_submit/netvar above the C floor: %+.1f us (median of the paired differences; budget <= 5 us)\n' "$mdv"
if [ "${#dp[@]}" -gt 0 ]; then
    printf 'median paired added time, job_submit/netvar with Enabled=no: %+.1f us\n' "$(printf '%s\n' "${dp[@]}" | median)"
fi
if [ -s "$own_file" ]; then
    own=$(median <"$own_file")
    printf "job_submit/netvar's own time per call inside slurmctld: median %s us (the median of %d rounds' medians each over the calls up to its last logged count, from the plugin's log line); so about %+.1f us of netvar's added time is spent outside the plugin\n" \
        "$own" "$(wc -l <"$own_file")" "$(awk -v a="$mdn" -v b="$own" 'BEGIN {print a - b}')"
else
    echo "job_submit/netvar's own time inside slurmctld: not logged (no line in slurmctld.log)"
fi
if awk -v a="$mdn" -v b="$mdl" 'BEGIN {exit !(a < b)}'; then
    echo "job_submit/netvar added less than the trivial Lua script"
else
    echo "job_submit/netvar added NOT less than the trivial Lua script"
fi
