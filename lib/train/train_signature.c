/* train_signature.c - apps' signatures from the job records' segment
 * profiles (train_history.h, nv_train_signatures). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"
#include "job_record.h"
#include "nv_err.h"
#include "segment_profile.h"
#include "train_history.h"

_Static_assert(NV_FABRIC_CLASSES == NV_SEG_COMM_OPS * NV_SEG_SIZE_CLASSES,
               "a signature class per profiled operation and size class");

struct cand {
    uint32_t app;
    int timed;
    double end_s;
    int64_t job_id;
    double runtime_s;
};

/* app ascending, then the latest first: timed jobs by end time, then id */
static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->app != y->app)
        return x->app < y->app ? -1 : 1;
    if (x->timed != y->timed)
        return y->timed - x->timed;
    if (x->timed && x->end_s != y->end_s)
        return x->end_s > y->end_s ? -1 : 1;
    return (y->job_id > x->job_id) - (y->job_id < x->job_id);
}

static void note_unusable(nv_train_stats *t, const char *why)
{
    if (!t->profiles_unusable++ && !t->profile_error[0])
        nv_err(t->profile_error, sizeof t->profile_error, "%s", why);
}

int nv_train_signature_of(const char *pdir, double runtime_s, nv_signature *out, int *v1, char *err,
                          size_t errlen)
{
    char path[4800];
    *v1 = 0;
    memset(out, 0, sizeof *out);
    nv_seg_profile p;
    int lr = nv_seg_job_profile_load(pdir, &p, path, sizeof path, err, errlen);
    if (lr <= 0)
        return lr;
    int rc = -1;
    if (!p.comm || !p.comm_rows) {
        *v1 = 1;
        nv_err(err, errlen, "%s: version 1 (no time in MPI by class)", path);
        goto done;
    }
    double comm = 0;
    for (size_t i = 0; i < p.n; i++) {
        uint32_t r = p.comm[i];
        if (r >= p.ncomm)
            continue; /* the loader checks it; row 0 stands for none */
        for (int c = 0; c < NV_FABRIC_CLASSES; c++)
            out->comm_us[c] += p.comm_rows[r][c];
        out->overlap_us += p.comm_rows[r][NV_SEG_M_OVERLAP_US - NV_SEG_M_COMM_FIRST];
    }
    for (int c = 0; c < NV_FABRIC_CLASSES; c++)
        comm += out->comm_us[c];
    out->runtime_us = runtime_s * 1e6;
    out->runs = 1;
    if (!(out->runtime_us > 0) || !isfinite(comm) || comm > out->runtime_us) {
        nv_err(err, errlen, "%s: %.0f us in MPI in a job of %.0f us", path, comm, out->runtime_us);
        goto done;
    }
    /* the overlap is time outside MPI: at most what the runtime leaves */
    if (out->overlap_us > out->runtime_us - comm)
        out->overlap_us = out->runtime_us - comm;
    rc = 1;
done:
    nv_seg_profile_free(&p);
    return rc;
}

/* 1 with *out, 0 no profile, -1 unusable (counted) */
static int job_signature(const char *spool, int64_t id, double runtime_s, nv_train_stats *t,
                         nv_signature *out)
{
    char pdir[4400], err[700];
    if (nv_spool_jobs_path(spool, (long long)id, "profiles", pdir, sizeof pdir))
        return 0;
    int v1;
    int rc = nv_train_signature_of(pdir, runtime_s, out, &v1, err, sizeof err);
    if (v1)
        t->profiles_v1++;
    if (rc < 0)
        note_unusable(t, err);
    return rc;
}

int nv_train_signatures(nv_train_set *s, const char *spool)
{
    nv_train_stats *t = &s->stats;
    t->signatures = t->profiles_unusable = t->profiles_v1 = 0;
    t->profile_error[0] = 0;
    free(s->sigs);
    free(s->sig_ok);
    s->sigs = NULL;
    s->sig_ok = NULL;
    if (!s->n_apps)
        return 0;
    s->sigs = calloc(s->n_apps, sizeof *s->sigs);
    s->sig_ok = calloc(s->n_apps, 1);
    struct cand *c = s->n ? malloc(s->n * sizeof *c) : NULL;
    if (!s->sigs || !s->sig_ok || (s->n && !c)) {
        free(c);
        return -1;
    }
    if (!spool) {
        free(c);
        return 0;
    }
    size_t nc = 0;
    for (size_t i = 0; i < s->n; i++) {
        const nv_train_sum *j = &s->jobs[i];
        if (j->profiled)
            c[nc++] = (struct cand){j->app, isfinite(j->end_s), j->end_s, j->job_id, j->runtime_s};
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    for (size_t i = 0; i < nc; i++) {
        uint32_t a = c[i].app;
        if (a >= s->n_apps || s->sig_ok[a])
            continue;
        if (job_signature(spool, c[i].job_id, c[i].runtime_s, t, &s->sigs[a]) == 1) {
            s->sig_ok[a] = 1;
            t->signatures++;
        }
    }
    free(c);
    return 0;
}
