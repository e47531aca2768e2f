#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2086,SC2012,SC2020,SC2153 # written before make lint: literal $ in pkg-config and PromQL text, package and word lists split on purpose, ls on directories this test made, ROOT from run.sh
# test_packages.sh - builds the Debian source and binary packages (make deb:
# dpkg-buildpackage on debian/) and the RPMs (make rpm) against Debian's
# Slurm; checks the .debs' file lists, conffiles, maintainer scripts and
# dependencies (the Slurm packages that load from the plugin directory, no
# MPI for the controller, shlibs), the RPMs' files, config flags and
# requirements (rpm -qpl, -qpR), that lintian and rpmlint report no error,
# where the plugin directory comes from (packaging/slurm-layout.sh), and
# what a build for SchedMD's slurm-smd layout installs and depends on.
# Then installs the .debs on this machine (dpkg -i; only when no netvar
# package is installed), starts a slurmctld with no PluginDir and checks
# that it loads the installed job_submit_netvar.so, and purges them.
# Prints the packages' sizes and the linters' counts.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
for t in dpkg-buildpackage dh rpmbuild rpmlint lintian slurmctld; do
    command -v "$t" >/dev/null || { echo "$t not installed (make deps)"; exit 77; }
done
T=$(mktemp -d /tmp/netvar-pkgtest.XXXXXX)
source "$ROOT/tests/integration/pkg_lib.sh"
trap 'pkg_ctld_stop; pkg_purge; [ -n "${GNUPGHOME:-}" ] && gpgconf --kill all 2>/dev/null; rm -rf "$T"; _lab_cleanup' EXIT
version=$(cat VERSION)
slurm_mm=$(dpkg-query -W -f='${Version}' slurmctld | cut -d. -f1,2)
slurm_full=$(dpkg-query -W -f='${Version}' slurmctld | cut -d- -f1)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
pd=/usr/lib/$ma/slurm-wlm

# ------------------------------------------------- where the plugins go
layout() { env -u SLURM_INCLUDE -u SLURM_PLUGIN_DIR -u NV_SLURM_LAYOUT "$@" sh packaging/slurm-layout.sh 2>&1; }
check "Debian's libslurm-dev: slurm-wlm's plugin directory" test "$(layout)" = "debian $pd $slurm_full"
check "SLURM_PLUGIN_DIR wins; no Slurm package then" test "$(layout SLURM_PLUGIN_DIR=/opt/s/lib/slurm)" = "local /opt/s/lib/slurm $slurm_full"
# a Slurm installed from source under a prefix: its slurm.pc's libdir/slurm
mkdir -p "$T/pfx/include" "$T/pfx/lib/pkgconfig"
cp -r /usr/include/slurm "$T/pfx/include/"
printf 'libdir=%s\nincludedir=%s\n\nName: slurm\nDescription: Slurm\nVersion: 1\nLibs: -L${libdir} -lslurm\n' \
    "$T/pfx/lib" "$T/pfx/include" >"$T/pfx/lib/pkgconfig/slurm.pc"
check "a prefix's slurm.pc: PREFIX/lib/slurm" test "$(layout SLURM_INCLUDE="$T/pfx/include")" = "local $T/pfx/lib/slurm $slurm_full"
rm "$T/pfx/lib/pkgconfig/slurm.pc"
mkdir -p "$T/pfx/lib64/slurm" && : >"$T/pfx/lib64/slurm/libslurmfull.so"
check "a prefix without slurm.pc: the directory of its libslurmfull.so" \
    test "$(layout SLURM_INCLUDE="$T/pfx/include")" = "local $T/pfx/lib64/slurm $slurm_full"
rm -r "$T/pfx/lib64"
out=$(layout SLURM_INCLUDE="$T/pfx/include")
contains "headers without slurm.pc, not Debian's: refused, naming SLURM_PLUGIN_DIR" "$out" "set SLURM_PLUGIN_DIR=DIR"
check "... with one line" test "$(echo "$out" | wc -l)" -eq 1

# --------------------------------------------------------------- deb
start=$(date +%s)
all=$(make -s --no-print-directory BUILD="$BUILD" deb 2>"$T/deb.err") || { cat "$T/deb.err"; exit 1; }
echo "figure: make deb (dpkg-buildpackage, source and binary): $(( $(date +%s) - start )) s"
cat "$T/deb.err"
debs=$(grep '\.deb$' <<<"$all" | grep -v -- '-dbgsym_')
echo "$debs"
check "make deb made four packages" test "$(echo "$debs" | wc -l)" -eq 4
check "and their -dbgsym packages" test "$(grep -c -- '-dbgsym_' <<<"$all")" -eq 4
dsc=$BUILD/deb/netvar_$version.dsc
check "a source package: $(basename "$dsc") and its tarball" test -f "$dsc" -a -f "$BUILD/deb/netvar_$version.tar.xz"
check "it unpacks with debian/rules" sh -c "cd '$T' && dpkg-source -x '$dsc' src >/dev/null && test -x src/debian/rules"
check "it holds no build tree" test ! -e "$T/src/build"
deb_of() { echo "$debs" | grep "/$1_[^/]*\.deb$"; }

expect_files() { # expect_files PKG FILE... : exactly these regular files in the .deb
    local pkg=$1; shift
    local root=$T/root-$pkg got want
    mkdir -p "$root"
    dpkg -x "$(deb_of "$pkg")" "$root"
    got=$(cd "$root" && find . -type f | sed 's|^\.||' | sort)
    want=$(printf '%s\n' "$@" /usr/share/doc/"$pkg"/copyright /usr/share/doc/"$pkg"/changelog.gz | sort)
    if [ "$got" = "$want" ]; then ok "$pkg: file list"; else
        not_ok "$pkg: file list differs:"; diff <(echo "$want") <(echo "$got"); fi
}
expect_files netvar /usr/bin/netvar /etc/netvar/netvar.conf /etc/netvar/train.env \
    /usr/share/man/man1/netvar.1.gz /usr/share/man/man5/netvar.conf.5.gz \
    /lib/systemd/system/netvar-train.service /lib/systemd/system/netvar-train.timer \
    /lib/systemd/system/netvar-export.service /lib/systemd/system/netvar-export.timer \
    /usr/share/netvar/grafana/netvar.json /usr/libexec/netvar/netvar-train-run
expect_files netvar-mpi /usr/bin/impactb /usr/bin/compressionb /usr/bin/netvar-fabric-kernels \
    "/usr/lib/$ma/netvar/libnetvar_pmpi.so" /usr/share/man/man1/impactb.1.gz \
    /usr/share/man/man1/compressionb.1.gz /usr/share/man/man1/netvar-fabric-kernels.1.gz
expect_files netvar-spank "$pd/spank_netvar.so" /etc/netvar/plugstack.conf /usr/share/man/man8/spank_netvar.8.gz \
    /usr/share/lintian/overrides/netvar-spank
expect_files netvar-jobsubmit "$pd/job_submit_netvar.so" /usr/libexec/netvar/netvar-acct \
    /usr/libexec/netvar/netvar-mail /usr/share/man/man8/netvar-mail.8.gz \
    /usr/libexec/netvar/epilog-slurmctld /usr/share/man/man8/netvar-acct.8.gz \
    /usr/share/man/man8/job_submit_netvar.8.gz /usr/share/lintian/overrides/netvar-jobsubmit
check "netvar owns the spool and model directories" test -d "$T/root-netvar/var/spool/netvar" -a -d "$T/root-netvar/var/lib/netvar"

ctl() { dpkg-deb -f "$(deb_of "$1")" "$2"; }
rels() { local f; for f in Pre-Depends Depends Recommends; do ctl "$1" $f; done; }
for p in netvar netvar-mpi netvar-spank netvar-jobsubmit; do
    echo "# $p: Depends: $(ctl $p Depends); Recommends: $(ctl $p Recommends); Suggests: $(ctl $p Suggests); Breaks: $(ctl $p Breaks)"
done
contains "netvar-spank depends on Debian's Slurm plugins $slurm_mm" "$(ctl netvar-spank Depends)" \
    "slurm-wlm-basic-plugins (>= $slurm_mm~)"
contains "netvar-spank breaks the next Slurm major.minor" "$(ctl netvar-spank Breaks)" "slurm-wlm-basic-plugins (>= "
contains "netvar-jobsubmit depends on slurmctld $slurm_full (lower bound)" "$(ctl netvar-jobsubmit Depends)" \
    "slurmctld (>= $slurm_full~)"
contains "netvar-jobsubmit breaks the next micro release" "$(ctl netvar-jobsubmit Breaks)" \
    "slurmctld (>= ${slurm_full%.*}.$(( ${slurm_full##*.} + 1 ))~)"
for p in netvar-spank netvar-jobsubmit; do
    # SchedMD's slurm-smd loads plugins from .../slurm/, not from slurm-wlm/
    lacks "$p: built into slurm-wlm/, accepts no slurm-smd" "$(ctl $p Depends)" "slurm-smd"
done
contains "the plugins need the same netvar" "$(ctl netvar-spank Depends)" "netvar (= $version)"
for p in netvar netvar-jobsubmit; do
    lacks "$p (the controller's) pulls in no MPI" "$(rels $p)" "mpi"
done
# ... nor through what they depend on or recommend (apt installs both)
ctl_deps=$({ rels netvar; rels netvar-jobsubmit; } | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | grep -v '^netvar$' | sort -u)
# shellcheck disable=SC2086
closure=$(apt-cache depends --recurse --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
    $ctl_deps 2>/dev/null | sed -n 's/^\([a-z0-9][^ ]*\)$/\1/p' | sort -u)
echo "# the controller's packages pull in $(echo "$closure" | wc -l) packages"
check "... $(echo "$closure" | wc -l) packages in all, none of them MPI" test -z "$(grep -i 'mpi' <<<"$closure")"
contains "the probes and the profiler's package depends on Open MPI's library (shlibs)" "$(ctl netvar-mpi Depends)" "libopenmpi"
contains "netvar-spank recommends them (segments mode)" "$(ctl netvar-spank Recommends)" "netvar-mpi (= $version)"
contains "netvar's library dependencies come from dpkg-shlibdeps" "$(ctl netvar Depends)" "libjson-c5"
contains "netvar-acct's libslurm dependency comes from dpkg-shlibdeps" "$(ctl netvar-jobsubmit Depends)" "libslurm"
contains "the description names the Slurm and the plugin directory" "$(ctl netvar-jobsubmit Description)" \
    "for Slurm $slurm_full (Debian's slurm-wlm packages)"
conff=$(dpkg-deb --ctrl-tarfile "$(deb_of netvar-spank)" | tar -xO ./conffiles)
contains "the plugstack snippet is a conffile" "$conff" "/etc/netvar/plugstack.conf"
conff=$(dpkg-deb --ctrl-tarfile "$(deb_of netvar)" | tar -xO ./conffiles)
contains "netvar.conf is a conffile" "$conff" "/etc/netvar/netvar.conf"
contains "train.env is a conffile" "$conff" "/etc/netvar/train.env"
postinst=$(dpkg-deb --ctrl-tarfile "$(deb_of netvar)" | tar -xO ./postinst)
contains "dh_installsystemd wrote the timer's postinst" "$postinst" "deb-systemd-helper update-state 'netvar-train.timer'"
lacks "the timer is not started on install (one host runs it)" "$postinst" "deb-systemd-invoke"
snippet=$(grep -v '^#' "$T/root-netvar-spank/etc/netvar/plugstack.conf")
contains "the snippet loads the plugin as optional from the installed path" "$snippet" "optional $pd/spank_netvar.so"
contains "the snippet names the installed profiler" "$snippet" "profiler=/usr/lib/$ma/netvar/libnetvar_pmpi.so"
contains "the service runs the installed script" "$(cat "$T/root-netvar/lib/systemd/system/netvar-train.service")" \
    "ExecStart=/usr/libexec/netvar/netvar-train-run"
check "the packaged netvar runs" "$T/root-netvar/usr/bin/netvar" version
changes=$(ls "$BUILD"/deb/*.changes)
lint=$(lintian --pedantic --display-info --show-overrides "$changes" 2>&1 | grep -v 'running with root privileges')
echo "$lint"
lint_e=$(echo "$lint" | grep -c '^E:') lint_w=$(echo "$lint" | grep -c '^W:')
lint_i=$(echo "$lint" | grep -c '^[IP]:') lint_o=$(echo "$lint" | grep -c '^O:')
check "lintian --pedantic on the source and binary packages: no errors" test "$lint_e" -eq 0
check "lintian --pedantic: no warnings" test "$lint_w" -eq 0
check "lintian: only the overrides of debian/*.lintian-overrides are left" test "$lint_i" -eq 0
echo "figure: lintian --pedantic: $lint_e errors, $lint_w warnings, $lint_i info/pedantic, $lint_o overridden"

# SchedMD's layout (slurm-smd is not installed here: its plugin directory
# and layout are given as a site building against it would find them)
smd=$(NV_SLURM_LAYOUT=schedmd SLURM_PLUGIN_DIR=/usr/lib/$ma/slurm \
      make -s --no-print-directory BUILD="$T/smd" deb 2>"$T/smd.err") || { cat "$T/smd.err"; exit 1; }
smd_js=$(grep '/netvar-jobsubmit_[^/]*\.deb$' <<<"$smd") smd_spank=$(grep '/netvar-spank_[^/]*\.deb$' <<<"$smd")
contains "slurm-smd layout: job_submit_netvar.so in .../slurm/" "$(dpkg-deb -c "$smd_js")" "./usr/lib/$ma/slurm/job_submit_netvar.so"
contains "slurm-smd layout: netvar-jobsubmit depends on slurm-smd-slurmctld $slurm_full" \
    "$(dpkg-deb -f "$smd_js" Depends)" "slurm-smd-slurmctld (>= $slurm_full~)"
lacks "slurm-smd layout: and not on Debian's slurmctld" "$(dpkg-deb -f "$smd_js" Depends | sed 's/slurm-smd-slurmctld//g')" "slurmctld"
contains "slurm-smd layout: netvar-spank depends on slurm-smd $slurm_mm" "$(dpkg-deb -f "$smd_spank" Depends)" "slurm-smd (>= $slurm_mm~)"
contains "slurm-smd layout: netvar-spank breaks the next slurm-smd" "$(dpkg-deb -f "$smd_spank" Breaks)" "slurm-smd (>= "
rm -rf "$T/smd"

# ------------------------------------ installed: does slurmctld load it
if pkg_machine_clean; then
    check "dpkg -i the four packages" pkg_install $debs
    check "job_submit_netvar.so is installed by netvar-jobsubmit" sh -c "dpkg -S '$pd/job_submit_netvar.so' | grep -q '^netvar-jobsubmit:'"
    check "the installed timer is not enabled" test ! -e /etc/systemd/system/timers.target.wants/netvar-train.timer
    pkg_ctld_check debian "" "$pd"
    check "dpkg --purge removes them" pkg_purge
    check "... and leaves no netvar file behind" test ! -e /etc/netvar -a ! -e "$pd/job_submit_netvar.so" -a ! -e /usr/libexec/netvar
else
    echo "# netvar packages or their directories are on this machine already: not installing (dpkg -i) over them"
fi

# --------------------------------------------------------------- rpm
rpms=$(make -s --no-print-directory BUILD="$BUILD" rpm 2>"$T/rpm.err") || { cat "$T/rpm.err"; exit 1; }
rpms=$(grep '\.rpm$' <<<"$rpms")
echo "$rpms"
check "make rpm made three packages" test "$(echo "$rpms" | wc -l)" -eq 3
rpm_of() { echo "$rpms" | grep "/$1-[0-9][^/]*\.rpm$"; }
contains "the Slurm major.minor is in the Release" "$(rpm -qp --qf '%{RELEASE}' "$(rpm_of netvar)")" "slurm$slurm_mm"
files=$(rpm -qpl "$(rpm_of netvar-spank)")
contains "netvar-spank: the plugin" "$files" /usr/lib64/slurm/spank_netvar.so
contains "netvar-spank: the profiler" "$files" /usr/lib64/netvar/libnetvar_pmpi.so
contains "netvar-spank: spank_netvar(8)" "$files" /usr/share/man/man8/spank_netvar.8
files=$(rpm -qpl "$(rpm_of netvar-jobsubmit)")
check "netvar-jobsubmit: the job_submit plugin and the accounting writer" test "$files" = \
    "$(printf '%s\n' /usr/lib64/slurm/job_submit_netvar.so /usr/libexec/netvar/epilog-slurmctld \
       /usr/libexec/netvar/netvar-acct /usr/libexec/netvar/netvar-mail \
       /usr/share/man/man8/job_submit_netvar.8.gz /usr/share/man/man8/netvar-acct.8.gz \
       /usr/share/man/man8/netvar-mail.8.gz)"
files=$(rpm -qpl "$(rpm_of netvar)")
for f in /usr/bin/netvar /usr/bin/impactb /usr/bin/compressionb /usr/lib/systemd/system/netvar-train.timer \
    /usr/lib/systemd/system/netvar-train.service /usr/share/man/man1/netvar.1 /usr/share/man/man5/netvar.conf.5 \
    /usr/libexec/netvar/netvar-train-run /var/spool/netvar /usr/lib/systemd/system/netvar-export.timer \
    /usr/lib/systemd/system/netvar-export.service /usr/share/netvar/grafana/netvar.json; do
    contains "netvar: $f" "$files" "$f"
done
lacks "netvar: no plugin in the CLI package" "$files" "/slurm/"
soname=$(ls /usr/lib/"$ma"/libslurm.so.* | sed -n 's/.*libslurm[.]so[.]\([0-9]*\)$/\1/p' | head -n 1)
contains "netvar-spank requires libslurm's soname (Slurm major.minor)" "$(rpm -qpR "$(rpm_of netvar-spank)")" \
    "libslurm.so.$soname()(64bit)"
contains "netvar-jobsubmit requires the exact Slurm release" "$(rpm -qpR "$(rpm_of netvar-jobsubmit)")" "slurm = $slurm_full"
contains "netvar-jobsubmit's netvar-acct needs libslurm" "$(rpm -qpR "$(rpm_of netvar-jobsubmit)")" "libslurm.so.$soname()(64bit)"
contains "netvar requires json-c by soname" "$(rpm -qpR "$(rpm_of netvar)")" "libjson-c.so.5()(64bit)"
flags=$(rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$(rpm_of netvar)" "$(rpm_of netvar-spank)")
contains "netvar.conf is %config(noreplace)" "$flags" "/etc/netvar/netvar.conf cn"
contains "the plugstack snippet is %config(noreplace)" "$flags" "/etc/netvar/plugstack.conf cn"
contains "train.env is %config(noreplace)" "$flags" "/etc/netvar/train.env cn"

lint=$(rpmlint -c packaging/rpm/rpmlint.toml $rpms packaging/rpm/netvar.spec 2>&1)
echo "$lint"
errs=$(echo "$lint" | grep ': E: ' | grep -vc ': E: no-signature$')
check "rpmlint: no error but the missing signature" test "$errs" -eq 0
echo "figure: rpmlint unsigned: $(echo "$lint" | grep -c ': E: ') errors (no-signature), $(echo "$lint" | grep -c ': W: ') warnings"
# A site signs the RPMs with its key; signed with a throwaway key that the
# rpm database trusts, rpmlint reports no error at all.
if command -v gpg >/dev/null && command -v rpmsign >/dev/null; then
    export GNUPGHOME=$T/gnupg
    mkdir -m 0700 "$GNUPGHOME" "$T/signed" "$T/home" "$T/rpmdb"
    gpg --batch --quiet --passphrase '' --quick-gen-key "netvar test <test@example.org>" rsa2048 sign 1d
    gpg --batch --armor --export test@example.org >"$T/key.asc"
    cp $rpms "$T/signed/"
    rpmsign --define "__gpg $(command -v gpg)" --define "_gpg_name test@example.org" --addsign "$T"/signed/*.rpm >/dev/null 2>&1
    echo "%_dbpath $T/rpmdb" >"$T/home/.rpmmacros"
    HOME=$T/home rpm --initdb && HOME=$T/home rpm --import "$T/key.asc"
    lint=$(HOME=$T/home rpmlint -c packaging/rpm/rpmlint.toml "$T"/signed/*.rpm 2>&1)
    check "rpmlint on signed RPMs: no errors" test "$(echo "$lint" | grep -c ': E: ')" -eq 0
    echo "figure: rpmlint signed: $(echo "$lint" | grep -c ': E: ') errors, $(echo "$lint" | grep -c ': W: ') warnings"
fi
for p in $debs $rpms; do echo "figure: $(basename "$p"): $(stat -c %s "$p") bytes"; done
finish
