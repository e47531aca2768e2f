/* stream_accuracy.c - job_submit's answers against what happened
 * (stream_accuracy.h). */
#include "stream_accuracy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_record.h"
#include "job_report.h"
#include "json_file.h"
#include "nv_err.h"
#include "report_logic.h"
#include "safe_open.h"
#include "sort_cmp.h"
#include "train_history.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* xorshift64*: the bootstrap's draws, seeded the same every time */
static uint64_t draw(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

int nv_accuracy_compute(const double *said, const double *observed, size_t n, double slowed_pct,
                        unsigned rounds, nv_accuracy *a)
{
    if (!a || (n && (!said || !observed)))
        return -1;
    memset(a, 0, sizeof *a);
    a->mae_pp = a->bias_pp = a->lo_pp = a->hi_pp = a->mae_slowed_pp = NAN;
    a->slowed_pct = slowed_pct;
    double *err = n ? malloc(n * sizeof *err) : NULL;
    if (n && !err)
        return -1;
    double sum = 0, bias = 0, slowed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(said[i]) || !isfinite(observed[i]))
            continue;
        double e = said[i] - observed[i];
        err[a->n++] = fabs(e);
        sum += fabs(e);
        bias += e;
        if (observed[i] >= slowed_pct) {
            a->n_slowed++;
            slowed += fabs(e);
        }
    }
    if (a->n) {
        a->mae_pp = sum / (double)a->n;
        a->bias_pp = bias / (double)a->n;
    }
    if (a->n_slowed)
        a->mae_slowed_pp = slowed / (double)a->n_slowed;
    int rc = 0;
    if (a->n >= 2 && rounds >= 2) {
        double *means = malloc((size_t)rounds * sizeof *means);
        if (!means) {
            rc = -1;
        } else {
            uint64_t seed = 0x9E3779B97F4A7C15ull;
            for (unsigned r = 0; r < rounds; r++) {
                double t = 0;
                for (size_t i = 0; i < a->n; i++)
                    t += err[draw(&seed) % a->n];
                means[r] = t / (double)a->n;
            }
            qsort(means, rounds, sizeof *means, cmp_double);
            a->lo_pp = means[(size_t)(0.025 * (rounds - 1) + 0.5)];
            a->hi_pp = means[(size_t)(0.975 * (rounds - 1) + 0.5)];
            free(means);
        }
    }
    free(err);
    return rc;
}

static void log_quiet(void *ctx, const char *line)
{
    (void)ctx;
    (void)line; /* corrupt records are train's to report; here they are not scored */
}

struct ended {
    size_t i;
    double end_s;
};

static int cmp_end(const void *a, const void *b)
{
    const struct ended *x = a, *y = b;
    if (x->end_s != y->end_s)
        return x->end_s < y->end_s ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int in_window(const nv_accuracy_window *w, double end_s)
{
    if (!isfinite(end_s))
        return 0; /* not finished, or no times: no window holds it */
    if (w && isfinite(w->since_unix_s) && end_s < w->since_unix_s)
        return 0;
    if (w && isfinite(w->until_unix_s) && end_s >= w->until_unix_s)
        return 0;
    return 1;
}

/* the annotation of job id, read from its record (root's, like the spool's
 * jobs directory); 0 when it holds one */
static int annotation_of(const char *spool, uid_t owner, int64_t id, nv_report_annotation *an)
{
    char path[4400], why[300];
    memset(an, 0, sizeof *an);
    an->own_pct = an->inflicted_pct = NAN;
    if (nv_spool_jobs_path(spool, (long long)id, "job.json", path, sizeof path))
        return -1;
    json_object *rec = nv_json_read_owned(path, owner, NV_JOB_RECORD_MAX_BYTES, why, sizeof why);
    if (!rec)
        return -1;
    int rc = nv_report_annotation_from_record(rec, an, why, sizeof why);
    json_object_put(rec);
    return rc || !an->recorded ? -1 : 0;
}

int nv_stream_accuracy_build(const char *spool, const nv_model *m, const nv_accuracy_window *w,
                             nv_stream_accuracy *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->first_end_s = s->last_end_s = NAN;
    char jobs[4400], why[300];
    uid_t owner;
    if (nv_spool_jobs_path(spool, -1, NULL, jobs, sizeof jobs))
        return nv_err(err, errlen, "spool path is too long");
    if (nv_dir_owner(jobs, &owner, why, sizeof why))
        return nv_err(err, errlen, "%.300s: %s", jobs, why);
    nv_train_opts to;
    nv_train_opts_default(&to);
    nv_train_set set;
    nv_train_set_init(&set);
    double service = m ? nv_model_calibration(m)->service_us : 0;
    struct ended *e = NULL;
    double *said = NULL, *obs = NULL;
    int rc = -1;
    if (nv_train_scan_spool(spool, service, &to, &set, log_quiet, NULL, err, errlen))
        goto out;
    if (nv_train_analyze(&set, &to)) {
        nv_err(err, errlen, "out of memory");
        goto out;
    }
    e = malloc((set.n ? set.n : 1) * sizeof *e);
    said = malloc((set.n ? set.n : 1) * sizeof *said);
    obs = malloc((set.n ? set.n : 1) * sizeof *obs);
    if (!e || !said || !obs) {
        nv_err(err, errlen, "out of memory");
        goto out;
    }
    size_t ne = 0;
    for (size_t i = 0; i < set.n; i++)
        if (in_window(w, set.jobs[i].end_s))
            e[ne++] = (struct ended){i, set.jobs[i].end_s};
    qsort(e, ne, sizeof *e, cmp_end);
    size_t from = w && w->last && w->last < ne ? ne - w->last : 0;
    size_t np = 0;
    for (size_t k = from; k < ne; k++) {
        const nv_train_sum *j = &set.jobs[e[k].i];
        s->finished++;
        nv_report_annotation an;
        if (annotation_of(spool, owner, j->job_id, &an))
            continue;
        s->annotated++;
        if (!isfinite(an.own_pct))
            continue;
        s->predicted++;
        const char *app = set.apps[j->app];
        double o = nv_job_report_observed_pct(&set, e[k].i, m, app, j->nodes, j->runtime_s, NULL);
        if (!isfinite(o))
            continue;
        said[np] = an.own_pct;
        obs[np++] = o;
        s->beside_many += an.vs_n > 1;
        if (!isfinite(s->first_end_s))
            s->first_end_s = e[k].end_s;
        s->last_end_s = e[k].end_s;
    }
    s->observed = np;
    if (nv_accuracy_compute(said, obs, np, 10.0, NV_ACCURACY_BOOT_ROUNDS, &s->acc)) {
        nv_err(err, errlen, "out of memory");
        goto out;
    }
    rc = 0;
out:
    free(e);
    free(said);
    free(obs);
    nv_train_set_free(&set);
    return rc;
}
