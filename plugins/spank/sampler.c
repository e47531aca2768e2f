/* sampler.c - optional periodic counter samples (--netvar-interval), taken
 * by a thread in the extern step, which lives as long as the allocation.
 * Memory is fixed at start: a ring of the newest samples, at most
 * max_samples and at most 4 MiB; older ones are dropped and counted.  At the
 * end the samples become per-window deltas in .samples-<node>.json
 * (node_record.h), which the epilog folds into the node record. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "node_record.h"
#include "spank_state.h"

#define SAMPLER_MAX_BYTES (4u << 20)

struct sampler {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop, running;
    nv_ctr_reader *reader;
    int interval_s;
    nv_ctr_snapshot layout;  /* names, kinds, units, scales of the ports */
    size_t cap, count, head; /* ring of cap samples; head = next slot */
    uint64_t dropped;
    uint64_t *raw; /* cap * nports * NV_CTR_NFIELDS */
    uint64_t *t_ns;
    double *t_unix;
    char path[PATH_MAX + 160];
};

static struct sampler S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static size_t stride(void)
{
    return (size_t)S.layout.nports * NV_CTR_NFIELDS;
}

static void store(const nv_ctr_snapshot *s)
{
    size_t slot = S.head;
    for (int p = 0; p < S.layout.nports && p < s->nports; p++)
        for (int f = 0; f < NV_CTR_NFIELDS; f++)
            S.raw[slot * stride() + (size_t)p * NV_CTR_NFIELDS + (size_t)f] = s->port[p].f[f].raw;
    S.t_ns[slot] = s->t_ns;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    S.t_unix[slot] = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    S.head = (S.head + 1) % S.cap;
    if (S.count < S.cap)
        S.count++;
    else
        S.dropped++;
}

static void *sampler_main(void *arg)
{
    (void)arg;
    nv_ctr_snapshot *snap = malloc(sizeof *snap);
    char err[256];
    pthread_mutex_lock(&S.mu);
    while (snap && !S.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += S.interval_s;
        while (!S.stop && pthread_cond_timedwait(&S.cv, &S.mu, &until) != ETIMEDOUT)
            ;
        if (S.stop)
            break;
        if (nv_ctr_snapshot_take(S.reader, snap, err, sizeof err) >= 0)
            store(snap);
    }
    pthread_mutex_unlock(&S.mu);
    free(snap);
    return NULL;
}

int nv_sampler_start(const char *path, int interval_s, unsigned max_samples)
{
    char err[256];
    if (S.running || interval_s <= 0 || max_samples == 0)
        return 0;
    nv_ctr_config cfg = {.backend = "auto"};
    char spec[256], *colon;
    snprintf(spec, sizeof spec, "%s", nv_spank.args.counters[0] ? nv_spank.args.counters : "auto");
    if ((colon = strchr(spec, ':'))) {
        *colon = '\0';
        if (!strcmp(spec, "papi"))
            cfg.papi_events = colon + 1;
        else
            cfg.iface_glob = colon + 1;
    }
    cfg.backend = spec;
    cfg.sysfs_root = nv_spank.args.sysfs_root[0] ? nv_spank.args.sysfs_root : NULL;
    S.reader = nv_ctr_open(&cfg, err, sizeof err);
    if (!S.reader || nv_ctr_snapshot_take(S.reader, &S.layout, err, sizeof err) < 0) {
        slurm_error("netvar: sampler: %s; no periodic samples", err);
        if (S.reader)
            nv_ctr_close(S.reader);
        S.reader = NULL;
        return -1;
    }
    size_t per = stride() * sizeof(uint64_t) + sizeof(uint64_t) + sizeof(double);
    S.cap = max_samples;
    if (per * S.cap > SAMPLER_MAX_BYTES)
        S.cap = SAMPLER_MAX_BYTES / per;
    if (S.cap < 2)
        S.cap = 2;
    S.raw = calloc(S.cap * (stride() ? stride() : 1), sizeof(uint64_t));
    S.t_ns = calloc(S.cap, sizeof(uint64_t));
    S.t_unix = calloc(S.cap, sizeof(double));
    if (!S.raw || !S.t_ns || !S.t_unix) {
        slurm_error("netvar: sampler: out of memory; no periodic samples");
        return -1;
    }
    S.interval_s = interval_s;
    snprintf(S.path, sizeof S.path, "%s", path);
    store(&S.layout);
    if (pthread_create(&S.thread, NULL, sampler_main, NULL) != 0) {
        slurm_error("netvar: sampler: cannot start a thread; no periodic samples");
        return -1;
    }
    S.running = true;
    return 0;
}

/* rebuilds sample i (0 = oldest kept) as a full snapshot */
static void sample_at(size_t i, nv_ctr_snapshot *out)
{
    size_t slot = (S.head + S.cap - S.count + i) % S.cap;
    *out = S.layout;
    out->t_ns = S.t_ns[slot];
    for (int p = 0; p < S.layout.nports; p++)
        for (int f = 0; f < NV_CTR_NFIELDS; f++) {
            nv_ctr_value *v = &out->port[p].f[f];
            v->raw = S.raw[slot * stride() + (size_t)p * NV_CTR_NFIELDS + (size_t)f];
            v->saturated = v->sat_max && v->raw >= v->sat_max;
        }
}

/* window i (0 = oldest) of the kept samples: sample i to sample i + 1 */
static int window_at(void *arg, size_t i, double *end_unix_s, nv_ctr_delta *d)
{
    nv_ctr_snapshot *ab = arg; /* two snapshots of scratch */
    char err[256];
    sample_at(i, &ab[0]);
    sample_at(i + 1, &ab[1]);
    if (nv_ctr_delta_compute(&ab[0], &ab[1], d, err, sizeof err))
        return -1;
    *end_unix_s = S.t_unix[(S.head + S.cap - S.count + i + 1) % S.cap];
    return 0;
}

void nv_sampler_stop(void)
{
    if (!S.running)
        return;
    pthread_mutex_lock(&S.mu);
    S.stop = true;
    pthread_cond_signal(&S.cv);
    pthread_mutex_unlock(&S.mu);
    pthread_join(S.thread, NULL);
    S.running = false;

    nv_ctr_snapshot *ab = malloc(2 * sizeof *ab);
    char err[256];
    if (!ab)
        slurm_error("netvar: sampler: out of memory; samples lost");
    else if (nv_node_samples_write(S.path, S.interval_s, S.dropped, S.count ? S.count - 1 : 0,
                                   window_at, ab, err, sizeof err))
        slurm_error("netvar: sampler: %s; samples lost", err);
    free(ab);
    nv_ctr_close(S.reader);
    free(S.raw);
    free(S.t_ns);
    free(S.t_unix);
}
