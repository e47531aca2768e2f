#!/usr/bin/env bash
# test_accounting.sh - a lab with real Slurm accounting (lab up
# --accounting: MariaDB and slurmdbd started and stopped by PID): netvar's
# EpilogSlurmctld puts every netvar job's summary into AdminComment, read
# back with sacct; jobstats' AdminComment ("JS1:", quotes and all) is kept
# byte for byte and netvar's entry goes to SystemComment; a job with netvar off gets none; running the
# writer again leaves one entry.  A Comment the user rewrote (scontrol
# update on a held job) to a forged netvar annotation: the summary writes
# its prediction as the user's claim, never as netvar's; with
# AnnotateField=AdminComment (users cannot set it) the summary carries
# job_submit's own prediction and leaves the Comment out; training takes
# the app from netvar's entry in AdminComment, never a Comment's "netvar:{"
# (issue 52, items 5 and 6).  Then a prune while a job runs: the
# finished jobs' records go, the running one's stays, and job_submit goes
# on predicting; and `netvar train --from-sacct` learns the pruned jobs
# back from accounting.
set -u
source "$ROOT/tests/integration/lab_lib.sh"
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || { echo "mariadb-server not installed"; exit 77; }
command -v slurmdbd >/dev/null || [ -x /usr/sbin/slurmdbd ] || { echo "slurmdbd not installed"; exit 77; }
lab_start --accounting --nodes 2
ACCT=$BUILD/bin/netvar-acct
# slurmdbd keeps a job's Comment only with this flag (sacct -o Comment is
# empty without it): training reads the Comment a user may have forged
echo "AccountingStoreFlags=job_comment" >>"$NETVAR_LAB/etc/slurm.conf"
scontrol reconfigure || not_ok "scontrol reconfigure"

admin_comment() { sacct -j "$1" -X -n -P -o AdminComment 2>/dev/null; }
# wait_summary JOBID: waits until sacct shows netvar's summary (an entry
# with runtime_s: job_submit's own annotation may be there before it; 30 s
# at most)
wait_summary() {
    local a
    for _ in $(seq 1 60); do
        a=$(admin_comment "$1")
        case $a in *netvar:\{*\"runtime_s\"*) printf '%s' "$a"; return 0 ;; esac
        sleep 0.5
    done
    printf '%s' "$a"
    return 1
}

check "slurmdbd is up: sacctmgr lists the lab's cluster" sh -c "sacctmgr -n -P list cluster format=cluster | grep -qx netvarlab"
check "slurmctld stores job comments" sh -c "scontrol show config | grep -i '^AccountingStoreFlags' | grep -q job_comment"
a=$(sbatch --parsable -N1 --netvar-app=alpha --wrap "sleep 1")
check "job $a ran" wait_job "$a" 60
summ=$(wait_summary "$a"); echo "job $a AdminComment: $summ"
contains "sacct shows netvar's summary for job $a" "$summ" 'netvar:{"v":2,"app":"alpha"'
json=${summ#netvar:}
check "the summary is JSON with every field" \
    sh -c "printf '%s' '$json' | jq -e 'has(\"runtime_s\") and has(\"baseline_s\") and has(\"slowdown_pct\") and has(\"predicted_pct\") and has(\"src\") and has(\"claimed_pct\") and has(\"claimed_src\")' >/dev/null"
check "the summary is bounded (${#summ} bytes <= 384)" test "${#summ}" -le 384
echo "figure: sacct -j $a -o AdminComment -P: $summ"

b=$(sbatch --parsable -N1 --netvar-app=beta --wrap "sleep 5")
for _ in $(seq 1 50); do [ "$(squeue -h -j "$b" -o %T)" = RUNNING ] && break; sleep 0.2; done
scontrol update jobid="$b" AdminComment='JS1:H4sI "kept" it' || not_ok "scontrol update AdminComment"
check "job $b ran" wait_job "$b" 60
# jobstats decodes everything after "JS1:": netvar's summary goes to
# SystemComment instead, and the AdminComment stays byte for byte
for _ in $(seq 1 60); do
    sys=$(sacct -j "$b" -X -n -P -o SystemComment 2>/dev/null)
    case $sys in *\"runtime_s\"*) break ;; esac
    sleep 0.5
done
echo "job $b SystemComment: $sys"
check "a jobstats AdminComment is kept exactly as it was" test "$(admin_comment "$b")" = 'JS1:H4sI "kept" it'
contains "and netvar's summary is in SystemComment" "$sys" 'netvar:{"v":2,"app":"beta"'

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

# A forged Comment (issue 52, item 5).  job_submit annotates the held job's
# Comment; the user rewrites it, as any user may their own job's, to what
# netvar would have written with another prediction, source and app.
forged='netvar:{"v":1,"mode":"counters","app":"forged","own_pct":-50.0,"src":"table"}'
f=$(sbatch --parsable -N1 --hold --netvar-app=alpha --wrap "sleep 1")
contains "job_submit annotated held job $f's Comment" "$(job_field "$f" Comment)" 'netvar:{"v":1,"mode":"counters","app":"alpha"'
scontrol update job "$f" Comment="$forged" || not_ok "scontrol update job $f Comment"
check "job $f's Comment is now the forged one" test "$(job_field "$f" Comment)" = "$forged"
scontrol release "$f"
check "job $f ran" wait_job "$f" 60
contains "the prolog recorded the Comment's annotation" \
    "$(jq -r .annotation "$NETVAR_LAB/netvar/spool/jobs/$f/job.json" 2>&1)" '"own_pct":-50.0,"src":"table"}'
summ=$(wait_summary "$f"); echo "job $f AdminComment: $summ"
contains "the forged figures are the user's claim, not netvar's prediction" "$summ" \
    '"predicted_pct":null,"src":"","claimed_pct":-50.0,"claimed_src":"table"}'
contains "the app is the one the job ran as, not the Comment's" "$summ" 'netvar:{"v":2,"app":"alpha"'
out=$("$ACCT" "$f" --print --config "$NETVAR_LAB/etc/netvar.conf" --wait-s 0 2>&1)
contains "--print marks it the same way" "$out" '"predicted_pct":null,"src":"","claimed_pct":-50.0,"claimed_src":"table"}'
echo "figure: job $f (forged Comment): $summ"

# A user's own text with a "netvar:{" in it, on a job of no app: netvar's
# summary names none, and the user's text is not read
u=$(sbatch --parsable -N1 --hold --wrap "sleep 1")
scontrol update job "$u" Comment='netvar:{"v":1,"app":"usertext"} my own notes' || not_ok "scontrol update job $u Comment"
scontrol release "$u"
check "job $u ran" wait_job "$u" 60
check "sacct holds the user's Comment" test "$(sacct -j "$u" -X -n -P -o Comment)" = 'netvar:{"v":1,"app":"usertext"} my own notes'
summ=$(wait_summary "$u"); echo "job $u AdminComment: $summ"
contains "its summary names no app" "$summ" 'netvar:{"v":2,"app":"",'

# AnnotateField=AdminComment: job_submit's annotation where users cannot
# write.  A model and a running job under both leaf switches give the
# newcomer a prediction (the refresher rereads netvar.conf and the
# registry once a second).
CONF=$NETVAR_LAB/etc/netvar.conf
cp "$CONF" "$NETVAR_LAB/netvar.conf.orig"
sed -i 's/^AnnotateField=.*/AnnotateField=AdminComment/' "$CONF"
cp "$ROOT/tests/fixtures/jobsubmit/model.json" "$NETVAR_LAB/netvar/model.json"
for _ in $(seq 1 30); do grep -q "netvar: model .* loaded: 3 apps" "$NETVAR_LAB/log/slurmctld.log" && break; sleep 0.2; done
sleep 2
span=$(sbatch --parsable -N2 --netvar-app=fftw --wrap "sleep 30")
for _ in $(seq 1 50); do [ -e "$NETVAR_LAB/netvar/spool/running/$span.json" ] && break; sleep 0.2; done
sleep 1.5
g=$(sbatch --parsable -N2 --hold --netvar-app=amg --wrap "sleep 1")
ann=$(job_field "$g" AdminComment)
echo "job $g AdminComment at submission: $ann"
contains "job_submit annotated job $g's AdminComment" "$ann" 'netvar:{"v":1,"mode":"counters","app":"amg"'
own=$(printf '%s' "${ann#*netvar:}" | jq -c '{own_pct, src}' 2>/dev/null)
check "with a prediction ($own)" sh -c "printf '%s' '$own' | jq -e '(.own_pct|type) == \"number\" and (.src|type) == \"string\"' >/dev/null"
lacks "and none in the Comment" "$(job_field "$g" Comment)" "netvar:{"
scontrol update job "$g" Comment="$forged" || not_ok "scontrol update job $g Comment"
scontrol release "$g"
scancel "$span" 2>/dev/null
check "job $g ran" wait_job "$g" 60
summ=$(wait_summary "$g"); echo "job $g AdminComment: $summ"
got=$(printf '%s' "${summ#*netvar:}" | jq -c '{own_pct: .predicted_pct, src}' 2>/dev/null)
check "the summary carries job_submit's own prediction ($got), not the Comment's" test -n "$own" -a "$got" = "$own"
contains "and leaves the forged Comment out" "$summ" '"claimed_pct":null,"claimed_src":""}'
check "one netvar entry: the summary replaced job_submit's annotation" \
    test "$(grep -o 'netvar:{' <<<"$summ" | wc -l)" -eq 1
out=$("$ACCT" "$g" --config "$CONF" --wait-s 10 2>&1)
check "writing again changes nothing ($out)" test "$(admin_comment "$g")" = "$summ"
echo "figure: job $g (AnnotateField=AdminComment, forged Comment): $summ"
# what the trust rests on, for a user who is no admin: a submission with
# job_submit's AdminComment annotation is accepted, the user cannot change
# that AdminComment, and can rewrite the Comment
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    chmod 711 "$NETVAR_LAB" # the lab's etc/ is readable; the directory was not
    as_nobody() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" "$@"; }
    n=$(as_nobody sbatch --parsable --hold -N1 -o /dev/null -D /tmp --wrap true 2>/dev/null)
    contains "nobody's job ${n:-(refused)} is accepted, netvar's annotation in its AdminComment" \
        "$(job_field "${n:-0}" AdminComment)" 'netvar:{"v":1,"mode":'
    if as_nobody scontrol update job "${n:-0}" AdminComment="$forged" 2>/dev/null; then
        not_ok "nobody changed their job's AdminComment"
    else
        ok "nobody cannot change their job's AdminComment"
    fi
    check "but can rewrite its Comment" as_nobody scontrol update job "${n:-0}" Comment="$forged"
    scancel "${n:-0}" 2>/dev/null
fi
cp "$NETVAR_LAB/netvar.conf.orig" "$CONF"
sleep 2

# prune while a job runs
S=$NETVAR_LAB/netvar/spool
r=$(sbatch --parsable -N1 --netvar-app=gamma --wrap "sleep 20")
for _ in $(seq 1 50); do [ -f "$S/running/$r.json" ] && break; sleep 0.2; done
out=$("$NV" prune --spool "$S" --older-than 0 --json)
echo "$out"
check "prune removed the finished jobs' records" test ! -e "$S/jobs/$a" -a ! -e "$S/jobs/$b"
check "prune kept the running job's record" test -d "$S/jobs/$r"
check "prune counted it as running" test "$(jq .kept_running <<<"$out")" -ge 1
msg=$(nv_sbatch -N1 --netvar-app=delta --wrap "sleep 1" 2>&1)
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
check "and amg, from netvar's own entry" sh -c "jq -e '.apps | tostring | contains(\"amg\")' '$NETVAR_LAB/m-sacct.json' >/dev/null"
check "no app named by a forged Comment (job $f ran as alpha)" \
    sh -c "jq -e '.apps | tostring | contains(\"forged\") | not' '$NETVAR_LAB/m-sacct.json' >/dev/null"
check "nor by a netvar:{ in a user's own text (job $u)" \
    sh -c "jq -e '.apps | tostring | contains(\"usertext\") | not' '$NETVAR_LAB/m-sacct.json' >/dev/null"
finish
