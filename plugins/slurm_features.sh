#!/bin/sh
# slurm_features.sh - feature tests against one set of Slurm headers, the
# way configure would: for each struct field that some releases have and
# others do not, a tiny translation unit is compiled and a -DNV_HAVE_...
# printed when it compiles.  (Macros such as JOB_SHARED_TOPO are tested
# with #ifdef in the code itself; a field cannot be.)
#
#   plugins/slurm_features.sh CC [CFLAGS...]
#
# CFLAGS carries the -I that finds <slurm/slurm.h> (none: the system's).
# Prints the flags on one line; prints nothing when no header is found, so
# the plugins then build with every optional field left alone.
cc=${1:?usage: slurm_features.sh CC [CFLAGS...]}
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netvar-slurm-features.XXXXXX") || exit 0
trap 'rm -rf "$tmp"' EXIT

have_field() { # have_field DEFINE FIELD CFLAGS...: job_desc_msg_t has FIELD
    def=$1 field=$2
    shift 2
    printf '#include <slurm/slurm.h>\nint nv_probe(job_desc_msg_t *j);\nint nv_probe(job_desc_msg_t *j) { return (int)sizeof j->%s; }\n' "$field" >"$tmp/t.c"
    "$cc" "$@" -fsyntax-only "$tmp/t.c" 2>/dev/null && printf ' %s' "-D$def"
}

out=""
# --segment (topology/block, 24.05): a node count that is not a multiple of
# the segment size is refused, so netvar's resize must respect it.
out="$out$(have_field NV_HAVE_JOB_DESC_SEGMENT_SIZE segment_size "$@")"
echo "${out# }"
