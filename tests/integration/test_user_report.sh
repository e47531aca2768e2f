#!/usr/bin/env bash
# test_user_report.sh - a report an ordinary user can read (issue 50,
# part 3), on a lab with slurmdbd and MariaDB: a user without access to
# the spool reads their own finished job's report from accounting (netvar
# report JOBID: netvar-acct's summary, with the observed slowdown against
# the app's earlier run alone) and is refused another user's; with
# MailProg set to netvar-mail, Mailer= a stand-in sendmail that saves its
# stdin, and --mail-type=END, the saved body holds the observed slowdown.
set -u
source "$ROOT/tests/integration/lab_lib.sh"
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || { echo "mariadb-server not installed"; exit 77; }
command -v slurmdbd >/dev/null || [ -x /usr/sbin/slurmdbd ] || { echo "slurmdbd not installed"; exit 77; }
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 || { echo "needs root and the user nobody"; exit 77; }
t0=$(date +%s)
lab_start --accounting --nodes 2
E=$NETVAR_LAB/etc
CONF=$E/netvar.conf
# the stand-in sendmail: its arguments and its stdin, one file a mail
mkdir -p "$NETVAR_LAB/mail"
cat >"$E/sendmail-standin" <<SH
#!/bin/sh
n=\$(date +%s%N)
printf '%s\n' "\$@" >"$NETVAR_LAB/mail/\$n.args"
cat >"$NETVAR_LAB/mail/\$n.body"
SH
chmod 0755 "$E/sendmail-standin"
echo "Mailer=$E/sendmail-standin" >>"$CONF"
# MailProg runs with the job's SLURM_* variables only: the lab's slurm.conf
# is named here, as /etc/slurm/slurm.conf is found on a real controller
cat >"$E/mailprog" <<SH
#!/bin/sh
SLURM_CONF=$SLURM_CONF exec $BUILD/bin/netvar-mail --config $CONF --wait-s 60 "\$@"
SH
chmod 0755 "$E/mailprog"
sed -i "s|^MailProg=.*|MailProg=$E/mailprog|" "$E/slurm.conf"
scontrol reconfigure || not_ok "scontrol reconfigure"
for _ in $(seq 1 25); do scontrol show config | grep -q "^MailProg *= $E/mailprog" && break; sleep 0.2; done
check "slurmctld runs netvar-mail as MailProg" sh -c "scontrol show config | grep -q '^MailProg *= $E/mailprog'"

# nobody reads the lab's slurm.conf but not the spool
chmod 711 "$NETVAR_LAB"
chmod 0700 "$NETVAR_LAB/netvar/spool"
as_nobody() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" "$@"; }

summary() { # summary JOBID: waits (60 s at most) until accounting holds netvar's summary
    local a
    for _ in $(seq 1 120); do
        a=$(sacct -j "$1" -X -n -P -o AdminComment,SystemComment 2>/dev/null)
        case $a in *netvar:\{*\"runtime_s\"*) printf '%s' "$a"; return 0 ;; esac
        sleep 0.5
    done
    printf '%s' "$a"
    return 1
}
# root's run of the app alone gives the time alone; nobody's run of the same
# app on the same two nodes takes longer: its observed slowdown
a=$(sbatch --parsable -N2 --netvar-app=ureport -o /dev/null --wrap "sleep 2")
check "root's job $a ran" wait_job "$a" 60
sa=$(summary "$a"); echo "job $a summary: $sa"
b=$(as_nobody sbatch --parsable -N2 --netvar-app=ureport --mail-type=END -o /dev/null -D /tmp --wrap "sleep 4")
check "nobody's job ${b:-(refused)} was accepted" test -n "$b"
check "nobody's job $b ran" wait_job "$b" 60
sb=$(summary "$b"); echo "job $b summary: $sb"
obs=$(printf '%s' "${sb##*netvar:}" | jq -r '.slowdown_pct // empty' 2>/dev/null)
check "accounting holds job $b's observed slowdown (${obs:-none} %)" test -n "$obs"
want=$(printf '%.1f' "${obs:-0}")

out=$(as_nobody "$NV" report "$b" --config "$CONF" 2>&1); rc=$?
echo "$out"
check "nobody reads their own job's report (exit $rc)" test "$rc" = 0
check "without the spool: nobody cannot read it" sh -c "! runuser -u nobody -- test -r '$NETVAR_LAB/netvar/spool/jobs'"
contains "the header names the user" "$out" "User:     nobody"
contains "and the two nodes" "$out" "Nodes:    2 ("
contains "the report holds the observed slowdown" "$out" "Observed slowdown:  $want %"
contains "with a Notes section" "$out" "Notes"
json=$(as_nobody "$NV" report "$b" --from accounting --config "$CONF" --json 2>/dev/null)
json_same() { jq -e --argjson o "$obs" '.observed_pct == $o and .source == "accounting"' >/dev/null <<<"$json"; }
check "--json: the same figure ($(jq -c '{observed_pct, baseline_s, runtime_s}' <<<"$json" 2>/dev/null))" json_same
out=$(as_nobody "$NV" report "$a" --config "$CONF" 2>&1); rc=$?
echo "$out"
check "nobody is refused root's job $a (exit $rc)" test "$rc" = 1
contains "with a clear error" "$out" "belongs to user root"
lacks "and none of its report" "$out" "Observed slowdown"
out=$("$NV" report "$b" --from accounting --config "$CONF" 2>&1)
contains "root reads nobody's job" "$out" "Observed slowdown:  $want %"

# the end mail: Slurm's subject and user unchanged, netvar's report after
# Slurm's body
mail=""
for _ in $(seq 1 150); do
    mail=$(grep -l "Job_id=$b " "$NETVAR_LAB"/mail/*.args 2>/dev/null | head -n 1)
    [ -n "$mail" ] && break
    sleep 0.5
done
check "the stand-in sendmail got job $b's end mail" test -n "$mail"
body=$(cat "${mail%.args}.body" 2>/dev/null)
echo "mail args: $(tr '\n' ' ' <"$mail" 2>/dev/null)"
echo "mail body:"; echo "$body"
contains "Slurm's subject passed on" "$(cat "$mail" 2>/dev/null)" "Slurm Job_id=$b Name=wrap Ended"
contains "the mail body holds the observed slowdown" "$body" "Observed slowdown:  $want %"
contains "and the note" "$body" "Notes"
echo "figure: job $b observed slowdown $obs %; report and mail in $(($(date +%s) - t0)) s"
finish
