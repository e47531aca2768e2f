# shellcheck shell=bash disable=SC2034 # its variables are for the tests that source it
# netlab4_lib.sh - sourced by the tests that run netvar's workflows on a
# 4-node network lab without the plugins (test_campaign_bottleneck.sh,
# test_calibrate_fabric.sh).  netlab4_up TAG skips (77) without root,
# brings the lab up (skipping where netlab cannot), and leaves NV, OUT (a
# temporary directory), LAB, M ($OUT/model.json), BN (the lab's uplink as a
# --bottleneck spec) and bad/fail set; the lab and OUT go at exit.
# Env: BUILD, ROOT.
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NV=$BUILD/bin/netvar
fail=0
bad() { echo "NOT OK - $*"; fail=1; }

# shellcheck disable=SC2317 # run by the EXIT trap
netlab4_cleanup() {
    [ -n "$LAB" ] && "$ROOT/lab/netlab" down "$LAB" >/dev/null 2>&1
    rm -rf "$OUT"
}

netlab4_up() {
    local rc
    [ "$(id -u)" = 0 ] || { echo "skip: the network lab needs root"; exit 77; }
    OUT=$(mktemp -d "/tmp/$1.XXXXXX")
    LAB=""
    trap netlab4_cleanup EXIT
    LAB=$("$ROOT/lab/netlab" up --nodes 4 --no-spank --no-jobsubmit --build "$BUILD" 2>"$OUT/up.err" | tail -n 1)
    rc=${PIPESTATUS[0]}
    [ "$rc" = 77 ] && { echo "skip: $(tail -n 1 "$OUT/up.err")"; exit 77; }
    [ -d "$LAB" ] || { cat "$OUT/up.err"; echo "NOT OK - the lab did not come up"; LAB=""; exit 1; }
    eval "$("$ROOT/lab/netlab" env "$LAB")"
    M=$OUT/model.json
    # shellcheck disable=SC2086 # netlab sets it to "NAMESPACE DEVICE": split into $1 $2
    set -- $NETVAR_NETLAB_UPLINK
    BN="qdisc:$1,$2"
}
