#!/bin/sh
# variability_eval.sh - evaluates netvar's Variability Estimate on a
# SYNTHETIC labelled data set (eval/variability_gen.c states the model:
# 5 communication characters x 4 sizes under long-tailed background load,
# runtime = f(queueing at the blades) x (1 + 2 % noise)).  It trains with
# 10-fold cross-validation and prints R^2, abstention and coverage beside
# the figures of Chunduri et al. (*Variability Estimate*), which came from real Theta
# runs.  The numbers here say the code works on data shaped like theirs;
# they say nothing about a real machine.
#
# Env: BUILD (build dir), ROOT (repo), JOBS (default 1500), SEED (default 1),
#      FOLDS (default 10).  Runtime: about 15 s on 2 cores.
# The forest's interval is calibrated on out-of-bag residuals
# (lib/variability/ve_calibrate.h); "held-out" figures come from forests grown and
# calibrated without the fold they are measured on.
set -eu
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
JOBS=${JOBS:-1500}
SEED=${SEED:-1}
FOLDS=${FOLDS:-10}
NETVAR=$BUILD/bin/netvar
GEN=$BUILD/bin/variability_gen
for b in "$NETVAR" "$GEN"; do
    [ -x "$b" ] || { echo "netvar: variability_eval: $b is missing; run make eval-variability" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/netvar-ve-eval.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

echo "== netvar Variability Estimate on a SYNTHETIC data set (not measured data) =="
"$GEN" --out "$TMP/data" --jobs "$JOBS" --seed "$SEED"
cp "$ROOT/tests/fixtures/model/valid_small.json" "$TMP/model.json"
"$NETVAR" variability train --records "$TMP/data" --model "$TMP/model.json" \
    --folds "$FOLDS" --seed "$SEED" --json > "$TMP/train.json"
python3 - "$TMP/train.json" "$FOLDS" "$TMP/model.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
folds = sys.argv[2]
ve = json.load(open(sys.argv[3]))["variability"]
tr, cal = ve["training"], ve["forest"].get("calibration")
print(f"jobs used: {t['jobs_used']} of {t['records_read']}; chosen C={t['C']:g} gamma={t['gamma']:g}")
print(f"{'figure':32s} {'netvar (synthetic)':>20s} {'paper (Theta)':>18s}")
print(f"{'R^2, SVR, ' + folds + '-fold CV':32s} {t['cv_r2']:>20.3f} {0.91:>18.2f}")
print(f"{'R^2, forest mean, ' + folds + '-fold CV':32s} {t['cv_r2_forest']:>20.3f} {'-':>18s}")
print(f"{'abstention (% of jobs)':32s} {100*t['abstention']:>19.1f}% {9.8:>17.1f}%")
print(f"{'coverage (% of answered)':32s} {100*t['coverage']:>19.1f}% {96.1:>17.1f}%")
print(f"{'mean interval half-width (sigma)':32s} {t['mean_half_width_sigma']:>20.2f} {'-':>18s}")
lvl = 100 * tr.get("level", 0.9)
print(f"held out, the calibrated {lvl:.0f} % intervals (the calibration's target: {lvl:.0f} %):")
print(f"{'  forest mean +/- forest width':32s} {100*tr['interval_coverage']:>19.1f}% {'-':>18s}")
print(f"{'  SVR +/- SVR width, all jobs':32s} {100*tr['point_coverage']:>19.1f}% {'-':>18s}")
if cal:
    print(f"error bound h = {cal['svr_factor']:.3f} x (SD of the tree predictions + "
          f"{cal['spread_floor']:.3f} sigma); forest interval: mean +/- {cal['factor']:.3f} x (the same);")
    print(f"both calibrated on out-of-sample residuals of {cal['points']} jobs (SVR: out-of-fold, "
          f"forest: out-of-bag); see lib/variability/ve_calibrate.h.")
else:
    print("interval: raw quantiles of the tree predictions (uncalibrated)")
print("The VE answers SVR +/- h when the forest mean lies within h of the SVR point, else abstains.")
PY
# the stored model answers for a record, end to end
"$NETVAR" variability estimate --model "$TMP/model.json" "$TMP/data/jobs/1/job.json"
echo "(SYNTHETIC data: see eval/variability_gen.c for the generating model)"
