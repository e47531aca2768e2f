#!/usr/bin/env bash
# test_alloc_advice.sh - the node-count advice from predicted communication
# time inside a real slurmctld: a model whose "alloc" section is trained by
# `netvar alloc train` (libxgboost) on the network lab's sweep fixture with
# the lab's topology.conf; sbatch shows the advice with its class and
# source, never beyond the lab's 4 nodes or the user's range (the history
# route alone said 16 nodes for an app measured at 4, 8 and 16);
# --netvar-advise=apply with a resize rule sets the node count; `netvar alloc
# advise` agrees with job_submit.
. "$ROOT/tests/integration/lab_lib.sh"
conf=$(mktemp /tmp/nv-alloc-conf.XXXXXX)
trap 'rm -f "$conf"; _lab_cleanup' EXIT
printf 'ModelFile=/var/lib/netvar/model.json\nSpoolDir=/var/spool/netvar\nRule=fit app=fftw action=resize\n' >"$conf"  # the lab rewrites both paths
lab_start --nodes 4 --netvar-conf "$conf"
cp "$ROOT/tests/fixtures/model/valid_small.json" base.json
# fftw: a 3-D halo of 128 KiB messages over 8 ranks, 300 phases, 200 core-s of compute
out=$("$NV" alloc train --dataset "$ROOT/tests/fixtures/alloc/netlab_sweep.json" --model base.json \
      --out netvar/model.json --topology etc/topology.conf --trees 20 \
      --app-halo fftw:3:131072:8:300:200 2>&1)
contains "alloc train wrote the section" "$out" "apps, 2 switches -> netvar/model.json"
for _ in $(seq 1 30); do grep -q "netvar: model .* loaded: 3 apps" log/slurmctld.log && break; sleep 0.2; done
check "slurmctld loaded the model" grep -q "netvar: model .* loaded: 3 apps" log/slurmctld.log

out=$(nv_sbatch -N1-16 --netvar-app=fftw --hold --wrap "true" 2>&1)
contains "advice from predicted communication time" "$out" "netvar: advice "
contains "it names its class and source" "$out" "class C (xgboost"
contains "and the profile" "$out" "profile: halo description"
contains "the cluster bound is said" "$out" "the cluster has fewer nodes than you allowed"
contains "the user reads the advice in plain words" "$(user_lines "$out")" \
    "netvar: your job is predicted to finish about "
lacks "... without the model's terms" "$(user_lines "$out")" "xgboost"
n=$(printf '%s\n' "$out" | sed -n 's/.*netvar: advice \([0-9]*\) nodes.*/\1/p' | head -n 1)
check "advice within the lab's 4 nodes ($n)" test -n "$n" -a "${n:-99}" -le 4
cli=$("$NV" alloc advise --model netvar/model.json --app fftw --nodes 1-16 --json)
contains "netvar alloc advise agrees" "$cli" "\"nodes\":$n,"

# no profile: the history route, within the cluster (it used to say 16)
out=$(nv_sbatch -N1-16 --netvar-app=lulesh --hold --wrap "true" 2>&1)
contains "history advice capped at the cluster, with its source" "$out" "advice 4 nodes (runtime history at 3 node counts)"
lacks "never 16 nodes" "$out" "advice 16 nodes"

# apply within the range
out=$(nv_sbatch -N1-4 --netvar-app=fftw --netvar-advise=apply --hold --wrap "true" 2>&1)
j=$(printf '%s\n' "$out" | sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p')
contains "logged as applied" "$out" "node count set to the advised $n"
contains "and the user told so in plain words" "$(user_lines "$out")" "netvar: run on the advised $n nodes"
nn=$(job_field "$j" NumNodes | cut -d" " -f1)
check "scontrol shows the advised node count ($nn)" test "${nn%%-*}" = "$n" -a "${nn#*-}" = "$n"
scancel -u "$(id -un)" >/dev/null 2>&1
finish
