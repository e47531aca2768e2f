#!/usr/bin/env bash
# slurm-modern-tree.sh - completes a build tree that holds only the plugins
# built against another Slurm's headers ($MODERN_BUILD/plugins) with links to
# what does not depend on Slurm in the main tree ($BUILD): the CLI, the
# profiler and the MPI test programs.  Used by lab/slurm.mk.
set -euo pipefail
: "${BUILD:?}" "${MODERN_BUILD:?}"
main=$(readlink -f "$BUILD")
mkdir -p "$MODERN_BUILD/lib"
for d in bin tests; do
    [ -e "$MODERN_BUILD/$d" ] && [ ! -L "$MODERN_BUILD/$d" ] && continue
    ln -sfn "$main/$d" "$MODERN_BUILD/$d"
done
for f in "$main"/lib/*.so; do
    [ -e "$f" ] && ln -sfn "$f" "$MODERN_BUILD/lib/$(basename "$f")"
done
exit 0
