#!/usr/bin/env bash
# test_bench_train_smoke.sh - make bench-train at a small size, so that it
# cannot rot: the SYNTHETIC site history is written, trained on, the model
# loads, the retrain after new records runs (incremental and full, to the
# same model), and every figure is printed.
# Timings are never asserted.
set -u
cd "$ROOT" || exit 1
out=$(BENCH_TRAIN_DIR=${TMPDIR:-/tmp} bash tests/bench/bench_train.sh --json "$BUILD" 3000) || {
    echo "NOT OK - bench_train.sh failed: $out"; exit 1; }
echo "$out"
python3 - "$out" <<'PY'
import json, sys
r = json.loads(sys.argv[1].strip().splitlines()[-1])
bad = []
if r["records"] != 3000 or not r["synthetic"]: bad.append("records/synthetic")
if not r["train_s"] > 0 or not r["records_per_s"] > 0: bad.append("train time and rate")
if not r["train_peak_kib"] > 0 or not r["load_peak_kib"] > 0: bad.append("peak memory")
if not r["model_bytes"] > 0 or not 0 < r["apps"] <= 5000: bad.append("model size and apps")
if r["load_rc"] != 0: bad.append("the model did not load and answer")
if not r["retrain_after_3000_s"] > 0: bad.append("retrain")
if r["incremental_rc"] != 0 or not r["state_bytes"] > 0: bad.append("incremental retrain")
if r["incremental_same_model"] is not True: bad.append("the incremental model is not the full one")
if bad:
    print("NOT OK - " + ", ".join(bad)); sys.exit(1)
print("ok - bench-train at 3000 records: %.2f s, %d records/s, %d apps, %d entries" %
      (r["train_s"], r["records_per_s"], r["apps"], r["colocation_entries"]))
PY
