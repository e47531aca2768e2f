# shellcheck shell=bash
# pkg_lib.sh - sourced by the package tests after lab_lib.sh: installs the
# Debian packages on this machine and checks that a slurmctld started
# without PluginDir loads job_submit_netvar.so from where the package put
# it, then purges them, leaving the machine as found.  Needs T (a scratch
# directory) set.
: "${T:?T unset}"
PKG_NAMES="netvar-jobsubmit netvar-spank netvar-mpi netvar"
PKG_INSTALLED=0
PKG_CTLD_PID=""

# pkg_machine_clean: true when no netvar package is installed and none of
# the directories the packages own exist (so that purging restores the host)
pkg_machine_clean() {
    local p
    for p in $PKG_NAMES; do
        case $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) in
        "" | not-installed) ;;
        *) return 1 ;;
        esac
    done
    [ ! -e /etc/netvar ] && [ ! -e /var/spool/netvar ] && [ ! -e /var/lib/netvar ] && [ ! -e /usr/libexec/netvar ]
}

# _pkg_dpkg ARGS...: dpkg, waiting up to 5 minutes for another dpkg or apt
# on this machine to release its lock
_pkg_dpkg() {
    for _ in $(seq 1 60); do
        dpkg "$@" >"$T/dpkg.out" 2>&1 && return 0
        grep -q 'lock' "$T/dpkg.out" || { cat "$T/dpkg.out"; return 1; }
        sleep 5
    done
    cat "$T/dpkg.out"
    return 1
}

pkg_install() { # pkg_install DEB...
    PKG_INSTALLED=1
    _pkg_dpkg -i "$@"
}

pkg_purge() {
    [ "$PKG_INSTALLED" = 1 ] || return 0
    # shellcheck disable=SC2086
    _pkg_dpkg --purge $PKG_NAMES
    PKG_INSTALLED=0
    # what the plugins wrote at run time (the machine had none of it before)
    rm -rf /var/spool/netvar /var/lib/netvar
}

pkg_ctld_stop() {
    [ -n "$PKG_CTLD_PID" ] || return 0
    kill "$PKG_CTLD_PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$PKG_CTLD_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$PKG_CTLD_PID" 2>/dev/null
    wait "$PKG_CTLD_PID" 2>/dev/null
    PKG_CTLD_PID=""
}

# pkg_ctld_check NAME SLURM_BIN_PREFIX EXPECT_DIR: starts NAME's slurmctld
# (SLURM_BIN_PREFIX/sbin/slurmctld, or the one in PATH when empty) with a
# slurm.conf that sets no PluginDir and loads JobSubmitPlugins=netvar, and
# checks that its PluginDir is EXPECT_DIR, that it loaded
# EXPECT_DIR/job_submit_netvar.so, and that a submission is annotated.
pkg_ctld_check() {
    local name=$1 pfx=$2 want=$3 d=$T/ctld-$1 host port out jid pd path
    host=$(hostname -s)
    for _ in $(seq 1 100); do
        port=$(( 30000 + RANDOM % 9000 ))
        ss -Hltn "sport = :$port" 2>/dev/null | grep -q . || break
    done
    mkdir -p "$d/state" "$d/log" "$d/run"
    cat >"$d/slurm.conf" <<EOF
# netvar package test: a controller with no PluginDir (Slurm's default)
ClusterName=nvpkg
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
AuthType=auth/none
CredType=cred/none
SlurmUser=root
StateSaveLocation=$d/state
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmctldDebug=debug3
JobSubmitPlugins=netvar
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
NodeName=nvpk1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=1 State=UNKNOWN
PartitionName=p Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    path=$PATH
    [ -z "$pfx" ] || path=$pfx/sbin:$pfx/bin:$PATH
    SLURM_CONF=$d/slurm.conf PATH=$path NETVAR_PKG_TEST_MARK=$d slurmctld -D -i >"$d/log/stdout" 2>&1 &
    PKG_CTLD_PID=$!
    for _ in $(seq 1 150); do
        SLURM_CONF=$d/slurm.conf PATH=$path scontrol ping 2>/dev/null | grep -q 'UP' && break
        kill -0 "$PKG_CTLD_PID" 2>/dev/null || break
        sleep 0.2
    done
    check "$name: slurmctld with JobSubmitPlugins=netvar and no PluginDir is up" kill -0 "$PKG_CTLD_PID"
    pd=$(SLURM_CONF=$d/slurm.conf PATH=$path scontrol show config 2>/dev/null | sed -n 's/^PluginDir *= *//p')
    check "$name: slurmctld's default PluginDir ($pd) is where the package put the plugin ($want)" test "$pd" = "$want"
    # the plugin loader's next word after trying that file: Success., or
    # the next file it tries (slurmscriptd, a forked slurmctld, writes the
    # same log and loads its own plugins meanwhile: its lines are skipped)
    contains "$name: slurmctld loaded the packaged job_submit_netvar.so" \
        "$(awk -v f="Trying to load plugin $want/job_submit_netvar.so" \
            '/slurmscriptd:/ { next } index($0, f) { on = 1; next } on && /Success\.|Trying to load plugin|Incompatible|dlopen/ { print; exit }' \
            "$d/log/slurmctld.log")" "debug3: Success."
    out=$(SLURM_CONF=$d/slurm.conf PATH=$path sbatch --hold -o /dev/null --wrap true 2>&1)
    jid=$(printf %s "$out" | sed -n 's/^Submitted batch job //p')
    check "$name: a job is accepted ($out)" test -n "$jid"
    contains "$name: job_submit/netvar annotated it" \
        "$(SLURM_CONF=$d/slurm.conf PATH=$path scontrol show job "$jid" 2>/dev/null)" 'netvar:{"v":1'
    pkg_ctld_stop
    [ "${_failures:-0}" -eq 0 ] || tail -n 15 "$d/log/slurmctld.log" "$d/log/stdout"
}
