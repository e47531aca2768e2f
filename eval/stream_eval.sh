#!/usr/bin/env bash
# stream_eval.sh - 'make eval-stream': the product's own loop on the network
# lab, end to end.  Eight namespaced nodes under four leaves (h1,h2 on s1 ...
# h7,h8 on s4), each leaf with its own rate-limited uplink to a core; both
# plugins on; the site's policy is message only (eval/stream.conf).
#  0. the fabric: one ImpactB calibration (an admin's once-per-fabric step);
#     each app's alone baseline under every shape the plan draws (2 nodes
#     under two leaves; 4 under four, three -- the pair under the first,
#     second or third leaf of the node list -- or two), STREAM_REPS times
#     (these runs are also the first history);
#  1. phase one: a stream of jobs from the apps file, Poisson arrivals,
#     random node counts (2 or 4) and random placements over at least two
#     leaves; spank_netvar records every job;
#  2. `netvar train` on the spool alone, no campaign, as the systemd timer
#     runs it; job_submit reloads the model.  Offline, models trained on the
#     first 25 % and 50 % of phase one, and one with campaigns for
#     STREAM_CAMPAIGNS added under the whole history;
#  3. phase two: more jobs the same way; job_submit's answer is in each
#     job's annotation;
#  4. the scoring (eval/stream_report.py): for every phase-two job, what
#     job_submit said, the answer for the neighbours it actually had (asked
#     of `netvar predict` with each model), and its measured slowdown (its
#     runtime against its app's baseline under the same shape: as many of its
#     nodes under each leaf, leaf by leaf in the order of its node list).
# Prints the tables and writes OUT/stream.json (schema netvar-stream-eval).
# It asserts nothing about accuracy: exit 0 when the pipeline ran, 1 when a
# step failed, 77 when the lab cannot run here.  The lab always goes down.
# Env: BUILD (default build); STREAM_JOBS (jobs in the stream, half in each
# phase; default 200); STREAM_GAP_S (mean seconds between arrivals, default
# 4); STREAM_SEED (default 49); STREAM_APPS (apps file, default
# eval/apps/stream.apps); STREAM_CAMPAIGNS (apps given a campaign in the
# campaign variant, comma-separated; default the first two apps; 'none'
# skips it); STREAM_REPS (alone runs per app and node count, default 3);
# STREAM_OUT (a directory; default a new one under /tmp); STREAM_SHORT=1 the
# smoke size (12 jobs, the first two apps, 1 repetition, a short campaign).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/eval/lab_eval_lib.sh"
lab_eval_init "netvar eval-stream" STREAM
. "$ROOT/eval/apps_file.sh"
apps_file_read "${STREAM_APPS:-$ROOT/eval/apps/stream.apps}" "$WHO"
JOBS=${STREAM_JOBS:-200} GAP=${STREAM_GAP_S:-4} SEED=${STREAM_SEED:-49}
if [ "${STREAM_SHORT:-0}" = 1 ]; then
    JOBS=${STREAM_JOBS:-12} GAP=${STREAM_GAP_S:-2}
    APPS=$(echo "$APPS" | cut -d' ' -f1-2)
fi
CAMPAIGNS=${STREAM_CAMPAIGNS:-$(echo "$APPS" | cut -d' ' -f1-2 | tr ' ' ',')}
case $JOBS in '' | *[!0-9]* | 0 | 1 | 2 | 3) echo "$WHO: STREAM_JOBS=$JOBS: not a whole number from 4" >&2; exit 1 ;; esac
case $SEED in '' | *[!0-9]*) echo "$WHO: STREAM_SEED=$SEED: not a whole number" >&2; exit 1 ;; esac
[[ $GAP =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "$WHO: STREAM_GAP_S=$GAP: not seconds" >&2; exit 1; }
if [ "$CAMPAIGNS" != none ]; then
    for a in ${CAMPAIGNS//,/ }; do
        [[ " $APPS " = *" $a "* ]] || { echo "$WHO: STREAM_CAMPAIGNS names '$a', not an app of the stream ($APPS)" >&2; exit 1; }
    done
fi
mkdir -p "$OUT/jobs" "$OUT/models"
for a in $APPS; do printf '%s\t%s\n' "$a" "${RTKEY[$a]}"; done >"$OUT/apps.tsv"

lab_eval_up 8 "$ROOT/eval/stream.conf" 4
echo "lab $LAB: 8 nodes under 4 leaves (h1,h2 on s1 ... h7,h8 on s4), leaf uplinks ${NETVAR_NETLAB_RATE}"
echo "stream: $JOBS jobs (half per phase), mean gap $GAP s, seed $SEED, apps: $APPS; baselines: $REPS each; campaigns: $CAMPAIGNS"

# one job of the stream or a baseline: TAG APP NODES; prints the job id
submit() {
    local tag=$1 app=$2 nodes=$3 n j
    n=$(echo "$nodes" | tr ',' '\n' | grep -c .)
    j=$(sbatch --parsable -N"$n" -w "$nodes" --exclusive -J "$app" --netvar=counters \
        --netvar-app="$app" -o "$OUT/jobs/$tag.out" --wrap "srun --mpi=pmix ${CMD[$app]}" \
        2>"$OUT/jobs/$tag.err") || { echo "$WHO: sbatch of $tag ($app on $nodes) failed: $(tail -n 2 "$OUT/jobs/$tag.err")" >&2; return 1; }
    scontrol -o show job "$j" >"$OUT/jobs/$tag.job" 2>/dev/null || true # its Comment: job_submit's answer
    echo "$j"
}
# wait until Slurm has no job of ours left, then until every record is in
drain() {
    local i
    for i in $(seq 1 6000); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
    done
    [ "$i" -lt 6000 ] || { echo "$WHO: jobs still queued after 50 minutes" >&2; return 1; }
    sleep 2 # the epilog writes the records
}
train() { # SPOOL_DIR IN OUT
    "$NV" train --spool "$1" --model "$2" --out "$3" --topology "$LAB/etc/topology.conf" \
        --window-s 1 --min-overlap-frac 0.3 --quiet
}

say "0. the fabric (ImpactB on h1,h3) and each app's alone baselines (at $(since))"
salloc -Q -N2 -w h1,h3 --exclusive "$NV" calibrate --model "$OUT/models/calibrated.json" \
    --duration-s "$DUR" --interval-us 5000 --text >"$OUT/calibrate.txt"
printf 'tag\tphase\tapp\tnodes\tarrival_s\tjob\n' >"$OUT/stream.tsv"
for a in $APPS; do
    # every shape the plan draws (nodes per leaf, in the node list's order,
    # which the ranks follow): 1+1, 1+1+1+1, 2+1+1, 1+2+1, 1+1+2, 2+2; a job
    # is slowed against its app alone under the same shape
    for nodes in h1,h3 h1,h3,h5,h7 h1,h2,h3,h5 h1,h3,h4,h5 h1,h3,h5,h6 h1,h2,h3,h4; do
        for rep in $(seq 1 "$REPS"); do
            n=$(echo "$nodes" | tr ',' '\n' | grep -c .)
            tag=alone-$a-$n-${nodes//,/-}-$rep # one output file per run
            j=$(submit "$tag" "$a" "$nodes")
            printf '%s\t0\t%s\t%s\t0\t%s\n' "$tag" "$a" "$nodes" "$j" >>"$OUT/stream.tsv"
            drain
        done
    done
done
cp "$OUT/models/calibrated.json" "$MODEL"
echo "baselines done at $(since)"

# the plan: every job's phase, app, nodes and arrival, drawn once
# shellcheck disable=SC2086 # APPS: app names, one argument each
python3 "$ROOT/eval/stream_report.py" plan --jobs "$JOBS" --gap-s "$GAP" --seed "$SEED" \
    --nodes 8 --leaves 4 --apps $APPS >"$OUT/plan.tsv"

run_phase() { # PHASE
    local t_start tag phase app nodes at now
    t_start=$(date +%s.%N)
    while IFS=$'\t' read -r tag phase app nodes at; do
        [ "$phase" = "$1" ] || continue
        now=$(date +%s.%N)
        sleep "$(awk -v a="$at" -v s="$t_start" -v n="$now" 'BEGIN { d = s + a - n; print (d > 0 ? d : 0) }')"
        j=$(submit "$tag" "$app" "$nodes") || continue
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$phase" "$app" "$nodes" "$at" "$j" >>"$OUT/stream.tsv"
    done < <(tail -n +2 "$OUT/plan.tsv")
    drain
}

say "1. phase one: $((JOBS / 2)) jobs (at $(since))"
run_phase 1
echo "phase one done at $(since)"

say "2. netvar train on the spool alone (history only), and the offline variants"
# the history at 25, 50 and 100 % of phase one: the baselines and the first
# phase-one jobs, each in a spool of its own
python3 "$ROOT/eval/stream_report.py" history --stream "$OUT/stream.tsv" --spool "$SPOOL" \
    --out "$OUT/history" --fractions 25,50,100
for f in 25 50 100; do
    train "$OUT/history/h$f" "$OUT/models/calibrated.json" "$OUT/models/history-$f.json"
done
cp "$OUT/models/history-100.json" "$MODEL.new" && mv "$MODEL.new" "$MODEL"
sleep 1.5 # job_submit/netvar reloads a changed model within a second
echo "trained at $(since)"

say "3. phase two: $((JOBS - JOBS / 2)) jobs, job_submit answering from the history-only model (at $(since))"
run_phase 2
echo "phase two done at $(since)"

if [ "$CAMPAIGNS" != none ]; then
    say "campaign variant: a CompressionB campaign for $CAMPAIGNS (on h1,h3, load on h2,h4), then the same history"
    cp "$OUT/models/calibrated.json" "$OUT/models/campaigns.json"
    for a in ${CAMPAIGNS//,/ }; do
        key=${RTKEY[$a]}
        rt=(--runtime-key "$key")
        [ "$key" = wall ] && rt=()
        # shellcheck disable=SC2086 # the command and its options, one word each
        salloc -Q -N4 -w h1,h2,h3,h4 --exclusive "$NV" campaign --model "$OUT/models/campaigns.json" \
            --app "$a" --configs "$CONFIGS" --repeat 1 --duration-s "$DUR" --ghz 2.6 \
            --interval-us 5000 --load-nodes h2,h4 "${rt[@]}" --bottleneck "$BOTTLENECK" --text \
            -- ${CMD[$a]} >"$OUT/campaign_$a.txt"
        echo "campaign $a done at $(since)"
    done
    train "$OUT/history/h100" "$OUT/models/campaigns.json" "$OUT/models/history-100-campaigns.json"
fi

say "4. what job_submit said, against what happened (at $(since))"
# the records and the topology are kept beside the results, so the run can
# be scored again after the lab is gone (stream_report.py score --out OUT
# --spool OUT/spool --topology OUT/topology.conf --netvar ...)
mkdir -p "$OUT/spool"
# a record still being written is a .NAME.tmp.XXXXXX file that is renamed
# away at once: it is left out, not copied half-way (cp -r failed on one)
python3 -c 'import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2], ignore=shutil.ignore_patterns(".*.tmp.*"), symlinks=True, dirs_exist_ok=True)' \
    "$SPOOL/jobs" "$OUT/spool/jobs"
cp "$LAB/etc/topology.conf" "$OUT/topology.conf"
python3 "$ROOT/eval/stream_report.py" score --out "$OUT" --spool "$OUT/spool" --netvar "$NV" \
    --topology "$OUT/topology.conf" --min-overlap-frac 0.3
echo "done at $(since); files in $OUT"
