#!/usr/bin/env bash
# slurm_matrix.sh - compiles both plugins against every Slurm release's
# public headers, with the project's full warning flags and -Werror, and
# prints one line per release.  Used by `make check-slurm` (in `make check`).
#
#   tests/slurm_matrix.sh [HEADERS_ROOT]
#
# HEADERS_ROOT holds one directory per release, <X.Y.Z>/slurm/{slurm.h,
# spank.h,slurm_errno.h,slurm_version.h}; default ../shared/slurm/headers
# beside the repository.  Environment: CC, and NV_MATRIX_CFLAGS (warning,
# optimisation and hardening flags plus the library include paths; the
# Makefile passes its own).  Each file is compiled for real (-c, to
# /dev/null) so that the warnings that need the optimiser are seen too; the
# feature tests of plugins/slurm_features.sh run per release.
#
# Exit status: 0 every release compiles; 1 any error (its compiler output is
# printed); 0 with a SKIP line when HEADERS_ROOT is absent, unless
# NETVAR_REQUIRE_SLURM_MATRIX=1 (CI), which makes that a failure.
set -uo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
HDRS=${1:-$ROOT/../shared/slurm/headers}
CC=${CC:-gcc}
read -r -a FLAGS <<<"${NV_MATRIX_CFLAGS:--std=gnu11 -Wall -Wextra -O2 -fPIC}"
FLAGS+=(-Werror)
for l in site records model variability topoyaml counters util; do FLAGS+=("-I$ROOT/lib/$l"); done
JSON=$(pkg-config --cflags json-c 2>/dev/null)
# shellcheck disable=SC2206
[ -z "$JSON" ] || FLAGS+=($JSON)

if [ ! -d "$HDRS" ]; then
    echo "slurm matrix: SKIP: no Slurm header sets at $HDRS"
    [ "${NETVAR_REQUIRE_SLURM_MATRIX:-0}" = 1 ] && exit 1
    exit 0
fi

cd "$ROOT" || exit 1
spank_srcs=(plugins/spank/*.c)
js_srcs=(plugins/job_submit/*.c)
log=$(mktemp "${TMPDIR:-/tmp}/netvar-slurm-matrix.XXXXXX")
trap 'rm -f "$log" "$log".*' EXIT

# compile_set TAG INCDIR FEATURES FILES...: prints "ok" or "FAILED"; the
# compiler's output goes to $log.TAG
compile_set() {
    local tag=$1 inc=$2 feat=$3 f rc=0
    shift 3
    : >"$log.$tag"
    for f in "$@"; do
        # shellcheck disable=SC2086
        "$CC" "${FLAGS[@]}" -I"$inc" $feat -c -o /dev/null "$f" >>"$log.$tag" 2>&1 || rc=1
    done
    [ $rc = 0 ] && echo ok || echo FAILED
}

fail=0 n=0
start=$(date +%s.%N)
for dir in "$HDRS"/*/; do
    dir=${dir%/}
    ver=$(basename "$dir")
    [ -f "$dir/slurm/slurm.h" ] || continue
    n=$((n + 1))
    feat=$(sh plugins/slurm_features.sh "$CC" -I"$dir")
    # the two plugins in parallel (2 cores)
    compile_set "$ver.spank" "$dir" "$feat" "${spank_srcs[@]}" >"$log.$ver.s" &
    compile_set "$ver.js" "$dir" "$feat" "${js_srcs[@]}" >"$log.$ver.j"
    wait
    s=$(cat "$log.$ver.s") j=$(cat "$log.$ver.j")
    vnum=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$dir/slurm/slurm_version.h")
    printf 'slurm matrix: %-9s spank_netvar %-6s job_submit_netvar %-6s%s\n' "$ver" "$s" "$j" \
        "${feat:+ ($feat)}"
    [ "$vnum" = "$ver" ] || { echo "  headers' slurm_version.h says '$vnum', not $ver"; fail=1; }
    if [ "$s" != ok ]; then sed 's/^/    /' "$log.$ver.spank"; fail=1; fi
    if [ "$j" != ok ]; then sed 's/^/    /' "$log.$ver.js"; fail=1; fi
done
secs=$(echo "$(date +%s.%N) - $start" | bc)
if [ $n = 0 ]; then
    echo "slurm matrix: no header sets under $HDRS"
    exit 1
fi
printf 'slurm matrix: %d releases, %d spank + %d job_submit sources each, %.1f s: %s\n' \
    "$n" "${#spank_srcs[@]}" "${#js_srcs[@]}" "$secs" "$([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
