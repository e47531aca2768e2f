#!/usr/bin/env bash
# test_slurm_modern.sh - the release-specific code paths, on a Slurm newer
# than Debian's: run by `make check-slurm-modern` (NETVAR_LAB_SLURM names a
# Slurm prefix, BUILD holds plugins built against its headers); skipped
# otherwise.  Checks that the lab really runs that Slurm and loaded both
# plugins; that job_modify's message reaches the user through err_msg
# (23.02+) and its log line names the right job (step_id.job_id, 25.11+);
# that the SPANK plugin says a failing init fails the job, not the node
# (25.05+); and that isolate keeps a user's --exclusive=topo (24.05+).
. "$ROOT/tests/integration/lab_lib.sh"
if [ -z "${NETVAR_LAB_SLURM:-}" ]; then
    echo "skip: NETVAR_LAB_SLURM is not set (make check-slurm-modern sets it)"
    exit 77
fi
want=$(basename "$NETVAR_LAB_SLURM" | sed -n 's/^slurm-//p')
# UserMessages=all: the re-evaluation's lines reach scontrol through err_msg
# even where, as here, nothing is worth saying
conf=$(mktemp /tmp/nv-modern-conf.XXXXXX)
trap 'rm -f "$conf"; _lab_cleanup' EXIT
{ cat "$ROOT/tests/fixtures/jobsubmit/netvar.conf"; echo "UserMessages=all"; } >"$conf"
lab_start --nodes 2 --netvar-conf "$conf"
cp "$ROOT/tests/fixtures/jobsubmit/model.json" "$NETVAR_LAB/netvar/model.json"

check "sbatch is the lab's Slurm's" test "$(command -v sbatch)" = "$NETVAR_LAB_SLURM/bin/sbatch"
contains "slurmctld is Slurm $want" "$(grep -m1 'slurmctld version' log/slurmctld.log)" "version $want"
for _ in $(seq 1 50); do grep -q "netvar: model .* loaded" log/slurmctld.log && break; sleep 0.2; done
contains "slurmctld loaded job_submit/netvar and its model" "$(cat log/slurmctld.log)" "netvar: model"

# job_modify: err_msg reaches the user; the log names the job by id
j=$(sbatch --parsable --hold -N1 -J amg --wrap true 2>/dev/null | tail -n 1)
out=$(scontrol update jobid="$j" NumNodes=2-2 Name=amg 2>&1)
contains "scontrol update shows netvar's re-evaluation (err_msg)" "$out" "netvar: app amg"
j2=$(sbatch --parsable --hold -N1 --netvar-app=amg --wrap true 2>/dev/null | tail -n 1)
scontrol update jobid="$j2" NumNodes=2-2 >/dev/null 2>&1
for _ in $(seq 1 20); do grep -q "netvar: job_modify: job $j2:" log/slurmctld.log && break; sleep 0.2; done
check "job_modify's log line names job $j2 (step_id.job_id)" grep -q "netvar: job_modify: job $j2: node count" log/slurmctld.log

# SPANK: init_failure_mode exported as ESPANK_JOB_FAILURE
check "spank_netvar.so exports slurm_spank_init_failure_mode" \
    sh -c "nm -D --defined-only '$BUILD/plugins/spank_netvar.so' | grep -qw slurm_spank_init_failure_mode"

# isolate: exclusive node access, but a user's --exclusive=topo stays
j=$(sbatch --parsable --hold -N1 --netvar-app=isome --wrap true 2>/dev/null | tail -n 1)
contains "isolate makes a job exclusive" "$(scontrol show job "$j")" "OverSubscribe=NO"
j=$(sbatch --parsable --hold -N1 --exclusive=topo --netvar-app=isome --wrap true 2>/dev/null | tail -n 1)
contains "isolate keeps the user's --exclusive=topo" "$(scontrol show job "$j")" "OverSubscribe=TOPO"

# steps run with the plugin loaded (every hook returns 0)
out=$(srun -N2 -n2 --netvar=full printenv NETVAR_MODE 2>&1)
check "srun --netvar=full runs on both nodes" test "$(printf %s "$out" | grep -c '^full$')" -eq 2
finish
