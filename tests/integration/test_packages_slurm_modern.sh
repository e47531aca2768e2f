#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2086,SC2012,SC2020,SC2153 # written before make lint: literal $ in pkg-config and PromQL text, package and word lists split on purpose, ls on directories this test made, ROOT from run.sh
# test_packages_slurm_modern.sh - the Debian packages built against the
# Slurm that `make slurm-modern` builds from ../shared/slurm/src (25.11.7)
# into ${NETVAR_SLURM_CACHE:-/var/cache/netvar}/slurm-X.Y.Z: make deb
# SLURM_INCLUDE=PREFIX/include takes the plugin directory from that Slurm's
# layout (PREFIX/lib/slurm, not slurm-wlm/), names no Slurm package (a
# Slurm built from source is in none), and after dpkg -i that Slurm's
# slurmctld, started with no PluginDir, loads the installed
# job_submit_netvar.so.  The packages are purged afterwards.  Skipped when
# that Slurm is not built.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
ver=${SLURM_MODERN_VERSION:-25.11.7}
P=${NETVAR_SLURM_CACHE:-/var/cache/netvar}/slurm-$ver
[ -f "$P/.netvar-built" ] && [ -x "$P/sbin/slurmctld" ] || { echo "Slurm $ver not built in $P (make slurm-modern)"; exit 77; }
for t in dpkg-buildpackage dh; do
    command -v "$t" >/dev/null || { echo "$t not installed (make deps)"; exit 77; }
done
T=$(mktemp -d /tmp/netvar-pkgtest-modern.XXXXXX)
source "$ROOT/tests/integration/pkg_lib.sh"
trap 'pkg_ctld_stop; pkg_purge; rm -rf "$T"; _lab_cleanup' EXIT
want=$P/lib/slurm

# lab/slurm-build.sh installs src/ only (no slurm.pc): the directory of
# libslurmfull.so, Slurm's pkglibdir, is found instead
check "slurm-layout: its pkglibdir, no Slurm package" \
    test "$(env -u SLURM_PLUGIN_DIR -u NV_SLURM_LAYOUT SLURM_INCLUDE="$P/include" sh packaging/slurm-layout.sh)" = "local $want $ver"

start=$(date +%s)
all=$(make -s --no-print-directory BUILD="$T/build" deb SLURM_INCLUDE="$P/include" 2>"$T/deb.err") ||
    { cat "$T/deb.err"; exit 1; }
echo "figure: make deb SLURM_INCLUDE=$P/include: $(( $(date +%s) - start )) s"
cat "$T/deb.err"
debs=$(grep '\.deb$' <<<"$all" | grep -v -- '-dbgsym_')
echo "$debs"
check "four packages" test "$(echo "$debs" | wc -l)" -eq 4
deb_of() { echo "$debs" | grep "/$1_[^/]*\.deb$"; }
files=$(dpkg-deb -c "$(deb_of netvar-jobsubmit)")
contains "job_submit_netvar.so goes where Slurm $ver looks" "$files" ".$want/job_submit_netvar.so"
lacks "not into slurm-wlm/" "$files" "slurm-wlm"
contains "spank_netvar.so too" "$(dpkg-deb -c "$(deb_of netvar-spank)")" ".$want/spank_netvar.so"
for p in netvar-spank netvar-jobsubmit; do
    d=$(dpkg-deb -f "$(deb_of $p)" Depends)
    echo "# $p: Depends: $d; Breaks: $(dpkg-deb -f "$(deb_of $p)" Breaks)"
    lacks "$p names no Slurm package (slurmctld)" "$d" "slurmctld"
    lacks "$p names no Slurm package (slurm-smd)" "$d" "slurm-smd"
done
contains "the description names Slurm $ver and its plugin directory" \
    "$(dpkg-deb -f "$(deb_of netvar-jobsubmit)" Description)" "whose plugins are in $want."
if pkg_machine_clean; then
    check "dpkg -i the four packages" pkg_install $debs
    pkg_ctld_check "slurm-$ver" "$P" "$want"
    check "dpkg --purge removes them" pkg_purge
    check "... and the plugins with them" test ! -e "$want/job_submit_netvar.so" -a ! -e "$want/spank_netvar.so"
else
    echo "# netvar packages or their directories are on this machine already: not installing (dpkg -i) over them"
fi
finish
