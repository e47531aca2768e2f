#!/usr/bin/env bash
# lane: netlab
# shellcheck disable=SC2016,SC2086,SC2012,SC2020,SC2153 # written before make lint: literal $ in pkg-config and PromQL text, package and word lists split on purpose, ls on directories this test made, ROOT from run.sh
# test_prometheus_export.sh - `netvar export --prometheus` through a real
# prometheus-node-exporter (--collector.textfile.directory) and a real
# prometheus server scraping it, both on loopback and started here: on a
# generated (SYNTHETIC) spool with running-job registry entries made here
# and a job_submit counts file, every figure Prometheus' HTTP API returns
# is within 0.1 pp of `netvar report --json` (running jobs' predictions and
# the uplinks from `report --cluster --json`, the finished jobs' summary
# from `report JOBID --json` of each job), the counts and the histogram
# equal the file's, `promtool check metrics` passes on the file, every
# query of the Grafana dashboard is one Prometheus accepts, an output that
# cannot be written is refused in one line with nothing left behind, the
# timer installs and verifies; and on the lab, job_submit/netvar inside a
# real slurmctld writes the counts that export reads by default.
set -u
cd "$ROOT" || exit 1
source "$ROOT/tests/integration/lab_lib.sh"
GEN=$BUILD/bin/netvar-train-gen
[ -x "$GEN" ] || { echo "skip: $GEN not built"; exit 77; }
command -v jq >/dev/null && command -v curl >/dev/null || { echo "skip: no jq or curl"; exit 77; }

# Debian's packages, installed when missing; whatever service the install
# starts is stopped again (this machine may not run systemd)
if ! command -v prometheus >/dev/null || ! command -v prometheus-node-exporter >/dev/null ||
   ! command -v promtool >/dev/null; then
    [ "$(id -u)" -eq 0 ] || { echo "skip: prometheus not installed and not root"; exit 77; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y prometheus prometheus-node-exporter \
        >/tmp/netvar-prom-apt.log 2>&1 || { echo "skip: apt-get install prometheus failed"; exit 77; }
    for svc in prometheus prometheus-node-exporter; do
        if [ -d /run/systemd/system ]; then
            systemctl stop "$svc" >/dev/null 2>&1 || true
        elif [ -x "/etc/init.d/$svc" ] && "/etc/init.d/$svc" status >/dev/null 2>&1; then
            "/etc/init.d/$svc" stop >/dev/null 2>&1 || true # by its pid file
        fi
    done
fi

T=$(mktemp -d /tmp/netvar-prom.XXXXXX)
NE_PID="" PR_PID=""
cleanup() {
    for p in $PR_PID $NE_PID; do
        kill "$p" 2>/dev/null && { for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; }
        kill -9 "$p" 2>/dev/null || true
    done
    if [ "${_failures:-0}" -gt 0 ]; then
        for f in "$T"/*.log; do [ -f "$f" ] && { echo "---- tail $f"; tail -n 15 "$f"; }; done
    fi
    rm -rf "$T"
    _lab_cleanup
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# ---- the spool: finished jobs from the generator, a model trained on them
"$GEN" "$T/g" --seed 7 >/dev/null || { echo "generator failed"; exit 1; }
S=$T/g/spool
M=$T/state/model.json
mkdir -p "$T/state/jobsubmit" "$S/running" "$T/textfile"
"$NV" train --spool "$S" --model "$T/g/base-model.json" --out "$M" --quiet 2>/dev/null ||
    { echo "train failed"; exit 1; }
now=$(date +%s)
oldest=$(jq -s 'map(.end_unix_s) | min | floor' "$S"/jobs/*/job.json)
WINDOW=$((now - oldest + 86400))

# running jobs: known apps across leaf switches (one switch name with a
# quote and a backslash), one under one leaf, one app the model does not know
reg() {
    jq -n --argjson id "$1" --arg app "$2" --argjson sw "$3" --argjson t "$now" \
        '{schema: "netvar-running", job_id: $id, app: $app, start_unix_s: ($t - 600),
          nodes: ["n\($id)a", "n\($id)b"], switches: $sw}' >"$S/running/$1.json"
}
reg 9001 alltoall-fft '["s1","s2"]'
reg 9002 halo-stencil '["s2","s3"]'
reg 9003 graph-bfs '["s4"]'
reg 9004 compute-dgemm '["s3","s\"q\\z"]'
reg 9005 alltoall-fft '["s1","s\"q\\z"]'
reg 9006 'not-in-the-model' '["s1","s2"]'

# job_submit's counts as the plugin writes them (schema netvar-jobsubmit-stats)
cat >"$T/state/jobsubmit/stats.json" <<EOF
{"schema":"netvar-jobsubmit-stats","version":1,"started_unix_s":$((now - 3600)).5,"written_unix_s":$((now - 5)).25,
 "submissions":40,"no_action":25,"actions":{"message":9,"annotate":12,"contain":3,"avoid":4,"isolate":0,
 "hold":1,"deny":2,"resize":0},"calls":40,"total_ns":321000,
 "le_s":[1e-06,2.5e-06,5e-06,1e-05,2.5e-05,5e-05,0.0001,0.00025,0.001,0.01,0.1,1],
 "buckets":[3,10,15,8,2,1,1,0,0,0,0,0,0]}
EOF

# the spool and the model from netvar.conf, as the timer's service finds them
printf 'SpoolDir=%s\nModelFile=%s\n' "$S" "$M" >"$T/netvar.conf"
export NETVAR_CONF=$T/netvar.conf
PROM=$T/textfile/netvar.prom
"$NV" export --prometheus "$PROM" --window "$WINDOW" 2>"$T/export.err"
check "netvar export exits 0" test $? -eq 0
check "it writes nothing on stderr: $(cat "$T/export.err")" test ! -s "$T/export.err"
check "the file is there, 0644" test "$(stat -c %a "$PROM" 2>/dev/null)" = 644
check "no temp file is left beside it" test "$(ls -A "$T/textfile")" = netvar.prom
out=$(promtool check metrics <"$PROM" 2>&1)
check "promtool check metrics passes: $out" test $? -eq 0 -a -z "$out"
check "promtool can fail: a counter without _total is refused" \
    bash -c "! printf '# HELP x_count y\n# TYPE x_count counter\nx_count 1\n' | promtool check metrics >/dev/null 2>&1"

"$NV" report --cluster --spool "$S" --model "$M" --json >"$T/cluster.json" 2>/dev/null
check "the cluster report answers" test -s "$T/cluster.json"

# ---- node_exporter and prometheus on loopback
NE_PORT=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$T/textfile" >"$T/node-exporter.log" 2>&1 &
NE_PID=$!
PR_PORT=$(free_port)
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: netvar-node
    static_configs:
      - targets: ["127.0.0.1:$NE_PORT"]
EOF
(cd "$T" && exec prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
    --web.listen-address="127.0.0.1:$PR_PORT" >"$T/prometheus.log" 2>&1) &
PR_PID=$!
API=http://127.0.0.1:$PR_PORT/api/v1/query

# query EXPR: Prometheus' answer (JSON) to an instant query
query() { curl -s --max-time 5 --get --data-urlencode "query=$1" "$API" | tee -a "$T/queries.log"; echo >>"$T/queries.log"; }
# value EXPR: the one sample's value, or "none"
value() {
    local v
    v=$(query "$1" | jq -r 'if .status == "success" and (.data.result | length) == 1
                            then .data.result[0].value[1] else "none" end' 2>/dev/null)
    echo "${v:-none}" # no answer (not up yet): none
}
for _ in $(seq 120); do
    [ "$(value netvar_export_timestamp_seconds)" != none ] && break
    sleep 0.5
done
check "node_exporter serves the textfile" sh -c "curl -s http://127.0.0.1:$NE_PORT/metrics | grep -q '^netvar_running_jobs 6'"
check "Prometheus scraped netvar's figures through node_exporter" \
    test "$(value netvar_export_timestamp_seconds)" != none
check "node_exporter read the file without an error" \
    test "$(value 'node_textfile_scrape_error')" = 0

# ---- each figure against netvar report --json, within 0.1 pp
compared=0 worst=0 worst_what=""
# jqtrue ARGS...: jq -e's verdict alone (a redirect after `check` would
# swallow check's own line)
jqtrue() { jq -e "$@" >/dev/null; }
# close WHAT REPORT_PCT PROM_RATIO: |report - 100 * prom| <= 0.1 pp
close() {
    local d
    d=$(jq -n --arg a "$2" --arg b "$3" '($a | tonumber) - 100 * ($b | tonumber) | fabs' 2>/dev/null) ||
        { not_ok "$1: report $2, Prometheus $3"; return; }
    compared=$((compared + 1))
    if jq -en --argjson d "$d" --argjson w "$worst" '$d > $w' >/dev/null; then worst=$d worst_what=$1; fi
    check "$1: report $2 %, Prometheus $3 (|diff| $d pp <= 0.1)" \
        jqtrue -n --argjson d "$d" '$d <= 0.1'
}

n_pred=0
while read -r id pct app; do
    n_pred=$((n_pred + 1))
    close "job $id ($app) predicted slowdown" "$pct" \
        "$(value "netvar_job_predicted_slowdown_ratio{jobid=\"$id\",app=\"$app\"}")"
done < <(jq -r '.running_jobs[] | select(.predicted_pct != null) | "\(.job_id) \(.predicted_pct) \(.app)"' "$T/cluster.json")
check "five running jobs have a prediction (the unknown app none)" test "$n_pred" -eq 5
check "the unknown app's job has no series" \
    test "$(query 'netvar_job_predicted_slowdown_ratio{jobid="9006"}' | jq '.data.result | length')" -eq 0
check "the predictions are not all 0 (the comparison can fail)" \
    jqtrue '[.running_jobs[].predicted_pct // 0] | max > 1' "$T/cluster.json"
n_up=0
while IFS=$'\t' read -r sw u; do
    n_up=$((n_up + 1))
    got=$(query 'netvar_uplink_utilization_ratio' | jq -r --arg s "$sw" '.data.result[] | select(.metric.switch == $s) | .value[1]')
    close "uplink $sw utilization" "$(jq -n --arg u "$u" '$u | tonumber * 100')" "${got:-none}"
done < <(jq -r '.uplinks[] | "\(.switch)\t\(.utilization)"' "$T/cluster.json")
check "four uplinks, the escaped name among them" test "$n_up" -eq 4
check "the switch name with a quote and a backslash comes back whole" \
    test "$(query 'netvar_uplink_jobs' | jq -r '.data.result[] | select(.metric.switch == "s\"q\\z") | .value[1]')" = 2
check "running jobs: 6" test "$(value netvar_running_jobs)" = 6

# finished jobs: every job's own report
: >"$T/observed"
for d in "$S"/jobs/*/; do
    id=$(basename "$d")
    "$NV" report "$id" --spool "$S" --model "$M" --json 2>/dev/null |
        jq -r 'select(.slowdown.observed_pct != null) | .slowdown.observed_pct' >>"$T/observed"
done
sort -g "$T/observed" >"$T/observed.sorted"
n_obs=$(wc -l <"$T/observed.sorted")
check "finished jobs with an observed slowdown: $n_obs (some)" test "$n_obs" -gt 10
stats=$(jq -s 'sort | {min: .[0], max: .[-1], sum: add, n: length,
                      median: (if length % 2 == 1 then .[length / 2 | floor]
                               else (.[length / 2 - 1] + .[length / 2]) / 2 end)}' "$T/observed.sorted")
q=netvar_finished_job_observed_slowdown_ratio
close "finished jobs' least observed slowdown" "$(jq .min <<<"$stats")" "$(value "$q{quantile=\"0\"}")"
close "finished jobs' median observed slowdown" "$(jq .median <<<"$stats")" "$(value "$q{quantile=\"0.5\"}")"
close "finished jobs' most observed slowdown" "$(jq .max <<<"$stats")" "$(value "$q{quantile=\"1\"}")"
close "finished jobs' observed slowdowns summed" "$(jq .sum <<<"$stats")" "$(value "${q}_sum")"
check "finished jobs counted: $n_obs" test "$(value "${q}_count")" = "$n_obs"
check "jobs that ended in the window: every record" test "$(value netvar_finished_jobs)" = "$(ls "$S/jobs" | wc -l)"

# job_submit: the file's counts, a cumulative histogram
for a in none:25 message:9 annotate:12 contain:3 avoid:4 isolate:0 hold:1 deny:2 resize:0; do
    check "decisions with action ${a%%:*}: ${a#*:}" \
        test "$(value "netvar_jobsubmit_decisions_total{action=\"${a%%:*}\"}")" = "${a#*:}"
done
check "submissions: 40" test "$(value netvar_jobsubmit_submissions_total)" = 40
h=netvar_jobsubmit_call_duration_seconds
check "histogram: 28 calls within 5 us" test "$(value "${h}_bucket{le=\"5e-06\"}")" = 28
check "histogram: 40 within +Inf, 40 counted" \
    test "$(value "${h}_bucket{le=\"+Inf\"}").$(value "${h}_count")" = 40.40
check "histogram: 321 us in all" test "$(value "${h}_sum")" = 0.000321
p50=$(value "histogram_quantile(0.5, ${h}_bucket)")
check "Prometheus reads a median from it: $p50 s (within 2.5 to 5 us)" \
    jqtrue -n --arg v "$p50" '($v | tonumber) > 2.5e-6 and ($v | tonumber) <= 5e-6'
for s in model registry records jobsubmit; do
    check "source $s read" test "$(value "netvar_export_source_ok{source=\"$s\"}")" = 1
done

# ---- the Grafana dashboard's queries, as Grafana would send them
DASH=$ROOT/packaging/grafana/netvar.json
check "the dashboard is JSON with panels" jqtrue '.panels | length > 5' "$DASH"
n_dash=0 n_data=0
while read -r e; do
    e=${e//\$instance/.*}
    r=$(query "$e")
    n_dash=$((n_dash + 1))
    check "dashboard query accepted: $e" test "$(jq -r .status <<<"$r")" = success
    [ "$(jq '.data.result | length' <<<"$r")" -gt 0 ] && n_data=$((n_data + 1))
done < <(jq -r '.panels[].targets[].expr' "$DASH")
# rate() of counters that do not move here may answer nothing
check "$n_data of $n_dash dashboard queries have data (the rates' may not)" test "$n_data" -ge $((n_dash - 4))

# ---- refusals: nothing is left behind, the previous file stays
cp "$PROM" "$T/before.prom"
"$NV" export --prometheus "$T/no-such-dir/netvar.prom" --spool "$S" --model "$M" 2>"$T/e1"
rc=$?
check "a missing directory: exit 1, one line ($(cat "$T/e1"))" test "$rc.$(wc -l <"$T/e1")" = 1.1
contains "... naming the file" "$(cat "$T/e1")" "--prometheus $T/no-such-dir/netvar.prom"
check "... and creating nothing" test ! -e "$T/no-such-dir"
# an unprivileged user and a directory it may not write (root writes anywhere)
U=$T/pub
mkdir -p "$U/spool/jobs" "$U/out" && cp "$M" "$U/model.json" && chmod -R a+rX "$U" && chmod 755 "$T"
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$NV" export --prometheus "$U/out/netvar.prom" \
        --spool "$U/spool" --model "$U/model.json" --jobsubmit-stats none 2>"$T/e2"
    rc=$?
    check "an unwritable directory: exit 1, one line ($(cat "$T/e2"))" test "$rc.$(wc -l <"$T/e2")" = 1.1
    contains "... saying nothing was written" "$(cat "$T/e2")" "nothing written"
    check "... and leaving no file, no temp file" test -z "$(ls -A "$U/out")"
fi
"$NV" export --prometheus "$PROM" --spool "$S" --model "$M" --max-jobs 0 2>"$T/e3"
check "--max-jobs 0 is bad usage (exit 2)" test $? -eq 2
check "... and the file is the one before" cmp -s "$PROM" "$T/before.prom"
# the cap: two series, the highest, and the rest counted
"$NV" export --prometheus "$T/capped.prom" --spool "$S" --model "$M" --max-jobs 2 2>/dev/null
check "--max-jobs 2: two per-job series" test "$(grep -c '^netvar_job_predicted_slowdown_ratio{' "$T/capped.prom")" -eq 2
check "... three counted as dropped" grep -qx 'netvar_job_series_dropped 3' "$T/capped.prom"

# ---- the timer: installed by make install, valid, every minute
if command -v systemd-analyze >/dev/null; then
    make -s --no-print-directory BUILD="$BUILD" install PREFIX="$T/usr" SYSCONFDIR="$T/etc" \
        LOCALSTATEDIR="$T/var" SLURM_PLUGIN_DIR="$T/plugins" UNITDIR="$T/usr/lib/systemd/system" \
        >"$T/install.log" 2>&1
    check "make install into a scratch prefix" test $? -eq 0
    UD=$T/usr/lib/systemd/system
    out=$(MANPATH=$T/usr/share/man systemd-analyze verify "$UD/netvar-export.service" "$UD/netvar-export.timer" 2>&1)
    check "systemd-analyze verify passes on netvar-export: $out" test -z "$out"
    contains "the timer runs every minute" "$(cat "$UD/netvar-export.timer")" "OnCalendar=minutely"
    contains "the service runs the installed netvar export" "$(cat "$UD/netvar-export.service")" \
        "ExecStart=$T/usr/bin/netvar export --prometheus \${NETVAR_PROM_FILE}"
    check "the dashboard is installed" cmp -s "$DASH" "$T/usr/share/netvar/grafana/netvar.json"
    check "and the job_submit counts' directory" test -d "$T/var/lib/netvar/jobsubmit"
fi

"$NV" export --prometheus "$T/given.prom" --spool "$S" --model "$M" --window "$WINDOW" \
    --config /dev/null 2>/dev/null
check "--spool and --model give the same figures as netvar.conf's" \
    test "$(grep -v '^netvar_export_timestamp' "$T/given.prom")" = "$(grep -v '^netvar_export_timestamp' "$PROM")"

# ---- job_submit/netvar inside a real slurmctld writes the counts export reads
if [ -x "$ROOT/lab/lab" ] && command -v slurmctld >/dev/null; then
    unset NETVAR_CONF # the lab names its own
    lab_start --nodes 2 --netvar-conf "$ROOT/tests/fixtures/jobsubmit/netvar.conf"
    mkdir -p netvar/jobsubmit
    cp "$ROOT/tests/fixtures/jobsubmit/model.json" netvar/model.json
    for _ in $(seq 1 30); do grep -q "netvar: model .* loaded" log/slurmctld.log && break; sleep 0.2; done
    sbatch -N1 --hold --netvar-app=fftw --wrap true >/dev/null 2>&1    # contain, message
    sbatch -N1 --hold --netvar-app=holdme --wrap true >/dev/null 2>&1  # hold, message
    sbatch -N1 --hold --netvar-app=denyme --wrap true >/dev/null 2>&1  # deny: refused
    sbatch -N1 --hold --wrap true >/dev/null 2>&1                      # no app: no rule
    js=netvar/jobsubmit/stats.json
    for _ in $(seq 1 60); do
        [ "$(jq -r .submissions "$js" 2>/dev/null)" = 4 ] && break
        sleep 0.5
    done
    check "slurmctld's job_submit/netvar wrote 4 submissions within 30 s" test "$(jq -r .submissions "$js" 2>/dev/null)" = 4
    "$NV" export --prometheus "$T/lab.prom" --spool netvar/spool --model netvar/model.json 2>"$T/lab.err"
    check "export reads them from beside the model (default path): $(cat "$T/lab.err")" \
        grep -qx 'netvar_export_source_ok{source="jobsubmit"} 1' "$T/lab.prom"
    check "promtool check metrics passes on it" promtool check metrics <"$T/lab.prom"
    # decision_is ACTION N: the file says N, or the decisions go to the log
    decision_is() {
        grep -qx "netvar_jobsubmit_decisions_total{action=\"$1\"} $2" "$T/lab.prom" && return 0
        grep '^netvar_jobsubmit_decisions_total' "$T/lab.prom" | tr '\n' ' '
        return 1
    }
    # AnnotateAll=yes (the default) annotates every job: no decision is "none"
    for a in none:0 annotate:4 contain:1 hold:1 deny:1 message:2 avoid:0; do
        check "slurmctld's decisions with action ${a%%:*}: ${a#*:}" \
            decision_is "${a%%:*}" "${a#*:}"
    done
    calls=$(sed -n 's/^netvar_jobsubmit_call_duration_seconds_count //p' "$T/lab.prom")
    check "job_submit() calls timed: ${calls:-none} (at least the 4)" test "${calls:-0}" -ge 4
    echo "# slurmctld's job_submit/netvar: $calls calls, $(sed -n 's/^netvar_jobsubmit_call_duration_seconds_sum //p' "$T/lab.prom") s in all"
fi

echo "# compared $compared figures with netvar report --json; largest difference $worst pp ($worst_what)"
finish
