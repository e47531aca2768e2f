/* alloc_records.c - production job records as communication-time training
 * rows (alloc_records.h). */
#include "alloc_records.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_record.h"
#include "json_file.h"
#include "model.h"
#include "nv_err.h"
#include "nv_json.h"
#include "report_logic.h"
#include "safe_open.h"
#include "segment_profile.h"
#include "sort_cmp.h"

#define PROFILE_MAX_BYTES ((size_t)512 << 20) /* as the segment profile loader */
#define ROW_MAX_RANKS 2048u                   /* two P x P matrices of doubles: 64 MiB at most */
#define MAX_PROFILES 64                       /* profiles read per job: the first by name */
#define MAX_NAMES 4096                        /* names listed per job's profiles/ */

static int why_(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_verr(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* dense id of name among names[0..*n), added when new */
static uint32_t dense_id(const char **names, uint32_t *n, const char *name)
{
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp(names[i], name))
            return i;
    names[*n] = name;
    return (*n)++;
}

int nv_alloc_row_from_profile(json_object *profile, const struct nv_seg_profile *seg,
                              const char *app, const nv_topo *topo, nv_alloc_row *row,
                              nv_alloc_app *a, char *why, size_t whylen)
{
    memset(row, 0, sizeof *row);
    json_object *pl = nv_json_get(profile, "placement", json_type_array);
    json_object *bytes = nv_json_get(nv_json_get(profile, "traffic_matrix", json_type_object),
                                     "bytes", json_type_array);
    if (!pl || !bytes)
        return why_(why, whylen,
                    "no traffic matrix and placement (profiled in time mode, or over "
                    "NETVAR_MATRIX_MAX_RANKS)");
    size_t P = json_object_array_length(pl);
    if (P < 2 || P > ROW_MAX_RANKS || json_object_array_length(bytes) != P)
        return why_(why, whylen, "%zu ranks and %zu matrix rows (2 to %u, equal)", P,
                    json_object_array_length(bytes), ROW_MAX_RANKS);
    if (seg->meta.ranks != P)
        return why_(why, whylen, "the segment profile has %u ranks, its matrix %zu",
                    seg->meta.ranks, P);
    if (strcmp(seg->meta.work_source, nv_seg_work_source_name(NV_SEG_WORK_CPUTIME_NS)))
        return why_(why, whylen, "its work is %.31s, not CPU time: no communication time to take",
                    seg->meta.work_source);
    if (seg->n == 0)
        return why_(why, whylen, "no segment (no global collective ended one)");
    if (!app || !nv_model_key_valid(app) || strlen(app) > NV_ALLOC_KEY_MAX)
        return why_(why, whylen, "no valid app key");
    /* communication per phase: segment time less computation, medians over ranks */
    double comm_us = 0, work_ns = 0;
    for (size_t i = 0; i < seg->n; i++) {
        double c = seg->time_us[i] - seg->work[i] / 1e3;
        if (!isfinite(c) || !(seg->work[i] >= 0))
            return why_(why, whylen, "segment %zu has no finite time or work", i);
        comm_us += c > 0 ? c : 0;
        work_ns += seg->work[i];
    }
    comm_us /= (double)seg->n;
    if (!(comm_us > 0))
        return why_(why, whylen, "no time outside computation in %zu segments", seg->n);

    double *b = calloc(P * P, sizeof *b), *m = calloc(P * P, sizeof *m);
    uint32_t *node_of = calloc(P, sizeof *node_of), *sw_of = calloc(P, sizeof *sw_of),
             *g_of = calloc(P, sizeof *g_of), *per_node = calloc(P, sizeof *per_node);
    const char **nodes = calloc(P, sizeof *nodes), **sws = calloc(P, sizeof *sws),
               **grps = calloc(P, sizeof *grps);
    int rc = -1;
    if (!b || !m || !node_of || !sw_of || !g_of || !per_node || !nodes || !sws || !grps) {
        why_(why, whylen, "out of memory for %zu ranks", P);
        goto out;
    }
    uint32_t nn = 0, ns = 0, ng = 0;
    for (size_t r = 0; r < P; r++) {
        const char *node = json_object_get_string(json_object_array_get_idx(pl, r));
        const nv_topo_node *tn = node && node[0] ? nv_topo_find(topo, node) : NULL;
        if (!tn) {
            char shown[80];
            why_(why, whylen, "rank %zu ran on node %s, which is not in the topology", r,
                 node ? nv_printable(node, shown, sizeof shown) : "(none)");
            goto out;
        }
        uint32_t before = nn;
        uint32_t id = dense_id(nodes, &nn, tn->node);
        if (nn != before) { /* a new node: its switch and group */
            sw_of[id] = dense_id(sws, &ns, tn->sw[0] ? tn->sw : tn->node);
            g_of[sw_of[id]] = dense_id(grps, &ng, tn->group[0] ? tn->group : "");
        }
        node_of[r] = id;
        per_node[id]++;
        json_object *rowj = json_object_array_get_idx(bytes, r);
        if (!json_object_is_type(rowj, json_type_array) || json_object_array_length(rowj) != P) {
            why_(why, whylen, "matrix row %zu is not %zu numbers", r, P);
            goto out;
        }
        for (size_t q = 0; q < P; q++) {
            json_object *v = json_object_array_get_idx(rowj, q);
            double x = json_object_get_double(v);
            if (!(json_object_is_type(v, json_type_int) ||
                  json_object_is_type(v, json_type_double)) ||
                !isfinite(x) || x < 0) {
                why_(why, whylen, "matrix entry [%zu][%zu] is not a byte count", r, q);
                goto out;
            }
            if (q != r && x > 0) {
                b[r * P + q] = x / (double)seg->n;
                m[r * P + q] = 1;
            }
        }
    }
    if (nv_alloc_features_matrix(b, m, (uint32_t)P, node_of, sw_of, g_of, row->x)) {
        why_(why, whylen, "its features cannot be computed (ids out of range or bad entries)");
        goto out;
    }
    if (!(row->x[NV_AF_MAX_S] > 0)) {
        why_(why, whylen, "its matrix holds no traffic between ranks");
        goto out;
    }
    uint32_t ppn = 0;
    for (uint32_t i = 0; i < nn; i++)
        ppn = per_node[i] > ppn ? per_node[i] : ppn;
    snprintf(row->app, sizeof row->app, "%s", app);
    row->nodes = nn;
    row->ppn = ppn;
    row->comm_s = comm_us / 1e6;
    row->runtime_s = seg->meta.runtime_us > 0 ? seg->meta.runtime_us / 1e6 : NAN;
    snprintf(row->config, sizeof row->config, "N%uxPPN%u %u switch%s", nn, ppn, ns,
             ns == 1 ? "" : "es");
    if (a) {
        memset(a, 0, sizeof *a);
        snprintf(a->key, sizeof a->key, "%s", app);
        snprintf(a->source, sizeof a->source, "segment profile (%zu ranks)", P);
        a->ranks = (uint32_t)P;
        a->phases = (double)seg->n;
        a->compute_core_s = work_ns / 1e9 * (double)P;
        if (nv_alloc_pattern_from_matrix(b, m, (uint32_t)P, &a->pattern) < 0 || a->pattern.n == 0) {
            why_(why, whylen, "its matrix gives no communication pattern");
            goto out;
        }
    }
    rc = 0;
out:
    free(b);
    free(m);
    free(node_of);
    free(sw_of);
    free(g_of);
    free(per_node);
    free(nodes);
    free(sws);
    free(grps);
    return rc;
}

/* The plain *.json names of dir, sorted (at most MAX_NAMES listed); -1
 * when it cannot be read or memory runs out. */
static long profile_names(const char *dir, char ***out)
{
    *out = NULL;
    DIR *dd = opendir(dir);
    if (!dd)
        return -1;
    char **v = malloc(MAX_NAMES * sizeof *v);
    long n = 0;
    struct dirent *e;
    while (v && n < MAX_NAMES && (e = readdir(dd))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") || !nv_plain_name(e->d_name))
            continue; /* names users chose: only plain ones (no terminal escapes) */
        if (!(v[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(dd);
    if (!v)
        return -1;
    qsort(v, (size_t)n, sizeof *v, nv_cmp_strp);
    *out = v;
    return n;
}

/* 1 with a row, 0 when the job has none (counted and, when unusable, logged) */
static int job_row(const char *jobdir, uid_t spool_owner, const nv_topo *topo, nv_alloc_row *row,
                   nv_alloc_app *a, nv_alloc_records_stats *st, nv_alloc_records_log_fn log,
                   void *ctx)
{
    char path[4500], err[700], pdir[4500];
    snprintf(path, sizeof path, "%s/job.json", jobdir);
    if (access(path, F_OK))
        return 0; /* running, or not collected yet */
    st->jobs++;
    json_object *rec = nv_job_record_read_owned(path, spool_owner, err, sizeof err);
    if (!rec) {
        st->unusable++;
        nv_logf(log, ctx, "netvar: alloc records: %s: %s; skipped the job", path, err);
        return 0;
    }
    char app[NV_ALLOC_KEY_MAX + 2] = "";
    nv_json_str_copy(rec, "app", app, sizeof app);
    json_object_put(rec);
    if (!app[0]) {
        st->no_app++;
        return 0;
    }
    /* the profiles are the job's user's: profiles/ is theirs, every file in it too */
    snprintf(pdir, sizeof pdir, "%s/profiles", jobdir);
    uid_t owner = (uid_t)-1;
    char **names = NULL;
    long nnames = 0;
    if (access(pdir, F_OK) == 0) {
        if (nv_dir_owner(pdir, &owner, err, sizeof err)) {
            st->unusable++;
            nv_logf(log, ctx, "netvar: alloc records: %s: %s; skipped the job", pdir, err);
            return 0;
        }
        nnames = profile_names(pdir, &names);
    }
    json_object *best = NULL;
    double best_total = -1;
    char best_path[4800] = "";
    size_t bad = 0;
    /* the first MAX_PROFILES by name: the same ones whatever readdir's order */
    for (long k = 0; k < nnames && k < MAX_PROFILES; k++) {
        char p[4800];
        snprintf(p, sizeof p, "%s/%s", pdir, names[k]);
        json_object *pr = nv_json_read_owned(p, owner, PROFILE_MAX_BYTES, err, sizeof err);
        if (!pr) {
            char shown[300];
            bad++;
            nv_logf(log, ctx, "netvar: alloc records: %s: %s; not read",
                    nv_printable(p, shown, sizeof shown), err);
            continue;
        }
        double t = nv_profile_matrix_bytes(pr);
        if (t > best_total) { /* ties: the first by name */
            json_object_put(best);
            best = pr;
            best_total = t;
            snprintf(best_path, sizeof best_path, "%s", p);
        } else {
            json_object_put(pr);
        }
    }
    for (long k = 0; k < nnames; k++)
        free(names[k]);
    free(names);
    if (!best) {
        if (bad)
            st->unusable++; /* its profiles were named above */
        else
            st->no_profile++;
        return 0;
    }
    nv_seg_profile seg;
    const char *paths[1] = {best_path};
    int rc = 0;
    if (nv_seg_profile_load_owned(paths, 1, owner, &seg, err, sizeof err)) {
        st->unusable++;
        nv_logf(log, ctx, "netvar: alloc records: %s; skipped the job", err);
    } else {
        if (nv_alloc_row_from_profile(best, &seg, app, topo, row, a, err, sizeof err)) {
            st->unusable++;
            char shown[300];
            nv_logf(log, ctx, "netvar: alloc records: %s: %s; skipped the job",
                    nv_printable(best_path, shown, sizeof shown), err);
        } else {
            rc = 1;
        }
        nv_seg_profile_free(&seg);
    }
    json_object_put(best);
    return rc;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* apps: the newest per key (a sorted array, binary search) */
struct app_set {
    nv_alloc_app *v;
    size_t n, cap;
};

static int app_put(struct app_set *s, const nv_alloc_app *a)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s->v[mid].key, a->key);
        if (c == 0)
            return 0; /* jobs come newest first: the app's newest job is kept */
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (s->n >= NV_ALLOC_MAX_APPS)
        return 0; /* the rest keep their rows, not an app entry */
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 64;
        nv_alloc_app *p = realloc(s->v, c * sizeof *p);
        if (!p)
            return -1;
        s->v = p;
        s->cap = c;
    }
    memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof *s->v);
    s->v[lo] = *a;
    s->n++;
    return 0;
}

int nv_alloc_rows_from_spool(const char *spool, const nv_topo *topo, nv_alloc_dataset *d,
                             nv_alloc_app **apps, size_t *napps, nv_alloc_records_stats *st,
                             nv_alloc_records_log_fn log, void *ctx, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct app_set as = {0};
    if (apps) {
        *apps = NULL;
        *napps = 0;
    }
    char dir[4200];
    if (nv_spool_jobs_path(spool, -1, NULL, dir, sizeof dir))
        return nv_err(err, errlen, "spool: no path or a path too long");
    uid_t owner; /* records belong to the owner of SPOOL/jobs (root) */
    char why[300];
    if (nv_dir_owner(dir, &owner, why, sizeof why))
        return nv_err(err, errlen, "%s: %s", dir, why);
    DIR *dd = opendir(dir);
    if (!dd)
        return nv_err(err, errlen, "%s: cannot read: %s", dir, strerror(errno));
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dd))) {
        if (!nv_job_dir_name_ok(e->d_name))
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 256;
            int64_t *p = realloc(ids, c * sizeof *p);
            if (!p) {
                rc = nv_err(err, errlen, "out of memory listing %s", dir);
                break;
            }
            ids = p;
            cap = c;
        }
        ids[n++] = strtoll(e->d_name, NULL, 10);
    }
    closedir(dd);
    if (rc) {
        free(ids);
        return rc;
    }
    if (n)
        qsort(ids, n, sizeof *ids, cmp_id);
    if (!d->source[0])
        snprintf(d->source, sizeof d->source, "job records");
    /* newest first, so a spool with more usable jobs than a data set holds
     * keeps the newest, and each app is its newest job */
    for (size_t k = n; k-- > 0;) {
        size_t i = k;
        if (d->n >= NV_ALLOC_DATASET_MAX_ROWS) {
            nv_logf(log, ctx,
                    "netvar: alloc records: %zu rows, as many as a data set holds; the %zu "
                    "older job directories are not read",
                    d->n, k + 1);
            break;
        }
        char jobdir[4400];
        snprintf(jobdir, sizeof jobdir, "%s/%lld", dir, (long long)ids[i]);
        nv_alloc_row row;
        nv_alloc_app a;
        int r = job_row(jobdir, owner, topo, &row, apps ? &a : NULL, st, log, ctx);
        if (r <= 0)
            continue;
        if (apps) {
            snprintf(a.source, sizeof a.source, "profile of job %lld", (long long)ids[i]);
            if (app_put(&as, &a)) {
                rc = nv_err(err, errlen, "out of memory for the apps");
                break;
            }
        }
        char cfg[sizeof row.config];
        snprintf(cfg, sizeof cfg, "%s", row.config);
        snprintf(row.config, sizeof row.config, "job %lld %.40s", (long long)ids[i], cfg);
        if (nv_alloc_dataset_add(d, &row, err, errlen)) {
            rc = -1;
            break;
        }
        st->rows++;
    }
    free(ids);
    if (apps && rc == 0) {
        *apps = as.v;
        *napps = as.n;
    } else {
        free(as.v);
    }
    return rc;
}
