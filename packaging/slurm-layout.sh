#!/bin/sh
# slurm-layout.sh - the Slurm the packages are built against: prints one
# line "LAYOUT PLUGIN_DIR VERSION" for debian/rules, or names what it could
# not tell on stderr and exits 1.
#
#   VERSION     major.minor.micro from SLURM_VERSION_NUMBER in the headers'
#               slurm_version.h ($SLURM_INCLUDE/slurm, else /usr/include/slurm)
#   PLUGIN_DIR  where that Slurm's daemons load plugins from (their default
#               PluginDir, Slurm's pkglibdir), the first of:
#                 1. $SLURM_PLUGIN_DIR, when set (a site's own layout);
#                 2. pkg-config's slurm.pc: LIBDIR/slurm, the layout of
#                    Slurm's own build system, which SchedMD's slurm-smd-dev
#                    and a 'make install' of the source ship (with
#                    SLURM_INCLUDE=PREFIX/include only PREFIX's slurm.pc is read);
#                 3. with SLURM_INCLUDE=PREFIX/include and no slurm.pc (a
#                    partial install): the directory under PREFIX holding
#                    libslurmfull.so, which Slurm installs in its pkglibdir;
#                 4. Debian's libslurm-dev (no slurm.pc): /usr/lib/MULTIARCH/slurm-wlm,
#                    the pkglibdir Debian's slurm-wlm packages are built with.
#   LAYOUT      which packages hold that Slurm, so that the netvar packages
#               depend on the ones that load plugins from PLUGIN_DIR:
#                 debian   slurm-wlm (slurmctld, slurm-wlm-basic-plugins)
#                 schedmd  slurm-smd (slurm-smd-slurmctld, slurm-smd)
#                 local    none: built from source or installed by hand; the
#                          packages then name no Slurm package
#               $NV_SLURM_LAYOUT, when set, wins.
set -eu
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
inc=${SLURM_INCLUDE:-/usr/include}
hdr=$inc/slurm/slurm_version.h
die() { echo "slurm-layout: $*" >&2; exit 1; }

[ -f "$hdr" ] || die "$hdr: no Slurm headers (install libslurm-dev or slurm-smd-dev, or set SLURM_INCLUDE=DIR holding slurm/slurm.h)"
num=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' "$hdr")
[ -n "$num" ] || die "$hdr: no SLURM_VERSION_NUMBER; cannot tell the Slurm release"
version=$(printf '%02d.%02d.%d' $(( (num >> 16) & 255 )) $(( (num >> 8) & 255 )) $(( num & 255 )))

# the Debian package that owns a path, or nothing
owner() { dpkg-query -S "$1" 2>/dev/null | sed -n '1s/:.*//p'; }

pc_libdir="" full_dir=""
if [ -n "${SLURM_INCLUDE:-}" ]; then
    prefix=$(dirname "$(readlink -f "$SLURM_INCLUDE")")
    for d in "$prefix/lib/slurm" "$prefix/lib64/slurm" "$prefix/lib/$MULTIARCH/slurm"; do
        [ -f "$d/libslurmfull.so" ] && { full_dir=$d; break; }
    done
    pc_path=$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig:$prefix/lib/$MULTIARCH/pkgconfig
    pc_libdir=$(PKG_CONFIG_LIBDIR=$pc_path pkg-config --variable=libdir slurm 2>/dev/null || true)
    pc_file=$(PKG_CONFIG_LIBDIR=$pc_path pkg-config --path slurm 2>/dev/null || true)
else
    pc_libdir=$(pkg-config --variable=libdir slurm 2>/dev/null || true)
    pc_file=$(pkg-config --path slurm 2>/dev/null || true)
fi

hdr_owner=$(owner "$(readlink -f "$hdr")")
if [ -n "${SLURM_PLUGIN_DIR:-}" ]; then
    dir=$SLURM_PLUGIN_DIR
elif [ -n "$pc_libdir" ]; then
    dir=$pc_libdir/slurm
elif [ -n "$full_dir" ]; then
    dir=$full_dir
elif [ "$hdr_owner" = libslurm-dev ]; then
    dir=/usr/lib/$MULTIARCH/slurm-wlm
else
    die "$hdr: no slurm.pc or libslurmfull.so beside these headers and not Debian's libslurm-dev: cannot tell where this Slurm loads plugins from; set SLURM_PLUGIN_DIR=DIR (its PluginDir)"
fi
case $dir in /*) ;; *) die "plugin directory '$dir' is not an absolute path" ;; esac

if [ -n "${NV_SLURM_LAYOUT:-}" ]; then
    layout=$NV_SLURM_LAYOUT
else
    case $(owner "$dir")/$hdr_owner/$(if [ -n "$pc_file" ]; then owner "$pc_file"; fi) in
    slurm-wlm*/* | */libslurm-dev/*) layout=debian ;;
    slurm-smd*/* | */slurm-smd*) layout=schedmd ;;
    *) layout=local ;;
    esac
    # Debian's headers with a plugin directory Debian's Slurm does not use:
    # the packages cannot name the Slurm that loads from there
    [ "$layout" != debian ] || [ "$dir" = "/usr/lib/$MULTIARCH/slurm-wlm" ] || layout=local
fi
case $layout in debian | schedmd | local) ;; *) die "NV_SLURM_LAYOUT='$layout': expected debian, schedmd or local" ;; esac
echo "$layout $dir $version"
