#!/usr/bin/env bash
# soak.sh - job_submit/netvar and spank_netvar under churn on a throwaway
# lab (make soak; not part of make check).  For SOAK_SECONDS (default 1800)
# jobs of three apps are submitted, cancelled and requeued at random; about
# every SOAK_KILL_EVERY seconds (default 240) the first node of a running
# job loses its slurmd (killed by PID, with the job's step daemons, so its
# epilog never runs there: the registry entry is left behind), and comes
# back a SlurmdTimeout later; the model file is rewritten every 20 s, so
# the reload thread reloads it all the while.  At the end it prints, with
# units: jobs submitted, seen running, cancelled by the soak, lost (neither
# seen running nor cancelled nor still queued), registry files left on
# disk for jobs slurmctld no longer runs and how many of them the reload
# thread left out (phantoms it still counts), and slurmctld's RSS at the
# start and the end.  Prints figures; asserts nothing.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SECONDS_TOTAL=${SOAK_SECONDS:-1800}
KILL_EVERY=${SOAK_KILL_EVERY:-240}
LAB=$ROOT/lab/lab
CONF=$(mktemp "${TMPDIR:-/tmp}/netvar-soak-conf.XXXXXX")
sed 's/^RegistryCheckSeconds=.*/RegistryCheckSeconds=10/' "$ROOT/tests/fixtures/jobsubmit/netvar.conf" >"$CONF"
dir=$("$LAB" up --nodes 4 --build "$BUILD" --netvar-conf "$CONF") || { rm -f "$CONF"; exit 1; }
cleanup() { "$LAB" down "$dir" >/dev/null 2>&1; rm -f "$CONF"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
eval "$("$LAB" env "$dir")"
cd "$dir" || exit 1
cp "$ROOT/tests/fixtures/jobsubmit/model.json" netvar/model.json

ctl_pid=$(cat run/slurmctld.pid)
rss() { awk '/^VmRSS/ {print $2}' "/proc/$ctl_pid/status" 2>/dev/null; }
rss_start=$(rss)
declare -A seen_run cancelled
submitted=0 requeues=0 kills=0 reloads=0
apps=(fftw amg lulesh)
start=$(date +%s) last_kill=$start last_reload=$start
dead_node="" dead_since=0 killed_jobs=""

restart_node() { # brings the killed slurmd back and resumes its node
    local node=$1
    env SLURM_CONF="$dir/etc/slurm.conf" NETVAR_LAB_MARK="$dir" slurmd -N "$node" \
        >>"log/slurmd-$node.out" 2>&1 </dev/null
    for _ in $(seq 1 50); do [ -s "run/slurmd-$node.pid" ] && break; sleep 0.1; done
    local pid
    pid=$(cat "run/slurmd-$node.pid" 2>/dev/null)
    [ -n "$pid" ] && sed -i "s/^[0-9]* slurmd-$node\$/$pid slurmd-$node/" pids
    scontrol update nodename="$node" state=resume >/dev/null 2>&1
}

while [ $(($(date +%s) - start)) -lt "$SECONDS_TOTAL" ]; do
    now=$(date +%s)
    # submit 0-2 jobs (4 nodes keep up with about that)
    for _ in $(seq 1 $((RANDOM % 3))); do
        app=${apps[$((RANDOM % 3))]}
        j=$(sbatch --parsable --requeue -N$((RANDOM % 2 + 1)) --netvar-app="$app" \
            --wrap "srun sleep $((RANDOM % 20 + 5))" 2>/dev/null) && submitted=$((submitted + 1))
    done
    # what runs now
    while read -r id state; do
        [ "$state" = RUNNING ] && seen_run[$id]=1
    done < <(squeue -h -o '%i %T' 2>/dev/null)
    mapfile -t running < <(squeue -h -t R -o '%i' 2>/dev/null)
    mapfile -t pending < <(squeue -h -t PD -o '%i' 2>/dev/null)
    # cancel one in ten iterations, requeue one in eight
    if [ ${#pending[@]} -gt 0 ] && [ $((RANDOM % 10)) -eq 0 ]; then
        j=${pending[$((RANDOM % ${#pending[@]}))]}
        [ -z "${seen_run[$j]:-}" ] && cancelled[$j]=1
        scancel "$j" 2>/dev/null
    fi
    if [ ${#running[@]} -gt 0 ] && [ $((RANDOM % 8)) -eq 0 ]; then
        scontrol requeue "${running[$((RANDOM % ${#running[@]}))]}" 2>/dev/null && requeues=$((requeues + 1))
    fi
    # kill the first node of a running job, by its slurmd's PID
    if [ -z "$dead_node" ] && [ $((now - last_kill)) -ge "$KILL_EVERY" ] && [ ${#running[@]} -gt 0 ]; then
        j=${running[0]}
        node=$(scontrol show hostnames "$(squeue -h -j "$j" -o %N)" 2>/dev/null | head -n 1)
        pid=$(cat "run/slurmd-$node.pid" 2>/dev/null)
        if [ -n "$node" ] && [ -n "$pid" ] &&
            tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "NETVAR_LAB_MARK=$dir"; then
            # its step daemons go too, so the job dies there without an epilog
            for sp in $(pgrep -f "slurmstepd: \[$j\." 2>/dev/null); do
                tr '\0' '\n' <"/proc/$sp/environ" 2>/dev/null | grep -qxF "NETVAR_LAB_MARK=$dir" &&
                    kill -KILL "$sp" 2>/dev/null
            done
            kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1)) && killed_jobs="$killed_jobs $j"
            dead_node=$node dead_since=$now last_kill=$now
            echo "soak: $(date +%T) killed slurmd of $node (pid $pid), first node of job $j"
        fi
    fi
    # back after slurmctld has noticed (SlurmdTimeout 60 s)
    if [ -n "$dead_node" ] && [ $((now - dead_since)) -ge 75 ]; then
        restart_node "$dead_node"
        echo "soak: $(date +%T) $dead_node back"
        dead_node=""
    fi
    # model reloads
    if [ $((now - last_reload)) -ge 20 ]; then
        cp "$ROOT/tests/fixtures/jobsubmit/model.json" netvar/model.json.new &&
            mv netvar/model.json.new netvar/model.json && reloads=$((reloads + 1))
        last_reload=$now
    fi
    sleep 2
done
[ -n "$dead_node" ] && restart_node "$dead_node"
# drain: what never ran is cancelled
mapfile -t pending < <(squeue -h -t PD -o '%i' 2>/dev/null)
drained=0
for j in "${pending[@]}"; do [ -z "${seen_run[$j]:-}" ] && drained=$((drained + 1)); done
scancel --state=PENDING -u "$(id -un)" 2>/dev/null
for _ in $(seq 1 120); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 1; done
while read -r id state; do [ "$state" = RUNNING ] && seen_run[$id]=1; done < <(squeue -h -o '%i %T' 2>/dev/null)
sleep 15 # one RegistryCheckSeconds and more
rss_end=$(rss)
still=$(squeue -h 2>/dev/null | wc -l)
left=0 dropped=0
for f in netvar/spool/running/*.json; do
    [ -e "$f" ] || continue
    id=$(basename "$f" .json)
    [ -n "$(squeue -h -j "$id" 2>/dev/null)" ] && continue
    left=$((left + 1))
    grep -q "slurmctld no longer runs job $id,\|job $id ended at its time limit" log/slurmctld.log &&
        dropped=$((dropped + 1))
done
run=${#seen_run[@]}
lost=$((submitted - run - ${#cancelled[@]} - drained - still))
# the jobs whose first node was killed: did job_submit leave their entries out
# while the node was down?
phantom_dropped=0
for j in $killed_jobs; do
    grep -q "slurmctld no longer runs job $j,\|job $j ended at its time limit" log/slurmctld.log &&
        phantom_dropped=$((phantom_dropped + 1))
done
[ "$lost" -lt 0 ] && lost=0
reload_lines=$(grep -c "netvar: model .* loaded" log/slurmctld.log)
cat <<EOF
soak: $SECONDS_TOTAL s on 4 nodes
  jobs submitted                 $submitted
  jobs seen running              $run
  cancelled before running       ${#cancelled[@]}
  never ran, cancelled at the end $drained
  requeued by the soak           $requeues
  still queued at the end        $still
  lost (none of the above)       $lost   (a job that ran and ended between two 2 s looks counts here)
  first-node slurmd kills        $kills   (entries job_submit left out while the node was down: $phantom_dropped)
  model rewrites / loads logged  $reloads / $reload_lines
  registry files of ended jobs   $left   (left on disk: their epilog never ran)
  ... left out by job_submit     $dropped   (phantoms still counted: $((left - dropped)))
  slurmctld RSS start / end      ${rss_start:-?} KiB / ${rss_end:-?} KiB
EOF
