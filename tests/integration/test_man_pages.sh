#!/usr/bin/env bash
# test_man_pages.sh - every man page renders with groff -ww and man -l
# without a warning; netvar(1) documents every verb 'netvar --help' lists,
# and spank_netvar(8) every option and plugstack argument of the plugin.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
command -v groff >/dev/null || { echo "groff not installed"; exit 77; }
pages="man/netvar.1 man/impactb.1 man/compressionb.1 conf/netvar.conf.5 man/spank_netvar.8 man/netvar-acct.8
    man/job_submit_netvar.8"
total=0
for p in $pages; do
    w=$(groff -ww -z -man -Tutf8 "$p" 2>&1)
    check "$p: groff -ww: no warnings${w:+: $w}" test -z "$w"
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$p" 2>&1 >/dev/null)
    check "$p: man -l: no warnings${w:+: $w}" test -z "$w"
    total=$((total + $(printf %s "$w" | grep -c .)))
done
echo "figure: man page render warnings: $total"
# each page names the release it documents, the one VERSION holds
for p in $pages; do
    contains "$p names netvar $(cat VERSION)" "$(sed -n '1,/^\.TH /{/^\.TH /p}' "$p")" "\"netvar $(cat VERSION)\""
done
# the check can fail: a broken page warns
printf '.TH X 1\n.SH NAME\nx \\- y\n.NOSUCHMACRO\n' >"$BUILD/test-logs/broken.1"
check "groff -ww warns about a broken page" test -n "$(groff -ww -z -man "$BUILD/test-logs/broken.1" 2>&1)"

verbs=$("$NV" --help | awk '/^Verbs:/ {f = 1; next} f && NF == 0 {exit} f {print $1}')
check "netvar --help lists verbs" test "$(echo "$verbs" | wc -l)" -ge 15
page=$(man -l -Tutf8 man/netvar.1 2>/dev/null | col -b)
for v in $verbs; do
    if grep -Eq "^ {7}$v( |$)" <<<"$page"; then ok "netvar(1) documents '$v'"; else not_ok "netvar(1) lacks verb '$v'"; fi
done
page=$(man -l -Tutf8 man/spank_netvar.8 2>/dev/null | col -b)
# shellcheck disable=SC2013 # option names: one a line, no blanks
for o in $(sed -n 's/^ *{"\(netvar[a-z-]*\)", ".*/\1/p' plugins/spank/options.c); do
    contains "spank_netvar(8) documents --$o" "$page" "--$o="
done
keys=$(sed -n 's/^ *"\(spool, .*\)";$/\1/p' plugins/spank/plugstack_args.c | tr -d ',')
check "the plugstack keys were found" test -n "$keys"
for k in $keys; do contains "spank_netvar(8) documents $k=" "$page" "$k="; done
finish
