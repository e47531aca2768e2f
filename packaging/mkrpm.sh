#!/bin/sh
# mkrpm.sh - 'make rpm': RPMs from packaging/rpm/netvar.spec, built here
# against the installed Slurm.  Output: BUILD/rpm/RPMS/<arch>/*.rpm, one
# line per package on stdout.
#
# This machine is Debian: its rpm database is empty, so the spec's
# BuildRequires (slurm-devel, json-c-devel, ...) cannot be satisfied there
# and rpmbuild runs with --nodeps.  The real build dependencies are the
# Debian packages 'make deps' installs (libslurm-dev, libjson-c-dev, ...).
# The Slurm release, libslurm's soname and the plugin directory are taken
# from those and given to the spec as defines, as slurm-devel would.
#
# By default the spec installs from the tree 'make' already built
# (--define nv_builddir); RPM_FROM_SOURCE=1 compiles again inside rpmbuild,
# the way a site's build host does.
set -eu
BUILD=$(readlink -f "${1:-build}")
TOP=$(cd "$(dirname "$0")/.." && pwd)
VERSION=${NETVAR_VERSION:-$(cat "$TOP/VERSION")}
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
command -v rpmbuild >/dev/null || { echo "mkrpm: rpmbuild not found (Debian package 'rpm'; make deps)" >&2; exit 1; }

SLURM_NUM=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
[ -n "$SLURM_NUM" ] || { echo "mkrpm: no SLURM_VERSION_NUMBER in /usr/include/slurm/slurm_version.h" >&2; exit 1; }
SLURM_VER=$(printf '%02d.%02d.%d' $(( (SLURM_NUM >> 16) & 255 )) $(( (SLURM_NUM >> 8) & 255 )) $(( SLURM_NUM & 255 )))
# shellcheck disable=SC2012 # library file names: no blank or newline
SOVER=$(ls /usr/lib/"$MULTIARCH"/libslurm.so.* 2>/dev/null | sed -n 's/.*libslurm[.]so[.]\([0-9]*\)$/\1/p' | head -n 1)
[ -n "$SOVER" ] || { echo "mkrpm: libslurm.so.N not found in /usr/lib/$MULTIARCH" >&2; exit 1; }

TOPDIR=$BUILD/rpm
rm -rf "$TOPDIR"
mkdir -p "$TOPDIR/SOURCES" "$TOPDIR/SPECS" "$TOPDIR/BUILD" "$TOPDIR/RPMS" "$TOPDIR/SRPMS"
# the source tarball: what git tracks or would track, as it is in the work tree
(cd "$TOP" && git ls-files --cached --others --exclude-standard -z |
    tar --null -T - --transform "s|^|netvar-$VERSION/|" -czf "$TOPDIR/SOURCES/netvar-$VERSION.tar.gz")
cp "$TOP/packaging/rpm/netvar.spec" "$TOPDIR/SPECS/"

set -- --define "_topdir $TOPDIR" --define "netvar_version $VERSION" \
    --define "slurm_version $SLURM_VER" --define "slurm_soversion $SOVER" \
    --define "_build_id_links none" --define "packager netvar developers <netvar@example.org>" --nodeps \
    --define "__brp_compress /bin/bash %{_rpmconfigdir}/brp-compress %{?_prefix}"
[ "${RPM_FROM_SOURCE:-0}" = 1 ] || set -- "$@" --define "nv_builddir $BUILD"
log=$TOPDIR/rpmbuild.log
if ! rpmbuild -bb "$@" "$TOPDIR/SPECS/netvar.spec" >"$log" 2>&1; then
    echo "mkrpm: rpmbuild failed; last lines of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
fi
find "$TOPDIR/RPMS" -name '*.rpm' | sort
