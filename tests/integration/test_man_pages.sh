#!/usr/bin/env bash
# test_man_pages.sh - every man page renders with groff -ww and man -l
# without a warning; netvar(1) documents every verb 'netvar --help' lists,
# and lists under VERB OPTIONS exactly the options each verb's table
# declares (netvar VERB --list-options); spank_netvar(8) documents every
# option and plugstack argument of the plugin.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
command -v groff >/dev/null || { echo "groff not installed"; exit 77; }
pages="man/netvar.1 man/impactb.1 man/compressionb.1 man/netvar-fabric-kernels.1 conf/netvar.conf.5 man/spank_netvar.8 man/netvar-acct.8
    man/job_submit_netvar.8 man/netvar-mail.8"
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

# VERB OPTIONS: one subsection per table (a verb, or the launch and
# placement options three verbs share), each option with its argument.
# verb_options_diff PAGE prints one line per difference between the
# page's VERB OPTIONS and the tables (netvar VERB --list-options).
man_entry() { # man_entry SECTION ENTRY: the options listed under ENTRY, on one line
    awk -v e="$2" '/^   [^ ]/ {sub(/^ +/, ""); f = ($0 == e); next} f' <<<"$1" | tr -s ' \n' '  '
}
verb_options_diff() {
    local section list entry opt arg o listed=""
    section=$(man -l -Tutf8 "$1" 2>/dev/null | col -bx |
        awk '/^VERB OPTIONS/ {f = 1; next} f && /^[A-Z]/ {exit} f')
    for v in $verbs; do
        list=$("$NV" "$v" --list-options 2>/dev/null) && grep -q $'\t--' <<<"$list" || continue
        while IFS=$'\t' read -r entry opt arg; do
            case " $(man_entry "$section" "$entry")" in
            *" $opt${arg:+ $arg}"[,\ ]*) ;;
            *) echo "$entry: the page lacks $opt${arg:+ $arg} ($v)" ;;
            esac
        done <<<"$list"
        while IFS= read -r entry; do
            listed+="$entry"$'\n'
            for o in $(man_entry "$section" "$entry" | grep -o -- '--[a-z][a-z0-9-]*'); do
                cut -f2 <<<"$list" | grep -qx -- "$o" || echo "$entry: $v does not take $o"
            done
        done < <(cut -f1 <<<"$list" | sort -u)
    done
    while IFS= read -r entry; do
        grep -qxF -- "$entry" <<<"$listed" || echo "'$entry' is no table's entry"
    done < <(awk '/^   [^ ]/ {sub(/^ +/, ""); print}' <<<"$section")
}
tabled=0
for v in $verbs; do
    "$NV" "$v" --list-options 2>/dev/null | grep -q $'\t--' && tabled=$((tabled + 1))
done
echo "figure: table-driven verbs: $tabled of $(echo "$verbs" | wc -l)"
check "every verb's options come from a table" test "$tabled" = "$(echo "$verbs" | wc -l)"
check "calibrate, impact and campaign share the launch options" \
    test "$("$NV" calibrate --list-options | grep -c $'^launch options\t')" -ge 10 -a \
    "$("$NV" impact --list-options | grep -c $'^launch options\t')" -ge 10 -a \
    "$("$NV" campaign --list-options | grep -c $'^launch options\t')" -ge 10
d=$(verb_options_diff man/netvar.1)
check "netvar(1) VERB OPTIONS lists every table's options and no other${d:+: $d}" test -z "$d"
# the check can fail: a page without --quantile, one with a --bogus option
sed 's/^\\fB\\%\\-\\-quantile\\fP.*$/\\fB\\%\\-\\-bogus\\fP,/' man/netvar.1 >"$BUILD/test-logs/netvar-bogus.1"
d=$(verb_options_diff "$BUILD/test-logs/netvar-bogus.1")
contains "a page without calibrate's --quantile is caught" "$d" "calibrate: the page lacks --quantile Q"
contains "a page with a --bogus option is caught" "$d" "calibrate: calibrate does not take --bogus"
page=$(man -l -Tutf8 man/spank_netvar.8 2>/dev/null | col -b)
# shellcheck disable=SC2013 # option names: one a line, no blanks
for o in $(sed -n 's/^ *{"\(netvar[a-z-]*\)", ".*/\1/p' plugins/spank/options.c); do
    contains "spank_netvar(8) documents --$o" "$page" "--$o="
done
keys=$(sed -n 's/^ *"\(spool, .*\)";$/\1/p' plugins/spank/plugstack_args.c | tr -d ',')
check "the plugstack keys were found" test -n "$keys"
for k in $keys; do contains "spank_netvar(8) documents $k=" "$page" "$k="; done
finish
