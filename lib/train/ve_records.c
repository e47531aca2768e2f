/* ve_records.c - job records in and out of the Variability Estimate (see
 * ve_records.h). */
#define _GNU_SOURCE
#include "ve_records.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "job_record.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"
#include "safe_open.h"

#define MAX_LOGGED 20

json_object *nv_ve_read_record(const char *path, char *err, size_t errlen)
{
    return nv_json_read_file(path, NV_JOB_RECORD_MAX_BYTES, err, errlen);
}

struct walk {
    nv_ve_job *jobs;
    size_t n, cap;
    size_t skipped;
    nv_ve_log_fn log;
    void *log_arg;
    int oom;
};

static int cmp_ulong(const void *a, const void *b)
{
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return (x > y) - (x < y);
}

/* id: the job directory's (a record naming another job is a copy: it
 * would count twice); -1 for a record file named alone */
static void take(struct walk *w, const char *path, uid_t owner, long long id)
{
    char why[300];
    json_object *rec = nv_job_record_read_owned(path, owner, why, sizeof why);
    nv_ve_job job;
    int bad = !rec || nv_ve_job_from_record(rec, &job, why, sizeof why);
    if (!bad && id >= 0 && !(nv_json_num(rec, "job_id") == (double)id)) {
        snprintf(why, sizeof why, "job_id %.0f is not its directory's %lld",
                 nv_json_num(rec, "job_id"), id);
        bad = 1;
    }
    if (rec)
        json_object_put(rec);
    if (bad) {
        if (w->skipped++ < MAX_LOGGED)
            nv_logf(w->log, w->log_arg, "netvar: variability: %s: %s; skipped it", path, why);
        return;
    }
    if (w->n == w->cap) {
        size_t c = w->cap ? w->cap * 2 : 256;
        nv_ve_job *p = realloc(w->jobs, c * sizeof *p);
        if (!p) {
            w->oom = 1;
            return;
        }
        w->jobs = p;
        w->cap = c;
    }
    w->jobs[w->n++] = job;
}

/* <jobs>/<id>/job.json for every job directory, in job-id order, each
 * owned by the owner of <jobs> (root): nothing else under <jobs> (the
 * user-owned profiles/ directories) is ever read */
static void walk_jobs(struct walk *w, const char *jobs)
{
    uid_t owner;
    char why[200];
    if (nv_dir_owner(jobs, &owner, why, sizeof why)) {
        nv_logf(w->log, w->log_arg, "netvar: variability: %s: %s; skipped it", jobs, why);
        return;
    }
    DIR *d = opendir(jobs);
    if (!d) {
        nv_logf(w->log, w->log_arg, "netvar: variability: %s: cannot open: %s; skipped it", jobs,
                strerror(errno));
        return;
    }
    unsigned long *ids = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!nv_job_dir_name_ok(e->d_name))
            continue;
        if (nn == cap) {
            size_t c = cap ? cap * 2 : 256;
            unsigned long *p = realloc(ids, c * sizeof *p);
            if (!p) {
                w->oom = 1;
                break;
            }
            ids = p;
            cap = c;
        }
        ids[nn++] = strtoul(e->d_name, NULL, 10);
    }
    closedir(d);
    if (nn)
        qsort(ids, nn, sizeof *ids, cmp_ulong); /* the same spool gives the same training order */
    for (size_t i = 0; i < nn && !w->oom && w->n < NV_VE_MAX_RECORDS; i++) {
        char path[4200];
        if (snprintf(path, sizeof path, "%s/%lu/job.json", jobs, ids[i]) >= (int)sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) && errno == ENOENT)
            continue; /* running, or not collected yet */
        take(w, path, owner, (long long)ids[i]);
    }
    free(ids);
}

long nv_ve_load_dirs(const char *const *dirs, size_t ndirs, nv_ve_job **jobs, nv_ve_log_fn log,
                     void *log_arg, char *err, size_t errlen)
{
    struct walk w = {.log = log, .log_arg = log_arg};
    *jobs = NULL;
    for (size_t i = 0; i < ndirs; i++) {
        struct stat st;
        char jobs_dir[4096];
        if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: not a directory", dirs[i]);
            free(w.jobs);
            return -1;
        }
        /* a spool (with jobs/ inside) or its jobs directory */
        if (nv_spool_jobs_path(dirs[i], -1, NULL, jobs_dir, sizeof jobs_dir) ||
            lstat(jobs_dir, &st) || !S_ISDIR(st.st_mode))
            snprintf(jobs_dir, sizeof jobs_dir, "%s", dirs[i]);
        walk_jobs(&w, jobs_dir);
    }
    if (w.oom) {
        snprintf(err, errlen, "out of memory after %zu records", w.n);
        free(w.jobs);
        return -1;
    }
    if (w.skipped > MAX_LOGGED)
        nv_logf(log, log_arg, "netvar: variability: %zu more records skipped (not logged)",
                w.skipped - MAX_LOGGED);
    *jobs = w.jobs;
    return (long)w.n;
}

nv_ve *nv_ve_train_jobs(const nv_ve_job *jobs, size_t n, size_t min_group,
                        const nv_ve_train_opts *o, size_t *used, char *err, size_t errlen)
{
    if (used)
        *used = 0;
    double *z = malloc((n ? n : 1) * sizeof *z);
    double *feat = malloc((n ? n : 1) * NV_VE_NFEAT * sizeof *feat);
    double *zz = malloc((n ? n : 1) * sizeof *zz);
    if (!z || !feat || !zz) {
        free(z);
        free(feat);
        free(zz);
        snprintf(err, errlen, "variability: out of memory for %zu jobs", n);
        return NULL;
    }
    nv_ve_runtime_zscores(jobs, n, min_group, z);
    size_t m = 0;
    char why[200];
    for (size_t i = 0; i < n; i++)
        if (isfinite(z[i]) &&
            !nv_ve_select_features(&jobs[i], feat + m * NV_VE_NFEAT, why, sizeof why))
            zz[m++] = z[i];
    nv_ve *ve = NULL;
    if (m == 0)
        snprintf(err, errlen,
                 "variability: none of %zu jobs is usable (each needs a runtime, the "
                 "7 features, and %zu or more runs of its app at its node count); "
                 "nothing trained",
                 n, min_group);
    else
        ve = nv_ve_train(feat, zz, m, o, err, errlen);
    if (used)
        *used = m;
    free(z);
    free(feat);
    free(zz);
    return ve;
}

int nv_ve_estimate_record(const nv_ve *ve, json_object *rec, nv_ve_result *out, char *err,
                          size_t errlen)
{
    nv_ve_job job;
    double feat[NV_VE_NFEAT];
    memset(out, 0, sizeof *out);
    out->label = "outside training data";
    if (nv_ve_job_from_record(rec, &job, err, errlen) ||
        nv_ve_select_features(&job, feat, err, errlen))
        return -1;
    nv_ve_estimate(ve, feat, out);
    return 0;
}

void nv_ve_format(const nv_ve *ve, const nv_ve_result *r, char *buf, size_t len)
{
    if (r->answered)
        snprintf(buf, len, "%+.1f σ (± %.1f): %s", r->z, r->half_width, r->label);
    else if (ve && ve->cal.calibrated)
        snprintf(buf, len,
                 "no estimate: outside training data (SVR %+.1f σ and forest %+.1f σ "
                 "differ by more than the %.0f %% error bound ± %.1f σ)",
                 r->svr, r->forest_mean, 100 * ve->cal.level, r->half_width);
    else
        snprintf(buf, len,
                 "no estimate: outside training data (SVR %+.1f σ is not inside the "
                 "forest's %.0f-%.0f %% interval [%+.1f, %+.1f] σ)",
                 r->svr, ve ? 100 * ve->lo_q : 5, ve ? 100 * ve->hi_q : 95, r->forest_lo,
                 r->forest_hi);
}

json_object *nv_ve_result_json(const nv_ve *ve, const nv_ve_result *r)
{
    json_object *o = json_object_new_object();
    char text[300];
    nv_ve_format(ve, r, text, sizeof text);
    json_object_object_add(o, "answered", json_object_new_boolean(r->answered));
    json_object_object_add(o, "estimate_sigma", r->answered ? nv_json_new_num(r->z) : NULL);
    json_object_object_add(o, "half_width_sigma",
                           r->answered ? nv_json_new_num(r->half_width) : NULL);
    json_object_object_add(o, "label", json_object_new_string(r->label));
    json_object_object_add(o, "text", json_object_new_string(text));
    json_object_object_add(o, "svr_sigma", nv_json_new_num(r->svr));
    json_object_object_add(o, "forest_mean_sigma", nv_json_new_num(r->forest_mean));
    json_object_object_add(o, "forest_lo_sigma", nv_json_new_num(r->forest_lo));
    json_object_object_add(o, "forest_hi_sigma", nv_json_new_num(r->forest_hi));
    char how[300];
    if (ve && ve->cal.calibrated)
        snprintf(how, sizeof how,
                 "error bound: %.3f x (SD of the tree predictions + %.3f sigma), "
                 "calibrated on out-of-sample residuals to cover %.0f %% of jobs; forest "
                 "interval: mean +/- %.3f x the same",
                 ve->cal.svr_factor, ve->cal.spread_floor, 100 * ve->cal.level, ve->cal.factor);
    else
        snprintf(how, sizeof how, "%g-%g quantiles of tree predictions (uncalibrated model)",
                 ve ? ve->lo_q : 0.05, ve ? ve->hi_q : 0.95);
    json_object_object_add(o, "interval", json_object_new_string(how));
    json_object_object_add(
        o, "unit",
        json_object_new_string(
            "standard deviations of the app's runtime at this node count (sigma)"));
    return o;
}
