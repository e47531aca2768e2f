#!/bin/sh
# mkdeb.sh - 'make deb': three Debian packages from one 'make install' into
# a staging tree, split as Slurm sites install plugins:
#
#   netvar            the CLI, the probes, netvar.conf, the man pages and
#                     the training timer (every host)
#   netvar-spank      spank_netvar.so, the segment profiler and the
#                     plugstack snippet (compute and login nodes); a SPANK
#                     plugin must match Slurm's major.minor
#   netvar-jobsubmit  job_submit_netvar.so (the controller); Slurm loads a
#                     job_submit plugin only into the exact release
#                     (major.minor.micro) it was built for; with it the
#                     accounting writer netvar-acct and its EpilogSlurmctld
#
# Slurm comes as Debian's slurm-wlm packages or SchedMD's slurm-smd ones:
# every Slurm dependency is an alternative of the two, the lower bound in
# Depends and the upper bound in Breaks (an alternative cannot hold a
# range).  Library dependencies come from dpkg-shlibdeps.
# Output: BUILD/deb/*.deb, one line per package on stdout.
set -eu
BUILD=$(readlink -f "${1:-build}")
TOP=$(cd "$(dirname "$0")/.." && pwd)
VERSION=${NETVAR_VERSION:-$(cat "$TOP/VERSION")}
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
PLUGIN_DIR=/usr/lib/$MULTIARCH/slurm-wlm
NV_LIBDIR=/usr/lib/$MULTIARCH/netvar

# The Slurm this was built against: its headers, then the installed release.
SLURM_NUM=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
[ -n "$SLURM_NUM" ] || { echo "mkdeb: no SLURM_VERSION_NUMBER in /usr/include/slurm/slurm_version.h" >&2; exit 1; }
S_MAJ=$(( (SLURM_NUM >> 16) & 255 )) S_MIN=$(( (SLURM_NUM >> 8) & 255 )) S_MIC=$(( SLURM_NUM & 255 ))
SMM=$(printf '%02d.%02d' "$S_MAJ" "$S_MIN")
SFULL="$SMM.$S_MIC"
# the next major.minor (Slurm releases are YY.MM: 22.05, 23.02, 23.11, ...)
NEXT_MM=$(printf '%02d.%02d' "$S_MAJ" $((S_MIN + 1)))
NEXT_FULL="$SMM.$((S_MIC + 1))"

STAGE=$BUILD/deb-stage
OUT=$BUILD/deb
rm -rf "$STAGE" "$OUT"
mkdir -p "$OUT"
make --no-print-directory -s -C "$TOP" install BUILD="$BUILD" DESTDIR="$STAGE/all" PREFIX=/usr \
    SLURM_PLUGIN_DIR="$PLUGIN_DIR" NETVAR_LIBDIR="$NV_LIBDIR" LIBEXECDIR=/usr/libexec/netvar \
    UNITDIR=/lib/systemd/system MANDIR=/usr/share/man >/dev/null

# move FILE... from the full install into package PKG's tree
take() {
    pkg=$1; shift
    for f in "$@"; do
        mkdir -p "$STAGE/$pkg/$(dirname "$f")"
        mv "$STAGE/all/$f" "$STAGE/$pkg/$f"
    done
}
take netvar-spank "$PLUGIN_DIR/spank_netvar.so" "$NV_LIBDIR/libnetvar_pmpi.so" \
    etc/netvar/plugstack.conf usr/share/man/man8/spank_netvar.8
take netvar-jobsubmit "$PLUGIN_DIR/job_submit_netvar.so" usr/libexec/netvar/netvar-acct \
    usr/libexec/netvar/epilog-slurmctld usr/share/man/man8/netvar-acct.8 usr/share/man/man8/job_submit_netvar.8
take netvar usr/bin etc/netvar/netvar.conf etc/netvar/train.env usr/share/man/man1 usr/share/man/man5 \
    lib/systemd usr/libexec/netvar var/lib/netvar var/spool/netvar usr/share/netvar
left=$(cd "$STAGE/all" && find . ! -type d | sort)
# shellcheck disable=SC2086 # $left unquoted: the file list on one line
[ -z "$left" ] || { echo "mkdeb: installed files no package takes:" $left >&2; exit 1; }

# what dpkg-shlibdeps needs: a debian/control naming the packages
mkdir -p "$STAGE/debian"
printf 'Source: netvar\n\nPackage: netvar\nArchitecture: any\n' >"$STAGE/debian/control"

build_pkg() {
    pkg=$1 depends=$2 breaks=$3 desc=$4
    root=$STAGE/$pkg
    # policy: stripped ELF objects, compressed man pages, a copyright file
    find "$root" -type f | while read -r f; do
        if head -c 4 "$f" | grep -q 'ELF'; then
            case $f in
            *.so) strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
            *) strip --remove-section=.comment --remove-section=.note "$f" ;;
            esac
        fi
    done
    find "$root/usr/share/man" -type f -name '*.[1-8]' -exec gzip -9n {} + 2>/dev/null || true
    doc=$root/usr/share/doc/$pkg
    mkdir -p "$doc"
    install -m 0644 "$TOP/packaging/debian/copyright" "$doc/copyright"
    sed "s/@VERSION@/$VERSION/; s/@DATE@/$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$TOP" log -1 --format=%ct 2>/dev/null || date +%s)}")/" \
        "$TOP/packaging/debian/changelog.in" | gzip -9n >"$doc/changelog.gz"
    chmod 0644 "$doc/changelog.gz"
    # library dependencies of the ELF objects, as dpkg-shlibdeps finds them
    elves=$(find "$root" -type f \( -name '*.so' -o -perm -0100 \) -exec sh -c 'head -c 4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
    shlibs=""
    if [ -n "$elves" ]; then
        # the Slurm plugins resolve slurm_* from the daemon that loads them
        # shellcheck disable=SC2046 # one argument per ELF file (staged paths have no blanks)
        shlibs=$(cd "$STAGE" && dpkg-shlibdeps -O --ignore-missing-info -e $(echo "$elves" | sed "s|^$STAGE/||") 2>/dev/null |
                 sed -n 's/^shlibs:Depends=//p' |
                 sed "s/libslurm[0-9]* ([^)]*)/& | slurm-smd (>= $SMM~)/")
    fi
    mkdir -p "$root/DEBIAN"
    size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    {
        echo "Package: $pkg"
        echo "Version: $VERSION"
        echo "Architecture: $ARCH"
        echo "Maintainer: netvar developers <netvar@example.org>"
        echo "Installed-Size: $size"
        echo "Depends: ${shlibs:+$shlibs, }$depends"
        [ -z "$breaks" ] || echo "Breaks: $breaks"
        # netvar alloc train loads libxgboost only when it trains (dlopen)
        [ "$pkg" != netvar ] || echo "Recommends: libxgboost0"
        echo "Section: admin"
        echo "Priority: optional"
        echo "Homepage: https://example.org/netvar"
        printf '%s\n' "$desc"
    } >"$root/DEBIAN/control"
    if [ -d "$root/etc" ]; then
        (cd "$root" && find etc -type f | sed 's|^|/|' | sort) >"$root/DEBIAN/conffiles"
    fi
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort |
        xargs -r md5sum) >"$root/DEBIAN/md5sums"
    for s in postinst prerm postrm; do
        [ -f "$TOP/packaging/debian/$pkg.$s" ] && install -m 0755 "$TOP/packaging/debian/$pkg.$s" "$root/DEBIAN/$s"
    done
    deb=$OUT/${pkg}_${VERSION}_${ARCH}.deb
    dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
    echo "$deb"
}

build_pkg netvar "openmpi-bin" "" "Description: network-interference measurement and prediction for Slurm
 netvar makes a Slurm cluster aware of network interference between
 jobs: its plugins record every job's network counters and predict, at
 submission, how much a job will suffer from and inflict on the running
 jobs.  This package holds the netvar command (measuring, training,
 reports, spool upkeep), the ImpactB and CompressionB probes,
 /etc/netvar/netvar.conf, the man pages and the model-training timer.
 The plugins are in netvar-spank (nodes) and netvar-jobsubmit (controller)."

build_pkg netvar-spank "netvar (= $VERSION), slurm-wlm-basic-plugins (>= $SMM~) | slurm-smd (>= $SMM~)" \
    "slurm-wlm-basic-plugins (>= $NEXT_MM~), slurm-smd (>= $NEXT_MM~)" \
    "Description: netvar SPANK plugin: records every job's network use
 spank_netvar.so measures every Slurm job: network counter snapshots in
 the job prolog and epilog, periodic samples in the extern step, and in
 segments mode the MPI segment profiler (libnetvar_pmpi.so) in front of
 the tasks.  Built for Slurm $SMM (any $SMM.x release).  Install it on
 compute and login nodes and enable it by linking /etc/netvar/plugstack.conf
 from plugstack.conf.d."

build_pkg netvar-jobsubmit "netvar (= $VERSION), slurmctld (>= $SFULL~) | slurm-smd-slurmctld (>= $SFULL~)" \
    "slurmctld (>= $NEXT_FULL~), slurm-smd-slurmctld (>= $NEXT_FULL~)" \
    "Description: netvar job_submit plugin: predicts interference at submission
 job_submit_netvar.so predicts, before the scheduler places a job, how
 much it will suffer from and inflict on the running jobs, advises its
 node count and applies the site's co-scheduling policy (netvar.conf).
 Slurm loads a job_submit plugin only into the exact release it was built
 for: this one is for Slurm $SFULL.  Install it on the controller.
 Also netvar-acct and an EpilogSlurmctld that put each job's netvar
 summary into Slurm accounting (sacct -o AdminComment)."
