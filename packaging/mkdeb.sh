#!/bin/sh
# mkdeb.sh - 'make deb': builds build/netvar_<version>_<arch>.deb from
# 'make install' into a staging tree.  The job_submit plugin only loads into
# the exact Slurm release it was built against, so the package depends on
# that exact version of slurm-wlm-basic-plugins (which ships libslurmfull).
set -eu
BUILD=${1:-build}
VERSION=${NETVAR_VERSION:-$(cat "$(dirname "$0")/../VERSION")}
ARCH=$(dpkg --print-architecture)
SLURM_VER=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins)
STAGE=$BUILD/deb-stage
rm -rf "$STAGE"
make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$PWD/$STAGE" PREFIX=/usr >/dev/null
mkdir -p "$STAGE/DEBIAN"
cat >"$STAGE/DEBIAN/control" <<CTL
Package: netvar
Version: $VERSION
Architecture: $ARCH
Maintainer: netvar developers <netvar@localhost>
Depends: slurm-wlm-basic-plugins (= $SLURM_VER), libjson-c5, libsvm3, libopenmpi3
Recommends: libpapi7.0
Section: admin
Priority: optional
Description: network-interference measurement and prediction for Slurm
 A SPANK plugin that measures every job's network counters and MPI segment
 profiles, and a job_submit plugin that predicts interference between jobs
 before placement and applies the site's co-scheduling policy.
CTL
cat >"$STAGE/DEBIAN/conffiles" <<CF
/etc/slurm/plugstack.conf.d/netvar.conf
CF
dpkg-deb --root-owner-group --build "$STAGE" "$BUILD/netvar_${VERSION}_${ARCH}.deb" >/dev/null
echo "$BUILD/netvar_${VERSION}_${ARCH}.deb (depends on slurm-wlm-basic-plugins = $SLURM_VER)"
