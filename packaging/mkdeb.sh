#!/bin/sh
# mkdeb.sh - 'make deb': the Debian source package and the binary packages,
# built by dpkg-buildpackage from debian/ in a clean copy of the tree (what
# git tracks or would track), so that nothing of ./build reaches them and
# the results stay under BUILD instead of the tree's parent directory.
#
#   packaging/mkdeb.sh [BUILD]
#
# Output in BUILD/deb/: netvar_VERSION.dsc and .tar.xz (the source
# package), netvar{,-mpi,-spank,-jobsubmit}_VERSION_ARCH.deb and their
# -dbgsym packages, .buildinfo and .changes; the .deb paths on stdout, one
# a line.  The environment reaches debian/rules: SLURM_INCLUDE,
# SLURM_PLUGIN_DIR and NV_SLURM_LAYOUT choose the Slurm (debian/rules,
# packaging/slurm-layout.sh); DEB_BUILD_OPTIONS defaults to nocheck (the
# unit tests are 'make unit'; DEB_BUILD_OPTIONS= runs them in the build).
set -eu
BUILD=$(readlink -f "${1:-build}")
TOP=$(cd "$(dirname "$0")/.." && pwd)
for t in dpkg-buildpackage dh; do
    command -v "$t" >/dev/null || { echo "mkdeb: $t not found (Debian packages dpkg-dev, debhelper; make deps)" >&2; exit 1; }
done
VERSION=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
if [ "$VERSION" != "$(cat "$TOP/VERSION")" ]; then
    echo "mkdeb: debian/changelog is at $VERSION but VERSION says $(cat "$TOP/VERSION"); add a changelog entry (dch -v $(cat "$TOP/VERSION"))" >&2
    exit 1
fi

OUT=$BUILD/deb
SRC=$OUT/netvar-$VERSION
rm -rf "$OUT"
mkdir -p "$SRC"
(cd "$TOP" && git ls-files --cached --others --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$SRC"

log=$OUT/dpkg-buildpackage.log
# a 'make deb' must not hand its own make variables (BUILD=...) to debian/rules
if ! (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
      cd "$SRC" && DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-nocheck} dpkg-buildpackage -us -uc) >"$log" 2>&1; then
    echo "mkdeb: dpkg-buildpackage failed; last lines of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
fi
grep '^debian/rules: Slurm ' "$log" | head -n 1 >&2 || true
ls "$OUT"/*.deb
