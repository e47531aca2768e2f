#!/usr/bin/env bash
# test_slurmrestd.sh - netvar's options without srun: a job submitted over
# REST through Debian's slurmrestd (run as nobody, rest_auth/local on a unix
# socket, started and stopped by PID) runs no SPANK plugin at submit, so its
# NETVAR_MODE, NETVAR_APP, NETVAR_INTERVAL and NETVAR_ADVISE reach netvar
# only through its environment.  Checks that the job gets that mode and app
# (Comment, prolog, node record), that interval (samples a second apart) and
# that advice (applied within 1-4 nodes); that a bad NETVAR_INTERVAL gets
# the words sbatch --netvar-interval gives, in one line, and the job runs on
# with the default; and that on the command line an option beats its
# environment form.
. "$ROOT/tests/integration/lab_lib.sh"
t0=$(date +%s)
REST=$(command -v slurmrestd || true)
[ -x "$REST" ] || { echo "skip: slurmrestd is not installed (make deps)"; exit 77; }
command -v curl >/dev/null || { echo "skip: curl is not installed (make deps)"; exit 77; }
FIX=$ROOT/tests/fixtures/jobsubmit
# the site default is segments, so a job in counters mode got it from its NETVAR_MODE
conf=$(mktemp /tmp/netvar-rest-conf.XXXXXX)
sed 's/^DefaultMode=.*/DefaultMode=segments/' "$FIX/netvar.conf" >"$conf"
lab_start --nodes 4 --netvar-conf "$conf"
rm -f "$conf"
cp "$FIX/model.json" netvar/model.json
for _ in $(seq 1 30); do grep -q "netvar: model .* loaded: 3 apps" log/slurmctld.log && break; sleep 0.2; done
spool=$NETVAR_LAB/netvar/spool

# slurmrestd refuses root; nobody reads the lab's slurm.conf and owns the socket's directory
chmod o+x "$NETVAR_LAB"
chmod o+rx "$NETVAR_LAB/etc"
chmod o+r "$NETVAR_LAB"/etc/*.conf
mkdir -p "$NETVAR_LAB/rest"
chown nobody "$NETVAR_LAB/rest"
sock=$NETVAR_LAB/rest/sock
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env SLURM_CONF="$SLURM_CONF" "$@"; }
ver=$(as_nobody "$REST" -s list 2>&1 | grep -o 'openapi/v0\.0\.[0-9]*' | sort -V | tail -n 1)
ver=${ver#openapi/}
check "this slurmrestd serves an openapi/v0.0.3x plugin (got '${ver:-none}')" test -n "$ver"
# started directly, not through the as_nobody function: a function in the
# background is a subshell, and $! would be that shell, not slurmrestd
setpriv --reuid=nobody --regid=nogroup --clear-groups env SLURM_CONF="$SLURM_CONF" \
    "$REST" -a rest_auth/local -s "openapi/$ver" "unix:$sock" >log/slurmrestd.log 2>&1 &
rest_pid=$!
stop_rest() { [ -n "${rest_pid:-}" ] && kill "$rest_pid" 2>/dev/null && wait "$rest_pid" 2>/dev/null; rest_pid=""; }
trap 'stop_rest; _lab_cleanup' EXIT
for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.2; done
check "slurmrestd listens on its unix socket" test -S "$sock"

# submit NAME ENV-JSON [MORE-JSON]: the REST answer (JSON) of a 1-4 node job that sleeps 4 s
submit() {
    local body
    body=$(printf '{"script":"#!/bin/sh\\nsleep 4\\n","job":{"name":"%s","nodes":"1-4",%s%s}}' "$1" \
        "\"current_working_directory\":\"/tmp\",\"standard_output\":\"/dev/null\",\"environment\":{\"PATH\":\"/usr/bin:/bin\",$2}" \
        "${3:+,$3}")
    as_nobody curl -s --max-time 30 --unix-socket "$sock" -H 'Content-Type: application/json' \
        -X POST --data "$body" "http://localhost/slurm/$ver/job/submit"
}
numnodes() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^NumNodes=//p' | head -n 1; }
jid_of() { python3 -c 'import json,sys; print(json.load(sys.stdin).get("job_id",""))' 2>/dev/null; }
umsg_of() { python3 -c 'import json,sys; print(json.load(sys.stdin).get("job_submit_user_msg") or "")' 2>/dev/null; }

good=$(submit rest-good '"NETVAR_MODE":"counters","NETVAR_APP":"fftw","NETVAR_INTERVAL":"1","NETVAR_ADVISE":"apply"')
g=$(printf %s "$good" | jid_of)
check "slurmrestd accepted the job with NETVAR_* in its environment (job '${g:-none}')" test -n "$g"
# (an app the model does not know: no policy rule holds it for a leaf switch)
bad=$(submit rest-bad '"NETVAR_MODE":"counters","NETVAR_APP":"other","NETVAR_INTERVAL":"abc"')
b=$(printf %s "$bad" | jid_of)
check "a bad NETVAR_INTERVAL does not refuse the job (job '${b:-none}')" test -n "$b"
plain=$(submit rest-plain '"NETVAR_APP":"fftw"' '"hold":true')
p=$(printf %s "$plain" | jid_of)
check "a job without NETVAR_ADVISE is accepted too (job '${p:-none}')" test -n "$p"

# mode and app: job_submit's annotation, then the prolog (spank_job_env)
contains "mode and app in the REST job's Comment" "$(job_field "$g" Comment)" '"mode":"counters","app":"fftw"'
# advice: NETVAR_ADVISE=apply sets the advised node count within 1-4; without it nothing changes
contains "... and the REST answer says so" "$(printf %s "$good" | umsg_of)" "Run on the advised 2 nodes"
contains "the job without NETVAR_ADVISE is held" "$(scontrol show job "$p")" "Reason=JobHeldUser"
nn=$(numnodes "$p")
check "without NETVAR_ADVISE the 1-4 nodes stay (NumNodes=$nn)" test "$nn" = 1-4
check "the REST job finished" wait_job "$g" 90
check "the bad-value job finished too" wait_job "$b" 90
nn=$(numnodes "$g") # what it ran on: the record of a finished job stays MinJobAge=300 s
check "NETVAR_ADVISE=apply: the job ran on the advised 2 nodes (NumNodes=$nn)" test "$nn" = 2
check "the prolog ran the REST job in counters mode with app fftw (site default segments)" \
    grep -q "netvar: job $g node n[0-9]* prolog mode counters app fftw" log/slurmd-n*.log
# node_file JOBID: the name of the job's first node record
node_file() { local f; for f in "$spool/jobs/$1"/node-n*.json; do [ -e "$f" ] && basename "$f" && return; done; }
node=$(node_file "$g")
rec=$(tr -d ' \n\t' <"$spool/jobs/$g/$node" 2>/dev/null)
contains "the node record ($node) names mode counters and app fftw" "$rec" '"mode":"counters","app":"fftw"'
# interval: samples a second apart, over a 4 s job at least 3 windows
win=$(grep -o '"end_unix_s"' "$spool/jobs/$g/$node" 2>/dev/null | wc -l)
check "NETVAR_INTERVAL=1 over REST: at least 3 sample windows in 4 s (got $win)" test "$win" -ge 3
bnode=$(node_file "$b")
bwin=$(grep -o '"end_unix_s"' "$spool/jobs/$b/$bnode" 2>/dev/null | wc -l)
check "NETVAR_INTERVAL=abc: the default interval instead, fewer windows ($bwin < 3)" test "$bwin" -lt 3
contains "... and the bad-value job still ran in counters mode" "$(tr -d ' \n\t' <"$spool/jobs/$b/$bnode" 2>/dev/null)" '"mode":"counters"'

# the same words as the command line: sbatch --netvar-interval=abc fails with the rule
cli=$(sbatch --hold -N1 --netvar-interval=abc --wrap true 2>&1)
rule=$(printf '%s\n' "$cli" | sed -n "s/.*netvar: --netvar-interval='abc' \(.*\)$/\1/p" | head -n 1)
check "sbatch --netvar-interval=abc names the value and the rule (got '$rule')" test -n "$rule"
bmsg=$(printf %s "$bad" | umsg_of)
contains "the REST answer gives the same rule for NETVAR_INTERVAL=abc" "$bmsg" "netvar: NETVAR_INTERVAL='abc' $rule"
check "... in one line" test "$(printf '%s\n' "$bmsg" | grep -c "NETVAR_INTERVAL")" = 1
contains "... and says what was done instead" "$bmsg" "ignored it; the default applies"
envline=$(NETVAR_INTERVAL=abc sbatch --hold -N1 --wrap true 2>&1)
contains "sbatch with NETVAR_INTERVAL=abc in its environment prints the REST answer's line" "$envline" \
    "$(printf '%s\n' "$bmsg" | grep -m 1 "NETVAR_INTERVAL='abc'")"
contains "... and submits the job" "$envline" "Submitted batch job"
# precedence: an option given is not overridden, nor is its environment form checked
both=$(NETVAR_INTERVAL=abc NETVAR_ADVISE=yes sbatch --hold -N1 --netvar-interval=2 --netvar-advise=show --wrap true 2>&1)
lacks "--netvar-interval beats NETVAR_INTERVAL (which is then not read)" "$both" "NETVAR_INTERVAL"
lacks "--netvar-advise beats NETVAR_ADVISE" "$both" "NETVAR_ADVISE"
for j in $(squeue -h -o %i 2>/dev/null); do scancel "$j"; done

pid=$rest_pid
stop_rest
check "slurmrestd ($pid) stopped by its PID" test ! -e "/proc/$pid"
left=$(pgrep -a -f -- "unix:$sock" || true)
check "no slurmrestd left serving $sock (${left:-none})" test -z "$left"
echo "# test_slurmrestd: $(($(date +%s) - t0)) s, REST jobs $g $b $p over openapi/$ver"
finish
