#!/usr/bin/env bash
# test_spank_collection.sh - spank_netvar measures every job: per-node
# records with real lo deltas (one reading per blade), the running-jobs
# registry (also after scancel), 'off' writes nothing, periodic samples,
# profiler injection, netvar collect, and fail-open on a bad spool or a
# bad plugstack argument.
. "$ROOT/tests/integration/lab_lib.sh"
lab_start --nodes 4
spool=$NETVAR_LAB/netvar/spool

# counters: 4 nodes, 2 per blade -> 2 blade readers; a known volume on lo
jid=$(sbatch --parsable -N4 -n4 --netvar=counters --netvar-app=volume -o vol.out \
      --wrap "srun --mpi=pmix $BUILD/tests/mpi/mpi_volume 24" 2>/dev/null)
check "counters job finished" wait_job "$jid" 120
contains "MPI job sent its volume" "$(cat vol.out)" "sent_bytes 25165824"
# shellcheck disable=SC2012 # names spank_netvar writes: no blank or newline
check "one record per node" test "$(ls "$spool/jobs/$jid"/node-*.json 2>/dev/null | wc -l)" -eq 4
check "n1 reads blade b1" grep -q '"blade_reader":true' "$spool/jobs/$jid/node-n1.json"
check "n2 shares b1 and does not count it" grep -q '"blade_reader":false' "$spool/jobs/$jid/node-n2.json"
check "n2 has no counter delta" bash -c "! grep -q '\"delta\"' '$spool/jobs/$jid/node-n2.json'"
check "n3 reads blade b2" grep -q '"blade_reader":true' "$spool/jobs/$jid/node-n3.json"
check "record names its counter source" grep -q '"counter_source":"netdev"' "$spool/jobs/$jid/node-n1.json"
check "records are not world-readable" test "$(stat -c %a "$spool/jobs/$jid/node-n1.json")" = 640
check "job directory is root-owned 0750" test "$(stat -c '%U %a' "$spool/jobs/$jid")" = "root 750"
check "the last epilog merged the job record" test -s "$spool/jobs/$jid/job.json"
rec=$("$NV" collect "$jid" --spool "$spool" --compact)
check "netvar collect succeeds" test $? -eq 0
contains "collect counts each blade once" "$rec" '"blades_counted":2'
contains "collect lists both blades" "$rec" '"blades":["b1","b2"]'
contains "collect lists both switches" "$rec" '"switches":["s1","s2"]'
contains "collect keeps the app key" "$rec" '"app":"volume"'
sent=$(printf %s "$rec" | sed -n 's/.*"totals":{"bytes_out":\([0-9]*\).*/\1/p')
check "lo bytes_out over the counted blades includes the 24 MiB sent ($sent bytes)" \
    test "${sent:-0}" -ge 25165824
contains "metrics carry units" "$rec" '"proc_traffic_per_s":{"mean":'
contains "stall metrics say why they are missing" "$rec" '"source":"unavailable: no stall counters"'
check "registry entry removed at job end" test ! -e "$spool/running/$jid.json"

# the prolog records only netvar's own trailing annotation from the Comment,
# never a netvar:{ the user wrote before it (issue 17); a report says it is
# the Comment's claim
jid=$(sbatch --parsable -N1 --netvar=counters --netvar-app=volume \
      --comment='mine netvar:{"v":1,"own_pct":99}' --wrap true 2>/dev/null)
check "job with a user's netvar:{ in its Comment finished" wait_job "$jid" 60
for _ in $(seq 1 25); do [ -s "$spool/jobs/$jid/job.json" ] && break; sleep 0.2; done
ann=$(grep -o '"annotation":"[^}]*}' "$spool/jobs/$jid/node-n1.json" 2>/dev/null)
contains "the record holds netvar's annotation" "$ann" '\"mode\":\"counters\"'
lacks "the record does not take the user's netvar:{" "$ann" '\"own_pct\":99'

# the registry appears while the job runs, and goes after scancel
jid=$(sbatch --parsable -N2 --netvar=counters --netvar-app=sleeper --wrap "srun sleep 30" 2>/dev/null)
for _ in $(seq 1 50); do [ -e "$spool/running/$jid.json" ] && break; sleep 0.2; done
reg=$(tr -d ' \n' <"$spool/running/$jid.json" 2>/dev/null)
contains "registry entry written at job start" "$reg" '"app":"sleeper"'
contains "registry lists the nodes" "$reg" '"nodes":["n1","n2"]'
contains "registry lists the switch" "$reg" '"switches":["s1"]'
# who runs what where is not for everyone (PrivateData=jobs): root and the
# group of running/ (slurmctld's user's) read it (issue 17)
check "registry entry is 0640, not world-readable" test "$(stat -c %a "$spool/running/$jid.json")" = 640
check "registry entry has the group of running/" \
    test "$(stat -c %g "$spool/running/$jid.json")" = "$(stat -c %g "$spool/running")"
scancel "$jid"
check "cancelled job left the queue" wait_job "$jid" 60
for _ in $(seq 1 50); do [ ! -e "$spool/running/$jid.json" ] && break; sleep 0.2; done
check "registry entry removed after scancel" test ! -e "$spool/running/$jid.json"

# off writes nothing
jid=$(sbatch --parsable -N1 --netvar=off --wrap true 2>/dev/null)
wait_job "$jid"
check "--netvar=off writes no records" test ! -e "$spool/jobs/$jid"

# periodic samples
jid=$(sbatch --parsable -N1 --netvar=counters --netvar-interval=1 --wrap "srun sleep 4" 2>/dev/null)
check "sampled job finished" wait_job "$jid" 60
win=$(grep -c '"end_unix_s"' "$spool/jobs/$jid/node-n1.json" 2>/dev/null)
check "--netvar-interval=1 over 4 s gives at least 3 windows (got ${win:-0})" test "${win:-0}" -ge 3
# the same from the environment: every option has a NETVAR_* form (for
# submissions without srun, sbatch or salloc), with the option's checks
jid=$(NETVAR_INTERVAL=1 sbatch --parsable -N1 --netvar=counters --wrap "srun sleep 4" 2>/dev/null)
check "job sampled by NETVAR_INTERVAL finished" wait_job "$jid" 60
win=$(grep -c '"end_unix_s"' "$spool/jobs/$jid/node-n1.json" 2>/dev/null)
check "NETVAR_INTERVAL=1 over 4 s gives at least 3 windows (got ${win:-0})" test "${win:-0}" -ge 3
out=$(NETVAR_INTERVAL=5s NETVAR_ADVISE=yes sbatch --parsable -N1 --netvar=counters --wrap true 2>&1)
contains "a bad NETVAR_INTERVAL is named and ignored" "$out" \
    "NETVAR_INTERVAL='5s' is not a whole number of seconds from 0 to 86400; ignored it; the default applies"
contains "a bad NETVAR_ADVISE is named and ignored" "$out" "NETVAR_ADVISE='yes' is not 'show' or 'apply'; ignored it"
jid=$(printf %s "$out" | tail -n 1)
check "the job with bad defaults was still submitted ($jid)" wait_job "$jid" 60

# segments: the profiler is preloaded and told where to write
# shellcheck disable=SC2016 # expanded by the job's sh
out=$(srun -N1 --netvar=segments sh -c 'echo "LD=$LD_PRELOAD"; echo "DIR=$NETVAR_PROFILE_DIR"' 2>&1)
if [ -f "$BUILD/lib/libnetvar_pmpi.so" ]; then
    contains "segments mode preloads the profiler" "$out" "libnetvar_pmpi.so"
    contains "segments mode gives the profile directory" "$out" "/profiles"
else
    contains "no profiler built: nothing preloaded" "$out" "LD="
fi
out=$(LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 srun -N1 --netvar=full printenv LD_PRELOAD 2>&1)
contains "user's own LD_PRELOAD is kept" "$out" "libm.so.6"

# fail open: unwritable spool and an unknown plugstack key
lab_start --nodes 2 --plugstack-args "spool=/proc/netvar-nope bogus_key=1"
out=$(srun -N2 --netvar=counters printenv NETVAR_MODE 2>&1)
check "job succeeds although the spool is unwritable" test "$(printf %s "$out" | grep -c '^counters$')" -eq 2
sleep 1
contains "slurmd log names the unknown plugstack key" "$(cat log/slurmd-n1.log)" \
    "netvar: plugstack.conf: unknown argument 'bogus_key'"
contains "slurmd log says the spool failed and the job ran on" "$(cat log/slurmd-n1.log)" \
    "the job runs without a record"
finish
