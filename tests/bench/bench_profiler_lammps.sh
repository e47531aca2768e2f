#!/usr/bin/env bash
# bench_profiler_lammps.sh - cost of the segment profiler (libnetvar_pmpi.so)
# on a real code: Debian's LAMMPS (lmp) running a 3-D Lennard-Jones melt of
# 10x10x10 fcc cells (4 000 atoms) on NP ranks under Open MPI's mpirun.
#
# Two settings: `thermo 100` for 6 000 steps (few collectives: a low
# segment rate) and `thermo 1` for 1 500 steps (thermodynamics every step:
# several Allreduce per step, a high segment rate).  For each, PAIRS pairs
# of runs without and with the profiler; the order inside a pair alternates
# (without first, then with first) so a drift of the machine's load hits
# both sides.  The figure is the median of the paired ratios with/without
# of whole-process wall time (mpirun start to exit: start-up, the run, the
# profile's merge and write), with its spread (min, Q1, Q3, max); the same
# for LAMMPS's own loop time ("Loop time of"), which excludes start-up.
# COMPARE=lib adds a third run to each pair (the order rotates), profiled
# with that library, and prints its figures and the paired ratio LIB/COMPARE:
# two builds of the profiler measured under the same load.
# Every profiled run must have written a complete profile with segments,
# else the script fails.  Budget (docs/DESIGN.md): median <= 1 % at the low
# rate, <= 3 % at the high rate.
#
# Usage: tests/bench/bench_profiler_lammps.sh [--json] [BUILD]
#   --json   also print one JSON object with every figure (last line)
# Env: PAIRS (10), NP (2), LOW_STEPS (6000), HIGH_STEPS (1500), LMP (lmp),
#      LIB (BUILD/lib/libnetvar_pmpi.so: the profiler to measure), COMPARE,
#      KEEP=dir (keep the inputs, outputs and profiles there).
# Exit: 0 figures printed, 1 a run failed or wrote no profile, 77 no lmp or
# no library.
set -u
json=0
[ "${1:-}" = --json ] && { json=1; shift; }
case ${1:-} in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
BUILD=$(readlink -f "${1:-${BUILD:-build}}")
LIB=${LIB:-$BUILD/lib/libnetvar_pmpi.so}
LMP=${LMP:-lmp}
PAIRS=${PAIRS:-10} NP=${NP:-2} LOW_STEPS=${LOW_STEPS:-6000} HIGH_STEPS=${HIGH_STEPS:-1500}
[ -e "$LIB" ] || { echo "netvar: $LIB is not built (run make)" >&2; exit 77; }
COMPARE=${COMPARE:-}
[ -z "$COMPARE" ] || [ -e "$COMPARE" ] || { echo "netvar: COMPARE=$COMPARE does not exist" >&2; exit 1; }
command -v "$LMP" >/dev/null || { echo "netvar: no '$LMP' (LAMMPS): run 'sh packaging/install-deps.sh lammps'" >&2; exit 77; }
command -v mpirun >/dev/null || { echo "netvar: no mpirun (Open MPI)" >&2; exit 77; }
for v in PAIRS NP LOW_STEPS HIGH_STEPS; do
    case ${!v} in ''|*[!0-9]*|0) echo "netvar: $v='${!v}' is not a positive integer" >&2; exit 1 ;; esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_mpi_yield_when_idle=1
if [ -n "${KEEP:-}" ]; then
    out=$(readlink -f "$KEEP"); mkdir -p "$out" || exit 1
else
    out=$(mktemp -d /tmp/nv_bench_lammps.XXXXXX) || exit 1
    trap 'rm -rf "$out"' EXIT
fi

cat >"$out/in.melt" <<'EOF'
# netvar bench: 3-D Lennard-Jones melt, 10x10x10 fcc unit cells (4000 atoms)
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 10 0 10 0 10
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 20 delay 0 check no
fix             1 all nve
thermo          ${thermo}
run             ${steps}
EOF

# run <with|compare|without> <thermo> <steps> <tag>: prints "wall_us
# loop_us", and for a profiled run checks its profile; returns 1 on any
# failure.
run() {
    local mode=$1 thermo=$2 steps=$3 tag=$4 pre=() dir=$out/prof-$4 lib=$LIB
    [ "$mode" = compare ] && lib=$COMPARE
    if [ "$mode" != without ]; then
        rm -rf "$dir"; mkdir -p "$dir"
        pre=(-x LD_PRELOAD="$lib" -x NETVAR_PROFILE_DIR="$dir")
    fi
    local t0 t1 rc
    t0=$(date +%s%N)
    (cd "$out" && timeout 900 mpirun -np "$NP" "${pre[@]}" "$LMP" -in in.melt -var thermo "$thermo" \
        -var steps "$steps" -log none >"$out/$tag.out" 2>"$out/$tag.err")
    rc=$?
    t1=$(date +%s%N)
    local loop
    loop=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on.*/\1/p' "$out/$tag.out" | tail -n 1)
    if [ $rc -ne 0 ] || [ -z "$loop" ]; then
        echo "netvar: lmp ($mode profiler, thermo $thermo) failed (exit $rc); last lines:" >&2
        tail -n 5 "$out/$tag.err" "$out/$tag.out" >&2
        return 1
    fi
    if [ "$mode" != without ]; then
        python3 - "$dir" <<'PY' >"$out/$tag.prof" || return 1
import glob, json, sys
fs = glob.glob(sys.argv[1] + "/*.json")
if len(fs) != 1:
    sys.exit("netvar: profiled run left %d profiles in %s (want 1)" % (len(fs), sys.argv[1]))
p = json.load(open(fs[0]))
if not p.get("complete") or p.get("segments", 0) <= 0 or p.get("ranks") != int(__import__("os").environ.get("NP", "2")):
    sys.exit("netvar: profile %s is incomplete or has no segments" % fs[0])
print(p["segments"], p["runtime_us"], p["peak_profiler_bytes_per_rank"])
PY
    fi
    printf '%d %.0f\n' $(((t1 - t0) / 1000)) "$(echo "$loop * 1000000" | bc -l)"
}

export NP
results=()
for setting in "100 $LOW_STEPS" "1 $HIGH_STEPS"; do
    # shellcheck disable=SC2086 # "THERMO STEPS": into $1 $2
    set -- $setting
    thermo=$1 steps=$2
    echo "== LAMMPS LJ melt, 4000 atoms, $NP ranks: thermo $thermo, $steps steps, $PAIRS pairs"
    rows=""
    for p in $(seq 1 "$PAIRS"); do
        if [ -n "$COMPARE" ]; then
            case $((p % 3)) in 1) order="without with compare" ;; 2) order="with compare without" ;;
                               *) order="compare without with" ;; esac
        elif [ $((p % 2)) -eq 1 ]; then order="without with"; else order="with without"; fi
        declare -A got=()
        for mode in $order; do
            r=$(run "$mode" "$thermo" "$steps" "t$thermo-p$p-$mode") || exit 1
            got[$mode]=$r
        done
        prof=$(cat "$out/t$thermo-p$p-with.prof")
        printf '  pair %2d (%s): without %s, with %s%s  [wall_us loop_us]\n' "$p" "${order// /,}" \
            "${got[without]}" "${got[with]}" "${COMPARE:+, compare ${got[compare]}}"
        rows+="${got[without]} ${got[with]} $prof ${got[compare]:-}"$'\n'
        unset got
    done
    results+=("$thermo $steps $(printf '%s' "$rows" | tr '\n' ';')")
done

python3 - "$json" "$NP" "${results[@]}" <<'PY'
import json, statistics, sys
want_json = sys.argv[1] == "1"
out = {"bench": "profiler-lammps", "ranks": int(sys.argv[2]), "settings": []}
def spread(xs):
    xs = sorted(xs)
    if len(xs) >= 2:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    else:
        q1 = q3 = xs[0]
    return {"median": statistics.median(xs), "min": xs[0], "q1": q1, "q3": q3, "max": xs[-1]}
for arg in sys.argv[3:]:
    head, _, rest = arg.partition(" ")
    steps, _, rest = rest.partition(" ")
    rows = [list(map(float, r.split())) for r in rest.split(";") if r.strip()]
    # without_wall without_loop with_wall with_loop segments runtime_us peak_bytes
    wall = [(r[2] / r[0] - 1) * 100 for r in rows]
    loop = [(r[3] / r[1] - 1) * 100 for r in rows]
    compare = len(rows[0]) >= 9
    seg_rate = statistics.median(r[4] / (r[5] / 1e6) for r in rows)
    s = {"thermo": int(head), "steps": int(steps), "pairs": len(rows),
         "wall_overhead_pct": spread(wall), "loop_overhead_pct": spread(loop),
         "median_wall_s": {"without": statistics.median(r[0] for r in rows) / 1e6,
                           "with": statistics.median(r[2] for r in rows) / 1e6},
         "segments": int(statistics.median(r[4] for r in rows)),
         "segments_per_s": seg_rate,
         "peak_profiler_bytes_per_rank": max(r[6] for r in rows)}
    if compare:
        s["compare_wall_overhead_pct"] = spread([(r[7] / r[0] - 1) * 100 for r in rows])
        s["compare_loop_overhead_pct"] = spread([(r[8] / r[1] - 1) * 100 for r in rows])
        s["with_vs_compare_wall_pct"] = spread([(r[2] / r[7] - 1) * 100 for r in rows])
    out["settings"].append(s)
    print("thermo %d, %d steps: %d segments per run, %.0f segments/s; median wall time without %.2f s, with %.2f s"
          % (s["thermo"], s["steps"], s["segments"], seg_rate, s["median_wall_s"]["without"], s["median_wall_s"]["with"]))
    keys = [("whole-process wall time", "wall_overhead_pct"), ("LAMMPS loop time", "loop_overhead_pct")]
    if compare:
        keys += [("COMPARE wall time", "compare_wall_overhead_pct"), ("COMPARE loop time", "compare_loop_overhead_pct"),
                 ("LIB vs COMPARE wall", "with_vs_compare_wall_pct")]
    for name, key in keys:
        d = s[key]
        print("  %-23s overhead: median %+.2f %% over %d pairs (min %+.2f %%, Q1 %+.2f %%, Q3 %+.2f %%, max %+.2f %%)"
              % (name, d["median"], len(rows), d["min"], d["q1"], d["q3"], d["max"]))
    print("  profiler peak memory per rank: %.0f bytes (%.2f MiB)" % (s["peak_profiler_bytes_per_rank"],
                                                                    s["peak_profiler_bytes_per_rank"] / 2**20))
print("budget (docs/DESIGN.md): median wall-time overhead <= 1 % at the low segment rate (thermo 100), "
      "<= 3 % at the high one (thermo 1)")
if want_json:
    print(json.dumps(out, sort_keys=True))
PY
