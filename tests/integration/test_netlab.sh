#!/bin/bash
# lane: netlab
# test_netlab.sh - the network lab (lab/netlab): it comes up with Slurm on
# namespaced nodes without adding any address or interface to the root
# namespace (slurmctld answers through the Slurm client wrappers that enter
# the lab's switch namespace), every node runs in its own CPU cgroup with
# the quota up reported, its topology and uplink are what they claim, the
# uplink sampler reads live queues, the SPANK plugin counts the switch's
# ports, a cross-leaf ping-pong is slower under a cross-leaf stream than
# alone and not under the same stream kept inside one leaf (generous
# assertions on medians), the rate changes live, two labs coexist, a lab of
# three leaves (--leaves 3) has one node per leaf, a tbf on all six uplink
# devices and sends h1->h3 over s1's and s3's uplinks but not s2's, and down
# (or gc after a crash) leaves no namespace, link, qdisc, cgroup, mount or
# process behind.  The labs use a registry of their own, so the test's gc
# can only ever see the test's labs.  Env: BUILD, ROOT.  Exit 0 pass, 77
# skip, 1 fail.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NETLAB=$ROOT/lab/netlab
[ "$(id -u)" = 0 ] || { echo "skip: network namespaces need root"; exit 77; }
for t in ip tc nsenter unshare slurmctld slurmd srun python3; do
    command -v $t >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
for b in impactb compressionb netvar-netlab-sample; do
    [ -x "$BUILD/bin/$b" ] || { echo "skip: $BUILD/bin/$b not built"; exit 77; }
done

T=$(mktemp -d /tmp/nvnetlabtest.XXXXXX)
export NETVAR_NETLAB_REGISTRY=$T/registry
LABS=""
cleanup() {
    local d
    for d in $LABS; do "$NETLAB" down "$d" >/dev/null 2>&1 || true; done
    rm -rf --one-file-system "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
checks=0 failures=0
ok() { checks=$((checks + 1)); echo "ok - $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "NOT OK - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

# objects a lab with prefix P left behind, one per line (empty = clean);
# CG: the lab's cgroup (empty: none was made)
leftovers() {
    local p=$1 dir=$2 cg=${3:-}
    # shellcheck disable=SC2010 # netns names: no blank or newline
    ls /run/netns 2>/dev/null | grep "^$p" | sed 's/^/netns /'
    [ -n "$cg" ] && [ -e "$cg" ] && echo "cgroup $cg: $(cat "$cg"/h*/cgroup.procs 2>/dev/null | tr '\n' ' ')"
    awk -v p="$p" '$1 == p "sysfs" || index($2, "/" p) {print "mount " $2}' /proc/mounts
    # shellcheck disable=SC2012 # registry entries are lab ids
    ls "$NETVAR_NETLAB_REGISTRY" 2>/dev/null | while read -r e; do
        [ "$(cat "$NETVAR_NETLAB_REGISTRY/$e/dir" 2>/dev/null)" = "$dir" ] && echo "registry $e"
    done
    ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^$p" | sed 's/^/link /'
    tc -j qdisc show 2>/dev/null | python3 -c "
import json,sys
for q in json.load(sys.stdin):
    if str(q.get('dev','')).startswith('$p'): print('qdisc', q['dev'])" 2>/dev/null
    local pid
    for pid in /proc/[0-9]*; do
        pid=${pid#/proc/}
        { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "NETVAR_LAB_MARK=$dir" && echo "process $pid"
    done
}

median_p50() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['latency']['p50_us'])" "$1"; }

# the root namespace's addresses and interfaces (lifetimes dropped); lines of
# other labs made by an older netlab (nvNNN names other than ours) come and go
root_addrs() { ip -o addr show | awk '{print $2, $3, $4}' | sort; }
root_links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }
added() { # BEFORE AFTER PREFIX: lines only in AFTER, but other labs'
    comm -13 "$1" "$2" | awk -v p="$3" '!($1 ~ /^nv[0-9][0-9][0-9]/ && index($1, p) != 1)'
}

# ------------------------------------------------------------------ up
"$NETLAB" up --cpu-share lots >/dev/null 2>&1
check "up refuses a bad --cpu-share with exit 2" test $? = 2
"$NETLAB" up --mpi-eager 64k >/dev/null 2>&1
check "up refuses an --mpi-eager that is not a number of bytes with exit 2" test $? = 2
"$NETLAB" up --tcp-cc 'cubic;x' >/dev/null 2>&1
check "up refuses a --tcp-cc that is not a name with exit 2" test $? = 2
"$NETLAB" up --tcp-cc nvnosuchcc --build "$BUILD" >/dev/null 2>"$T/cc.err"
rc=$?
check "up refuses a --tcp-cc the kernel does not have with exit 2, naming what it has ($(head -c 120 "$T/cc.err"))" \
    test "$rc" = 2 -a -n "$(grep -F 'available:' "$T/cc.err")"
root_addrs >"$T/addr.before"; root_links >"$T/link.before"
t0=$(date +%s.%N)
D=$("$NETLAB" up --nodes 6 --build "$BUILD" 2>"$T/up.err" | tail -n 1); rc=${PIPESTATUS[0]}
t1=$(date +%s.%N)
if [ "$rc" = 77 ]; then echo "skip: $(tail -n 1 "$T/up.err")"; exit 77; fi
[ "$rc" = 0 ] && [ -d "$D" ] || { cat "$T/up.err"; echo "netlab up failed (exit $rc)"; exit 1; }
LABS="$D"
echo "# lab up in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s: $(tail -n 1 "$T/up.err")"
eval "$("$NETLAB" env "$D")"
P=$NETVAR_NETLAB_PREFIX
NS=$NETVAR_NETLAB_NETNS
check "env names a prefix nvNNN" test -n "$(printf %s "$P" | grep -E '^nv[0-9]{3}$')"
check "env names the switch namespace ${P}sw ($NS)" test "$NS" = "${P}sw"
root_addrs >"$T/addr.after"; root_links >"$T/link.after"
a=$(added "$T/addr.before" "$T/addr.after" "$P" | tr '\n' ';')
check "the root namespace has no address the lab added ${a:+(added: $a)}" test -z "$a"
a=$(added "$T/link.before" "$T/link.after" "$P" | tr '\n' ';')
check "the root namespace has no interface the lab added ${a:+(added: $a)}" test -z "$a"
check "10.212.x.254 is in $NS" test -n "$(ip -n "$NS" -o addr show dev "${P}mg" | grep -F " $(echo "$NETVAR_NETLAB_MGMT_CIDR" | sed 's/0\/24$/254\/24/') ")"
check "sinfo is the lab's wrapper ($(command -v sinfo))" test "$(command -v sinfo)" = "$D/bin/sinfo"
n=$(sinfo -h -o '%D' 2>"$T/sinfo.err")
check "slurmctld answers sinfo through the wrapper ($n nodes) $(head -c 200 "$T/sinfo.err")" test "$n" = 6
# shellcheck disable=SC2154 # OMPI_MCA_*: from the lab's env, eval'd above
check "env: MPI data on the data subnet" test "$OMPI_MCA_btl_tcp_if_include" = "$NETVAR_NETLAB_DATA_CIDR"
# shellcheck disable=SC2154 # OMPI_MCA_*: from the lab's env, eval'd above
check "env: MPI out-of-band on the management subnet" test "$OMPI_MCA_oob_tcp_if_include" = "$NETVAR_NETLAB_MGMT_CIDR"
# messages up to 512 KiB go eagerly (no rendezvous control fragment queued
# behind data in the TCP stream): in netlab.conf, env, up's line, and what a
# job's Open MPI reads
# shellcheck disable=SC2154 # OMPI_MCA_*: from the lab's env, eval'd above
check "mpi_eager=524288 in netlab.conf and env, said on up's line" \
    test "$(sed -n 's/^mpi_eager=//p' "$D/netlab.conf")" = 524288 -a "$NETVAR_NETLAB_MPI_EAGER" = 524288 -a \
    "$OMPI_MCA_btl_tcp_eager_limit" = 524288 -a "$OMPI_MCA_btl_tcp_rndv_eager_limit" = 524288 -a \
    "$OMPI_MCA_btl_tcp_max_send_size" = 524288 -a -n "$(grep -F 'MPI: tcp BTL eager up to 524288 bytes' "$T/up.err")"
idle=$(sinfo -h -N -o '%N %t' | awk '$2=="idle"' | wc -l)
check "6 nodes idle" test "$idle" = 6
e=$(timeout 60 srun -N1 -w h1 ompi_info --param btl tcp --level 4 --parsable 2>/dev/null | sed -n 's/^mca:btl:tcp:param:btl_tcp_eager_limit:value://p')
check "a job's Open MPI reads the lab's eager limit ($e)" test "$e" = 524288
# shellcheck disable=SC2010 # netns names: no blank or newline
n=$(ls /run/netns | grep -c "^${P}h")
check "6 namespaces ${P}h1..6" test "$n" = 6
# the MPI traffic's congestion control is the lab's (cubic), not the host's
# default: every node's data route carries congctl cubic, and up says so
cc=$(for i in 1 2 3 4 5 6; do ip -n "${P}h$i" route show dev data0 | grep -o 'congctl [a-z0-9_]*'; done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
check "every node's data route has congctl cubic ($cc)" test "$cc" = " 6 congctl cubic;"
check "tcp_cc=cubic in netlab.conf and env, said on up's line" \
    test "$(sed -n 's/^tcp_cc=//p' "$D/netlab.conf")" = cubic -a "$NETVAR_NETLAB_TCP_CC" = cubic -a \
    -n "$(grep -F 'TCP: cubic on the data route' "$T/up.err")"
for dev in "${P}u1" "${P}u2"; do
    r=$(tc -n "$NS" -j qdisc show dev "$dev" | python3 -c "import json,sys; q=json.load(sys.stdin)[0]; print(q['kind'], q['options']['rate'])")
    check "tbf 100mbit on $dev ($r)" test "$r" = "tbf 12500000"
done
check "s1 holds h1's port, s2 h4's" test "$(ip -n "$NS" -o link show "${P}d1" | grep -o "master ${P}s[12]")" = "master ${P}s1" -a \
    "$(ip -n "$NS" -o link show "${P}d4" | grep -o "master ${P}s[12]")" = "master ${P}s2"
h=$(timeout 60 srun -N1 -w h5 hostname 2>/dev/null)
check "a task on h5 sees hostname h5 ($h)" test "$h" = h5
a=$(timeout 60 srun -N1 -w h2 cat /proc/net/dev 2>/dev/null | grep -c 'data0\|mgmt0')
check "a task on h2 runs in its namespace (data0, mgmt0)" test "$a" = 2
sw=$(timeout 60 srun -N2 --switches=1 hostname 2>/dev/null | sort | tr '\n' ' ')
case $sw in "h1 h2 "|"h1 h3 "|"h2 h3 "|"h4 h5 "|"h4 h6 "|"h5 h6 ") ok "--switches=1 keeps a 2-node job under one leaf ($sw)" ;;
    *) not_ok "--switches=1 placed the job on: $sw" ;; esac
python3 - "$D/netvar/spool/jobs" "$P" <<'PY' >"$T/spank.check" 2>&1
import glob, json, sys
names = set()
for f in glob.glob(sys.argv[1] + "/*/node-*.json"):
    for q in json.load(open(f)).get("delta", {}).get("ports", []):
        names.add(q["name"])
assert sys.argv[2] + "u1" in names and sys.argv[2] + "d1" in names, sorted(names)
print("%d ports" % len(names))
PY
rc=$? # before the description's $(...), which would reset $?
check "the SPANK plugin counted the switch's ports (sysfs_root): $(tail -n 1 "$T/spank.check")" test $rc = 0

# ------------------------------------------------------ CPU partition
CG=$(sed -n 's/^cpu_cgroup=//p' "$D/netlab.conf")
share=$(sed -n 's/^cpu_share=//p' "$D/netlab.conf")
if [ -z "$CG" ] && grep -q "CPU: no partition could be made" "$T/up.err"; then
    echo "# no CPU partition on this machine (up failed open): $(grep -o 'CPU: no partition[^)]*)' "$T/up.err")"
else
    want=$((100 * $(nproc) / 6))
    check "up's line names the CPU partition ($share % of one CPU per node)" grep -q "CPU: $want % of one CPU per node" "$T/up.err"
    quota=$(sed -n 's/^cpu_quota_us=//p' "$D/netlab.conf"); period=$(sed -n 's/^cpu_period_us=//p' "$D/netlab.conf")
    if [ "$(sed -n 's/^cpu_cgroup_version=//p' "$D/netlab.conf")" = v2 ]; then
        got=$(cat "$CG/h2/cpu.max")
    else
        got="$(cat "$CG/h2/cpu.cfs_quota_us") $(cat "$CG/h2/cpu.cfs_period_us")"
    fi
    check "h2's cgroup has the quota: $got us = $share % of $period us" \
        test "$got" = "$quota $period" -a "$share" = "$want" -a $((quota * 100)) = $((period * want))
    pid=$(awk '$2 == "slurmd-h2" {print $1}' "$D/pids")
    check "h2's slurmd ($pid) is in $CG/h2" grep -qE ":/$P/h2\$" "/proc/$pid/cgroup"
    check "h2's slurmd is listed in $CG/h2/cgroup.procs" grep -qx "$pid" "$CG/h2/cgroup.procs"
    c=$(timeout 60 srun -N1 -w h2 cat /proc/self/cgroup 2>/dev/null | grep -E ":/$P/h2\$")
    check "a job task on h2 runs in h2's cgroup ($c)" test -n "$c"
    c=$(timeout 60 srun -N1 -w h5 cat /proc/self/cgroup 2>/dev/null | grep -cE ":/$P/h5\$")
    check "a job task on h5 runs in h5's cgroup" test "$c" = 1
fi

# ------------------------------------------------------- live sampler
"$NETLAB" sample "$D" --duration-s 2 --interval-ms 100 --series --output "$T/idle.json" 2>"$T/sample.err"
check "sampler exits 0 on the idle uplink" test $? = 0
python3 - "$T/idle.json" "$P" "$CG" <<'PY' >"$T/idle.check" 2>&1
import json, sys
d = json.load(open(sys.argv[1])); p = sys.argv[2]; cg = sys.argv[3]
# the host's CPU over the window (steal confounds every runtime on a VM)
h = d["host"]
assert h["source"] == "/proc/stat" and "error" not in h, h
c = h["cpu_pct"]
parts = sum(c[k] for k in ("user", "system", "irq", "softirq", "steal", "iowait", "idle"))
assert abs(parts - 100) < 0.01 and 0 <= c["busy"] <= 100, c
assert abs(c["busy"] - (100 - c["idle"] - c["iowait"])) < 0.01, c
if cg:  # the lab made node cgroups: the sampler read each one's throttling
    g = {x["cgroup"]: x for x in h["cgroups"]}
    assert list(g) == ["h%d" % (i + 1) for i in range(6)], list(g)  # the lab is up with 6 nodes
    assert all(x["periods"] >= x["throttled_periods"] >= 0 and x["throttled_ms"] >= 0 for x in g.values()), g
else:
    assert "cgroups" not in h, h
assert d["schema"] == "netvar-netlab-counters" and d["samples"] >= 10, d["samples"]
# reads at jittered instants (a fixed period aliases a periodic load): the
# gaps between passes lie in [50, 150) ms, and they vary (the last read,
# taken when the duration ends, may come sooner); a read that the host
# delays shortens the next gap by as much, so each gap is allowed 20 ms
# either way (a CI run saw 44.0 ms on a loaded host)
t = [r[0] for r in d["series"] if r[1] == 0]
g = [b - a for a, b in zip(t, t[1:])][:-1]
assert d["gaps"].startswith("uniform") and len(g) >= 8, (d.get("gaps"), len(g))
assert all(0.03 <= x < 0.17 for x in g), g
assert min(g) < 0.09 and max(g) > 0.11, g
u = {x["dev"]: x for x in d["uplink"]}
assert set(u) == {p + "u1", p + "u2"}, u.keys()
for x in u.values():
    assert x["kind"] == "tbf" and x["rate_bytes_per_s"] == 12500000
    assert 0 <= x["utilization"] < 0.2, x["utilization"]
names = {q["name"]: q for q in d["delta"]["ports"]}
assert p + "u1/tbf" in names and names[p + "u1/tbf"]["kind"] == "switch_port"
assert "stall" in names[p + "u1/tbf"]["fields"]
assert all(p + "d%d" % i in names for i in range(1, 7)), sorted(names)
assert d["field_roles"]["stalls"] == "stall" and d["field_roles"]["flits"] == "bytes_out"
print("utilization %.4f, gaps %.0f..%.0f ms, host busy %.1f %% (steal %.1f %%)" % (
    u[p + "u1"]["utilization"], min(g) * 1e3, max(g) * 1e3, c["busy"], c["steal"] or 0))
PY
rc=$?
check "sampler JSON: 2 tbf queues, idle utilization < 0.2, ports counted, reads at jittered instants, the host's CPU and the node cgroups' throttling ($(tail -n 1 "$T/idle.check"))" test $rc = 0

# ---------------------------------------------- ping-pong alone vs loaded
ib() { # ib OUT: cross-leaf ImpactB h1<->h4, 3 s, one exchange per 5 ms
    timeout 90 srun -N2 -w h1,h4 --mpi=pmix "$BUILD/bin/impactb" --duration-s 3 --interval-us 5000 \
        --output "$1" >"$1.log" 2>&1
}
stream() { # stream OUT NODES...: CompressionB bidirectional ~12 MB/s per rank, 7 s, per node pair
    local out=$1; shift
    local pair
    for pair in "$@"; do
        timeout 90 srun -N2 -w "$pair" --mpi=pmix "$BUILD/bin/compressionb" --partners 1 --messages 1 \
            --msg-bytes 40960 --sleep-us 3000 --duration-s 7 --output "$out.${pair/,/-}.json" \
            >"$out.${pair/,/-}.log" 2>&1 &
    done
}
ib "$T/alone1.json" || not_ok "impactb alone failed: $(tail -n 5 "$T/alone1.json.log")"
stream "$T/cross" h2,h5 h3,h6
sleep 2
"$NETLAB" sample "$D" --duration-s 2 --interval-ms 100 --output "$T/cross_q.json" 2>/dev/null &
ib "$T/cross.json" || not_ok "impactb under cross-leaf stream failed: $(tail -n 5 "$T/cross.json.log")"
wait
stream "$T/inleaf" h2,h3 h5,h6
sleep 2
ib "$T/inleaf.json" || not_ok "impactb under in-leaf stream failed: $(tail -n 5 "$T/inleaf.json.log")"
wait
ib "$T/alone2.json" || not_ok "impactb alone (2) failed"
a1=$(median_p50 "$T/alone1.json"); a2=$(median_p50 "$T/alone2.json")
c=$(median_p50 "$T/cross.json"); i=$(median_p50 "$T/inleaf.json")
alone=$(awk -v a="$a1" -v b="$a2" 'BEGIN{print (a > b ? a : b)}')
bl=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s %.0f bytes %.2f' % (u['dev'], u['backlog']['mean'], u['utilization']) for u in d['uplink']))" "$T/cross_q.json" 2>/dev/null)
echo "# one-way p50: alone $a1 / $a2 us, cross-leaf stream $c us, in-leaf stream $i us; uplink under cross stream (mean backlog, utilization): $bl"
check "cross-leaf stream: ping-pong p50 >= 2x alone ($c vs $alone us)" awk -v c="$c" -v a="$alone" 'BEGIN{exit !(c >= 2 * a)}'
check "in-leaf stream: ping-pong p50 <= 1.5x alone + 100 us ($i vs $alone us)" awk -v i="$i" -v a="$alone" 'BEGIN{exit !(i <= 1.5 * a + 100)}'
for f in "$T"/cross.*.json "$T"/inleaf.*.json; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['bytes_sent_total'] > 0" "$f" 2>/dev/null ||
        not_ok "stream $(basename "$f") sent nothing"
done

# ------------------------------------------------------------ live rate
"$NETLAB" rate "$D" 50mbit --limit 32000 2>/dev/null
r=$(tc -n "$NS" -j qdisc show dev "${P}u2" | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['options']['rate'])")
check "rate 50mbit applied live ($r bytes/s)" test "$r" = 6250000
check "rate recorded in netlab.conf" grep -qx "rate=50mbit" "$D/netlab.conf"
"$NETLAB" rate "$D" fast >/dev/null 2>&1
check "a bad rate is refused with exit 2" test $? = 2

# --------------------------------- a second lab beside it, then a crash
D2=$("$NETLAB" up --nodes 2 --cpu-share 25 --tcp-cc kernel --mpi-eager default --no-spank --no-jobsubmit --build "$BUILD" 2>"$T/up2.err" | tail -n 1)
if [ -d "$D2" ]; then
    LABS="$LABS $D2"
    P2=$(sed -n 's/^prefix=//p' "$D2/netlab.conf")
    CG2=$(sed -n 's/^cpu_cgroup=//p' "$D2/netlab.conf")
    check "two labs get different prefixes ($P, $P2)" test "$P" != "$P2"
    if [ -n "$CG" ]; then
        q2=$(sed -n 's/^cpu_quota_us=//p' "$D2/netlab.conf"); p2=$(sed -n 's/^cpu_period_us=//p' "$D2/netlab.conf")
        check "--cpu-share 25: quota $q2 per $p2 us, said on up's line" \
            test -n "$CG2" -a $((q2 * 4)) = "$p2" -a -n "$(grep "CPU: 25 % of one CPU per node" "$T/up2.err")"
    fi
    cc=$(ip -n "${P2}h1" route show dev data0)
    check "--tcp-cc kernel: no congctl on the data route ($cc), the host's default named in netlab.conf" \
        test -z "$(echo "$cc" | grep congctl)" -a \
        "$(sed -n 's/^tcp_cc=//p' "$D2/netlab.conf")" = "kernel:$(cat /proc/sys/net/ipv4/tcp_congestion_control)"
    e=$( (eval "$("$NETLAB" env "$D2")"; echo "$NETVAR_NETLAB_MPI_EAGER|${OMPI_MCA_btl_tcp_eager_limit:-unset}") )
    check "--mpi-eager default: Open MPI's own limit ($e)" test "$e" = "default|unset"
    check "the second lab runs jobs" test "$(SLURM_CONF=$D2/etc/slurm.conf timeout 60 srun -N2 hostname 2>/dev/null | sort | tr '\n' ' ')" = "h1 h2 "
    # crash: the directory disappears while its daemons still run (moved
    # away in one rename: a daemon writing into it while rm -rf walked it
    # kept it there once, on a busy host)
    cp -a "$D2" "$T/lab2.copy"
    mv "$D2" "$T/lab2.gone"
    "$NETLAB" gc 2>"$T/gc.err"
    left=$(leftovers "$P2" "$D2" "$CG2")
    check "gc after a crash leaves nothing of $P2 ${left:+(left: $left)}" test -z "$left"
    check "the first lab survived gc" test "$(sinfo -h -N -o '%t' | grep -c idle)" = 6
else
    not_ok "second lab did not come up: $(tail -n 5 "$T/up2.err")"
fi

# ------------------------------- three leaves, each with an uplink to a core
"$NETLAB" up --nodes 2 --leaves 3 --build "$BUILD" >/dev/null 2>"$T/up3bad.err"
rc=$?
check "up refuses --nodes 2 --leaves 3 with exit 2 ($(head -n 1 "$T/up3bad.err"))" test "$rc" = 2
D3=$("$NETLAB" up --nodes 3 --leaves 3 --cpu-share none --no-spank --no-jobsubmit --build "$BUILD" \
     2>"$T/up3.err" | tail -n 1)
if [ -d "$D3" ]; then
    LABS="$LABS $D3"
    echo "# $(tail -n 1 "$T/up3.err")"
    P3=$(sed -n 's/^prefix=//p' "$D3/netlab.conf")
    NS3=${P3}sw
    topo=$(tr '\n' ';' <"$D3/etc/topology.conf")
    check "3 leaves: topology.conf puts h1 on s1, h2 on s2, h3 on s3 under root ($topo)" \
        test "$topo" = "SwitchName=s1 Nodes=h1;SwitchName=s2 Nodes=h2;SwitchName=s3 Nodes=h3;SwitchName=root Switches=s[1-3];"
    m=$(for i in 1 2 3 4 5 6; do ip -n "$NS3" -o link show "${P3}u$i" | grep -o "master ${P3}[a-z0-9]*" | sed "s/master $P3//"; done | tr '\n' ' ')
    check "3 leaves: u1,u3,u5 on s1,s2,s3 and u2,u4,u6 on the core c0 ($m)" test "$m" = "s1 c0 s2 c0 s3 c0 "
    qd() { # the root qdisc of every uplink device: "dev kind rate bytes" a line
        local i
        for i in 1 2 3 4 5 6; do
            tc -n "$NS3" -s -j qdisc show dev "${P3}u$i" | python3 -c "
import json,sys; q=json.load(sys.stdin)[0]; print('u$i', q['kind'], q['options']['rate'], q['bytes'])"
        done
    }
    qd >"$T/q3.before"
    n=$(awk '$2 == "tbf" && $3 == 12500000' "$T/q3.before" | wc -l)
    check "3 leaves: tbf 100mbit on all six uplink devices ($n)" test "$n" = 6
    # 200 KB from h1 to h3 and back over TCP, sent in the nodes' namespaces
    cat >"$T/echo.py" <<'PY'
import socket, sys, threading, time
mode, addr, size = sys.argv[1], sys.argv[2], 204800
if mode == "serve":  # in h3: echo one connection's SIZE bytes, then exit
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 5001)); s.listen(1); s.settimeout(20)
    c, _ = s.accept(); c.settimeout(20); n = 0
    while n < size:
        b = c.recv(65536)
        if not b: break
        c.sendall(b); n += len(b)
    sys.exit(0)
for _ in range(100):  # in h1: once h3 listens
    try:
        c = socket.create_connection((addr, 5001), timeout=5); break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("no connection to %s" % addr)
c.settimeout(20); n = 0
threading.Thread(target=c.sendall, args=(b"x" * size,), daemon=True).start()
while n < size:
    b = c.recv(65536)
    if not b: break
    n += len(b)
print("%d bytes echoed" % n)
PY
    a3=$(sed -n 's/^data_cidr=//p' "$D3/netlab.conf" | sed 's|0/24$|3|')
    nsenter --net="/run/netns/${P3}h3" python3 "$T/echo.py" serve "$a3" 2>"$T/serve3.err" &
    srv=$!
    e=$(nsenter --net="/run/netns/${P3}h1" timeout 30 python3 "$T/echo.py" client "$a3" 2>&1)
    wait "$srv"
    check "3 leaves: h1 sends 204800 bytes to h3 ($a3) and gets them back ($e)" test "$e" = "204800 bytes echoed"
    qd >"$T/q3.after"
    sent=$(join "$T/q3.before" "$T/q3.after" | awk '{printf "%s %d ", $1, $7 - $4}')
    # h1 -> h3: u1 (s1 up), u6 (c0 down to s3); h3 -> h1: u5 (s3 up), u2 (c0
    # down to s1); s2's u3/u4 see at most what c0 floods (ARP, IPv6 multicast)
    check "3 leaves: h1<->h3 crossed s1's and s3's uplinks, not s2's (bytes sent: $sent)" \
        awk -v s="$sent" 'BEGIN { n = split(s, f, " "); for (i = 1; i < n; i += 2) b[f[i]] = f[i + 1]
            exit !(b["u1"] >= 204800 && b["u2"] >= 204800 && b["u5"] >= 204800 && b["u6"] >= 204800 &&
                   b["u3"] < 0.1 * b["u1"] && b["u4"] < 0.1 * b["u1"]) }'
    e=$( (eval "$("$NETLAB" env "$D3")"; echo "$NETVAR_NETLAB_LEAVES|$NETVAR_NETLAB_UPLINK|$NETVAR_NETLAB_UPLINK_S2") )
    check "3 leaves: env names 3 leaves, s1's uplink, s2's uplink u3 u4 ($e)" test "$e" = "3|${P3}u1 ${P3}u2|${P3}u3 ${P3}u4"
    "$NETLAB" rate "$D3" 50mbit 2>/dev/null
    n=$(qd | awk '$2 == "tbf" && $3 == 6250000' | wc -l)
    check "3 leaves: rate 50mbit on all six uplink devices ($n)" test "$n" = 6
    "$NETLAB" sample "$D3" --duration-s 1 --interval-ms 100 --output "$T/q3.json" 2>"$T/sample3.err"
    u=$(python3 -c "import json,sys; print(' '.join(sorted(u['dev'] for u in json.load(open(sys.argv[1]))['uplink'])))" "$T/q3.json" 2>&1)
    check "3 leaves: the sampler reads all six uplink queues ($u)" \
        test "$u" = "${P3}u1 ${P3}u2 ${P3}u3 ${P3}u4 ${P3}u5 ${P3}u6"
    "$NETLAB" down "$D3" 2>/dev/null
    left=$(leftovers "$P3" "$D3" "")
    check "3 leaves: down leaves nothing of $P3 ${left:+(left: $left)}" test -z "$left"
else
    not_ok "the lab of 3 leaves did not come up: $(tail -n 5 "$T/up3.err")"
fi

# ------------------------------------------------------------------ down
t0=$(date +%s.%N)
"$NETLAB" down "$D" 2>"$T/down.err"
rc=$?
t1=$(date +%s.%N)
echo "# lab down in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s"
check "down exits 0" test $rc = 0
left=$(leftovers "$P" "$D" "$CG")
check "down leaves no namespace, link, qdisc, cgroup, mount or process of $P ${left:+(left: $left)}" test -z "$left"
root_addrs >"$T/addr.down"; root_links >"$T/link.down"
a=$(added "$T/addr.before" "$T/addr.down" "$P" | tr '\n' ';')$(added "$T/link.before" "$T/link.down" "$P" | tr '\n' ';')
check "after down the root namespace has nothing the labs added ${a:+(added: $a)}" test -z "$a"
check "down removes the directory" test ! -e "$D"
"$NETLAB" down "$D" 2>/dev/null
check "down again is a no-op (exit 0)" test $? = 0
LABS=""

echo "# $checks checks, $failures failed"
[ $failures -eq 0 ] && [ $checks -gt 0 ]
