/* prom_export.h - netvar's figures in the Prometheus text exposition
 * format, for node_exporter's textfile collector (`netvar export
 * --prometheus FILE`).  Every metric carries its unit in its name and has
 * HELP and TYPE lines:
 *
 *   netvar_job_predicted_slowdown_ratio{jobid,app}  gauge: a running job's
 *       own slowdown predicted beside the jobs whose paths meet its own
 *       (netvar report --cluster --json's predicted_pct / 100); only jobs
 *       with a prediction (cluster_report.h), at most max_jobs of them (the
 *       highest)
 *   netvar_running_jobs, netvar_running_jobs_known_to_model,
 *   netvar_job_series_dropped                      gauges
 *   netvar_uplink_utilization_ratio{switch}        gauge: the sum of the
 *       model's U_A of the running jobs across a leaf switch's uplink
 *   netvar_uplink_jobs{switch}                     gauge
 *   netvar_finished_job_observed_slowdown_ratio    summary over the jobs
 *       that ended in the last window_s with neighbours and a baseline
 *       (netvar report JOBID --json's observed_pct / 100): quantiles 0,
 *       0.5 and 1 (min, median, max), _sum and _count
 *   netvar_finished_jobs, netvar_finished_window_seconds  gauges
 *   netvar_jobsubmit_submissions_total             counter
 *   netvar_jobsubmit_decisions_total{action}       counter: submissions
 *       whose decision had that action ("none": none at all)
 *   netvar_jobsubmit_call_duration_seconds         histogram
 *   netvar_jobsubmit_start_time_seconds,
 *   netvar_jobsubmit_stats_written_timestamp_seconds  gauges
 *   netvar_export_source_ok{source}                gauge: 1 read, 0 not
 *   netvar_export_timestamp_seconds                gauge
 *
 * Label values are escaped as the format asks (backslash, double quote,
 * newline) after every byte outside printable ASCII became '_', and are
 * cut to NV_PROM_LABEL_MAX bytes. */
#ifndef NETVAR_PROM_EXPORT_H
#define NETVAR_PROM_EXPORT_H

#include <stddef.h>

#include "model.h"
#include "predict.h"

#define NV_PROM_MAX_JOBS 10000   /* running-job series, at most */
#define NV_PROM_MAX_UPLINKS 4096 /* uplink series, at most */
#define NV_PROM_LABEL_MAX 128    /* bytes of a label value kept */
#define NV_PROM_DEFAULT_WINDOW_S 3600

typedef struct nv_prom_opts {
    const char *spool;
    const nv_model *model; /* NULL: no predictions, no utilization */
    nv_predictor predictor;
    double now_unix_s;
    double window_s;             /* finished jobs: ended within this, > 0 */
    size_t max_jobs;             /* 1 .. NV_PROM_MAX_JOBS */
    const char *jobsubmit_stats; /* job_submit's counts (submit_stats.h); NULL: none */
} nv_prom_opts;

typedef void (*nv_prom_log_fn)(void *ctx, const char *line);

/* Every metric above into a new buffer (*out, caller frees, *len bytes).
 * A source that cannot be read (the registry, the job records, job_submit's
 * file) gets one line to log and netvar_export_source_ok 0, and the rest is
 * written.  Returns 0, or -1 with err (bad options, out of memory). */
int nv_prom_export(const nv_prom_opts *o, nv_prom_log_fn log, void *ctx, char **out, size_t *len,
                   char *err, size_t errlen);

/* A label value: in as above into out[cap] (cap > 2 * NV_PROM_LABEL_MAX
 * always fits).  Returns out. */
char *nv_prom_label_value(const char *in, size_t in_len, char *out, size_t cap);

#endif
