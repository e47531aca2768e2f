#!/usr/bin/env bash
# test_packages.sh - builds the Debian packages and the RPMs (make deb, make
# rpm), unpacks each .deb into a scratch root with dpkg -x, and checks
# their file lists, conffiles and dependencies, the RPMs' files, config
# flags and requirements (rpm -qpl, -qpR), that lintian and rpmlint report
# no error, and that the installed snippet and units point at installed
# files.  Prints the packages' sizes and the linters' counts.
set -u
# shellcheck disable=SC2153 # ROOT comes from run.sh
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
for t in dpkg-deb rpmbuild rpmlint lintian; do
    command -v "$t" >/dev/null || { echo "$t not installed (make deps)"; exit 77; }
done
T=$(mktemp -d /tmp/netvar-pkgtest.XXXXXX)
trap '[ -n "${GNUPGHOME:-}" ] && gpgconf --kill all 2>/dev/null; rm -rf "$T"; _lab_cleanup' EXIT

# --------------------------------------------------------------- deb
debs=$(make -s --no-print-directory BUILD="$BUILD" deb 2>"$T/deb.err") || { cat "$T/deb.err"; exit 1; }
debs=$(grep '\.deb$' <<<"$debs")
echo "$debs"
check "make deb made three packages" test "$(echo "$debs" | wc -l)" -eq 3
deb_of() { echo "$debs" | grep "/$1_[^/]*\.deb$"; }
slurm_mm=$(dpkg-query -W -f='${Version}' slurmctld | cut -d. -f1,2)
slurm_full=$(dpkg-query -W -f='${Version}' slurmctld | cut -d- -f1)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

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
expect_files netvar /usr/bin/netvar /usr/bin/impactb /usr/bin/compressionb \
    /etc/netvar/netvar.conf /etc/netvar/train.env \
    /usr/share/man/man1/netvar.1.gz /usr/share/man/man1/impactb.1.gz /usr/share/man/man1/compressionb.1.gz \
    /usr/share/man/man5/netvar.conf.5.gz \
    /lib/systemd/system/netvar-train.service /lib/systemd/system/netvar-train.timer \
    /lib/systemd/system/netvar-export.service /lib/systemd/system/netvar-export.timer \
    /usr/share/netvar/grafana/netvar.json /usr/libexec/netvar/netvar-train-run
expect_files netvar-spank "/usr/lib/$ma/slurm-wlm/spank_netvar.so" "/usr/lib/$ma/netvar/libnetvar_pmpi.so" \
    /etc/netvar/plugstack.conf /usr/share/man/man8/spank_netvar.8.gz
expect_files netvar-jobsubmit "/usr/lib/$ma/slurm-wlm/job_submit_netvar.so" /usr/libexec/netvar/netvar-acct \
    /usr/libexec/netvar/epilog-slurmctld /usr/share/man/man8/netvar-acct.8.gz \
    /usr/share/man/man8/job_submit_netvar.8.gz
check "netvar owns the spool and model directories" test -d "$T/root-netvar/var/spool/netvar" -a -d "$T/root-netvar/var/lib/netvar"
check "netvar owns job_submit's counts directory" test -d "$T/root-netvar/var/lib/netvar/jobsubmit"
contains "netvar-jobsubmit's postinst gives it to slurm" \
    "$(dpkg-deb --ctrl-tarfile "$(deb_of netvar-jobsubmit)" | tar -xO ./postinst 2>/dev/null)" \
    "chown slurm /var/lib/netvar/jobsubmit"

ctl() { dpkg-deb -f "$(deb_of "$1")" "$2"; }
contains "netvar-spank depends on Slurm $slurm_mm, Debian's or SchedMD's" "$(ctl netvar-spank Depends)" \
    "slurm-wlm-basic-plugins (>= $slurm_mm~) | slurm-smd (>= $slurm_mm~)"
contains "netvar-spank breaks the next Slurm major.minor" "$(ctl netvar-spank Breaks)" "slurm-smd (>= "
contains "netvar-jobsubmit depends on Slurm $slurm_full exactly (lower bound)" "$(ctl netvar-jobsubmit Depends)" \
    "slurmctld (>= $slurm_full~) | slurm-smd-slurmctld (>= $slurm_full~)"
contains "netvar-jobsubmit breaks the next micro release" "$(ctl netvar-jobsubmit Breaks)" "slurmctld (>= ${slurm_full%.*}.$(( ${slurm_full##*.} + 1 ))~)"
contains "the plugins need the same netvar" "$(ctl netvar-spank Depends)" "netvar (= $(cat VERSION))"
contains "netvar's library dependencies come from dpkg-shlibdeps" "$(ctl netvar Depends)" "libjson-c5"
conff=$(dpkg-deb --ctrl-tarfile "$(deb_of netvar-spank)" | tar -xO ./conffiles)
contains "the plugstack snippet is a conffile" "$conff" "/etc/netvar/plugstack.conf"
conff=$(dpkg-deb --ctrl-tarfile "$(deb_of netvar)" | tar -xO ./conffiles)
contains "netvar.conf is a conffile" "$conff" "/etc/netvar/netvar.conf"
snippet=$(grep -v '^#' "$T/root-netvar-spank/etc/netvar/plugstack.conf")
contains "the snippet loads the plugin as optional from the installed path" "$snippet" \
    "optional /usr/lib/$ma/slurm-wlm/spank_netvar.so"
contains "the snippet names the installed profiler" "$snippet" "profiler=/usr/lib/$ma/netvar/libnetvar_pmpi.so"
contains "the service runs the installed script" "$(cat "$T/root-netvar/lib/systemd/system/netvar-train.service")" \
    "ExecStart=/usr/libexec/netvar/netvar-train-run"
check "the packaged netvar runs" "$T/root-netvar/usr/bin/netvar" version
# shellcheck disable=SC2086 # debs: package paths from make deb, one word each
lint=$(lintian --pedantic $debs 2>&1 | grep -v 'running with root privileges')
echo "$lint"
lint_e=$(echo "$lint" | grep -c '^E:') lint_w=$(echo "$lint" | grep -c '^W:')
check "lintian: no errors" test "$lint_e" -eq 0
echo "figure: lintian --pedantic: $lint_e errors, $lint_w warnings"

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
       /usr/libexec/netvar/netvar-acct /usr/share/man/man8/job_submit_netvar.8.gz \
       /usr/share/man/man8/netvar-acct.8.gz)"
files=$(rpm -qpl "$(rpm_of netvar)")
for f in /usr/bin/netvar /usr/bin/impactb /usr/bin/compressionb /usr/lib/systemd/system/netvar-train.timer \
    /usr/lib/systemd/system/netvar-train.service /usr/share/man/man1/netvar.1 /usr/share/man/man5/netvar.conf.5 \
    /usr/libexec/netvar/netvar-train-run /var/spool/netvar /usr/lib/systemd/system/netvar-export.timer \
    /usr/lib/systemd/system/netvar-export.service /usr/share/netvar/grafana/netvar.json \
    /var/lib/netvar/jobsubmit; do
    contains "netvar: $f" "$files" "$f"
done
lacks "netvar: no plugin in the CLI package" "$files" "/slurm/"
# shellcheck disable=SC2012 # library file names: no blank or newline
soname=$(ls /usr/lib/"$ma"/libslurm.so.* | sed -n 's/.*libslurm[.]so[.]\([0-9]*\)$/\1/p' | head -n 1)
contains "netvar-spank requires libslurm's soname (Slurm major.minor)" "$(rpm -qpR "$(rpm_of netvar-spank)")" \
    "libslurm.so.$soname()(64bit)"
contains "netvar-jobsubmit requires the exact Slurm release" "$(rpm -qpR "$(rpm_of netvar-jobsubmit)")" "slurm = $slurm_full"
contains "netvar-jobsubmit's netvar-acct needs libslurm" "$(rpm -qpR "$(rpm_of netvar-jobsubmit)")" "libslurm.so.$soname()(64bit)"
contains "netvar-jobsubmit's libslurm dependency has SchedMD's alternative" "$(ctl netvar-jobsubmit Depends)" "| slurm-smd (>= $slurm_mm~)"
contains "netvar requires json-c by soname" "$(rpm -qpR "$(rpm_of netvar)")" "libjson-c.so.5()(64bit)"
flags=$(rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$(rpm_of netvar)" "$(rpm_of netvar-spank)")
contains "netvar.conf is %config(noreplace)" "$flags" "/etc/netvar/netvar.conf cn"
contains "the plugstack snippet is %config(noreplace)" "$flags" "/etc/netvar/plugstack.conf cn"
contains "train.env is %config(noreplace)" "$flags" "/etc/netvar/train.env cn"

# shellcheck disable=SC2086 # rpms: package paths from make rpm, one word each
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
    # shellcheck disable=SC2086 # rpms: package paths from make rpm, one word each
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
