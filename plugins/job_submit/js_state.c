/* js_state.c - loading, reloading and swapping job_submit/netvar's state.
 * Files are read here, never in job_submit(): at init(), then by one
 * background thread that looks at the config's, the model's and the
 * registry directory's modification times once a second, builds a new
 * generation aside, and swaps it in under the write lock.  A bad new
 * config or model keeps the previous good one, with one log line. */
#define _GNU_SOURCE /* PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP */
#include "js_state.h"
#include "js_stats.h"
#include "lat_hist.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <slurm/slurm.h>

#include "slurm_glue.h"
#include "topology_yaml.h"

/* Writer-preferring: from 23.02 slurmctld calls job_submit() from many
 * threads at once, and with glibc's default (readers first) a steady stream
 * of overlapping readers can keep the refresher's swap waiting for as long
 * as the stream lasts.  No thread takes the read lock twice, so the
 * non-recursive kind is safe. */
#ifdef PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
static pthread_rwlock_t lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
#else
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
#endif
static struct js_generation current;

static pthread_t refresher;
static pthread_mutex_t stop_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cv = PTHREAD_COND_INITIALIZER;
static bool stopping, started;

/* refresher-private */
static char conf_path[PATH_MAX];
static bool conf_named; /* $NETVAR_CONF: must exist; the default path may be absent */
static struct timespec conf_mtime, model_mtime;
static char model_path[PATH_MAX];
static char topo_path[PATH_MAX]; /* topology.yaml or .conf: beside slurm.conf */
static enum nv_topo_kind topo_kind;
static struct timespec topo_mtime;
static bool topo_seen; /* the file existed at the last look */
static struct nv_registry registry;
static double last_check; /* when slurmctld was last asked which jobs run */
static double last_parts; /* ... and its partitions' nodes */

/* an entry's end time is trusted this long past it (the epilog's time) */
#define REGISTRY_GRACE_S 60.0
/* prolog clocks may run ahead of slurmctld's by this much */
#define REGISTRY_SKEW_S 30.0

static void log_error_line(void *ctx, const char *line)
{
    (void)ctx;
    slurm_error("netvar: %s", line);
}

static void log_line(void *ctx, const char *line)
{
    (void)ctx;
    slurm_error("%s", line);
}

static void log_info_line(void *ctx, const char *line)
{
    (void)ctx;
    slurm_info("%s", line);
}

static double now_unix_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The jobs slurmctld runs (or has suspended) now, sorted, from one RPC for
 * all of them, made here in the reload thread and never in job_submit().
 * Returns 0, or -1 when slurmctld cannot say (nothing expires then). */
static int live_jobs(uint32_t **ids, size_t *n)
{
    job_info_msg_t *msg = NULL;
    *ids = NULL;
    *n = 0;
    if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS || !msg)
        return -1;
    *ids = malloc((msg->record_count ? msg->record_count : 1) * sizeof **ids);
    if (!*ids) {
        slurm_free_job_info_msg(msg);
        return -1;
    }
    for (uint32_t i = 0; i < msg->record_count; i++) {
        uint32_t base = msg->job_array[i].job_state & JOB_STATE_BASE;
        if (base == JOB_RUNNING || base == JOB_SUSPENDED)
            (*ids)[(*n)++] = msg->job_array[i].job_id;
    }
    slurm_free_job_info_msg(msg);
    qsort(*ids, *n, sizeof **ids, cmp_u32);
    return 0;
}

/* The partitions' nodes, from one RPC in the reload thread (the check
 * that avoid leaves a job runnable needs them).  NULL when slurmctld
 * cannot answer yet. */
static struct nv_partitions *load_partitions(void)
{
    partition_info_msg_t *msg = NULL;
    if (slurm_load_partitions((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS || !msg)
        return NULL;
    struct nv_partitions *ps = calloc(1, sizeof *ps);
    for (uint32_t i = 0; ps && i < msg->record_count; i++) {
        const partition_info_t *p = &msg->partition_array[i];
        char err[300];
        if (nv_partitions_add(ps, p->name, p->nodes, p->flags & PART_FLAG_DEFAULT, err, sizeof err))
            slurm_error("netvar: %s; avoid is not checked for that partition", err);
    }
    slurm_free_partition_info_msg(msg);
    return ps;
}

/* Everything expires: entries past their end time at every pass, and every
 * RegistryCheckSeconds those of jobs slurmctld no longer runs (their first
 * node died before its epilog removed them).  Returns how many expired. */
static size_t expire_registry(const struct nv_config *c)
{
    double now = now_unix_s();
    size_t n =
        nv_registry_expire(&registry, now, REGISTRY_GRACE_S, NULL, 0, 0, log_info_line, NULL);
    unsigned every = c ? c->registry_check_s : 60;
    if (!every || !registry.n || now - last_check < every)
        return n;
    last_check = now;
    uint32_t *live;
    size_t nlive;
    if (live_jobs(&live, &nlive) != 0) {
        slurm_debug("netvar: registry: slurmctld did not list its jobs; checking again in %u s",
                    every);
        return n;
    }
    n += nv_registry_expire(&registry, now, REGISTRY_GRACE_S, live, nlive, now - REGISTRY_SKEW_S,
                            log_info_line, NULL);
    free(live);
    return n;
}

static bool mtime_of(const char *path, struct timespec *out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    *out = st.st_mtim;
    return true;
}

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* netvar.conf: $NETVAR_CONF, else beside slurm.conf, else /etc/netvar. */
static void find_config(void)
{
    const char *env = getenv("NETVAR_CONF");
    const char *slurm_conf = getenv("SLURM_CONF");
    struct stat st;
    conf_named = false;
    if (env && env[0] == '/') {
        snprintf(conf_path, sizeof conf_path, "%s", env);
        conf_named = true;
        return;
    }
    if (slurm_conf && slurm_conf[0] == '/') {
        const char *slash = strrchr(slurm_conf, '/');
        snprintf(conf_path, sizeof conf_path, "%.*s/netvar.conf", (int)(slash - slurm_conf),
                 slurm_conf);
        if (stat(conf_path, &st) == 0)
            return;
    }
    snprintf(conf_path, sizeof conf_path, "/etc/netvar/netvar.conf");
}

/* Slurm's topology file beside $SLURM_CONF, else Debian's /etc/slurm:
 * topology.yaml when this Slurm reads it and it exists, else
 * topology.conf, chosen at start as slurmctld chooses it */
static void find_topology(void)
{
    topo_kind =
        nv_topo_slurm_file(getenv("SLURM_CONF"), SLURM_VERSION_NUMBER >= NV_TOPO_YAML_SINCE_SLURM,
                           topo_path, sizeof topo_path);
}

/* The leaf switch of every node, when the topology file changed (or at start):
 * *out gets the new map (NULL when the file is gone) and true is returned;
 * false keeps the one in use (unchanged, or unreadable: one line says so). */
static bool load_leaves(bool at_start, struct nv_leaf_map **out)
{
    struct timespec t;
    bool have = mtime_of(topo_path, &t);
    if (!at_start && have == topo_seen && (!have || same_time(t, topo_mtime)))
        return false;
    topo_seen = have;
    if (have)
        topo_mtime = t;
    *out = NULL;
    if (!have) {
        slurm_info("netvar: no %s: a job's --nodelist is not read for its leaf switches",
                   topo_path);
        return true;
    }
    char err[512];
    nv_topo topo;
    nv_topo_init(&topo);
    struct nv_leaf_map *lm = calloc(1, sizeof *lm);
    if (!lm ||
        nv_topo_load_slurm(&topo, topo_path, topo_kind ? topo_kind : NV_TOPO_CONF, err,
                           sizeof err) ||
        nv_leaf_map_build(lm, &topo, err, sizeof err)) {
        if (!lm)
            snprintf(err, sizeof err, "out of memory");
        slurm_error("netvar: %s: %s; %s", topo_path, err,
                    at_start ? "a job's --nodelist is not read for its leaf switches"
                             : "keeping the leaf switches read before");
        nv_topo_free(&topo);
        free(lm);
        return at_start;
    }
    nv_topo_free(&topo);
    slurm_info("netvar: %s: %zu nodes under %zu leaf switches", topo_path, lm->n, lm->nleaves);
    *out = lm;
    return true;
}

static struct nv_config *load_config(bool at_start)
{
    struct nv_config *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    bool missing = false;
    int errors = nv_config_load_opt(conf_path, conf_named, c, log_error_line, NULL, &missing);
    if (missing)
        slurm_info("netvar: no %s: job_submit/netvar uses the defaults (active)", conf_path);
    /* rules match users by uid inside slurmctld: names resolved here, once */
    nv_config_resolve_users(c, conf_path, log_error_line, NULL);
    if (errors) {
        slurm_error("netvar: %s has %d error%s; %s", conf_path, errors, errors == 1 ? "" : "s",
                    at_start ? "job_submit/netvar stays passive until it is fixed"
                             : "keeping the previous configuration");
        free(c);
        return NULL;
    }
    return c;
}

static nv_model *load_model(const char *path, bool *failed)
{
    char err[512];
    *failed = false;
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    nv_model *m = nv_model_load(path, err, sizeof err);
    if (!m) {
        *failed = true;
        slurm_error("netvar: model %s: %s", path, err);
    }
    return m;
}

static void swap_in(struct js_generation *next)
{
    struct js_generation old;
    pthread_rwlock_wrlock(&lock);
    old = current;
    current = *next;
    pthread_rwlock_unlock(&lock);
    /* no reader can hold the old generation now */
    if (old.conf != current.conf)
        free(old.conf);
    if (old.model != current.model)
        nv_model_free(old.model);
    if (old.index != current.index)
        nv_running_index_free(old.index);
    if (old.leaves != current.leaves && old.leaves) {
        nv_leaf_map_free(old.leaves);
        free(old.leaves);
    }
    if (old.parts != current.parts && old.parts) {
        nv_partitions_free(old.parts);
        free(old.parts);
    }
}

static void registry_dir(const struct nv_config *c, char *buf, size_t cap)
{
    if (nv_registry_dir(c ? c->spool_dir : "/var/spool/netvar", buf, cap))
        buf[0] = '\0';
}

/* one pass of the refresher; at_start loads unconditionally */
static void refresh(bool at_start)
{
    const bool first = at_start;         /* at_start also marks a model path change below */
    struct js_generation next = current; /* only this thread writes current */
    bool changed = false, index_stale = false;
    struct timespec t;

    if (at_start || (mtime_of(conf_path, &t) && !same_time(t, conf_mtime))) {
        mtime_of(conf_path, &conf_mtime);
        struct nv_config *c = load_config(at_start);
        if (c || at_start) {
            next.conf = c ? c : (at_start ? NULL : next.conf);
            changed = true;
            if (c) {
                char dir[PATH_MAX + 16];
                registry_dir(c, dir, sizeof dir);
                if (strcmp(dir, registry.dir)) {
                    nv_registry_free(&registry);
                    nv_registry_init(&registry, dir);
                }
                if (strcmp(model_path, c->model_file)) {
                    snprintf(model_path, sizeof model_path, "%s", c->model_file);
                    model_mtime = (struct timespec){0, 0};
                    at_start = true; /* (re)load the model from the new path */
                }
            }
        }
    }
    if (model_path[0] && (at_start || (mtime_of(model_path, &t) && !same_time(t, model_mtime)))) {
        bool failed;
        mtime_of(model_path, &model_mtime);
        nv_model *m = load_model(model_path, &failed);
        if (m || !failed) {
            if (m)
                slurm_info("netvar: model %s loaded: %zu apps, %zu training configurations, "
                           "%zu measured pairs",
                           model_path, nv_model_app_count(m), nv_model_config_count(m),
                           nv_model_pair_count(m));
            else
                slurm_info("netvar: no model at %s; annotating only", model_path);
            next.model = m;
            changed = index_stale = true;
        } else {
            slurm_error("netvar: keeping the previous model (%s)",
                        current.model ? "still in use" : "none: annotating only");
        }
    }
    struct nv_leaf_map *lm;
    if (load_leaves(first, &lm)) {
        next.leaves = lm;
        changed = true;
    }
    int r = nv_registry_refresh(&registry, log_line, NULL);
    size_t expired = expire_registry(next.conf);
    /* partitions: until slurmctld first answers every 5 s, then with the
     * registry check (or every 60 s) */
    double now = now_unix_s(),
           every = next.conf && next.conf->registry_check_s ? next.conf->registry_check_s : 60;
    if (now - last_parts >= (next.parts ? every : 5)) {
        last_parts = now;
        struct nv_partitions *ps = load_partitions();
        if (ps && !next.parts)
            slurm_info("netvar: %zu partitions known; avoid always leaves a job the nodes it "
                       "needs",
                       ps->n);
        if (ps) {
            next.parts = ps;
            changed = true;
        }
    }
    if (r > 0 || expired || index_stale || !next.index) {
        struct nv_running_index *ix = nv_running_index_build(
            &registry, next.model, next.conf ? next.conf->max_neighbour_apps : 32);
        if (ix) {
            next.index = ix;
            changed = true;
        } else if (next.model != current.model) {
            /* the index in use points into the model in use: a new model
             * without its own index would leave it pointing into freed
             * memory.  Keep both, and load the model again next time. */
            slurm_error("netvar: out of memory building the running-jobs index for model %s; "
                        "keeping the previous model, retrying in a second",
                        model_path);
            nv_model_free(next.model);
            next.model = current.model;
            model_mtime = (struct timespec){0, 0};
            changed = next.conf != current.conf || next.parts != current.parts;
        }
    }
    if (changed)
        swap_in(&next);
}

static nv_lat_hist own_time;
static uint64_t next_report = 8;

void js_state_note_call(uint64_t ns)
{
    nv_lat_record(&own_time, ns);
    js_stats_note_call(ns);
}

/* the refresher's: one line when the call count passed the next milestone */
static void report_calls(void)
{
    uint64_t calls = __atomic_load_n(&own_time.calls, __ATOMIC_RELAXED);
    if (calls < next_report)
        return;
    nv_lat_summary t;
    nv_lat_summarize(&own_time, &t);
    slurm_info("netvar: job_submit: %llu calls so far, the plugin's own time per call: "
               "median %.2f us, p90 %.2f us, p99 %.2f us, mean %.2f us, max %.1f us",
               (unsigned long long)t.calls, t.median_us, t.p90_us, t.p99_us, t.mean_us, t.max_us);
    while (next_report <= calls)
        next_report = next_report < (1u << 20) ? 2 * next_report : next_report + (1u << 20);
}

static void *refresher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&stop_mu);
    while (!stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&stop_cv, &stop_mu, &until);
        if (stopping)
            break;
        pthread_mutex_unlock(&stop_mu);
        refresh(false);
        report_calls();
        js_stats_flush(model_path);
        pthread_mutex_lock(&stop_mu);
    }
    pthread_mutex_unlock(&stop_mu);
    return NULL;
}

int js_state_start(void)
{
    find_config();
    find_topology();
    nv_registry_init(&registry, "");
    /* slurmctld answers RPCs only once it is up: never asked from init(),
     * the partitions first from the refresher thread a second later */
    last_check = now_unix_s();
    last_parts = last_check - 4;
    refresh(true);
    slurm_info("netvar: job_submit/netvar using %s (%s), model %s, registry %s", conf_path,
               current.conf ? "valid" : "PASSIVE: fix the errors above",
               current.model ? model_path : "none", registry.dir);
    stopping = false;
    if (pthread_create(&refresher, NULL, refresher_main, NULL) != 0) {
        slurm_error("netvar: cannot start the reload thread; files are read once, at start");
        return 0;
    }
    started = true;
    return 0;
}

int js_state_start_manual(void)
{
    find_config();
    find_topology();
    nv_registry_init(&registry, "");
    last_check = last_parts = 0;
    refresh(true);
    return 0;
}

void js_state_refresh_once(void)
{
    refresh(false);
}

void js_state_stop(void)
{
    if (started) {
        pthread_mutex_lock(&stop_mu);
        stopping = true;
        pthread_cond_signal(&stop_cv);
        pthread_mutex_unlock(&stop_mu);
        pthread_join(refresher, NULL);
        started = false;
    }
    struct js_generation empty = {0};
    swap_in(&empty);
    nv_registry_free(&registry);
}

const struct js_generation *js_state_acquire(void)
{
    pthread_rwlock_rdlock(&lock);
    return &current;
}

void js_state_release(void)
{
    pthread_rwlock_unlock(&lock);
}
