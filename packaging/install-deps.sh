#!/bin/sh
# install-deps.sh - installs the Debian 12 packages netvar needs to build,
# lint and test it and run its lab, but only those missing: dpkg-query
# first, then one apt-get update, then one apt-get install.  Used by
# 'make deps'.
set -eu

PKGS="gcc make pkg-config clang gfortran valgrind iproute2 procps bc python3
slurmctld slurmd slurm-client libslurm-dev munge
libpapi-dev papi-tools libopenmpi-dev openmpi-bin libpmix-dev
libjson-c-dev libyaml-dev libcmocka-dev libsvm-dev libxgboost-dev jq libxml2-utils
rpm rpmlint lintian debhelper dpkg-dev gnupg mariadb-server slurmdbd prometheus prometheus-node-exporter
slurmrestd curl
shellcheck python3-flake8 clang-format
libsimgrid-dev g++ time"
# Optional sets named as arguments, installed only by the targets that need
# them: lammps (make bench-profiler and its smoke test in make check),
# real-apps (lammps and NetPIPE for EVAL_APPS=eval/apps/real.apps).
for set in "$@"; do
    case $set in
    lammps) PKGS="$PKGS lammps" ;;
    real-apps) PKGS="$PKGS lammps netpipe-openmpi" ;;
    *) echo "netvar: deps: unknown package set '$set' (known: lammps, real-apps); ignored" >&2 ;;
    esac
done

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "netvar: deps: all $(echo "$PKGS" | wc -w) Debian packages present"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "netvar: deps: missing packages:$missing; run 'make deps' as root (or with sudo rights)" >&2
    exit 1
fi

echo "netvar: deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # SUDO and the package names: one word each
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "netvar: deps: installed:$missing"
