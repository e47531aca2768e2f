# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# netlab_session.sh - sourced by the scripts that run a scenario on a
# throwaway network lab (lab/demo_netlab.sh, eval/contain_eval.sh).  Needs
# NETLAB (lab/netlab) and BUILD.  netlab_session_up NODES CONF WHO [LEAVES]
# brings a lab of NODES nodes up with CONF as its netvar.conf (and, given
# LEAVES, `--leaves LEAVES`: that many leaves, each with its own uplink to a
# core) and enters it (PATH, SLURM_CONF, NETVAR_NETLAB_* with
# NETVAR_NETLAB_LEAVES and NETVAR_NETLAB_UPLINK_S<i>, the working
# directory), setting LAB, MODEL, SPOOL and BOTTLENECK (the two qdiscs of
# NETVAR_NETLAB_UPLINK: the uplink of two leaves, leaf s1's uplink with a
# core); when the lab cannot run here it prints why and exits 77.  At exit
# the job in NEIGHBOUR_JOB, if any, is cancelled and the lab goes down.
LAB=""
NEIGHBOUR_JOB=""
netlab_session_cleanup() {
    [ -n "$NEIGHBOUR_JOB" ] && scancel "$NEIGHBOUR_JOB" 2>/dev/null
    [ -n "$LAB" ] && "$NETLAB" down "$LAB" >/dev/null 2>&1
    return 0
}
trap netlab_session_cleanup EXIT
trap 'exit 130' INT TERM

netlab_session_up() {
    local nodes=$1 conf=$2 who=$3 err leaves=()
    if [ -n "${4:-}" ]; then leaves=(--leaves "$4"); fi
    err=$(mktemp)
    LAB=$("$NETLAB" up --nodes "$nodes" "${leaves[@]}" --build "$BUILD" --netvar-conf "$conf" \
          2>"$err" | tail -n 1) || true
    if [ ! -d "$LAB" ]; then
        tail -n 3 "$err" >&2
        rm -f "$err"
        LAB=""
        echo "$who: the network lab cannot run here (see above)" >&2
        exit 77
    fi
    rm -f "$err"
    eval "$("$NETLAB" env "$LAB")"
    cd "$LAB" || exit 1
    MODEL=$LAB/netvar/model.json
    SPOOL=$LAB/netvar/spool
    # shellcheck disable=SC2086 # netlab sets it to "NAMESPACE DEVICE": split into $1 $2
    set -- $NETVAR_NETLAB_UPLINK
    BOTTLENECK="qdisc:$1,$2"
}
