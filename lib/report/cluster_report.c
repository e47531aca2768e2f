/* cluster_report.c - `netvar report --cluster` computed into a struct
 * (cluster_report.h). */
#include "cluster_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"
#include "plausible.h"

#include <math.h>

/* job i's own slowdown beside the distinct known apps of the jobs whose
 * paths meet its own */
static void predict_job(nv_cluster_report *r, const nv_model *m, size_t i)
{
    nv_cluster_report_job *o = &r->jobs[i];
    const char *with[NV_PRED_MAX_WITH];
    size_t nw = 0;
    for (size_t j = 0; j < r->n_jobs; j++) {
        const nv_cluster_report_job *x = &r->jobs[j];
        if (j == i || !nv_report_paths_meet(o->switches, x->switches))
            continue;
        o->sharing++;
        if (!x->model_app)
            continue;
        size_t q = 0;
        while (q < nw && strcmp(with[q], x->model_app))
            q++;
        if (q == nw && nw < NV_PRED_MAX_WITH)
            with[nw++] = x->model_app;
    }
    o->predicted_pct = NAN;
    if (!o->model_app)
        return;
    if (!nw) {
        /* alone on its path: 0; beside jobs the model knows nothing of:
         * no answer (0 would claim they load nothing) */
        if (!o->sharing) {
            o->predicted_pct = 0;
            o->predicted_source = "no neighbour";
        }
        return;
    }
    nv_prediction p;
    if (nv_predict(m, o->model_app, with, nw, r->predictor, NV_DEFAULT_MIN_SAMPLES, &p, NULL) ==
            NV_PRED_OK &&
        isfinite(p.slowdown_pct)) {
        o->predicted_pct = p.slowdown_pct;
        o->predicted_source = p.source_label;
    }
}

struct up_entry {
    const char *name;
    size_t len, job;
};

static int cmp_up(const void *a, const void *b)
{
    const struct up_entry *x = a, *y = b;
    size_t l = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, l);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* every leaf switch named by a job across several, with the jobs that load
 * its uplink; 0 or -1 (out of memory) */
static int build_uplinks(nv_cluster_report *r, const nv_model *m)
{
    size_t n = 0, cap = 0;
    struct up_entry *e = NULL;
    for (size_t i = 0; i < r->n_jobs; i++) {
        const char *sw = r->jobs[i].switches;
        if (!strchr(sw, ','))
            continue;
        for (const char *p = sw; *p;) {
            const char *c = strchr(p, ',');
            size_t l = c ? (size_t)(c - p) : strlen(p);
            if (l) {
                if (n == cap) {
                    size_t nc = cap ? 2 * cap : 16;
                    struct up_entry *g = realloc(e, nc * sizeof *e);
                    if (!g) {
                        free(e);
                        return -1;
                    }
                    e = g, cap = nc;
                }
                e[n++] = (struct up_entry){p, l, i};
            }
            p += l + (c != NULL);
        }
    }
    if (n)
        qsort(e, n, sizeof *e, cmp_up);
    r->uplinks = calloc(n ? n : 1, sizeof *r->uplinks);
    if (!r->uplinks) {
        free(e);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        int same_name =
            k && e[k].len == e[k - 1].len && !memcmp(e[k].name, e[k - 1].name, e[k].len);
        if (same_name && e[k].job == e[k - 1].job)
            continue; /* a switch named twice in one job's list */
        if (!same_name)
            r->uplinks[r->n_uplinks++] = (nv_cluster_report_uplink){e[k].name, e[k].len, 0, 0, 0};
        nv_cluster_report_uplink *u = &r->uplinks[r->n_uplinks - 1];
        const nv_cluster_report_job *j = &r->jobs[e[k].job];
        u->jobs++;
        nv_app_view av;
        int32_t ai = j->model_app ? nv_model_app_index(m, j->model_app) : -1;
        if (ai >= 0 && !nv_model_app(m, ai, &av) && isfinite(av.utilization))
            u->utilization += av.utilization;
        else
            u->jobs_unknown++;
    }
    free(e);
    return 0;
}

int nv_cluster_report_build(const char *spool, const nv_model *m, nv_predictor predictor,
                            double now_unix_s, nv_cluster_report_log_fn log, void *ctx,
                            nv_cluster_report *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->have_model = m != NULL;
    r->predictor = predictor;
    char dir[4200];
    if (!spool || snprintf(dir, sizeof dir, "%s/running", spool) >= (int)sizeof dir)
        return nv_err(err, errlen, "spool path is too long");
    nv_registry_init(&r->registry, dir);
    if (nv_registry_refresh(&r->registry, log, ctx) < 0) {
        nv_cluster_report_free(r);
        return nv_err(err, errlen, "%s: cannot read the running-jobs registry", dir);
    }
    size_t n = r->registry.n;
    r->jobs = calloc(n ? n : 1, sizeof *r->jobs);
    const char **apps = calloc(n ? n : 1, sizeof *apps), **sw = calloc(n ? n : 1, sizeof *sw);
    if (!r->jobs || !apps || !sw) {
        free(apps), free(sw);
        nv_cluster_report_free(r);
        return nv_err(err, errlen, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nv_running_job *j = &r->registry.jobs[i];
        if (j->refused) { /* a file the registry refused: said, and not a running job */
            r->refused++;
            continue;
        }
        nv_cluster_report_job *o = &r->jobs[k];
        size_t at = k++;
        o->job_id = j->jobid;
        o->app = j->app;
        o->model_app = j->app[0] && m && nv_model_app_index(m, j->app) >= 0 ? j->app : NULL;
        o->nodes = j->nodes ? j->nodes : "";
        o->switches = j->switches ? j->switches : "";
        o->running_s =
            nv_plausible_time(j->start_unix_s, now_unix_s) && now_unix_s >= j->start_unix_s
                ? now_unix_s - j->start_unix_s
                : NAN; /* no start, or one outside plausible.h's bounds */
        apps[at] = o->model_app;
        sw[at] = j->switches;
        r->known += o->model_app != NULL;
    }
    r->n_jobs = k;
    r->pairs_predicted =
        m ? nv_report_cluster_pairs(m, apps, sw, k, predictor, r->worst, NV_CLUSTER_REPORT_WORST)
          : 0;
    r->n_worst =
        r->pairs_predicted < NV_CLUSTER_REPORT_WORST ? r->pairs_predicted : NV_CLUSTER_REPORT_WORST;
    free(apps), free(sw);
    for (size_t i = 0; i < n; i++)
        predict_job(r, m, i);
    if (build_uplinks(r, m)) {
        nv_cluster_report_free(r);
        return nv_err(err, errlen, "out of memory");
    }
    return 0;
}

void nv_cluster_report_free(nv_cluster_report *r)
{
    if (!r)
        return;
    free(r->jobs);
    free(r->uplinks);
    nv_registry_free(&r->registry);
    memset(r, 0, sizeof *r);
}
