# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# lab_eval_lib.sh - sourced by the network-lab evaluations that run the
# latency-bound CG proxy beside an all-to-all under job_submit/netvar
# (eval/contain_eval.sh, eval/paths_eval.sh, eval/neighbours_eval.sh,
# eval/stream_eval.sh).  The caller sets ROOT (BUILD, default build, is
# read from the environment), then:
#   lab_eval_init WHO VAR   WHO names the evaluation in messages; VAR the
#                           prefix of its environment (VAR_REPS, default 3;
#                           VAR_OUT, default a new directory under /tmp;
#                           VAR_SHORT=1, the smoke size: 1 repetition,
#                           shorter runs; VAR_CONFIGS, the campaign's
#                           CompressionB configurations B:P:M,...).  Sets
#                           BUILD (made absolute), NETLAB, NV, REPS, OUT
#                           and the commands VCMD
#                           (CG), NCMD and LONG_NCMD (the all-to-all, short
#                           and until cancelled); exits 77 without root, 1
#                           on a bad VAR_REPS or VAR_CONFIGS.
#   lab_eval_up NODES CONF [LEAVES]
#                           sources lab/netlab_session.sh (its EXIT trap
#                           takes the lab down) and brings up a lab of NODES
#                           nodes (LEAVES leaves, default 2) with netvar.conf
#                           CONF, messages named by WHO.
#   lab_eval_model CAL CAMP LOAD
#                           once the lab is up (lab/netlab_session.sh): a
#                           calibration on nodes CAL and one short
#                           CompressionB campaign per app on nodes CAMP with
#                           the load on LOAD, at the session's BOTTLENECK.
#   cg_run TAG [OPTION...]  one CG job of 2 nodes with sbatch's placement
#                           OPTIONs, output OUT/TAG.{out,err}; prints its
#                           job id once its registry entry is gone too, so
#                           the next submission sees only the jobs that
#                           really run.
#   lab_eval_train          trains the model from the spool's runs and
#                           waits for job_submit to reload it.
#   say TEXT, since         a section heading; the time since init.

lab_eval_init() {
    local who=$1 var=$2 v
    WHO=$who
    BUILD=$(readlink -f "${BUILD:-build}")
    NETLAB=$ROOT/lab/netlab
    NV=$BUILD/bin/netvar
    v=${var}_REPS
    REPS=${!v:-3}
    ITERS=2500 DUR=2 CONFIGS=2.6e7:1:1,8.7e6:1:1,250:1:10
    v=${var}_SHORT
    if [ "${!v:-0}" = 1 ]; then REPS=1 ITERS=800 DUR=1 CONFIGS=2.6e7:1:1,250:1:10; fi
    v=${var}_CONFIGS
    CONFIGS=${!v:-$CONFIGS}
    case $CONFIGS in '' | *[!0-9.e:,]*) echo "$WHO: ${var}_CONFIGS=$CONFIGS: not B:P:M,..." >&2; exit 1 ;; esac
    case $REPS in '' | *[!0-9]* | 0) echo "$WHO: ${var}_REPS=$REPS: not a whole number from 1" >&2; exit 1 ;; esac
    v=${var}_OUT
    OUT=${!v:-$(mktemp -d /tmp/netvar-eval.XXXXXX)}
    mkdir -p "$OUT"
    OUT=$(readlink -f "$OUT")
    t0=$(date +%s)
    [ "$(id -u)" = 0 ] || { echo "$WHO: the network lab needs root" >&2; exit 77; }
    VCMD="$BUILD/bin/netvar-proxy-cg --compute sleep --iters $ITERS"
    NCMD="$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters 40"
    LONG_NCMD="$BUILD/bin/netvar-proxy-alltoall --compute sleep --iters 100000"
}

lab_eval_up() {
    # shellcheck source=lab/netlab_session.sh
    . "$ROOT/lab/netlab_session.sh"
    netlab_session_up "$1" "$2" "$WHO" ${3:+"$3"}
}

say() { printf '\n== %s\n' "$*"; }
since() { echo "$(( $(date +%s) - t0 )) s"; }

lab_eval_model() {
    local cal=$1 camp=$2 load=$3 a cmd n
    n=$(echo "$camp" | tr ',' '\n' | grep -c .)
    salloc -Q -N2 -w "$cal" --exclusive "$NV" calibrate --model "$MODEL" --duration-s "$DUR" \
        --interval-us 5000 --text >"$OUT/calibrate.txt"
    for a in cg alltoall; do
        case $a in cg) cmd=$VCMD ;; *) cmd=$NCMD ;; esac
        # shellcheck disable=SC2086 # cmd: the command and its options, one word each
        salloc -Q -N"$n" -w "$camp" --exclusive "$NV" campaign --model "$MODEL" --app "$a" \
            --configs "$CONFIGS" --repeat 1 --duration-s "$DUR" --ghz 2.6 \
            --interval-us 5000 --load-nodes "$load" --runtime-key runtime_s \
            --bottleneck "$BOTTLENECK" --text -- $cmd >"$OUT/campaign_$a.txt"
        echo "campaign $a done at $(since)"
    done
}

cg_run() {
    local tag=$1 j
    shift
    j=$(sbatch --parsable -W -N2 "$@" -J cg --netvar=counters --netvar-app=cg \
        -o "$OUT/$tag.out" --wrap "srun --mpi=pmix $VCMD" 2>"$OUT/$tag.err") || {
        echo "$WHO: cg ($tag) failed: $(tail -n 2 "$OUT/$tag.err")" >&2
        return 1
    }
    for _ in $(seq 1 100); do [ -e "$SPOOL/running/$j.json" ] || break; sleep 0.1; done
    sleep 1.2 # job_submit's refresher looks once a second
    echo "$j"
}

lab_eval_train() {
    "$NV" train --spool "$SPOOL" --model "$MODEL" --out "$MODEL" --window-s 1 --min-overlap-frac 0.3 \
        >"$OUT/train.txt"
    sleep 1.5 # job_submit/netvar reloads a changed model within a second
}
