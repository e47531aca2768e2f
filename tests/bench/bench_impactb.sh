#!/bin/sh
# bench_impactb.sh - ImpactB's own cost per exchange: CPU time per exchange
# (mean over ranks, including the stop vote) and the one-way latency it
# measures on loopback, polite versus busy waiting.  Env: BUILD.
BUILD=${BUILD:-build}
command -v mpirun >/dev/null || { echo "impactb bench: no mpirun, skipped"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=tcp,self \
  OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
out=$(mktemp /tmp/nvbench.XXXXXX)
for mode in polite busy; do
  flag=; [ $mode = busy ] && flag=--busy-wait
  NETVAR_PROBE_FAKE_NODES=2 mpirun -n 2 "$BUILD/bin/impactb" --duration-s 3 --interval-us 10000 \
    $flag --output "$out" >/dev/null 2>&1 || { echo "impactb bench ($mode) failed"; continue; }
  python3 - "$out" "$mode" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, l = d["self_cost"], d["latency"]
print("impactb %-6s cpu %7.1f us/exchange/rank  MPI_Test calls %5.1f/exchange  "
      "one-way p50 %6.1f us p99 %6.1f us  (%d exchanges, 10 ms interval, loopback TCP)"
      % (sys.argv[2], c["cpu_us_per_exchange_mean_rank"], c["mpi_tests_per_exchange_mean_rank"],
         l["p50_us"], l["p99_us"], d["count"]))
PY
done
rm -f "$out"
