#!/usr/bin/env bash
# slurm-build.sh - builds a real Slurm from source for the lab, once per
# version, into a cache outside the repository, and prints its prefix on
# the last line of stdout.  Used by `make slurm-modern` and .ci/run.
#
#   lab/slurm-build.sh [SRC]
#
# SRC is a Slurm release tarball (slurm-X.Y.Z.tar.*) or a directory holding
# exactly one; default ../shared/slurm/src beside the repository.  The
# prefix is ${NETVAR_SLURM_CACHE:-/var/cache/netvar}/slurm-X.Y.Z; when it
# holds a finished build (marker file .netvar-built) it is reused as is.
# The source is unpacked into a temporary directory (never built where it
# lies) that is removed afterwards.
#
# The build is what the lab needs: the daemons (slurmctld, slurmd,
# slurmstepd), the clients it calls, their libraries and plugins, and the
# public headers; not the accounting daemon and its clients, slurmrestd,
# sview, the other seldom-used clients, the data_parser plugins (--json
# output only), the documentation or the test suite.  It is configured with
#   --enable-multiple-slurmd  the lab runs several slurmd on one host;
#   --with-pmix               srun --mpi=pmix for the MPI tests;
# and munge's headers present (configure stops without them) but no munge
# daemon needed: the lab uses AuthType=auth/none and CredType=cred/none,
# which the default build installs.  It prints how long configure, make
# and make install took.
#
# Exit status: 0 built or reused, 1 failure, 2 bad usage.
set -euo pipefail

REPO=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
SRC=${1:-$REPO/../shared/slurm/src}
CACHE=${NETVAR_SLURM_CACHE:-/var/cache/netvar}
JOBS=${SLURM_BUILD_JOBS:-2}

die() { echo "slurm-build: $*" >&2; exit 1; }

case ${1:-} in -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -le 1 ] || { echo "slurm-build: usage: slurm-build.sh [SRC]" >&2; exit 2; }

if [ -d "$SRC" ]; then
    # shellcheck disable=SC2012 # counts release tarballs: names without blanks
    n=$(ls "$SRC"/slurm-*.tar.* 2>/dev/null | wc -l)
    [ "$n" -eq 1 ] || die "$SRC: expected exactly one slurm-X.Y.Z.tar.* file, found $n"
    SRC=$(ls "$SRC"/slurm-*.tar.*)
fi
[ -f "$SRC" ] || die "$SRC: no such Slurm source tarball"
VER=$(basename "$SRC" | sed -n 's/^slurm-\([0-9]*\.[0-9]*\.[0-9]*\)\.tar\..*$/\1/p')
[ -n "$VER" ] || die "$SRC: name is not slurm-X.Y.Z.tar.*; cannot tell the version"
PREFIX=$CACHE/slurm-$VER

mkdir -p "$CACHE"
# one build per version at a time, even with several checkouts on the host
exec 9>"$CACHE/.slurm-$VER.lock"
flock 9

if [ -f "$PREFIX/.netvar-built" ] && [ -x "$PREFIX/sbin/slurmctld" ]; then
    echo "slurm-build: Slurm $VER already built in $PREFIX (reused; $(cat "$PREFIX/.netvar-built"))" >&2
    echo "$PREFIX"
    exit 0
fi

# configure stops without munge's headers even when munge is not used
if [ ! -f /usr/include/munge.h ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "slurm-build: installing libmunge-dev (configure needs munge.h)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
            --no-install-recommends libmunge-dev >/dev/null
    else
        die "munge.h missing: install libmunge-dev (as root: apt-get install libmunge-dev)"
    fi
fi

rm -rf "$PREFIX"
work=$(mktemp -d "${TMPDIR:-/tmp}/netvar-slurm-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xf "$SRC" -C "$work"
cd "$work/slurm-$VER" || die "$SRC does not unpack to slurm-$VER/"

pmix=""
for d in /usr/lib/x86_64-linux-gnu/pmix2 /usr/lib/x86_64-linux-gnu/pmix /usr; do
    [ -f "$d/include/pmix.h" ] && { pmix="--with-pmix=$d"; break; }
done

t0=$(date +%s)
./configure --prefix="$PREFIX" --sysconfdir="$PREFIX/etc" --enable-multiple-slurmd \
    $pmix --without-hdf5 --without-rrdtool --disable-slurmrestd \
    >"$work/configure.log" 2>&1 || { tail -n 30 "$work/configure.log" >&2; die "configure failed"; }
t1=$(date +%s)
# only what the lab needs: the SUBDIRS lists of src/ and src/plugins/ lose
# the directories it never uses (automake recurses into just those)
prune_subdirs() { # prune_subdirs MAKEFILE DIR...
    local mk=$1
    shift
    python3 - "$mk" "$@" <<'PY'
import re, sys
mk, drop = sys.argv[1], set(sys.argv[2:])
text = open(mk).read()
m = re.search(r'^SUBDIRS = ((?:.*\\\n)*.*)$', text, re.M)
if not m:
    sys.exit("no SUBDIRS in " + mk)
words = m.group(1).replace('\\\n', ' ').split()
kept = [w for w in words if w not in drop]
text = text[:m.start()] + 'SUBDIRS = ' + ' '.join(kept) + text[m.end():]
open(mk, 'w').write(text)
PY
}
prune_subdirs src/Makefile sacctmgr sackd sattach sbcast scrontab scrun slurmdbd slurmrestd \
    sprio sreport sshare strigger sview
prune_subdirs src/plugins/Makefile data_parser
make -j"$JOBS" -C src >"$work/make.log" 2>&1 || { grep -m 20 -B2 -A5 'error' "$work/make.log" >&2; die "make failed"; }
t2=$(date +%s)
{ make -C src install && make install-pkgincludeHEADERS; } >"$work/install.log" 2>&1 ||
    { tail -n 30 "$work/install.log" >&2; die "make install failed"; }
t3=$(date +%s)
[ -x "$PREFIX/sbin/slurmctld" ] && [ -x "$PREFIX/sbin/slurmd" ] && [ -x "$PREFIX/sbin/slurmstepd" ] ||
    die "install left no slurmctld/slurmd/slurmstepd in $PREFIX/sbin"
times="configure $((t1 - t0)) s, make -j$JOBS $((t2 - t1)) s, make install $((t3 - t2)) s, total $((t3 - t0)) s"
echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ): $times" >"$PREFIX/.netvar-built"
echo "slurm-build: Slurm $VER built in $PREFIX: $times" >&2
echo "$PREFIX"
