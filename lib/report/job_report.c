/* job_report.c - `netvar report JOBID` computed into a struct (job_report.h). */
#include "job_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h"
#include "safe_open.h"
#include "nv_err.h"
#include "nv_json.h"
#include "plausible.h"
#include "train_history.h"
#include "job_record.h"
#include "ve_features.h"

static void log_quiet(void *ctx, const char *line)
{
    (void)ctx;
    (void)line; /* train reports corrupt records; the report only counts on them */
}

static void copy_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static void record_facts(nv_job_report *r, json_object *rec)
{
    const char *app = nv_json_str(rec, "app");
    r->has_app = app != NULL;
    copy_str(r->app, sizeof r->app, app);
    json_object *v = nv_json_get(rec, "nodes", json_type_array);
    r->nodes = v ? json_object_array_length(v) : 0;
    r->runtime_s = nv_json_num(rec, "runtime_s");
    if (!nv_plausible_runtime(r->runtime_s))
        r->runtime_s = NAN; /* "n/a", never -142.40 s or 1e308 s (plausible.h) */
    if (json_object_object_get_ex(rec, "switches", &v))
        r->switches = json_object_get(v);

    json_object *u = nv_json_get(rec, "utilization", json_type_object);
    r->has_utilization = u != NULL;
    r->service_us = nv_json_num(u, "service_us");
    const char *ms = nv_json_str(u, "mu_source");
    copy_str(r->mu_source, sizeof r->mu_source, ms ? ms : "none");
    json_object *ports = nv_json_get(u, "ports", json_type_array);
    r->ports = ports ? (long)json_object_array_length(ports) : -1;

    char why[160];
    json_object *b = nv_json_get(rec, "bottleneck", json_type_object);
    if (nv_job_record_bottleneck_u(rec, &r->bn_u_up, &r->bn_u_down, why, sizeof why) < 0)
        copy_str(r->bn_source, sizeof r->bn_source, why);
    else
        copy_str(r->bn_source, sizeof r->bn_source, nv_json_str(b, "source"));
    r->bn_uplink_u_up = nv_json_num(b, "uplink_u_up");
    r->bn_uplink_u_down = nv_json_num(b, "uplink_u_down");
    r->bn_capacity_Bps = nv_json_num(b, "capacity_Bps");
    copy_str(r->bn_leaf_up, sizeof r->bn_leaf_up, nv_json_str(b, "leaf_up"));
    copy_str(r->bn_leaf_down, sizeof r->bn_leaf_down, nv_json_str(b, "leaf_down"));

    json_object *metrics;
    if (!json_object_object_get_ex(rec, "metrics", &metrics) || !metrics)
        return;
    r->metrics_json = json_object_get(metrics);
    if (!json_object_is_type(metrics, json_type_object))
        return;
    size_t n = (size_t)json_object_object_length(metrics);
    r->metrics = calloc(n ? n : 1, sizeof *r->metrics);
    if (!r->metrics)
        return;
    json_object_object_foreach(metrics, mk, mv)
    {
        nv_job_report_metric *x = &r->metrics[r->n_metrics++];
        copy_str(x->name, sizeof x->name, mk);
        copy_str(x->unit, sizeof x->unit, nv_json_str(mv, "unit"));
        copy_str(x->source, sizeof x->source, nv_json_str(mv, "source"));
        x->mean = nv_json_num(mv, "mean");
        x->p95 = nv_json_num(mv, "p95");
    }
}

static void segment_estimate(nv_job_report *r, const char *spool)
{
    char perr[512], pdir[4400];
    nv_seg_estimate_opts so;
    nv_seg_estimate_opts_default(&so);
    r->profile[0] = 0;
    if (nv_spool_jobs_path(spool, (long long)r->job_id, "profiles", pdir, sizeof pdir))
        return; /* spool path too long: no profile found */
    /* the job's profiles belong to the job's user, who owns profiles/ */
    int lr = nv_seg_job_profile_load(pdir, &r->seg_profile, r->profile, sizeof r->profile, perr,
                                     sizeof perr);
    if (lr <= 0) {
        memset(&r->seg_profile, 0, sizeof r->seg_profile);
        if (lr < 0)
            nv_err(r->segment_note, sizeof r->segment_note, "%s", perr);
        return;
    }
    const nv_seg_profile *p = &r->seg_profile;
    if (nv_seg_estimate_run(p->work, p->time_us, p->signature, p->n, p->meta.runtime_us, &so,
                            &r->seg)) {
        nv_err(r->segment_note, sizeof r->segment_note, "cannot estimate (out of memory)");
        return;
    }
    r->has_segments = 1;
}

double nv_job_report_observed_pct(const nv_train_set *s, size_t i, const nv_model *m,
                                  const char *app, uint32_t nodes, double runtime_s,
                                  double *baseline_s)
{
    double base = s->jobs[i].baseline_s, pct = s->jobs[i].slowdown_pct;
    /* a baseline from history at this size; else the model's scaling */
    if (!isfinite(base) && m && app) {
        int32_t ai = nv_model_app_index(m, app);
        nv_app_view av;
        double t;
        if (ai >= 0 && !nv_model_app(m, ai, &av) &&
            !nv_scaling_time_s(av.scaling, av.n_scaling, nodes, &t)) {
            base = t;
            pct = (runtime_s / t - 1) * 100;
        }
    }
    if (baseline_s)
        *baseline_s = base;
    return pct;
}

/* neighbours, baseline, observed and predicted slowdown */
static void neighbours(nv_job_report *r, const char *spool, const nv_model *m,
                       nv_predictor predictor, double service_us)
{
    nv_train_opts to;
    nv_train_opts_default(&to);
    nv_train_set s;
    nv_train_set_init(&s);
    char err[512];
    if (nv_train_scan_spool(spool, service_us, &to, &s, log_quiet, NULL, err, sizeof err) ||
        nv_train_analyze(&s, &to))
        goto out;
    long me = nv_train_find_job(&s, r->job_id);
    if (me < 0)
        goto out;
    size_t idx[NV_JOB_REPORT_MAX_NEIGHBOURS];
    r->n_neighbours = nv_train_neighbours(&s, (size_t)me, idx, NV_JOB_REPORT_MAX_NEIGHBOURS);
    const char *with[NV_JOB_REPORT_MAX_NEIGHBOURS];
    size_t nw = 0;
    for (size_t k = 0; k < r->n_neighbours && k < NV_JOB_REPORT_MAX_NEIGHBOURS; k++) {
        const nv_train_sum *o = &s.jobs[idx[k]];
        nv_job_report_neighbour *e = &r->neighbours[r->n_listed++];
        e->job_id = o->job_id;
        copy_str(e->app, sizeof e->app, s.apps[o->app]);
        e->overlap_s = nv_train_overlap_s(&s, &s.jobs[me], o);
        e->rho = o->rho;
        int dup = 0;
        for (size_t q = 0; q < nw; q++)
            dup |= !strcmp(with[q], s.apps[o->app]);
        if (!dup)
            with[nw++] = s.apps[o->app];
    }
    r->observed_pct = nv_job_report_observed_pct(&s, (size_t)me, m, r->has_app ? r->app : NULL,
                                                 (uint32_t)r->nodes, r->runtime_s, &r->baseline_s);
    nv_prediction pr;
    if (nw && m && r->has_app &&
        nv_predict(m, r->app, with, nw, predictor, NV_DEFAULT_MIN_SAMPLES, &pr, NULL) ==
            NV_PRED_OK) {
        r->predicted_pct = pr.slowdown_pct;
        copy_str(r->predicted_source, sizeof r->predicted_source, pr.source_label);
    }
out:
    nv_train_set_free(&s);
}

static void variability(nv_job_report *r, json_object *rec, const nv_model *m)
{
    const struct nv_ve *ve = m ? nv_model_variability(m) : NULL;
    r->ve_in_model = ve != NULL;
    if (!ve)
        return;
    nv_ve_job vj;
    double feat[NV_VE_NFEAT];
    if (nv_ve_job_from_record(rec, &vj, r->ve_unavailable, sizeof r->ve_unavailable) ||
        nv_ve_select_features(&vj, feat, r->ve_unavailable, sizeof r->ve_unavailable))
        return;
    nv_ve_estimate(ve, feat, &r->ve);
    r->ve_ok = 1;
}

int nv_job_report_build(const char *spool, int64_t job_id, const nv_model *m,
                        nv_predictor predictor, nv_job_report *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->job_id = job_id;
    r->runtime_s = r->rho = r->service_us = NAN;
    r->bn_u_up = r->bn_u_down = r->bn_uplink_u_up = r->bn_uplink_u_down = NAN;
    r->bn_capacity_Bps = NAN;
    r->baseline_s = r->observed_pct = r->predicted_pct = NAN;
    r->at_submission.own_pct = r->at_submission.inflicted_pct = NAN;
    r->ports = -1;
    char path[4400], why[300];
    /* the record is root's (the owner of <spool>/jobs), never the user's */
    char jobs[4400];
    uid_t owner;
    if (nv_spool_jobs_path(spool, (long long)job_id, "job.json", path, sizeof path) ||
        nv_spool_jobs_path(spool, -1, NULL, jobs, sizeof jobs))
        return nv_err(err, errlen, "spool path is too long");
    if (nv_dir_owner(jobs, &owner, why, sizeof why))
        return nv_err(err, errlen, "%.300s: %s", jobs, why);
    json_object *rec = nv_json_read_owned(path, owner, NV_JOB_RECORD_MAX_BYTES, why, sizeof why);
    if (!rec)
        return nv_err(err, errlen, "%.300s: %s", path, why);
    record_facts(r, rec);

    /* own utilization, as train reads it */
    nv_train_job self;
    char appkey[NV_MODEL_KEY_MAX + 1];
    double service = m ? nv_model_calibration(m)->service_us : 0;
    int parsed = nv_train_job_from_record(rec, service, &self, appkey, why, sizeof why);
    if (parsed >= 0)
        r->rho = self.rho;

    segment_estimate(r, spool);
    if (parsed == 0)
        neighbours(r, spool, m, predictor, service);
    if (nv_report_annotation_from_record(rec, &r->at_submission, r->annotation_note,
                                         sizeof r->annotation_note))
        r->at_submission.recorded = 0;
    variability(r, rec, m);
    json_object_put(rec);
    return 0;
}

int nv_job_report_kept_apart(const nv_job_report *r)
{
    const char *apps[NV_JOB_REPORT_MAX_NEIGHBOURS];
    int64_t jobs[NV_JOB_REPORT_MAX_NEIGHBOURS];
    for (size_t k = 0; k < r->n_listed; k++) {
        apps[k] = r->neighbours[k].app;
        jobs[k] = r->neighbours[k].job_id;
    }
    return nv_report_kept_apart(&r->at_submission, apps, jobs, r->n_listed,
                                r->n_listed == r->n_neighbours);
}

void nv_job_report_free(nv_job_report *r)
{
    if (!r)
        return;
    json_object_put(r->switches);
    json_object_put(r->metrics_json);
    free(r->metrics);
    nv_seg_profile_free(&r->seg_profile);
    memset(r, 0, sizeof *r);
}

int nv_job_report_timeline(const nv_job_report *r, nv_seg_timeline *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!r->has_segments)
        return nv_err(err, errlen, "job %lld has no segment profile", (long long)r->job_id);
    const nv_seg_profile *p = &r->seg_profile;
    size_t n = p->n, cap = n ? n : 1;
    t->start_s = malloc(cap * sizeof *t->start_s);
    t->duration_ms = malloc(cap * sizeof *t->duration_ms);
    t->interfered = malloc(cap);
    if (!t->start_s || !t->duration_ms || !t->interfered) {
        nv_seg_timeline_free(t);
        return nv_err(err, errlen, "out of memory");
    }
    nv_seg_estimate_opts o;
    nv_seg_estimate_opts_default(&o);
    long nf = nv_report_segment_flags(p->work, p->time_us, p->signature, n, &o, t->interfered);
    if (nf < 0) {
        nv_seg_timeline_free(t);
        return nv_err(err, errlen, "the segment estimate failed");
    }
    double at = 0;
    for (size_t i = 0; i < n; i++) {
        double d = isfinite(p->time_us[i]) && p->time_us[i] > 0 ? p->time_us[i] : 0;
        t->start_s[i] = at * 1e-6;
        t->duration_ms[i] = d * 1e-3;
        at += d;
    }
    t->n = n;
    t->n_interfered = (size_t)nf;
    return 0;
}

void nv_seg_timeline_free(nv_seg_timeline *t)
{
    if (!t)
        return;
    free(t->start_s);
    free(t->duration_ms);
    free(t->interfered);
    memset(t, 0, sizeof *t);
}
