#!/usr/bin/env bash
# bench_train.sh - `netvar train` at a large site's scale, on a SYNTHETIC
# history (eval/site_gen.c: Zipf apps, 64 leaves of 16 nodes, arrivals 31 s
# apart, log-normal runtimes): for each size, the time to train from the
# records (warm cache), records per second, peak memory, the model file's
# size, and the model's load time and memory (`netvar predict`, which loads
# it and answers one pair).  Then a day's 3 000 new records on top and the
# retrain that follows: incremental (--state, written by the first run) and
# full, and whether the two models are the same file.  Prints figures;
# asserts nothing about time.
#
# Usage: bench_train.sh BUILD [SIZE...]   (default sizes 100000 1000000)
#   BENCH_TRAIN_DIR  where the spools go (default /var/tmp; 1 M records take
#                    about 8 GB there while the benchmark runs)
#   --json as the first argument: one JSON object per size on stdout
set -u
json=0
[ "${1:-}" = --json ] && { json=1; shift; }
case ${1:-} in -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
BUILD=$(readlink -f "${1:-build}")
shift
sizes=${*:-100000 1000000}
NV=$BUILD/bin/netvar GEN=$BUILD/bin/netvar-site-gen
for b in "$NV" "$GEN"; do
    [ -x "$b" ] || { echo "netvar: bench-train: $b is not built (run make)" >&2; exit 1; }
done
base=${BENCH_TRAIN_DIR:-/var/tmp}
work=$(mktemp -d "$base/netvar-bench-train.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# run a command; print "WALL_S MAXRSS_KIB EXIT" (the child's own peak memory)
measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
t = time.monotonic() - t0
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
if rc.returncode:
    sys.stderr.write(rc.stderr.decode(errors="replace")[-2000:])
print("%.3f %d %d" % (t, kib, rc.returncode))
PY
}

for n in $sizes; do
    case $n in ''|*[!0-9]*|0) echo "netvar: bench-train: size '$n' is not a positive integer" >&2; exit 1 ;; esac
    spool=$work/spool-$n
    t0=$(date +%s.%N)
    info=$("$GEN" "$spool" --records "$n" --seed 7) || exit 1
    gen_s=$(echo "$(date +%s.%N) - $t0" | bc)
    end=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["end_unix_s"])' "$info")
    du_mb=$(du -sm "$spool" | cut -f1)
    model=$work/model-$n.json
    # the first run reads the records the generator just wrote (warm cache);
    # the figure is the second
    state=$work/state-$n
    measure "$NV" train --spool "$spool" --out "$model" --quiet --state "$state" >/dev/null || exit 1
    state_b=$(stat -c %s "$state")
    read -r train_s train_kib train_rc < <(measure "$NV" train --spool "$spool" --out "$model" --quiet)
    [ "$train_rc" = 0 ] || { echo "netvar: bench-train: train failed on $n records" >&2; exit 1; }
    model_b=$(stat -c %s "$model")
    counts=$(python3 -c '
import json,sys; m=json.load(open(sys.argv[1]))
print(len(m["apps"]), len(m.get("colocation", [])))' "$model")
    read -r apps entries <<<"$counts"
    read -r load_s load_kib load_rc < <(measure "$NV" predict --model "$model" --app app-00000 --with app-00001)
    # a day's new records on top, then the retrain
    "$GEN" "$spool" --records 3000 --first-id $((n + 1)) --start-unix "$end" --seed 8 >/dev/null || exit 1
    read -r inc_s inc_kib inc_rc < <(measure "$NV" train --spool "$spool" --out "$model.inc" --quiet --state "$state")
    read -r re_s re_kib _ < <(measure "$NV" train --spool "$spool" --out "$model.day" --quiet)
    same=false
    cmp -s "$model.inc" "$model.day" && same=true
    rate=$(python3 -c "print('%.0f' % ($n / $train_s))")
    if [ $json = 1 ]; then
        printf '{"records":%d,"synthetic":true,"spool_mb":%d,"generate_s":%.1f,"train_s":%s,"records_per_s":%s,"train_peak_kib":%d,"model_bytes":%d,"apps":%d,"colocation_entries":%d,"load_predict_s":%s,"load_peak_kib":%d,"load_rc":%d,"retrain_after_3000_s":%s,"retrain_peak_kib":%d,"incremental_retrain_s":%s,"incremental_peak_kib":%d,"incremental_rc":%d,"state_bytes":%d,"incremental_same_model":%s}\n' \
            "$n" "$du_mb" "$gen_s" "$train_s" "$rate" "$train_kib" "$model_b" "$apps" "$entries" "$load_s" "$load_kib" "$load_rc" "$re_s" "$re_kib" "$inc_s" "$inc_kib" "$inc_rc" "$state_b" "$same"
    else
        echo "== $n SYNTHETIC job records (eval/site_gen.c; spool $du_mb MB, written in $(printf '%.1f' "$gen_s") s)"
        echo "  netvar train (warm cache):      $train_s s, $rate records/s, peak $((train_kib / 1024)) MiB"
        echo "  model:                          $model_b bytes, $apps apps, $entries co-location entries"
        echo "  netvar predict (load + 1 pair): $load_s s, peak $((load_kib / 1024)) MiB (exit $load_rc)"
        echo "  3 000 new records, retrain:     incremental (--state, $state_b bytes) $inc_s s ($(python3 -c "print('%.0f' % (($n + 3000) / $inc_s))") records/s of history), peak $((inc_kib / 1024)) MiB (exit $inc_rc);"
        echo "                                  full $re_s s, peak $((re_kib / 1024)) MiB; same model: $same"
    fi
    rm -rf "$spool" "$model" "$model.day" "$model.inc" "$state"
done
