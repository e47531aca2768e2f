/* prom_export.c - netvar's figures as Prometheus text (prom_export.h). */
#define _GNU_SOURCE /* qsort_r */
#include "prom_export.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_report.h"
#include "job_report.h"
#include "nv_err.h"
#include "policy.h"
#include "submit_stats.h"
#include "train_history.h"

char *nv_prom_label_value(const char *in, size_t in_len, char *out, size_t cap)
{
    size_t o = 0;
    if (!cap)
        return out;
    for (size_t i = 0; in && i < in_len && i < NV_PROM_LABEL_MAX && in[i]; i++) {
        char c = in[i];
        unsigned char u = (unsigned char)c;
        const char *esc = c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n" : NULL;
        char one[2] = {u >= 0x20 && u < 0x7f ? c : '_', 0};
        const char *put = esc ? esc : one;
        size_t l = strlen(put);
        if (o + l >= cap)
            break;
        memcpy(out + o, put, l);
        o += l;
    }
    out[o] = '\0';
    return out;
}

static void log_line(nv_prom_log_fn log, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void log_line(nv_prom_log_fn log, void *ctx, const char *fmt, ...)
{
    if (!log)
        return;
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log(ctx, line);
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void gauge(FILE *f, const char *name, const char *help, double v)
{
    head(f, name, "gauge", help);
    fprintf(f, "%s %.10g\n", name, v);
}

/* ---------------------------------------------------------- running jobs */

/* highest prediction first, then by job id */
static int cmp_pred(const void *a, const void *b, void *ctx)
{
    const nv_cluster_report *r = ctx;
    const nv_cluster_report_job *x = &r->jobs[*(const size_t *)a];
    const nv_cluster_report_job *y = &r->jobs[*(const size_t *)b];
    if (x->predicted_pct != y->predicted_pct)
        return x->predicted_pct > y->predicted_pct ? -1 : 1;
    return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* highest utilization first, then by name */
static int cmp_util(const void *a, const void *b, void *ctx)
{
    const nv_cluster_report *r = ctx;
    const nv_cluster_report_uplink *x = &r->uplinks[*(const size_t *)a];
    const nv_cluster_report_uplink *y = &r->uplinks[*(const size_t *)b];
    if (x->utilization != y->utilization)
        return x->utilization > y->utilization ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* the indexes of the at most max entries kept of n: the first max by cmp,
 * then in index order (jobs by id, uplinks by name) */
static size_t *keep_top(size_t *idx, size_t n, size_t max,
                        int (*cmp)(const void *, const void *, void *), nv_cluster_report *r)
{
    if (n > max) {
        qsort_r(idx, n, sizeof *idx, cmp, r);
        n = max;
    }
    qsort(idx, n, sizeof *idx, cmp_size);
    return idx;
}

static int running(FILE *f, const nv_prom_opts *o, nv_prom_log_fn log, void *ctx, int *ok)
{
    nv_cluster_report r;
    char err[4400], l1[2 * NV_PROM_LABEL_MAX + 1], l2[2 * NV_PROM_LABEL_MAX + 1];
    *ok = nv_cluster_report_build(o->spool, o->model, o->predictor, o->now_unix_s, log, ctx, &r,
                                  err, sizeof err) == 0;
    if (!*ok) {
        log_line(log, ctx, "netvar: export: %s; no running-job figures", err);
        return 0;
    }
    size_t cap = r.n_jobs > r.n_uplinks ? r.n_jobs : r.n_uplinks;
    size_t *idx = malloc((cap ? cap : 1) * sizeof *idx), n = 0;
    if (!idx) {
        nv_cluster_report_free(&r);
        return -1;
    }
    for (size_t i = 0; i < r.n_jobs; i++)
        if (isfinite(r.jobs[i].predicted_pct))
            idx[n++] = i;
    size_t predicted = n;
    keep_top(idx, n, o->max_jobs, cmp_pred, &r);
    n = n < o->max_jobs ? n : o->max_jobs;
    gauge(f, "netvar_running_jobs", "Running jobs in netvar's registry.", (double)r.n_jobs);
    gauge(f, "netvar_running_jobs_known_to_model", "Running jobs whose app netvar's model knows.",
          (double)r.known);
    gauge(f, "netvar_job_series_dropped",
          "Running jobs with a prediction left out of netvar_job_predicted_slowdown_ratio by "
          "the series cap (the lowest predictions go first).",
          (double)(predicted - n));
    if (n)
        head(f, "netvar_job_predicted_slowdown_ratio", "gauge",
             "A running job's own slowdown predicted beside the running jobs whose paths meet "
             "its own (0.05: 5 % slower than alone).");
    for (size_t k = 0; k < n; k++) {
        const nv_cluster_report_job *j = &r.jobs[idx[k]];
        fprintf(f, "netvar_job_predicted_slowdown_ratio{jobid=\"%u\",app=\"%s\"} %.10g\n",
                j->job_id, nv_prom_label_value(j->model_app, strlen(j->model_app), l1, sizeof l1),
                j->predicted_pct / 100);
    }

    for (size_t k = 0; k < r.n_uplinks; k++)
        idx[k] = k;
    n = r.n_uplinks < NV_PROM_MAX_UPLINKS ? r.n_uplinks : NV_PROM_MAX_UPLINKS;
    keep_top(idx, r.n_uplinks, NV_PROM_MAX_UPLINKS, cmp_util, &r);
    if (n) {
        head(f, "netvar_uplink_utilization_ratio", "gauge",
             "Predicted utilization of a leaf switch's uplink: the sum of the model's "
             "utilization of the apps of the running jobs across it (above 1: more than it "
             "carries).");
        for (size_t k = 0; k < n; k++) {
            const nv_cluster_report_uplink *u = &r.uplinks[idx[k]];
            fprintf(f, "netvar_uplink_utilization_ratio{switch=\"%s\"} %.10g\n",
                    nv_prom_label_value(u->name, u->name_len, l2, sizeof l2), u->utilization);
        }
        head(f, "netvar_uplink_jobs", "gauge",
             "Running jobs across a leaf switch's uplink (those unknown to the model "
             "included).");
        for (size_t k = 0; k < n; k++) {
            const nv_cluster_report_uplink *u = &r.uplinks[idx[k]];
            fprintf(f, "netvar_uplink_jobs{switch=\"%s\"} %u\n",
                    nv_prom_label_value(u->name, u->name_len, l2, sizeof l2), u->jobs);
        }
    }
    free(idx);
    nv_cluster_report_free(&r);
    return 0;
}

/* --------------------------------------------------------- finished jobs */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void train_log(void *ctx, const char *line)
{
    (void)ctx, (void)line; /* corrupt records: `netvar train` names them */
}

static int finished(FILE *f, const nv_prom_opts *o, nv_prom_log_fn log, void *ctx, int *ok)
{
    nv_train_opts to;
    nv_train_opts_default(&to);
    nv_train_set s;
    nv_train_set_init(&s);
    char err[512];
    double service = o->model ? nv_model_calibration(o->model)->service_us : 0;
    *ok = !nv_train_scan_spool(o->spool, service, &to, &s, train_log, NULL, err, sizeof err) &&
          !nv_train_analyze(&s, &to);
    if (!*ok) {
        log_line(log, ctx, "netvar: export: job records: %s; no finished-job figures", err);
        nv_train_set_free(&s);
        return 0;
    }
    double *v = malloc((s.n ? s.n : 1) * sizeof *v), sum = 0;
    if (!v) {
        nv_train_set_free(&s);
        return -1;
    }
    size_t n = 0, ended = 0;
    double from = o->now_unix_s - o->window_s;
    for (size_t i = 0; i < s.n; i++) {
        const nv_train_sum *j = &s.jobs[i];
        if (!isfinite(j->end_s) || j->end_s < from || j->end_s > o->now_unix_s)
            continue;
        ended++;
        size_t one;
        if (!nv_train_neighbours(&s, i, &one, 1))
            continue; /* the report gives no observed slowdown without neighbours */
        double pct = nv_job_report_observed_pct(&s, i, o->model, s.apps[j->app], j->nodes,
                                                j->runtime_s, NULL);
        if (isfinite(pct))
            v[n++] = pct / 100, sum += pct / 100;
    }
    qsort(v, n, sizeof *v, cmp_double);
    gauge(f, "netvar_finished_window_seconds",
          "The window netvar_finished_* cover: jobs that ended within it.", o->window_s);
    gauge(f, "netvar_finished_jobs", "Jobs with a record that ended within the window.",
          (double)ended);
    head(f, "netvar_finished_job_observed_slowdown_ratio", "summary",
         "Observed slowdown of the jobs that ended within the window beside neighbours, "
         "against their app's baseline (quantile 0: least, 0.5: median, 1: most).");
    if (n) {
        double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        fprintf(f, "netvar_finished_job_observed_slowdown_ratio{quantile=\"0\"} %.10g\n", v[0]);
        fprintf(f, "netvar_finished_job_observed_slowdown_ratio{quantile=\"0.5\"} %.10g\n", med);
        fprintf(f, "netvar_finished_job_observed_slowdown_ratio{quantile=\"1\"} %.10g\n", v[n - 1]);
    }
    fprintf(f, "netvar_finished_job_observed_slowdown_ratio_sum %.10g\n", sum);
    fprintf(f, "netvar_finished_job_observed_slowdown_ratio_count %zu\n", n);
    free(v);
    nv_train_set_free(&s);
    return 0;
}

/* ------------------------------------------------------------ job_submit */

static void jobsubmit(FILE *f, const nv_prom_opts *o, nv_prom_log_fn log, void *ctx, int *ok)
{
    nv_submit_stats st;
    char err[600];
    *ok = 0;
    if (!o->jobsubmit_stats)
        return;
    if (nv_submit_stats_read(o->jobsubmit_stats, &st, err, sizeof err)) {
        log_line(log, ctx, "netvar: export: %s; no job_submit figures", err);
        return;
    }
    *ok = 1;
    gauge(f, "netvar_jobsubmit_start_time_seconds",
          "When the slurmctld whose job_submit/netvar counts these started counting (Unix "
          "time).",
          st.started_unix_s);
    gauge(f, "netvar_jobsubmit_stats_written_timestamp_seconds",
          "When job_submit/netvar last wrote its counts (Unix time; it does at least every "
          "minute).",
          st.written_unix_s);
    head(f, "netvar_jobsubmit_submissions_total", "counter",
         "Submissions job_submit/netvar decided on.");
    fprintf(f, "netvar_jobsubmit_submissions_total %llu\n", (unsigned long long)st.submissions);
    head(f, "netvar_jobsubmit_decisions_total", "counter",
         "Submissions whose job_submit/netvar decision had this action (a decision may have "
         "several; none: no action).");
    fprintf(f, "netvar_jobsubmit_decisions_total{action=\"none\"} %llu\n",
            (unsigned long long)st.no_action);
    for (int k = 0; k < NV_SUBMIT_STATS_ACTIONS; k++)
        fprintf(f, "netvar_jobsubmit_decisions_total{action=\"%s\"} %llu\n",
                nv_action_name((enum nv_action)(1u << k)), (unsigned long long)st.action[k]);
    head(f, "netvar_jobsubmit_call_duration_seconds", "histogram",
         "job_submit/netvar's own time per job_submit() call.");
    uint64_t cum = 0;
    for (size_t b = 0; b < NV_SUBMIT_STATS_BUCKETS; b++) {
        cum += st.bucket[b];
        fprintf(f, "netvar_jobsubmit_call_duration_seconds_bucket{le=\"%g\"} %llu\n",
                nv_submit_stats_le_s[b], (unsigned long long)cum);
    }
    fprintf(f, "netvar_jobsubmit_call_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
            (unsigned long long)st.calls);
    fprintf(f, "netvar_jobsubmit_call_duration_seconds_sum %.9g\n", (double)st.total_ns * 1e-9);
    fprintf(f, "netvar_jobsubmit_call_duration_seconds_count %llu\n", (unsigned long long)st.calls);
}

int nv_prom_export(const nv_prom_opts *o, nv_prom_log_fn log, void *ctx, char **out, size_t *len,
                   char *err, size_t errlen)
{
    *out = NULL;
    *len = 0;
    if (!o || !o->spool || !(o->window_s > 0) || o->max_jobs < 1 || o->max_jobs > NV_PROM_MAX_JOBS)
        return nv_err(err, errlen, "bad export options");
    FILE *f = open_memstream(out, len);
    if (!f)
        return nv_err(err, errlen, "out of memory");
    int ok_reg = 0, ok_rec = 0, ok_js = 0;
    int rc = running(f, o, log, ctx, &ok_reg);
    if (!rc)
        rc = finished(f, o, log, ctx, &ok_rec);
    if (!rc) {
        jobsubmit(f, o, log, ctx, &ok_js);
        head(f, "netvar_export_source_ok", "gauge",
             "1 when netvar export read this source, 0 when it could not (its figures are "
             "then absent).");
        fprintf(f, "netvar_export_source_ok{source=\"model\"} %d\n", o->model != NULL);
        fprintf(f, "netvar_export_source_ok{source=\"registry\"} %d\n", ok_reg);
        fprintf(f, "netvar_export_source_ok{source=\"records\"} %d\n", ok_rec);
        fprintf(f, "netvar_export_source_ok{source=\"jobsubmit\"} %d\n", ok_js);
        gauge(f, "netvar_export_timestamp_seconds", "When netvar export wrote this (Unix time).",
              o->now_unix_s);
    }
    if (fclose(f) || rc) {
        free(*out);
        *out = NULL;
        *len = 0;
        return nv_err(err, errlen, "out of memory");
    }
    return 0;
}
