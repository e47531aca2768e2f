#!/usr/bin/env bash
# bench_replay.sh BUILD [NODES [JOBS]] - `netvar replay` at site scale: a
# generated trace of JOBS jobs (default 10000; the issue's 100 000 with
# BENCH_REPLAY_JOBS=100000) on a NODES-node 2:1 fat-tree (default 10000,
# 250 leaves of 40), every policy, uplink routing BENCH_REPLAY_ROUTING
# (balanced, the default here, or dmodk: at 10 000 nodes a 1 024-node job
# has about a thousand d-mod-k flow classes, and 10 000 jobs did not
# finish in 9 min), BENCH_REPLAY_FEEDBACK more passes per policy with
# slowed jobs holding their nodes longer (--feedback; default 0, each pass
# costs about as much as the first).  Prints the wall time, the CPU time
# (netvar and the simulator) and the peak memory of the largest process
# (GNU time), then the policy table.
set -u
build=${1:-build}
nodes=${2:-${BENCH_REPLAY_NODES:-10000}}
jobs=${3:-${BENCH_REPLAY_JOBS:-10000}}
routing=${BENCH_REPLAY_ROUTING:-balanced}
feedback=${BENCH_REPLAY_FEEDBACK:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v /usr/bin/time >/dev/null || { echo "netvar: bench-replay: /usr/bin/time missing (make deps)" >&2; exit 1; }
[ -x "$build/bin/netvar-replay-sim" ] || { echo "netvar: bench-replay: $build/bin/netvar-replay-sim not built (libsimgrid-dev)" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/nvbenchreplay.XXXXXX")
trap 'rm -rf "$out"' EXIT
/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$build/bin/netvar" replay \
    --config "$root/tests/fixtures/replay/netvar.conf" --model "$root/tests/fixtures/jobsubmit/model.json" \
    --nodes "$nodes" --leaf-nodes 40 --oversubscription 2 --jobs "$jobs" --load 1 \
    --max-job-nodes 1024 --routing "$routing" --feedback "$feedback" --text >"$out/table" || { cat "$out/table"; exit 1; }
read -r wall user sys peak <"$out/time"
echo "bench-replay: $nodes nodes (2:1 fat-tree, 40 a leaf, $routing routing), $jobs generated jobs at load 1, 4 policies, $feedback feedback passes:"
echo "bench-replay: wall $wall s, CPU $(echo "$user + $sys" | bc) s (user $user s, sys $sys s), peak memory $peak KiB"
cat "$out/table"
