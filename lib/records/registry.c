/* registry.c - the running-jobs registry: its writer, its incremental
 * reader, and the index that job_submit reads (registry.h). */
#include "registry.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"

/* ---- writing ---- */

int nv_registry_dir(const char *spool, char *dir, size_t cap)
{
    return spool && snprintf(dir, cap, "%s/running", spool) < (int)cap ? 0 : -1;
}

/* the distinct non-empty names[0..n) as a JSON array, in first-seen order */
static json_object *distinct(const char *const *names, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && names && i < n; i++) {
        if (!names[i] || !*names[i])
            continue;
        bool seen = false;
        for (size_t k = 0; k < json_object_array_length(a) && !seen; k++)
            seen = !strcmp(json_object_get_string(json_object_array_get_idx(a, k)), names[i]);
        if (!seen)
            json_object_array_add(a, json_object_new_string(names[i]));
    }
    return a;
}

int nv_registry_write(const char *spool, const struct nv_running_entry *e, char *err, size_t errlen)
{
    char dir[4096], path[4200];
    if (nv_registry_dir(spool, dir, sizeof dir))
        return nv_err(err, errlen, "spool path %.200s is too long", spool ? spool : "(none)");
    struct stat st;
    if (nv_make_dir(spool, 0755, err, errlen) || nv_make_dir(dir, 0750, err, errlen))
        return -1;
    if (stat(dir, &st) != 0)
        return nv_err(err, errlen, "%s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/%u.json", dir, e->job_id);
    json_object *o = json_object_new_object(), *nodes = json_object_new_array();
    json_object_object_add(o, "schema", json_object_new_string(NV_RUNNING_SCHEMA));
    json_object_object_add(o, "version", json_object_new_int(NV_RUNNING_VERSION));
    json_object_object_add(o, "job_id", json_object_new_int64(e->job_id));
    json_object_object_add(o, "uid", json_object_new_int64(e->uid));
    json_object_object_add(o, "app", e->app && *e->app ? json_object_new_string(e->app) : NULL);
    json_object_object_add(o, "mode", json_object_new_string(e->mode ? e->mode : "unknown"));
    json_object_object_add(o, "start_unix_s", nv_json_new_num(e->start_unix_s));
    json_object_object_add(o, "end_unix_s",
                           e->end_unix_s > 0 ? nv_json_new_num(e->end_unix_s) : NULL);
    for (size_t i = 0; nodes && i < e->nnodes; i++)
        json_object_array_add(nodes, json_object_new_string(e->nodes[i]));
    json_object_object_add(o, "nodes", nodes);
    json_object_object_add(o, "switches", distinct(e->node_switch, e->nnodes));
    json_object_object_add(o, "groups", distinct(e->node_group, e->nnodes));
    int rc = nv_json_write_file(path, o, 0640, st.st_gid, err, errlen);
    json_object_put(o);
    return rc;
}

int nv_registry_remove(const char *spool, uint32_t job_id)
{
    char dir[4096], path[4200];
    if (nv_registry_dir(spool, dir, sizeof dir))
        return -1;
    snprintf(path, sizeof path, "%s/%u.json", dir, job_id);
    return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* ---- reading ---- */

void nv_registry_init(struct nv_registry *r, const char *running_dir)
{
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", running_dir);
}

static void job_free(struct nv_running_job *j)
{
    free(j->nodes);
    free(j->switches);
}

void nv_registry_free(struct nv_registry *r)
{
    for (size_t i = 0; i < r->n; i++)
        job_free(&r->jobs[i]);
    free(r->jobs);
    r->jobs = NULL;
    r->n = r->cap = 0;
}

/* "1234.json" -> 1234; 0 for anything else (temp files, strangers) */
static uint32_t jobid_of(const char *name)
{
    char *end;
    if (name[0] < '1' || name[0] > '9')
        return 0;
    unsigned long id = strtoul(name, &end, 10);
    if (strcmp(end, ".json") || id > 0xfffffff0UL)
        return 0;
    return (uint32_t)id;
}

static char *join_strings(json_object *arr, size_t max_items)
{
    if (!arr || !json_object_is_type(arr, json_type_array))
        return strdup("");
    size_t n = json_object_array_length(arr), len = 0;
    if (n > max_items)
        n = max_items;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_object_get_string(json_object_array_get_idx(arr, i));
        len += (s ? strnlen(s, 64) : 0) + 1;
    }
    char *out = malloc(len + 1), *w = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        if (!json_object_is_type(e, json_type_string))
            continue;
        const char *s = json_object_get_string(e);
        size_t l = strnlen(s, 64);
        if (w != out)
            *w++ = ',';
        memcpy(w, s, l);
        w += l;
    }
    *w = '\0';
    return out;
}

static int parse_job(const char *path, uint32_t jobid, uid_t owner, struct nv_running_job *j,
                     char *why, size_t cap)
{
    memset(j, 0, sizeof *j);
    j->jobid = jobid;
    char err[160];
    json_object *o = nv_json_read_owned(path, owner, NV_REG_FILE_MAX_BYTES, err, sizeof err);
    if (!o || !json_object_is_type(o, json_type_object)) {
        snprintf(why, cap, "%s", o ? "not a JSON object" : err);
        json_object_put(o);
        return -1;
    }
    if (nv_json_schema_check(o, NV_RUNNING_SCHEMA, NV_RUNNING_VERSION, why, cap)) {
        json_object_put(o);
        return -1;
    }
    nv_json_str_copy(o, "app", j->app, sizeof j->app);
    j->start_unix_s = nv_json_num_or(o, "start_unix_s", 0);
    j->end_unix_s = nv_json_num_or(o, "end_unix_s", 0);
    if (!(j->end_unix_s > 0 && j->end_unix_s < 1e12))
        j->end_unix_s = 0;
    j->nodes = join_strings(nv_json_get(o, "nodes", json_type_array), 65536);
    j->switches = join_strings(nv_json_get(o, "switches", json_type_array), 4096);
    json_object_put(o);
    if (!j->nodes || !j->switches) {
        job_free(j);
        snprintf(why, cap, "out of memory");
        return -1;
    }
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int nv_registry_refresh(struct nv_registry *r, nv_registry_log_fn log, void *ctx)
{
    struct stat st;
    if (stat(r->dir, &st) != 0) {
        if (r->seen || r->n) {
            nv_registry_free(r);
            r->seen = false;
            return 1; /* the directory went away: nobody is running */
        }
        return errno == ENOENT ? 0 : -1;
    }
    if (r->seen && st.st_mtim.tv_sec == r->dir_mtime.tv_sec &&
        st.st_mtim.tv_nsec == r->dir_mtime.tv_nsec)
        return 0;
    DIR *d = opendir(r->dir);
    if (!d)
        return -1;
    size_t cap = 256, n = 0;
    uint32_t *ids = malloc(cap * sizeof *ids);
    struct dirent *e;
    while (ids && (e = readdir(d)) && n < NV_REG_MAX_JOBS) {
        uint32_t id = jobid_of(e->d_name);
        if (!id)
            continue;
        if (n == cap) {
            uint32_t *bigger = realloc(ids, 2 * cap * sizeof *ids);
            if (!bigger)
                break;
            ids = bigger;
            cap *= 2;
        }
        ids[n++] = id;
    }
    closedir(d);
    if (!ids)
        return -1;
    qsort(ids, n, sizeof *ids, cmp_id);
    struct nv_running_job *jobs = calloc(n ? n : 1, sizeof *jobs);
    if (!jobs) {
        free(ids);
        return -1;
    }
    /* merge: keep parsed entries still present, parse the new ones */
    size_t old = 0, kept = 0, reused = 0;
    for (size_t i = 0; i < n; i++) {
        while (old < r->n && r->jobs[old].jobid < ids[i])
            job_free(&r->jobs[old++]);
        char path[4200], why[200];
        snprintf(path, sizeof path, "%s/%u.json", r->dir, ids[i]);
        struct stat fst;
        bool have_fst = lstat(path, &fst) == 0;
        if (old < r->n && r->jobs[old].jobid == ids[i]) {
            struct nv_running_job *o = &r->jobs[old];
            /* an expired entry rewritten: a new job with the same id */
            if (!o->expired || !have_fst ||
                (fst.st_ino == o->ino && fst.st_mtim.tv_sec == o->mtime.tv_sec &&
                 fst.st_mtim.tv_nsec == o->mtime.tv_nsec)) {
                jobs[kept++] = *o;
                old++;
                reused++;
                continue;
            }
            job_free(&r->jobs[old++]);
        }
        r->files_parsed++;
        errno = 0; /* a stale ENOENT must not hide a corrupt file */
        if (parse_job(path, ids[i], st.st_uid, &jobs[kept], why, sizeof why) == 0) {
            if (have_fst) {
                jobs[kept].ino = fst.st_ino;
                jobs[kept].mtime = fst.st_mtim;
            }
            kept++;
        } else if (errno != ENOENT) {
            r->bad_files++;
            nv_logf(log, ctx, "netvar: registry: %s: %s; ignoring that job", path, why);
            /* keep the job as one with no app, so the file is not parsed
             * and logged again at every later refresh */
            struct nv_running_job *j = &jobs[kept];
            memset(j, 0, sizeof *j);
            j->jobid = ids[i];
            j->refused = true;
            j->nodes = strdup("");
            j->switches = strdup("");
            if (j->nodes && j->switches)
                kept++;
            else
                job_free(j);
        }
    }
    bool changed = !r->seen_once || reused != r->n || kept != r->n;
    while (old < r->n)
        job_free(&r->jobs[old++]);
    free(r->jobs);
    free(ids);
    r->jobs = jobs;
    r->n = kept;
    r->cap = n;
    r->dir_mtime = st.st_mtim;
    /* A file created in the same clock tick as this scan would not change
     * the directory's mtime again: trust the mtime only once it is a
     * second old, and rescan (parsing only new files) until then. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    r->seen = now.tv_sec - st.st_mtim.tv_sec >= 2;
    r->seen_once = true;
    return changed ? 1 : 0;
}

size_t nv_registry_expire(struct nv_registry *r, double now_unix_s, double grace_s,
                          const uint32_t *live, size_t nlive, double live_at_unix_s,
                          nv_registry_log_fn log, void *ctx)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct nv_running_job *j = &r->jobs[i];
        if (j->expired)
            continue;
        if (j->end_unix_s > 0 && now_unix_s > j->end_unix_s + grace_s) {
            j->expired = true;
            n++;
            nv_logf(log, ctx,
                    "netvar: registry: job %u ended at its time limit %.0f s ago and its "
                    "entry was never removed (first node down?); leaving it out",
                    j->jobid, now_unix_s - j->end_unix_s);
        } else if (live && j->start_unix_s < live_at_unix_s &&
                   !bsearch(&j->jobid, live, nlive, sizeof *live, cmp_id)) {
            j->expired = true;
            n++;
            nv_logf(log, ctx,
                    "netvar: registry: slurmctld no longer runs job %u, but its entry "
                    "was never removed (first node down?); leaving it out",
                    j->jobid);
        }
    }
    return n;
}

static int cmp_util_desc(const void *a, const void *b)
{
    const struct nv_running_app *x = a, *y = b;
    if (x->local != y->local)
        return x->local ? 1 : -1;
    if (x->utilization != y->utilization)
        return x->utilization < y->utilization ? 1 : -1;
    return (x->app > y->app) - (x->app < y->app);
}

/* leaf switches a job spans: its entry names each once; 0 unknown */
static uint32_t leaf_count(const struct nv_running_job *j)
{
    uint32_t sw = 0;
    if (j->switches && j->switches[0]) {
        sw = 1;
        for (const char *p = j->switches; *p; p++)
            sw += *p == ',';
    }
    return sw;
}

static void append_nodes(struct nv_running_app *a, const char *nodes)
{
    size_t len = a->nodes_len, add = strlen(nodes);
    if (!add)
        return;
    if (len + add + 2 > NV_REG_NODES_MAX) {
        a->nodes_cut = true;
        return;
    }
    if (len)
        a->nodes[len++] = ',';
    memcpy(a->nodes + len, nodes, add + 1);
    a->nodes_len = len + add;
}

void nv_neighbour_memo_free(struct nv_neighbour_memo *mm)
{
    if (!mm)
        return;
    free(mm->row_of);
    free(mm->state);
    free(mm->key);
    free(mm->pct);
    free(mm->sum);
    free(mm);
}

struct nv_neighbour_memo *nv_neighbour_memo_new(size_t napps_model, size_t napps)
{
    if (!napps_model || !napps)
        return NULL;
    struct nv_neighbour_memo *mm = calloc(1, sizeof *mm);
    if (!mm)
        return NULL;
    mm->napps_model = napps_model;
    mm->cols = 2 * napps;
    mm->row_of = malloc(napps_model * sizeof *mm->row_of);
    mm->state = calloc(NV_MEMO_ROWS, 1);
    mm->key = calloc(NV_MEMO_ROWS, sizeof *mm->key);
    mm->pct = malloc((size_t)NV_MEMO_ROWS * mm->cols * sizeof *mm->pct);
    mm->sum = calloc(napps_model, sizeof *mm->sum);
    if (!mm->row_of || !mm->state || !mm->key || !mm->pct || !mm->sum) {
        nv_neighbour_memo_free(mm);
        return NULL;
    }
    for (size_t i = 0; i < napps_model; i++)
        mm->row_of[i] = -1;
    return mm;
}

struct nv_running_index *nv_running_index_build(const struct nv_registry *r, const nv_model *m,
                                                size_t max_apps)
{
    struct nv_running_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        ix->njobs += !r->jobs[i].expired;
    size_t napps_model = m ? nv_model_app_count(m) : 0;
    int32_t *slot = napps_model ? malloc(napps_model * sizeof *slot) : NULL;
    struct nv_running_app *apps = r->n ? calloc(r->n, sizeof *apps) : NULL;
    if ((napps_model && !slot) || (r->n && !apps)) {
        free(slot);
        free(apps);
        free(ix);
        return NULL;
    }
    for (size_t i = 0; i < napps_model; i++)
        slot[i] = -1;
    size_t na = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct nv_running_job *j = &r->jobs[i];
        if (j->expired)
            continue;
        int32_t idx = (m && j->app[0]) ? nv_model_app_index(m, j->app) : -1;
        if (idx < 0) {
            ix->unknown_jobs++;
            continue;
        }
        if (slot[idx] < 0) {
            nv_app_view v;
            slot[idx] = (int32_t)na;
            apps[na].app = idx;
            apps[na].first_jobid = j->jobid;
            if (nv_model_app(m, idx, &v) == 0) {
                apps[na].key = v.key;
                apps[na].utilization = v.utilization;
            }
            na++;
        }
        struct nv_running_app *a = &apps[slot[idx]];
        a->njobs++;
        uint32_t sw = leaf_count(j);
        if (sw > a->span_switches || (sw && sw == a->span_switches && j->jobid < a->span_jobid)) {
            a->span_switches = sw;
            a->span_jobid = j->jobid;
        }
        a->jobs_local += sw == 1;
        if (sw > 1)
            nv_leaf_set_add_list(&a->leaves, j->switches);
        else if (!sw)
            nv_leaf_set_fill(&a->leaves);
    }
    for (size_t k = 0; k < na; k++)
        apps[k].local = apps[k].jobs_local == apps[k].njobs;
    if (na)
        qsort(apps, na, sizeof *apps, cmp_util_desc);
    ix->napps_total = na;
    ix->napps = na < max_apps ? na : max_apps;
    ix->apps = apps;
    /* node lists only for the apps kept, so memory stays bounded */
    for (size_t i = 0; i < napps_model; i++)
        slot[i] = -1;
    for (size_t k = 0; k < ix->napps; k++) {
        slot[apps[k].app] = (int32_t)k;
        apps[k].nodes = calloc(1, NV_REG_NODES_MAX);
        if (!apps[k].nodes)
            apps[k].nodes_cut = true;
    }
    for (size_t i = 0; i < r->n; i++) {
        int32_t idx = (m && r->jobs[i].app[0] && !r->jobs[i].expired)
                          ? nv_model_app_index(m, r->jobs[i].app)
                          : -1;
        /* a job under one leaf switch shares no port with a newcomer on
         * any node but its own, which Slurm does not give to two jobs of
         * an exclusive partition: avoid has nothing to keep a newcomer off */
        if (idx >= 0 && slot[idx] >= 0 && apps[slot[idx]].nodes && leaf_count(&r->jobs[i]) != 1)
            append_nodes(&apps[slot[idx]], r->jobs[i].nodes);
    }
    free(slot);
    ix->memo = nv_neighbour_memo_new(napps_model, ix->napps);
    return ix;
}

void nv_running_index_free(struct nv_running_index *ix)
{
    if (!ix)
        return;
    for (size_t k = 0; k < ix->napps; k++)
        free(ix->apps[k].nodes);
    free(ix->apps);
    nv_neighbour_memo_free(ix->memo);
    free(ix);
}
