#!/usr/bin/env bash
# test_accounting.sh - a lab with real Slurm accounting (lab up
# --accounting: MariaDB and slurmdbd started and stopped by PID): netvar's
# EpilogSlurmctld puts every netvar job's summary into AdminComment, read
# back with sacct; another tool's AdminComment (quotes and all) is kept and
# netvar's entry appended; a job with netvar off gets none; running the
# writer again leaves one entry.  Then a prune while a job runs: the
# finished jobs' records go, the running one's stays, and job_submit goes
# on predicting; and `netvar train --from-sacct` learns the pruned jobs
# back from accounting.
set -u
source "$ROOT/tests/integration/lab_lib.sh"
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || { echo "mariadb-server not installed"; exit 77; }
command -v slurmdbd >/dev/null || [ -x /usr/sbin/slurmdbd ] || { echo "slurmdbd not installed"; exit 77; }
lab_start --accounting --nodes 2
ACCT=$BUILD/bin/netvar-acct

admin_comment() { sacct -j "$1" -X -n -P -o AdminComment 2>/dev/null; }
# wait_summary JOBID: waits until sacct shows a netvar entry (30 s at most)
wait_summary() {
    local a
    for _ in $(seq 1 60); do
        a=$(admin_comment "$1")
        case $a in *netvar:\{*) printf '%s' "$a"; return 0 ;; esac
        sleep 0.5
    done
    printf '%s' "$a"
    return 1
}

check "slurmdbd is up: sacctmgr lists the lab's cluster" sh -c "sacctmgr -n -P list cluster format=cluster | grep -qx netvarlab"
a=$(sbatch --parsable -N1 --netvar-app=alpha --wrap "sleep 1")
check "job $a ran" wait_job "$a" 60
summ=$(wait_summary "$a"); echo "job $a AdminComment: $summ"
contains "sacct shows netvar's summary for job $a" "$summ" 'netvar:{"v":1,"app":"alpha"'
json=${summ#netvar:}
check "the summary is JSON with every field" \
    sh -c "printf '%s' '$json' | jq -e 'has(\"runtime_s\") and has(\"baseline_s\") and has(\"slowdown_pct\") and has(\"predicted_pct\") and has(\"src\")' >/dev/null"
check "the summary is bounded (${#summ} bytes <= 384)" test "${#summ}" -le 384
echo "figure: sacct -j $a -o AdminComment -P: $summ"

b=$(sbatch --parsable -N1 --netvar-app=beta --wrap "sleep 5")
for _ in $(seq 1 50); do [ "$(squeue -h -j "$b" -o %T)" = RUNNING ] && break; sleep 0.2; done
scontrol update jobid="$b" AdminComment='JS1:H4sI "kept" it' || not_ok "scontrol update AdminComment"
check "job $b ran" wait_job "$b" 60
summ=$(wait_summary "$b"); echo "job $b AdminComment: $summ"
contains "another tool's AdminComment is kept as it was" "$summ" 'JS1:H4sI "kept" it netvar:{"v":1,"app":"beta"'

c=$(sbatch --parsable -N1 --netvar=off --wrap "sleep 1")
check "job $c ran" wait_job "$c" 60
sleep 3
check "a job with netvar off gets no summary" test -z "$(admin_comment "$c")"
check "its state reached accounting" test "$(sacct -j "$c" -X -n -P -o State)" = COMPLETED

out=$("$ACCT" "$a" --config "$NETVAR_LAB/etc/netvar.conf" --wait-s 10 2>&1)
summ=$(admin_comment "$a")
check "writing again leaves one netvar entry ($out)" test "$(grep -o 'netvar:{' <<<"$summ" | wc -l)" -eq 1
out=$("$ACCT" 999999 --config "$NETVAR_LAB/etc/netvar.conf" --wait-s 0 2>&1); rc=$?
check "a job without a record: nothing written, exit 0" test $rc -eq 0
contains "and says so" "$out" "no netvar record"

# prune while a job runs
S=$NETVAR_LAB/netvar/spool
r=$(sbatch --parsable -N1 --netvar-app=gamma --wrap "sleep 20")
for _ in $(seq 1 50); do [ -f "$S/running/$r.json" ] && break; sleep 0.2; done
out=$("$NV" prune --spool "$S" --older-than 0 --json)
echo "$out"
check "prune removed the finished jobs' records" test ! -e "$S/jobs/$a" -a ! -e "$S/jobs/$b"
check "prune kept the running job's record" test -d "$S/jobs/$r"
check "prune counted it as running" test "$(jq .kept_running <<<"$out")" -ge 1
msg=$(sbatch -N1 --netvar-app=delta --wrap "sleep 1" 2>&1)
contains "job_submit answers after the prune" "$msg" "netvar: app delta"
scancel "$r" 2>/dev/null

# training from accounting: the pruned jobs come back from sacct
"$BUILD/bin/netvar-train-gen" "$NETVAR_LAB/gen" --seed 2 >/dev/null || not_ok "generator"
out=$("$NV" train --spool "$S" --from-sacct now-1hour --topology "$NETVAR_LAB/etc/topology.conf" \
      --model "$NETVAR_LAB/gen/base-model.json" --out "$NETVAR_LAB/m-sacct.json" --json 2>"$NETVAR_LAB/train.err")
rc=$?
echo "$out"; cat "$NETVAR_LAB/train.err"
check "train --from-sacct exits 0" test $rc -eq 0
check "it used the accounting jobs the spool no longer holds" test "$(jq .sacct_used <<<"$out")" -ge 2
check "the model learned alpha and beta from accounting" \
    sh -c "jq -e '.apps | tostring | (contains(\"alpha\") and contains(\"beta\"))' '$NETVAR_LAB/m-sacct.json' >/dev/null"
finish
