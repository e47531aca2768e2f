# shellcheck shell=bash
# pmpi_common.sh - sourced by the profiler's stacking and communicator tests:
# BUILD, ROOT and LIB, skips (exit 77) without the library, mpirun or mpicc,
# Open MPI settings for one machine, a temporary directory $tmp removed on
# exit, and fail().  Argument: the temporary directory's name stem.
BUILD=$(readlink -f "${BUILD:-build}") ROOT=$(readlink -f "${ROOT:-.}")
LIB=$BUILD/lib/libnetvar_pmpi.so
[ -e "$LIB" ] || { echo "skip: $LIB not built"; exit 77; }
command -v mpirun >/dev/null && command -v mpicc >/dev/null || { echo "skip: no mpirun/mpicc"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
