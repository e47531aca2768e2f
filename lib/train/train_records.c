/* train_records.c - job records -> small per-job summaries, streamed from
 * a spool one file at a time (train_history.h, step 1). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_record.h"
#include "safe_open.h"
#include "str_hash.h"
#include "nv_err.h"
#include "nv_json.h"
#include "plausible.h"
#include "train_history.h"

void nv_train_opts_default(nv_train_opts *o)
{
    o->window_s = 10.0;
    o->min_overlap_frac = 0.5;
    o->low_rho = 0.05;
    o->min_runs = 1;
    o->max_jobs = NV_TRAIN_DEFAULT_MAX_JOBS;
    o->u_bucket = 0.05;
    o->progress = NULL;
    o->progress_ctx = NULL;
}

void nv_train_set_init(nv_train_set *s)
{
    memset(s, 0, sizeof *s);
}

void nv_train_set_free(nv_train_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_apps; i++)
        free(s->apps[i]);
    free(s->apps);
    free(s->jobs);
    free(s->topo);
    free(s->app_slots);
    free(s->known);
    free(s->known_present);
    free(s->read_ids);
    free(s->sigs);
    free(s->sig_ok);
    memset(s, 0, sizeof *s);
}

static uint64_t key_hash(const char *k)
{
    return nv_str_hash(k);
}

static void slot_put(nv_train_set *s, size_t i)
{
    size_t mask = s->slot_cap - 1, at = (size_t)key_hash(s->apps[i]) & mask;
    while (s->app_slots[at] >= 0)
        at = (at + 1) & mask;
    s->app_slots[at] = (int32_t)i;
}

/* brings the hash up to apps[0..n_apps); -1 out of memory */
static int rehash(nv_train_set *s, size_t want)
{
    if (s->slot_cap < 2 * want) {
        size_t cap = s->slot_cap ? s->slot_cap : 64;
        while (cap < 2 * want)
            cap *= 2;
        int32_t *p = malloc(cap * sizeof *p);
        if (!p)
            return -1;
        free(s->app_slots);
        s->app_slots = p;
        s->slot_cap = cap;
        s->hashed = 0;
    }
    if (s->hashed == 0)
        memset(s->app_slots, 0xff, s->slot_cap * sizeof *s->app_slots);
    for (; s->hashed < s->n_apps; s->hashed++)
        slot_put(s, s->hashed);
    return 0;
}

int nv_train_set_index_apps(nv_train_set *s)
{
    s->hashed = 0;
    return s->n_apps ? rehash(s, s->n_apps) : 0;
}

long nv_train_set_find_app(const nv_train_set *s, const char *app)
{
    if (s->hashed != s->n_apps || !s->slot_cap) { /* no hash (out of memory): linear */
        for (size_t i = 0; i < s->n_apps; i++)
            if (!strcmp(s->apps[i], app))
                return (long)i;
        return -1;
    }
    size_t mask = s->slot_cap - 1;
    for (size_t at = (size_t)key_hash(app) & mask; s->app_slots[at] >= 0; at = (at + 1) & mask)
        if (!strcmp(s->apps[s->app_slots[at]], app))
            return s->app_slots[at];
    return -1;
}

/* FNV-1a: stable across runs and machines, so sorting by it is reproducible */
static uint64_t topo_hash(const char *s)
{
    uint64_t h = nv_str_hash(s);
    return h ? h : 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* names of a string array into hashes (sorted, unique, at most MAX_TOPO;
 * a job on more switches than that keeps the smallest hashes, which is
 * still deterministic) */
static int topo_list(json_object *rec, const char *key, uint64_t *out, uint8_t *n, char *err,
                     size_t errlen)
{
    json_object *a;
    *n = 0;
    if (!json_object_object_get_ex(rec, key, &a) || !a)
        return 0;
    if (!json_object_is_type(a, json_type_array)) {
        nv_err(err, errlen, "%s: expected an array of names", key);
        return -1;
    }
    size_t len = json_object_array_length(a);
    uint64_t tmp[64];
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        json_object *v = json_object_array_get_idx(a, i);
        if (!json_object_is_type(v, json_type_string)) {
            nv_err(err, errlen, "%s[%zu]: expected a string", key, i);
            return -1;
        }
        uint64_t h = topo_hash(json_object_get_string(v));
        if (k < 64)
            tmp[k++] = h;
    }
    qsort(tmp, k, sizeof *tmp, cmp_u64);
    for (size_t i = 0; i < k && *n < NV_TRAIN_MAX_TOPO; i++)
        if (i == 0 || tmp[i] != tmp[i - 1])
            out[(*n)++] = tmp[i];
    return 0;
}

/* own rho: median over the ports that report one (or lambda * 1/mu) */
static int own_rho(json_object *rec, double service_us, double *rho, double *rec_service_us,
                   char *err, size_t errlen)
{
    *rho = NAN;
    *rec_service_us = NAN;
    /* a version 2 record's bottleneck U: the job's own load on its leaf
     * uplinks, the campaigns' axis; the busier direction */
    double up, down;
    int hb = nv_job_record_bottleneck_u(rec, &up, &down, err, errlen);
    if (hb < 0)
        return -1;
    if (hb > 0) {
        double r = fmax(up, down);
        *rho = r > 1 ? 1 : r;
        return 0;
    }
    json_object *u, *ports;
    if (!json_object_object_get_ex(rec, "utilization", &u) || !u)
        return 0;
    if (!json_object_is_type(u, json_type_object)) {
        nv_err(err, errlen, "utilization: expected an object");
        return -1;
    }
    double s;
    if (nv_json_num_strict(u, "service_us", &s) < 0) {
        nv_err(err, errlen, "utilization.service_us: expected a finite number");
        return -1;
    }
    if (isfinite(s) && s > 0)
        *rec_service_us = s;
    if (!json_object_object_get_ex(u, "ports", &ports) || !ports)
        return 0;
    if (!json_object_is_type(ports, json_type_array)) {
        nv_err(err, errlen, "utilization.ports: expected an array");
        return -1;
    }
    size_t n = json_object_array_length(ports);
    double vals[256];
    size_t k = 0;
    double mu_s = service_us > 0 ? service_us : (isfinite(s) && s > 0 ? s : 0);
    for (size_t i = 0; i < n && k < 256; i++) {
        json_object *p = json_object_array_get_idx(ports, i);
        if (!json_object_is_type(p, json_type_object)) {
            nv_err(err, errlen, "utilization.ports[%zu]: expected an object", i);
            return -1;
        }
        double r, lam;
        int hr = nv_json_num_strict(p, "rho", &r),
            hl = nv_json_num_strict(p, "lambda_packets_per_s", &lam);
        if (hr < 0 || hl < 0 || (hr > 0 && r < 0) || (hl > 0 && lam < 0)) {
            nv_err(err, errlen,
                   "utilization.ports[%zu]: rho or lambda_packets_per_s is not a "
                   "non-negative number",
                   i);
            return -1;
        }
        if (hr == 0 && hl > 0 && mu_s > 0)
            r = lam * mu_s * 1e-6;
        if (isfinite(r))
            vals[k++] = r > 1 ? 1 : r;
    }
    if (k) {
        qsort(vals, k, sizeof *vals, cmp_double);
        *rho = k % 2 ? vals[k / 2] : 0.5 * (vals[k / 2 - 1] + vals[k / 2]);
    }
    return 0;
}

/* The job's shape: how many of its nodes sit under each leaf switch (the
 * record's bottleneck.leaves[].nodes), in the order the job's node list
 * meets the leaves, folded to 1..255.  Jobs of one app and node count
 * under different shapes load their own uplinks differently alone (two
 * nodes under one leaf send through its uplink together), so their
 * baselines differ; and the order counts, since ranks follow the node list
 * (block distribution): a chain of four ranks with its middle two under
 * one leaf sends two flows up that leaf's uplink, with its last two there
 * one.  0 when the record does not say, or says something that does not
 * add up to at most its nodes. */
static uint8_t job_shape(json_object *rec, uint32_t nodes)
{
    enum { MAX_LEAVES = 1024 };
    json_object *b = nv_json_get(rec, "bottleneck", json_type_object);
    json_object *l = b ? nv_json_get(b, "leaves", json_type_array) : NULL;
    size_t n = l ? json_object_array_length(l) : 0;
    if (n < 2 || n > MAX_LEAVES)
        return 0;
    uint32_t c[MAX_LEAVES];
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        double v = nv_json_num(json_object_array_get_idx(l, i), "nodes");
        if (!(v >= 1 && v <= nodes) || v != floor(v))
            return 0;
        c[i] = (uint32_t)v;
        sum += c[i];
    }
    if (sum > nodes)
        return 0;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return (uint8_t)(h % 255 + 1);
}

int nv_train_job_from_record(json_object *rec, double service_us, nv_train_job *job, char *app,
                             char *err, size_t errlen)
{
    memset(job, 0, sizeof *job);
    app[0] = 0;
    if (nv_job_record_check(rec, err, errlen))
        return -1;
    json_object *v;
    double d;
    if (nv_json_num_strict(rec, "job_id", &d) <= 0 || d < 0 || d > 9e15) {
        nv_err(err, errlen, "job_id: missing or not a non-negative integer");
        return -1;
    }
    job->job_id = (int64_t)d;
    if (nv_json_num_strict(rec, "runtime_s", &job->runtime_s) <= 0 || !(job->runtime_s > 0)) {
        nv_err(err, errlen, "runtime_s: missing, null or not > 0 (no runtime to learn from)");
        return -1;
    }
    if (!nv_plausible_runtime(job->runtime_s)) {
        nv_err(err, errlen, "runtime_s: %g s is more than a year (plausible.h)", job->runtime_s);
        return -1;
    }
    int hs = nv_json_num_strict(rec, "start_unix_s", &job->start_s),
        he = nv_json_num_strict(rec, "end_unix_s", &job->end_s);
    if (hs < 0 || he < 0) {
        nv_err(err, errlen, "start_unix_s/end_unix_s: not a number");
        return -1;
    }
    /* a time outside the cluster's life would move the window's end
     * (--window-days) or make the job every job's neighbour */
    if ((hs > 0 && !nv_plausible_time(job->start_s, 0)) ||
        (he > 0 && !nv_plausible_time(job->end_s, 0)) ||
        (hs > 0 && he > 0 && job->end_s - job->start_s > NV_PLAUSIBLE_RUNTIME_MAX_S)) {
        nv_err(err, errlen,
               "start_unix_s %g / end_unix_s %g: not Unix seconds from 1970 to a day from now, "
               "at most a year apart (plausible.h)",
               hs > 0 ? job->start_s : NAN, he > 0 ? job->end_s : NAN);
        return -1;
    }
    if (hs == 0 || he == 0 || job->end_s < job->start_s)
        job->start_s = job->end_s = NAN; /* no time: never a neighbour */
    if (!json_object_object_get_ex(rec, "nodes", &v) || !json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) == 0 || json_object_array_length(v) > UINT32_MAX) {
        nv_err(err, errlen, "nodes: missing or not a non-empty array");
        return -1;
    }
    job->nodes = (uint32_t)json_object_array_length(v);
    job->shape = job_shape(rec, job->nodes);
    if (topo_list(rec, "switches", job->topo, &job->n_switches, err, errlen) ||
        topo_list(rec, "groups", job->topo + NV_TRAIN_MAX_TOPO, &job->n_groups, err, errlen))
        return -1;
    if (own_rho(rec, service_us, &job->rho, &job->service_us, err, errlen))
        return -1;
    if (nv_json_num_strict(rec, "switch_rho", &job->switch_rho) < 0 ||
        (isfinite(job->switch_rho) && (job->switch_rho < 0 || job->switch_rho > 1))) {
        nv_err(err, errlen, "switch_rho: not a number in [0, 1]");
        return -1;
    }
    if (!isfinite(job->switch_rho)) {
        /* the uplink counters of the record's bottleneck: every job's load */
        json_object *b = nv_json_get(rec, "bottleneck", json_type_object);
        double su = nv_json_num(b, "uplink_u_up"), sd = nv_json_num(b, "uplink_u_down");
        double sr = isfinite(su) && isfinite(sd) ? fmax(su, sd) : isfinite(su) ? su : sd;
        if (isfinite(sr) && sr >= 0)
            job->switch_rho = sr > 1 ? 1 : sr;
    }
    job->background = job->baseline_s = job->slowdown_pct = NAN;
    job->neighbour_app = -1;
    if (!json_object_object_get_ex(rec, "app", &v) || !v)
        return 1;
    if (!json_object_is_type(v, json_type_string)) {
        nv_err(err, errlen, "app: expected a string or null");
        return -1;
    }
    const char *key = json_object_get_string(v);
    if (!nv_model_key_valid(key)) {
        nv_err(err, errlen, "app: \"%.60s\" is not a valid app key", key);
        return -1;
    }
    snprintf(app, NV_MODEL_KEY_MAX + 1, "%s", key);
    return 0;
}

int nv_train_set_add(nv_train_set *s, const nv_train_job *job, const char *app, size_t max_jobs,
                     char *err, size_t errlen)
{
    if (s->n >= max_jobs) {
        nv_err(err, errlen,
               "more than %zu job records: the summary cap (--max-jobs) is reached; "
               "train on a shorter history or raise the cap",
               max_jobs);
        return -1;
    }
    /* intern the app: O(1) (app names are users' choice: a site may have
     * tens of thousands) */
    if (s->hashed != s->n_apps)
        nv_train_set_index_apps(s);
    long found = nv_train_set_find_app(s, app);
    uint32_t idx = found >= 0 ? (uint32_t)found : UINT32_MAX;
    if (idx == UINT32_MAX) {
        if (s->n_apps >= NV_MODEL_MAX_APPS) {
            s->stats.apps_over_cap++;
            return 0; /* counted, and said once by the caller */
        }
        if (s->n_apps == s->cap_apps) {
            size_t c = s->cap_apps ? 2 * s->cap_apps : 16;
            char **p = realloc(s->apps, c * sizeof *p);
            if (!p)
                goto oom;
            s->apps = p;
            s->cap_apps = c;
        }
        if (!(s->apps[s->n_apps] = strdup(app)) || rehash(s, s->n_apps + 1))
            goto oom;
        idx = (uint32_t)s->n_apps++;
        slot_put(s, idx);
        s->hashed = s->n_apps;
    }
    /* grow by half: at a million jobs the copy being grown from is not
     * as large as the one grown to */
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap + s->cap / 2 : 256;
        if (c > max_jobs)
            c = max_jobs;
        nv_train_sum *p = realloc(s->jobs, c * sizeof *p);
        if (!p)
            goto oom;
        s->jobs = p;
        s->cap = c;
    }
    size_t nt = (size_t)job->n_switches + job->n_groups;
    if (s->n_topo + nt > s->cap_topo) {
        size_t c = s->cap_topo ? s->cap_topo + s->cap_topo / 2 : 1024;
        if (c < s->n_topo + nt)
            c = s->n_topo + nt;
        if (c > UINT32_MAX)
            goto oom; /* offsets are 32-bit: 4 G hashes is far past any spool */
        uint64_t *p = realloc(s->topo, c * sizeof *p);
        if (!p)
            goto oom;
        s->topo = p;
        s->cap_topo = c;
    }
    if (job->n_switches) /* (no arena yet when no job had a switch: NULL) */
        memcpy(s->topo + s->n_topo, job->topo, job->n_switches * sizeof *s->topo);
    if (job->n_groups)
        memcpy(s->topo + s->n_topo + job->n_switches, job->topo + NV_TRAIN_MAX_TOPO,
               job->n_groups * sizeof *s->topo);
    s->jobs[s->n] = (nv_train_sum){.job_id = job->job_id,
                                   .app = idx,
                                   .nodes = job->nodes,
                                   .start_s = job->start_s,
                                   .end_s = job->end_s,
                                   .runtime_s = job->runtime_s,
                                   .rho = job->rho,
                                   .switch_rho = job->switch_rho,
                                   .service_us = job->service_us,
                                   .topo_off = (uint32_t)s->n_topo,
                                   .n_switches = job->n_switches,
                                   .n_groups = job->n_groups,
                                   .profiled = job->profiled,
                                   .shape = job->shape,
                                   .background = job->background,
                                   .n_neighbours = job->n_neighbours,
                                   .neighbour_app = job->neighbour_app,
                                   .baseline_s = job->baseline_s,
                                   .slowdown_pct = job->slowdown_pct};
    s->n_topo += nt;
    s->n++;
    s->stats.used = s->n;
    s->analyzed = 0;
    return 0;
oom:
    nv_err(err, errlen, "out of memory after %zu job records", s->n);
    return -1;
}

/* index of id in s->known, or -1 */
static long known_index(const nv_train_set *s, int64_t id)
{
    size_t lo = 0, hi = s->n_known;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->known[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_known && s->known[lo] == id ? (long)lo : -1;
}

static int note_read(nv_train_set *s, int64_t id)
{
    if (s->n_read == s->cap_read) {
        size_t c = s->cap_read ? 2 * s->cap_read : 1024;
        int64_t *p = realloc(s->read_ids, c * sizeof *p);
        if (!p)
            return -1;
        s->read_ids = p;
        s->cap_read = c;
    }
    s->read_ids[s->n_read++] = id;
    return 0;
}

int nv_train_set_window(nv_train_set *s, double window_s)
{
    if (!(window_s > 0) || !s->n)
        return 0;
    double newest = -INFINITY;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(s->jobs[i].end_s) && s->jobs[i].end_s > newest)
            newest = s->jobs[i].end_s;
    if (!isfinite(newest))
        return 0;
    double cut = newest - window_s;
    size_t keep_topo = 0, drop = 0;
    for (size_t i = 0; i < s->n; i++) {
        const nv_train_sum *j = &s->jobs[i];
        if (isfinite(j->end_s) && j->end_s < cut)
            drop++;
        else
            keep_topo += (size_t)j->n_switches + j->n_groups;
    }
    if (!drop)
        return 0;
    uint64_t *topo = malloc((keep_topo ? keep_topo : 1) * sizeof *topo);
    if (!topo)
        return -1;
    size_t n = 0, t = 0;
    for (size_t i = 0; i < s->n; i++) {
        nv_train_sum j = s->jobs[i];
        if (isfinite(j.end_s) && j.end_s < cut)
            continue;
        size_t nt = (size_t)j.n_switches + j.n_groups;
        if (nt)
            memcpy(topo + t, s->topo + j.topo_off, nt * sizeof *topo);
        j.topo_off = (uint32_t)t;
        t += nt;
        s->jobs[n++] = j;
    }
    free(s->topo);
    s->topo = topo;
    s->cap_topo = keep_topo ? keep_topo : 1;
    s->n_topo = t;
    s->n = n;
    s->stats.used = n;
    s->stats.out_of_window += drop;
    s->analyzed = 0;
    /* apps left without a job go too: the set is what reading only the
     * window's records would have made */
    uint32_t *map = calloc(s->n_apps ? s->n_apps : 1, sizeof *map);
    if (!map)
        return 0; /* they stay, unused: build skips an app without runs */
    for (size_t i = 0; i < s->n; i++)
        map[s->jobs[i].app] = 1;
    size_t na = 0;
    for (size_t a = 0; a < s->n_apps; a++) {
        if (map[a]) {
            s->apps[na] = s->apps[a];
            map[a] = (uint32_t)na++;
        } else {
            free(s->apps[a]);
        }
    }
    for (size_t i = 0; i < s->n; i++)
        s->jobs[i].app = map[s->jobs[i].app];
    s->n_apps = na;
    free(map);
    s->hashed = 0;
    nv_train_set_index_apps(s);
    return 0;
}

int nv_train_scan_spool(const char *spool, double service_us, const nv_train_opts *o,
                        nv_train_set *s, nv_train_log_fn log, void *ctx, char *err, size_t errlen)
{
    char dir[4200];
    if (nv_spool_jobs_path(spool, -1, NULL, dir, sizeof dir)) {
        nv_err(err, errlen, "spool: no path or a path too long");
        return -1;
    }
    /* records are taken only at <spool>/jobs/<digits>/job.json, from the
     * owner of <spool>/jobs (root): never from a user's profiles/ */
    uid_t owner;
    char why0[200];
    if (nv_dir_owner(dir, &owner, why0, sizeof why0)) {
        nv_err(err, errlen, "%s: %s", dir, why0);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        nv_err(err, errlen, "%s: cannot read: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!nv_job_dir_name_ok(e->d_name))
            continue;
        int64_t id = strtoll(e->d_name, NULL, 10); /* at most 10 digits */
        long k = known_index(s, id);
        if (k >= 0) { /* summarized by an earlier run (train_state.h) */
            s->known_present[k] = 1;
            continue;
        }
        char path[4600], why[256], app[NV_MODEL_KEY_MAX + 1], line[5000];
        snprintf(path, sizeof path, "%s/%s/job.json", dir, e->d_name);
        if (access(path, F_OK))
            continue; /* a job still running, or not collected yet */
        if (note_read(s, id)) {
            nv_err(err, errlen, "out of memory after %zu job records", s->n);
            rc = -1;
            break;
        }
        if ((++s->stats.records & 1023u) == 0 && o->progress)
            o->progress(o->progress_ctx, s->stats.records);
        json_object *rec = nv_job_record_read_owned(path, owner, why, sizeof why);
        nv_train_job job;
        int pr = rec ? nv_train_job_from_record(rec, service_us, &job, app, why, sizeof why) : -1;
        json_object_put(rec);
        if (pr < 0) {
            s->stats.corrupt++;
            if (log) {
                snprintf(line, sizeof line, "netvar: train: %s: %s; skipped it", path, why);
                log(ctx, line);
            }
            continue;
        }
        if (pr == 0 && job.job_id != id) { /* a copy of another job's record */
            s->stats.corrupt++;
            if (log) {
                snprintf(line, sizeof line,
                         "netvar: train: %s: job_id %lld is not its directory's %lld; skipped it",
                         path, (long long)job.job_id, (long long)id);
                log(ctx, line);
            }
            continue;
        }
        if (pr == 1) {
            s->stats.no_app++;
            continue;
        }
        /* kept in the summary (and the state): a retrain tries no other
         * job's profiles (nv_train_signatures) */
        snprintf(path, sizeof path, "%s/%s/profiles", dir, e->d_name);
        job.profiled = access(path, F_OK) == 0;
        if (nv_train_set_add(s, &job, app, o->max_jobs, err, errlen)) {
            rc = -1;
            break;
        }
    }
    closedir(d);
    if (o->progress)
        o->progress(o->progress_ctx, s->stats.records);
    return rc;
}
