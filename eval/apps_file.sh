# shellcheck shell=bash disable=SC2034 # its variables are for the scripts that source it
# apps_file.sh - sourced by the lab evaluations that read an apps file
# (eval/netlab_eval.sh, eval/stream_eval.sh; the format is described at the
# top of eval/apps/proxies.apps).  The caller sets ROOT and BUILD, then:
#   apps_file_read FILE WHO   reads FILE and sets APPS (the names in file
#                             order, space-separated), CMD[name] (the
#                             command with @BUILD@ and @ROOT@ replaced) and
#                             RTKEY[name] (KEY or 'wall'); on a bad line it
#                             prints one line naming FILE, the app and what
#                             is wrong, prefixed WHO, and exits 1.
declare -A CMD=() RTKEY=()
APPS=""
apps_file_read() {
    local file=$1 who=$2 name rt cmd prog
    apps_file_die() { echo "$who: apps file $file: $*" >&2; exit 1; }
    [ -r "$file" ] || apps_file_die "cannot be read"
    while read -r name rt cmd; do
        case $name in '' | \#*) continue ;; esac
        [[ $name =~ ^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$ ]] ||
            apps_file_die "app name '$name' is not 1-64 of A-Za-z0-9._-"
        [[ $rt = wall || $rt =~ ^[A-Za-z_][A-Za-z0-9_]{0,63}$ ]] ||
            apps_file_die "app $name: runtime '$rt' is neither a KEY nor 'wall'"
        [ -n "$cmd" ] || apps_file_die "app $name has no command"
        [ -z "${CMD[$name]+set}" ] || apps_file_die "app $name is listed twice"
        cmd=${cmd//@BUILD@/$BUILD}
        CMD[$name]=${cmd//@ROOT@/$ROOT}
        prog=${CMD[$name]%% *}
        command -v "$prog" >/dev/null ||
            apps_file_die "app $name: '$prog' is not installed (real.apps: sh packaging/install-deps.sh real-apps)"
        RTKEY[$name]=$rt
        APPS="$APPS $name"
    done <"$file"
    APPS=${APPS# }
    [ -n "$APPS" ] || apps_file_die "no app"
}
