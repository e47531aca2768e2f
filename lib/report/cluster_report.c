/* cluster_report.c - `netvar report --cluster` computed into a struct
 * (cluster_report.h). */
#include "cluster_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_err.h"
#include "plausible.h"

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
        o->running_s = nv_plausible_time(j->start_unix_s, now_unix_s) && now_unix_s >= j->start_unix_s
                           ? now_unix_s - j->start_unix_s
                           : NAN; /* no start, or one outside plausible.h's bounds */
        apps[at] = o->model_app;
        sw[at] = j->switches;
        r->known += o->model_app != NULL;
    }
    r->n_jobs = k;
    r->pairs_predicted =
        m ? nv_report_cluster_pairs(m, apps, sw, k, predictor, r->worst, NV_CLUSTER_REPORT_WORST) : 0;
    r->n_worst = r->pairs_predicted < NV_CLUSTER_REPORT_WORST ? r->pairs_predicted
                                                              : NV_CLUSTER_REPORT_WORST;
    free(apps), free(sw);
    return 0;
}

void nv_cluster_report_free(nv_cluster_report *r)
{
    if (!r)
        return;
    free(r->jobs);
    nv_registry_free(&r->registry);
    memset(r, 0, sizeof *r);
}
