#!/usr/bin/env bash
# lane: netlab
# test_jobsubmit_policy.sh - job_submit/netvar inside a real slurmctld:
# predictions against the running-jobs registry, and every policy action
# visible where Slurm shows it (scontrol, sbatch output, a refused
# submission); resize only with --netvar-advise=apply and within limits;
# hostile values; a malformed model on reload keeps the previous one; a
# malformed config at start leaves netvar passive and slurmctld running.
. "$ROOT/tests/integration/lab_lib.sh"
FIX=$ROOT/tests/fixtures/jobsubmit
lab_start --nodes 4 --netvar-conf "$FIX/netvar.conf"
cp "$FIX/model.json" netvar/model.json
for _ in $(seq 1 30); do grep -q "netvar: model .* loaded: 3 apps" log/slurmctld.log && break; sleep 0.2; done
check "slurmctld loaded the model (reload thread)" grep -q "netvar: model .* loaded: 3 apps" log/slurmctld.log

# a sensitive job on n1-n2; contain applies to it
out=$(nv_sbatch -N2 -w n1,n2 --netvar-app=fftw --wrap "srun sleep 60" 2>&1)
sens=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "sensitive job told its rule" "$out" "netvar: policy rule 'sensitive' applied: message,contain"
contains "rule message shown by sbatch" "$out" "netvar: kept under one leaf switch"
contains "advice shown with units" "$out" "advice 2 nodes"
contains "contain sets ReqSwitch and its wait" "$(scontrol show job "$sens")" "Switches=1@00:02:00"
contains "annotation in Comment" "$(job_field "$sens" Comment)" 'netvar:{"v":1,"mode":"counters","app":"fftw","model":"known"'
# what the user wrote stays: their own --switches; a Comment kept whole with
# the annotation after it; and a Comment so long that the annotation would
# push it past Slurm's 1024 characters (checked after job_submit: the job
# would be rejected) is kept as written, the job accepted, the user told
mid=$(head -c 600 /dev/zero | tr '\0' 'c')
out=$(nv_sbatch -N2 -w n1,n2 --netvar-app=fftw --switches=2@1:00 --comment="$mid" --hold --wrap "true" 2>&1)
own=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
check "a job with its own --switches and a 600-character Comment is accepted" test -n "$own"
contains "contain keeps the user's own --switches" "$(scontrol show job "$own")" "Switches=2@00:01:00"
contains "a 600-character Comment is kept whole before the annotation" "$(job_field "$own" Comment)" "$mid netvar:{"
full=$(head -c 1000 /dev/zero | tr '\0' 'c')
out=$(nv_sbatch -N2 -w n1,n2 --netvar-app=fftw --comment="$full" --hold --wrap "true" 2>&1)
own2=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
check "a 1000-character Comment does not get the job rejected" test -n "$own2"
contains "the user is told the annotation did not fit" "$out" "leaves no room for netvar's annotation"
check "the 1000-character Comment is exactly what the user wrote" test "$(job_field "$own2" Comment)" = "$full"
# contain asks for the fewest leaf switches that hold the job: three nodes
# on the lab's two leaves of two take both (Switches=1 could never be met,
# and would only hold the job for ContainWaitSeconds)
out=$(nv_sbatch -N3 --netvar-app=fftw --hold --wrap "true" 2>&1)
three=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "contain asks for as few leaf switches as hold the job" "$(scontrol show job "$three")" \
    "Switches=2@00:02:00"
scancel "$own" "$own2" "$three" 2>/dev/null
for _ in $(seq 1 50); do [ -e "netvar/spool/running/$sens.json" ] && break; sleep 0.2; done
sleep 1.5 # the refresher looks once a second

# a noisy job beside the sensitive one, which contain keeps under leaf s1:
# its traffic stays there and crosses no uplink, so the two share no port
# and the path answers 0 % both ways; the noisy rule (inflicted >= 10 %)
# does not fire and nothing is excluded
contains "the registry names the sensitive job's one leaf switch" \
    "$(tr -d ' \n\t' <"netvar/spool/running/$sens.json" 2>/dev/null)" '"switches":["s1"]'
out=$(nv_sbatch -N2 --netvar-app=amg --wrap "srun sleep 5" 2>&1)
noisy=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "beside a job under one leaf switch the path answers" "$out" \
    "predicted slowdown 0 % beside job $sens (fftw; path: under one leaf switch); would slow job $sens (fftw) by 0 % (path: under one leaf switch)"
lacks "so no avoid" "$out" "applied: message,avoid"
contains "and nothing is excluded" "$(scontrol show job "$noisy")" "ExcNodeList=(null)"
contains "the annotation names the path" "$(job_field "$noisy" Comment)" '"src":"path: under one leaf switch"'
# avoid keeps a job off nodes, not off ports: a running fftw job under both
# leaf switches (its own --switches=2 keeps contain from holding it) loads
# both uplinks; a newcomer that may span leaves is also kept under one leaf
# switch (contain), a one-node one crosses no switch, and one whose own
# --switches=2 stays is told what that costs
span=$(sbatch --parsable -N2 -w n2,n3 --switches=2 --netvar-app=fftw --wrap "srun sleep 30" 2>/dev/null)
for _ in $(seq 1 50); do [ -e "netvar/spool/running/$span.json" ] && break; sleep 0.2; done
contains "the registry names both leaf switches of the spanning job" \
    "$(tr -d ' \n\t' <"netvar/spool/running/$span.json" 2>/dev/null)" '"switches":["s1","s2"]'
sleep 1.5 # the refresher looks once a second
out=$(nv_sbatch -N1-2 --hold --netvar-app=amg --wrap true 2>&1)
j=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
# fftw now has a job under each kind of placement: the one named is the
# job that crosses the uplinks
contains "inflicted slowdown names the victim and the source" "$out" \
    "would slow job $span (fftw) by 108 % (model:queue)"
contains "own slowdown predicted beside the running job" "$out" "predicted slowdown 1 % beside job $span"
contains "annotation carries the prediction" "$(job_field "$j" Comment)" '"inflicted_pct":107.5,"src":"model:queue"'
contains "annotation names the neighbour the prediction was against" "$(job_field "$j" Comment)" \
    "\"vs\":\"fftw\",\"vs_job\":$span"
# what the user sees (UserMessages=predictions, the default): plain words,
# none of the model's
user=$(user_lines "$out")
contains "the user is told plainly" "$user" \
    "netvar: your job would share a network link with job $span (fftw) and slow it down by about 108 %. Placed away from it. Kept under one network switch (waiting up to 120 s for one)."
contains "with the rule's own message" "$user" "netvar: kept away from the jobs it would slow down"
echo "transcript: sbatch told the user:"; printf "%s\n" "$user" | sed "s/^/    /"
lacks "the user sees no model terms (rho)" "$user" "rho"
lacks "... nor sources" "$user" "model:"
contains "avoid adds contain beside a job under two leaf switches" "$out" \
    "netvar: policy rule 'noisy' applied: message,contain,avoid"
contains "and says why" "$out" \
    "netvar: job $span (fftw) spans 2 leaf switches and loads their uplinks: avoid also keeps this job under one leaf switch (waiting up to 120 s for one), where it crosses no uplink"
show=$(scontrol show job "$j")
contains "the newcomer is kept under one leaf switch" "$show" "Switches=1@00:02:00"
# off the nodes of the fftw job that crosses the uplinks, not those of the
# one under leaf s1, which shares no port with it anywhere
contains "and off the avoided job's nodes" "$show" "ExcNodeList=n[2-3]"
# avoid keeps a job runnable: 3 nodes wanted, 2 of 4 would be left -> a
# message with the reason instead of an exclusion that never lets it start
out=$(nv_sbatch -N3 --hold --netvar-app=amg --wrap true 2>&1)
wide=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "avoid that would leave too few nodes becomes a message" "$out" \
    "would leave 2 of the partition's 4 nodes, fewer than the 3 this job needs"
contains "and nothing is excluded" "$(scontrol show job "$wide")" "ExcNodeList=(null)"
scancel "$wide" 2>/dev/null
# a one-node newcomer sends nothing through a switch: the path answers 0 %
# both ways, so no rule fires, nothing is excluded and nothing contained
out=$(nv_sbatch -N1 --hold --netvar-app=amg --wrap true 2>&1)
j1=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "a one-node newcomer: 0 % from the path" "$out" "predicted slowdown 0 % beside job "
contains "... named as such" "$out" "; path: one node); would slow job "
check "nothing worth saying: sbatch prints no netvar line" test -z "$(user_lines "$out" | grep 'netvar')"
show=$(scontrol show job "$j1")
contains "is not kept off their nodes" "$show" "ExcNodeList=(null)"
lacks "nor held for a leaf switch" "$show" "Switches=1@"
out=$(nv_sbatch -N1-2 --switches=2 --hold --netvar-app=amg --wrap true 2>&1)
j2=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "a user's --switches=2 is kept beside a job under two leaf switches" \
    "$(scontrol show job "$j2")" "Switches=2@"
contains "and the user is told what it costs" "$out" \
    "your --switches=2 is kept, so across leaf switches this job would still share their uplinks"
# a newcomer that names its nodes has a known placement, read against
# topology.conf: under leaf s2 alone it crosses no uplink, so the path
# answers 0 % beside the spanning job and no rule fires; across both
# leaves it shares their uplinks with it, and the model answers
check "slurmctld read the leaf switches of topology.conf" \
    grep -q "netvar: .*topology.conf: 4 nodes under 2 leaf switches" log/slurmctld.log
out=$(nv_sbatch -N2 -w n3,n4 --hold --netvar-app=amg --wrap true 2>&1)
j4=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "a newcomer named under one leaf: 0 % from the path" "$out" \
    "predicted slowdown 0 % beside job $span (fftw; path: under one leaf switch)"
show=$(scontrol show job "$j4")
contains "... and is not kept off nodes" "$show" "ExcNodeList=(null)"
lacks "... nor held for a leaf switch" "$show" "Switches=1@"
out=$(nv_sbatch -N2 -w n1,n4 --hold --netvar-app=amg --wrap true 2>&1)
j5=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "a newcomer named across the leaves gets the model's answer" "$out" \
    "would slow job $span (fftw) by 108 % (model:queue)"
scancel "$j4" "$j5" 2>/dev/null
# a node the user names stays off the exclude list: Slurm refuses a job that
# requires a node it excludes ("Invalid node name specified")
out=$(nv_sbatch -N1-2 -w n2 --hold --netvar-app=amg --wrap true 2>&1)
j3=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
check "a job naming a node avoid would exclude is accepted" test -n "$j3"
contains "the user is told which named node stays" "$out" \
    "avoid does not exclude the 1 node you named with --nodelist (n2)"
show=$(scontrol show job "$j3" 2>/dev/null)
contains "its own node stays required" "$show" "ReqNodeList=n2"
contains "and the other avoided node is excluded" "$show" "ExcNodeList=n3"
scancel "$j1" "$j2" "$j3" 2>/dev/null
scancel "$j" "$span" 2>/dev/null
for _ in $(seq 1 100); do [ -e "netvar/spool/running/$span.json" ] || break; sleep 0.2; done
sleep 1.5

# a phantom: the entry of a job whose first node died before its epilog
# (planted here); slurmctld does not run that job, so the reload thread
# leaves it out (issue 17)
mkdir -p netvar/spool/running
printf '{"schema":"netvar-running","version":1,"job_id":99999,"uid":0,"app":"fftw","mode":"counters","start_unix_s":1000,"nodes":["n3","n4"]}' \
    >netvar/spool/running/.99999.tmp && mv netvar/spool/running/.99999.tmp netvar/spool/running/99999.json
for _ in $(seq 1 50); do grep -q "slurmctld no longer runs job 99999" log/slurmctld.log && break; sleep 0.2; done
check "a phantom registry entry is dropped by the reload thread" \
    grep -q "slurmctld no longer runs job 99999" log/slurmctld.log
# kept, the phantom (no leaf switch known) would make fftw an app that may
# cross an uplink, and amg would be predicted beside it; dropped, fftw's one
# real job lies under leaf s1 and the path answers
out=$(nv_sbatch -N2 --hold --netvar-app=amg --wrap true 2>&1)
j=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "the phantom is not predicted against (only the running fftw job, under one leaf)" "$out" \
    "predicted slowdown 0 % beside job $sens (fftw; path: under one leaf switch)"
check "and its nodes are not avoided" \
    test "$(scontrol show job "$j" | sed -n 's/.*ExcNodeList=\([^ ]*\).*/\1/p')" = "(null)"
scancel "$j" 2>/dev/null

# deny, hold, isolate
before=$(squeue -h | wc -l)
out=$(nv_sbatch --netvar-app=denyme --wrap true 2>&1); rc=$?
check "deny rejects the submission" test $rc -ne 0
contains "deny gives the admin's reason" "$out" "denied by policy rule 'deny-it': denyme is not allowed on this cluster"
check "nothing queued by the denied submission" test "$(squeue -h | wc -l)" -eq "$before"
j=$(sbatch --parsable --netvar-app=holdme --wrap true 2>/dev/null)
contains "hold leaves the job held" "$(scontrol show job "$j")" "Priority=0"
scancel "$j"
j=$(sbatch --parsable --hold --netvar-app=isome --wrap true 2>/dev/null)
contains "isolate makes the job exclusive" "$(scontrol show job "$j")" "OverSubscribe=NO"
scancel "$j"

# resize: only with --netvar-advise=apply, and within the user's range
j=$(sbatch --parsable --hold -N1-4 --netvar-app=fftw --wrap true 2>/dev/null)
contains "no resize without --netvar-advise=apply" "$(scontrol show job "$j")" "NumNodes=1-4"
scancel "$j"
out=$(nv_sbatch --hold -N1-4 --netvar-app=fftw --netvar-advise=apply --wrap true 2>&1)
j=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
contains "resize applies the advised 2 nodes" "$(scontrol show job "$j")" "NumNodes=2-2 "
contains "resize is explained" "$out" "node count set to the advised 2"
scancel "$j"
j=$(sbatch --parsable --hold -N3-4 --netvar-app=fftw --netvar-advise=apply --wrap true 2>/dev/null)
contains "resize picks the fastest size inside the user's range 3-4" "$(scontrol show job "$j")" "NumNodes=3-3 "
scancel "$j"

# job_modify: a changed node count is re-evaluated (22.05 has no message
# channel there, so netvar logs its answer)
j=$(sbatch --parsable --hold -N1 --netvar-app=amg --wrap true 2>/dev/null)
scontrol update jobid="$j" NumNodes=2-2 >/dev/null 2>&1
for _ in $(seq 1 20); do grep -q "netvar: job_modify: job $j: node count" log/slurmctld.log && break; sleep 0.2; done
check "job_modify looks at a changed node count" grep -q "netvar: job_modify: job $j: node count" log/slurmctld.log
contains "job_modify keeps the submission's annotation" "$(job_field "$j" Comment)" '"app":"amg"'
j2=$(sbatch --parsable --hold -N1 -J amg --comment="mine netvar:{x} after" --exclude=n4 --wrap true 2>/dev/null)
contains "text after the user's own netvar:{ is kept" "$(job_field "$j2" Comment)" "mine netvar:{x} after netvar:{"
exc_before=$(scontrol show job "$j2" | sed -n 's/.*ExcNodeList=\([^ ]*\).*/\1/p')
comment_before=$(job_field "$j2" Comment)
scontrol update jobid="$j2" NumNodes=2-2 Name=amg >/dev/null 2>&1
for _ in $(seq 1 20); do grep -q "netvar: job_modify: uid [0-9]*: app amg" log/slurmctld.log && break; sleep 0.2; done
check "job_modify re-evaluates when the update names the app" grep -q "netvar: job_modify: uid [0-9]*: app amg" log/slurmctld.log
# an update carries only what changes: netvar cannot see the Comment or the
# --exclude list there, so it sets neither (issue 17)
check "job_modify leaves the Comment as it was" test "$(job_field "$j2" Comment)" = "$comment_before"
contains "the submission kept the user's --exclude" "$exc_before" "4"
check "job_modify leaves the --exclude list as it was" \
    test "$(scontrol show job "$j2" | sed -n 's/.*ExcNodeList=\([^ ]*\).*/\1/p')" = "$exc_before"
scancel "$j" "$j2"

# the user is told where the app's name came from: their NETVAR_APP
# default is not the option (issue 52)
out=$(NETVAR_APP=gromacs nv_sbatch --hold -N1 --wrap true 2>&1)
contains "an app from NETVAR_APP is named with its source" "$out" \
    "netvar: app gromacs (from NETVAR_APP) is not in the model yet"
check "an app not in the model: sbatch prints no netvar line" test -z "$(user_lines "$out" | grep 'netvar')"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" 2>/dev/null
out=$(NETVAR_APP=amg nv_sbatch --hold -N1 --netvar-app=gromacs --wrap true 2>&1)
contains "the option wins over NETVAR_APP, and is named" "$out" \
    "netvar: app gromacs (from --netvar-app) is not in the model yet"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" 2>/dev/null

# hostile values are refused cleanly, the job still goes in
out=$(NETVAR_APP="$(head -c 6000 /dev/zero | tr '\0' a)" sbatch --hold --wrap true 2>&1); rc=$?
check "oversized NETVAR_APP does not fail the submission" test $rc -eq 0
contains "oversized NETVAR_APP is named and ignored" "$out" "NETVAR_APP"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" 2>/dev/null
out=$(nv_sbatch --hold --netvar-app='x;rm -rf /' --wrap true 2>&1); rc=$?
check "hostile --netvar-app fails the command" test $rc -ne 0
contains "hostile --netvar-app gets the reason" "$out" "has a character outside letters, digits and ._-"

# a corrupt model on reload: the previous one stays
printf '{"schema":"netvar-model","version":1,"apps":[' >netvar/model.tmp && mv netvar/model.tmp netvar/model.json
for _ in $(seq 1 30); do grep -q "keeping the previous model" log/slurmctld.log && break; sleep 0.2; done
check "corrupt model logged with its reason" grep -q "netvar: model .*model.json: " log/slurmctld.log
check "corrupt model: previous model kept" grep -q "keeping the previous model (still in use)" log/slurmctld.log
out=$(nv_sbatch --hold -N1 --netvar-app=amg --wrap true 2>&1)
contains "predictions still come from the previous model" "$out" "app amg: rho 0.60"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" 2>/dev/null
cp "$FIX/model.json" netvar/model.json
for _ in $(seq 1 30); do [ "$(grep -c 'loaded: 3 apps' log/slurmctld.log)" -ge 2 ] && break; sleep 0.2; done
check "a fixed model is picked up again" test "$(grep -c 'loaded: 3 apps' log/slurmctld.log)" -ge 2

# table beats model for a measured pair (fftw beside lulesh: 8 runs)
scancel "$sens" "$noisy" 2>/dev/null
wait_job "$sens" 30; wait_job "$noisy" 30
out=$(nv_sbatch -N2 -w n2,n3 --netvar-app=lulesh --wrap "srun sleep 20" 2>&1)
lul=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
for _ in $(seq 1 50); do [ -e "netvar/spool/running/$lul.json" ] && [ ! -e "netvar/spool/running/$sens.json" ] && break; sleep 0.2; done
sleep 1.5
out=$(nv_sbatch -N2 --hold --netvar-app=fftw --wrap true 2>&1)
contains "a measured pair answers from the table with its run count" "$out" "beside job $lul (lulesh; table, 8 runs)"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" "$lul" 2>/dev/null

# the site's off switch: Enabled=no in netvar.conf, reread within a second;
# submissions pass through untouched, and Enabled=yes brings netvar back
cp etc/netvar.conf etc/netvar.conf.on
{ grep -v '^Enabled=' etc/netvar.conf.on; echo 'Enabled=no'; } >etc/netvar.conf.off
mv etc/netvar.conf.off etc/netvar.conf
sleep 1.5
out=$(nv_sbatch -N1 --hold --netvar-app=fftw --wrap true 2>&1); rc=$?
off=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
check "Enabled=no: the submission is accepted" test $rc -eq 0
check "Enabled=no: netvar says nothing at submission" test -z "$(printf %s "$out" | grep 'netvar:')"
check "Enabled=no: no annotation in the Comment" test -z "$(scontrol show job "$off" | grep 'Comment=netvar')"
scancel "$off" 2>/dev/null
mv etc/netvar.conf.on etc/netvar.conf
touch etc/netvar.conf
sleep 1.5
out=$(nv_sbatch -N1 --hold --netvar-app=fftw --wrap true 2>&1)
contains "Enabled back on: netvar predicts again" "$out" "netvar: app fftw"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" 2>/dev/null

# UserMessages=: all shows the model's lines to the user, none nothing,
# not even a deny's reason; reread within a second
user_messages() {
    { grep -v '^UserMessages=' etc/netvar.conf.on; echo "UserMessages=$1"; } >etc/netvar.conf.new
    mv etc/netvar.conf.new etc/netvar.conf
    sleep 1.5
}
cp etc/netvar.conf etc/netvar.conf.on
user_messages all
out=$(nv_sbatch -N1 --hold --netvar-app=gromacs --wrap true 2>&1)
contains "UserMessages=all: the model's lines reach the user" "$(user_lines "$out")" \
    "netvar: app gromacs (from --netvar-app) is not in the model yet"
scancel "$(printf %s "$out" | sed -n 's/^Submitted batch job //p')" 2>/dev/null
user_messages none
out=$(nv_sbatch --netvar-app=denyme --wrap true 2>&1); rc=$?
check "UserMessages=none: deny still refuses" test $rc -ne 0
lacks "UserMessages=none: not even the deny's reason" "$(user_lines "$out")" "netvar:"
contains "UserMessages=none: the log has it" "$out" "log: netvar: app denyme"
mv etc/netvar.conf.on etc/netvar.conf
touch etc/netvar.conf
sleep 1.5

# a malformed config at start: slurmctld runs, netvar is passive
printf 'DefaultMode=sometimes\nRule=x action=deny,resize\n' >"$NETVAR_LAB/../netvar-bad.conf.$$"
lab_start --nodes 2 --netvar-conf "$NETVAR_LAB/../netvar-bad.conf.$$"
rm -f "$NETVAR_LAB/../netvar-bad.conf.$$"
check "slurmctld logs the bad line with file and line number" grep -q "netvar.conf:1: DefaultMode=sometimes" log/slurmctld.log
check "slurmctld logs the contradictory rule" grep -q "netvar.conf:2: Rule: rule 'x': deny contradicts resize" log/slurmctld.log
check "netvar says it stays passive" grep -q "stays passive" log/slurmctld.log
out=$(srun -N1 --netvar-app=amg true 2>&1); rc=$?
check "jobs still run with a passive netvar" test $rc -eq 0
lacks "a passive netvar prints nothing" "$out" "netvar: app"
finish
