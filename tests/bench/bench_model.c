/* bench_model.c - how fast the model loads and predicts (docs/DESIGN.md
 * budget: <= 200 ns per pair, no allocation).  Builds a random model of NV_BENCH_APPS apps with a
 * 40-configuration training set (every app measured under every
 * configuration, as in *Queue-theory interference model*) and a co-location table, saves it, loads
 * it, then times random predictions.  Prints figures; asserts nothing
 * about time.  Also counts heap allocations made inside the prediction
 * loop (malloc/calloc/realloc are wrapped at link time): must be 0. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model.h"
#include "model_builder.h"
#include "predict.h"

#define NV_BENCH_APPS 10000
#define NV_BENCH_CONFIGS 40
#define NV_BENCH_PAIRS 50000

/* ---- allocation counting (link with -Wl,--wrap=malloc,...) ---- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
static volatile int counting;
static long allocations;
void *__wrap_malloc(size_t n)
{
    if (counting)
        allocations++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    if (counting)
        allocations++;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    if (counting)
        allocations++;
    return __real_realloc(p, n);
}

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return rs * 2685821657736338717ull;
}
static double unif(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void random_latency(nv_latency_summary *l, double mean)
{
    double lat[64];
    for (int i = 0; i < 64; i++)
        lat[i] = mean * (0.5 + unif()) + (unif() < 0.1 ? 5 * unif() : 0);
    nv_latency_summary_of(lat, 64, l);
}

/* kB of this process's anonymous memory in transparent huge pages (the
 * loader packs a large model's hot arrays into a region advised for them),
 * -1 when the kernel does not say */
static long anon_huge_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

static char keys[NV_BENCH_APPS][24];

static int build_and_save(const char *path)
{
    /* NV_BENCH_NO_WAIT=1: without the queueing mechanism's data, to compare */
    const char *nw_env = getenv("NV_BENCH_NO_WAIT");
    int no_wait = nw_env && *nw_env == '1';
    /* NV_BENCH_JOINT=K: every app with K joint windows and every
     * configuration with its queue wait, so the nearest configurations
     * answer one-neighbour queries (K windows read per pair) */
    const char *jw_env = getenv("NV_BENCH_JOINT");
    long n_joint = jw_env ? atol(jw_env) : 0;
    if (n_joint < 0 || n_joint > NV_JOINT_MAX)
        n_joint = 0;
    /* NV_BENCH_JOINT_PHASES=P: each app's windows lie about P phases of
     * its own (within 0.01 of U and 2 % of W), as a real app's do, instead
     * of scattered over the whole plane (the default, the worst case: no
     * two windows share their placement) */
    const char *ph_env = getenv("NV_BENCH_JOINT_PHASES");
    long n_phases = ph_env ? atol(ph_env) : 0;
    if (n_phases < 0 || n_phases > 64)
        n_phases = 0;
    static nv_joint_window joint[NV_JOINT_MAX];
    nv_model_builder *b = nv_builder_new();
    double idle[1000];
    for (int i = 0; i < 1000; i++)
        idle[i] = 1.0 + 0.3 * unif();
    nv_calibration cal;
    nv_calibrate(idle, 1000, NV_CAL_MINIMUM, 0, &cal);
    nv_builder_set_calibration(b, &cal);
    for (int i = 0; i < NV_BENCH_APPS; i++) {
        snprintf(keys[i], sizeof keys[i], "app-%05d", i);
        nv_latency_summary l;
        random_latency(&l, 1.2 + 5 * unif());
        nv_curve_point pts[8];
        double scale = 100 * unif();
        for (int k = 0; k < 8; k++)
            pts[k] = (nv_curve_point){0.1 * (k + 1), scale * (0.1 * (k + 1)) + 3 * unif(), 2};
        nv_scaling_point sc[3] = {
            {4, 400 + unif(), 3}, {8, 210 + unif(), 3}, {16, 120 + unif(), 3}};
        /* a full utilization profile (the queue route's worst case: NV_PROFILE_MAX
         * curve reads per neighbour), sorted as the loader keeps it */
        double u = 0.9 * unif(), prof[NV_PROFILE_MAX];
        for (int k = 0; k < NV_PROFILE_MAX; k++)
            prof[k] = u * (0.5 + k / (double)NV_PROFILE_MAX) / 1.5;
        /* and the queueing mechanism's data (a wait curve of 8 points and a
         * full wait profile): the queue route then computes both mechanisms
         * (queue wait and bandwidth share), its costlier path */
        nv_curve_point wpts[8];
        double wprof[NV_PROFILE_MAX];
        for (int k = 0; k < 8; k++)
            wpts[k] = (nv_curve_point){100.0 * (k + 1), scale * 0.1 * (k + 1) + 3 * unif(), 2};
        for (int k = 0; k < NV_PROFILE_MAX; k++)
            wprof[k] = 900 * u * k / (double)NV_PROFILE_MAX;
        nv_joint_window phase[64];
        for (long k = 0; n_joint && k < n_phases; k++)
            phase[k] = (nv_joint_window){(float)unif(), (float)(4000 * unif() * unif())};
        for (long k = 0; k < n_joint; k++) {
            if (n_phases) {
                const nv_joint_window *c = &phase[rnd() % (uint64_t)n_phases];
                double ju = c->u + 0.02 * (unif() - 0.5);
                joint[k] = (nv_joint_window){(float)(ju < 0   ? 0
                                                     : ju > 1 ? 1
                                                              : ju),
                                             (float)(c->w_us * (0.98 + 0.04 * unif()))};
            } else {
                joint[k] = (nv_joint_window){(float)unif(), (float)(4000 * unif() * unif())};
            }
        }
        nv_app_input in = {.key = keys[i],
                           .utilization = u,
                           .latency = &l,
                           .joint = n_joint ? joint : NULL,
                           .n_joint = (size_t)n_joint,
                           .joint_window_s = 0.5,
                           .points = pts,
                           .n_points = 8,
                           .scaling = sc,
                           .n_scaling = 3,
                           .profile = prof,
                           .n_profile = NV_PROFILE_MAX,
                           .wait_points = no_wait ? NULL : wpts,
                           .n_wait_points = no_wait ? 0 : 8,
                           .wait_profile_us = no_wait ? NULL : wprof,
                           .n_wait_profile = no_wait ? 0 : NV_PROFILE_MAX};
        if (nv_builder_add_app(b, &in)) {
            fprintf(stderr, "bench: %s\n", nv_builder_error(b));
            return -1;
        }
    }
    static const char *apps[NV_BENCH_APPS];
    static double pct[NV_BENCH_APPS];
    for (int i = 0; i < NV_BENCH_APPS; i++)
        apps[i] = keys[i];
    for (int c = 0; c < NV_BENCH_CONFIGS; c++) {
        char id[32];
        snprintf(id, sizeof id, "B%d-P%d-M%d", 25000 << (c % 4), 1 + c / 8, c % 2 ? 10 : 1);
        nv_latency_summary l;
        random_latency(&l, 1.2 + 6 * unif());
        for (int i = 0; i < NV_BENCH_APPS; i++)
            pct[i] = 200 * unif();
        nv_config_input in = {.id = id,
                              .bubble_cycles = 25000 << (c % 4),
                              .partners = 1 + c / 8,
                              .messages = c % 2 ? 10 : 1,
                              .utilization = 0.26 + 0.66 * c / 39.0,
                              .latency = &l,
                              .n_slowdowns = NV_BENCH_APPS,
                              .slowdown_apps = apps,
                              .slowdown_pct = pct,
                              .has_queue_wait = n_joint > 0,
                              .queue_wait_us = 100.0 * (c + 1)};
        if (nv_builder_add_config(b, &in)) {
            fprintf(stderr, "bench: %s\n", nv_builder_error(b));
            return -1;
        }
    }
    for (int p = 0; p < NV_BENCH_PAIRS; p++) {
        nv_pair_input in = {keys[rnd() % NV_BENCH_APPS], keys[rnd() % NV_BENCH_APPS], 50 * unif(),
                            (uint32_t)(1 + rnd() % 10), unif()};
        nv_builder_add_pair(b, &in);
    }
    char err[512];
    double t0 = now_s();
    int rc = nv_builder_save(b, path, err, sizeof err);
    double t1 = now_s();
    nv_builder_free(b);
    if (rc) {
        fprintf(stderr, "bench: %s\n", err);
        return -1;
    }
    struct stat st;
    stat(path, &st);
    printf("model file: %d apps, %d configurations, %d x %d training slowdowns, %d table pairs, "
           "%ld joint windows per app%s\n",
           NV_BENCH_APPS, NV_BENCH_CONFIGS, NV_BENCH_CONFIGS, NV_BENCH_APPS, NV_BENCH_PAIRS,
           n_joint,
           n_joint && n_phases ? " (about its phases)"
           : n_joint           ? " (scattered)"
                               : "");
    printf("  size %.1f MiB, validate+save %.0f ms\n", (double)st.st_size / 1048576.0,
           (t1 - t0) * 1e3);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* one by-index row: predictor pr through nv_predict_idx, or (pr -1) the
 * queue route's answer alone (nv_predict_pair_pct), timed in ten chunks so
 * that a burst of noise on a shared machine shows as one slow chunk instead
 * of moving the whole figure: the mean, and the median and fastest chunk */
static void by_index_row(const nv_model *m, const int32_t *ia, const int32_t *iw, long n_pred,
                         int pr, double *sink)
{
    allocations = 0;
    counting = 1;
    double chunk[10], total = 0;
    long per = n_pred / 10;
    for (int c = 0; c < 10; c++) {
        double t0 = now_s();
        for (long i = c * per; i < (c + 1) * per; i++) {
            if (pr < 0) {
                double pct = nv_predict_pair_pct(m, ia[i], iw[i], NV_PREDICT_QUEUE, 1);
                if (pct == pct)
                    *sink += pct;
                continue;
            }
            nv_prediction p;
            if (!nv_predict_idx(m, ia[i], &iw[i], 1, (nv_predictor)pr, 1, &p))
                *sink += p.slowdown_pct;
        }
        chunk[c] = (now_s() - t0) * 1e9 / (double)per;
        total += chunk[c];
    }
    counting = 0;
    qsort(chunk, 10, sizeof *chunk, cmp_d);
    printf("  %-15s %-12d %10.1f %12s %12ld  (chunks: median %.1f, fastest %.1f%s)\n",
           nv_predictor_name(pr < 0 ? NV_PREDICT_QUEUE : (nv_predictor)pr), 1, total / 10, "",
           allocations, (chunk[4] + chunk[5]) / 2, chunk[0],
           pr < 0 ? "; the answer alone, as job_submit's loop asks" : "");
}

int main(int argc, char **argv)
{
    long n_pred = argc > 1 ? atol(argv[1]) : 1000000;
    if (n_pred < 1000 || n_pred > 100000000)
        n_pred = 1000000;
    char path[] = "/tmp/netvar-bench-model.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    if (build_and_save(path)) {
        unlink(path);
        return 1;
    }
    char err[512];
    double loads[3];
    nv_model *m = NULL;
    for (int r = 0; r < 3; r++) {
        nv_model_free(m);
        double t0 = now_s();
        m = nv_model_load(path, err, sizeof err);
        loads[r] = (now_s() - t0) * 1e3;
        if (!m) {
            fprintf(stderr, "bench: %s\n", err);
            unlink(path);
            return 1;
        }
    }
    qsort(loads, 3, sizeof *loads, cmp_d);
    printf("load: median %.1f ms of 3 (min %.1f, max %.1f)\n", loads[1], loads[0], loads[2]);
    long huge = anon_huge_kb();
    if (huge >= 0)
        printf(
            "  process memory in transparent huge pages: %ld KiB (the model's hot arrays when the "
            "kernel gave them)\n",
            huge);

    /* random queries prepared up front so that only nv_predict is timed */
    const char **qa = malloc((size_t)n_pred * sizeof *qa);
    const char **qw = malloc((size_t)n_pred * 4 * sizeof *qw);
    if (!qa || !qw)
        return 1;
    for (long i = 0; i < n_pred; i++) {
        qa[i] = keys[rnd() % NV_BENCH_APPS];
        for (int k = 0; k < 4; k++)
            qw[i * 4 + k] = keys[rnd() % NV_BENCH_APPS];
    }
    printf("predictions: %ld random queries per row, keys resolved by hash inside each call\n",
           n_pred);
    printf("  %-15s %-12s %10s %12s %12s\n", "predictor", "neighbours", "ns/pred", "table hits",
           "allocations");
    double sink = 0;
    for (int nw = 1; nw <= 4; nw += 3)
        for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++) {
            long hits = 0, failed = 0, waits = 0, nearest = 0;
            allocations = 0;
            counting = 1;
            double t0 = now_s();
            for (long i = 0; i < n_pred; i++) {
                nv_prediction p;
                if (nv_predict(m, qa[i], &qw[i * 4], (size_t)nw, (nv_predictor)pr, 1, &p, NULL))
                    failed++;
                else {
                    sink += p.slowdown_pct;
                    hits += p.source == NV_SOURCE_TABLE;
                    waits += !strcmp(p.mechanism, "queue-wait") ||
                             !strcmp(p.mechanism, "bandwidth-share");
                    nearest += !strcmp(p.mechanism, "nearest-configurations");
                }
            }
            double dt = now_s() - t0;
            counting = 0;
            printf("  %-15s %-12d %10.1f %12ld %12ld%s%s%s\n", nv_predictor_name((nv_predictor)pr),
                   nw, dt * 1e9 / (double)n_pred, hits, allocations,
                   waits ? "  (wait and share mechanisms)" : "",
                   nearest ? "  (nearest configurations)" : "", failed ? "  (some failed!)" : "");
        }
    /* job_submit's own path: apps already resolved to model indexes (the
     * running-jobs index holds them), so no key is hashed in the call */
    int32_t *ia = malloc((size_t)n_pred * sizeof *ia), *iw = malloc((size_t)n_pred * sizeof *iw);
    if (!ia || !iw)
        return 1;
    for (long i = 0; i < n_pred; i++) {
        ia[i] = nv_model_app_index(m, qa[i]);
        iw[i] = nv_model_app_index(m, qw[i * 4]);
    }
    printf(
        "by model index (as job_submit calls it: no key lookup), one neighbour; ns/pred over the "
        "run, and the median and fastest of 10 chunks:\n");
    for (int pr = 0; pr < NV_PREDICTOR_COUNT; pr++)
        by_index_row(m, ia, iw, n_pred, pr, &sink);
    /* job_submit's loop itself asks for the answer alone (no nv_prediction
     * filled): the same pairs, the queue route */
    by_index_row(m, ia, iw, n_pred, -1, &sink);
    free(ia);
    free(iw);
    printf("(checksum %.3f)\n", sink);
    free(qa);
    free(qw);
    nv_model_free(m);
    unlink(path);
    return 0;
}
