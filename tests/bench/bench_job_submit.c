/* bench_job_submit.c - job_submit/netvar's cost per call, in process.
 *
 * dlopen()s the real plugin, supplying the few libslurmfull symbols it
 * uses (allocator and logging) from this executable, builds a model of
 * 10 000 apps and a running-jobs registry of 10 000 jobs in a temp spool,
 * calls init(), then times job_submit() on synthetic job_desc_msg_t's
 * (random known apps, some unknown, some with no app) and prints the
 * median and p99 in microseconds.  Budget (docs/DESIGN.md): median <= 8 us,
 * p99 <= 20 us.  It prints figures and asserts nothing about time.
 * Also usable under valgrind to check init/job_submit/fini for leaks.
 *
 * With THREADS > 1, that many threads call job_submit() at once (slurmctld
 * does from 23.02, under read locks) while the main thread rewrites the
 * model file's time every 1.5 s so the plugin's refresher reloads it in the
 * middle; built with -fsanitize=thread (make tsan-jobsubmit) this checks
 * the plugin's locking.  It prints the number of reloads seen.
 *
 * NETVAR_BENCH_MODEL=FILE loads that model (a copy) instead of building
 * one; NETVAR_BENCH_ENV and NETVAR_BENCH_COLD are described below.
 * NETVAR_BENCH_JOINT=K gives the built model 40 CompressionB
 * configurations with their queue waits, every app a slowdown under each
 * and K joint windows about NETVAR_BENCH_JOINT_PHASES (default 3) phases
 * of its own, so the nearest configurations answer every pair.
 *
 * usage: bench_job_submit PLUGIN.so [CALLS] [APPS] [RUNNING_JOBS] [THREADS] */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "calibration.h"
#include "lookup.h"
#include "alloc_model.h"
#include "model_builder.h"
#include "predict.h"
#include "registry.h"

/* ---- the libslurmfull symbols the plugin resolves at load time ---- */
char *slurm_xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}
void *slurm_xcalloc(size_t cnt, size_t sz, bool clear, bool try_, const char *file, int line,
                    const char *func)
{
    (void)clear, (void)try_, (void)file, (void)line, (void)func;
    return calloc(cnt ? cnt : 1, sz ? sz : 1); /* zeroed either way */
}
void slurm_xfree(void **p)
{
    free(*p);
    *p = NULL;
}
void slurm_xstrcat(char **a, const char *b)
{
    size_t la = *a ? strlen(*a) : 0, lb = strlen(b);
    char *n = realloc(*a, la + lb + 1);
    if (!n)
        return;
    memcpy(n + la, b, lb + 1);
    *a = n;
}
static int quiet;   /* read by the plugin's refresher thread too: atomic */
static int reloads; /* model loads the plugin logged (atomically counted) */
static void vlog(const char *fmt, va_list ap)
{
    if (strstr(fmt, "model %s loaded"))
        __atomic_add_fetch(&reloads, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&quiet, __ATOMIC_RELAXED))
        return;
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}
void slurm_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}
void slurm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}
void slurm_debug(const char *fmt, ...)
{
    (void)fmt;
}
/* the reload thread's two requests to slurmctld: here it cannot answer, so
 * no registry entry expires and avoid is not checked against partitions */
int slurm_load_jobs(time_t t, job_info_msg_t **m, uint16_t f)
{
    (void)t, (void)f;
    *m = NULL;
    return -1;
}
void slurm_free_job_info_msg(job_info_msg_t *m)
{
    (void)m;
}
int slurm_load_partitions(time_t t, partition_info_msg_t **m, uint16_t f)
{
    (void)t, (void)f;
    *m = NULL;
    return -1;
}
void slurm_free_partition_info_msg(partition_info_msg_t *m)
{
    (void)m;
}

static __thread uint64_t rs = 0x9E3779B97F4A7C15ull; /* one stream per thread */
static uint64_t rnd(void)
{
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return rs * 2685821657736338717ull;
}
static double unif(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}
static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* NETVAR_BENCH_ALLOC=TREES: an "alloc" section as `netvar alloc train`
 * writes by default (per class TREES boosted trees of depth 4, full
 * binary: 31 nodes each), a halo profile for every app and 8 switches of
 * 8 nodes, so every submission with --nodes=2-8 gets the predictive
 * advice: the worst case of what it adds to job_submit(). */
static nv_alloc_model *bench_alloc(int napps)
{
    long trees = atol(getenv("NETVAR_BENCH_ALLOC"));
    nv_alloc_model *m = nv_alloc_new();
    char err[300];
    if (!m || trees < 1 || trees > NV_ALLOC_MAX_TREES)
        return m;
    size_t per = 31, n = per * (size_t)trees;
    int32_t *f = malloc(n * sizeof *f), *l = malloc(n * sizeof *l), *r = malloc(n * sizeof *r);
    double *th = malloc(n * sizeof *th), *v = malloc(n * sizeof *v);
    uint32_t *roots = malloc((size_t)trees * sizeof *roots);
    for (int cls = 0; f && l && r && th && v && roots && cls < NV_ALLOC_CLASSES; cls++) {
        int nf = nv_alloc_class_features((nv_alloc_class)cls);
        for (long t = 0; t < trees; t++) {
            size_t o = (size_t)t * per;
            roots[t] = (uint32_t)o;
            for (size_t i = 0; i < per; i++) { /* heap order: children 2i+1, 2i+2 */
                int leaf = 2 * i + 1 >= per;
                f[o + i] = leaf ? -1 : (int32_t)(rnd() % (uint64_t)nf);
                l[o + i] = leaf ? 0 : (int32_t)(o + 2 * i + 1);
                r[o + i] = leaf ? 0 : (int32_t)(o + 2 * i + 2);
                th[o + i] = leaf ? 0 : 1e4 * unif();
                v[o + i] = leaf ? 0.01 * (unif() - 0.5) : 0;
            }
        }
        nv_alloc_predictor p = {
            .cls = (nv_alloc_class)cls, .max_msg_bytes = INFINITY, .base = log(1e-3)};
        snprintf(p.source, sizeof p.source, "bench: random trees");
        if (nv_alloc_add_predictor(m, &p, f, th, l, r, v, n, roots, (size_t)trees, err, sizeof err))
            fprintf(stderr, "bench: %s\n", err);
    }
    free(f), free(l), free(r), free(th), free(v), free(roots);
    for (int i = 0; i < napps; i++) {
        nv_alloc_app a = {.compute_core_s = 1000, .phases = 1000, .ranks = 64};
        snprintf(a.key, sizeof a.key, "app-%05d", i);
        snprintf(a.source, sizeof a.source, "bench");
        nv_alloc_pattern_halo(64, 3, 4096 + i, &a.pattern);
        nv_alloc_add_app(m, &a, err, sizeof err);
    }
    for (int j = 0; j < 8; j++) {
        nv_alloc_switch s = {.group = (uint32_t)(j / 4), .nodes = 8};
        snprintf(s.name, sizeof s.name, "s%d", j);
        nv_alloc_add_switch(m, &s, err, sizeof err);
    }
    nv_alloc_finish(m, err, sizeof err);
    return m;
}

/* the given model is copied into the temp spool: the reload test touches
 * the copy's time, never the caller's file */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = -1;
    if (in && ferror(in))
        rc = -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        rc = -1;
    if (rc)
        fprintf(stderr, "bench: cannot copy the model %s to %s\n", from, to);
    return rc;
}

#define BENCH_MAX_APPS 100000

static int build_model(const char *path, int napps)
{
    nv_model_builder *b = nv_builder_new();
    double idle[256];
    for (int i = 0; i < 256; i++)
        idle[i] = 1.0 + 0.3 * unif();
    nv_calibration cal;
    nv_calibrate(idle, 256, NV_CAL_MINIMUM, 0, &cal);
    nv_builder_set_calibration(b, &cal);
    /* NETVAR_BENCH_JOINT=K: the nearest configurations' data (see the top) */
    long n_joint = getenv("NETVAR_BENCH_JOINT") ? atol(getenv("NETVAR_BENCH_JOINT")) : 0;
    long n_phases =
        getenv("NETVAR_BENCH_JOINT_PHASES") ? atol(getenv("NETVAR_BENCH_JOINT_PHASES")) : 3;
    if (n_joint < 0 || n_joint > NV_JOINT_MAX)
        n_joint = 0;
    if (n_phases < 1 || n_phases > 64)
        n_phases = 3;
    static nv_joint_window joint[NV_JOINT_MAX];
    static char keys[BENCH_MAX_APPS][24];
    for (int i = 0; i < napps; i++) {
        char *key = keys[i];
        snprintf(key, 24, "app-%05d", i);
        double lat[32];
        for (int k = 0; k < 32; k++)
            lat[k] = 1.5 + 4 * unif();
        nv_latency_summary l;
        nv_latency_summary_of(lat, 32, &l);
        nv_curve_point pts[6];
        double scale = 120 * unif();
        for (int k = 0; k < 6; k++)
            pts[k] = (nv_curve_point){0.15 * (k + 1), scale * 0.15 * (k + 1), 2};
        nv_scaling_point sc[3] = {{2, 800, 3}, {4, 420, 3}, {8, 260, 3}};
        /* every app with a full utilization profile: the queue route's
         * worst case (NV_PROFILE_MAX curve reads per neighbour) */
        double u = 0.9 * unif(), prof[NV_PROFILE_MAX];
        for (int k = 0; k < NV_PROFILE_MAX; k++)
            prof[k] = u * (0.5 + k / (double)NV_PROFILE_MAX) / 1.5;
        nv_joint_window phase[64];
        for (long k = 0; n_joint && k < n_phases; k++) /* (no draw without windows: the
                                                          default model stays as it was) */
            phase[k] = (nv_joint_window){(float)unif(), (float)(4000 * unif() * unif())};
        for (long k = 0; k < n_joint; k++) { /* within 0.01 of U and 2 % of W of a phase */
            const nv_joint_window *c = &phase[rnd() % (uint64_t)n_phases];
            double ju = c->u + 0.02 * (unif() - 0.5);
            joint[k] = (nv_joint_window){(float)(ju < 0   ? 0
                                                 : ju > 1 ? 1
                                                          : ju),
                                         (float)(c->w_us * (0.98 + 0.04 * unif()))};
        }
        nv_app_input in = {.key = key,
                           .utilization = u,
                           .latency = &l,
                           .points = pts,
                           .n_points = 6,
                           .scaling = sc,
                           .n_scaling = 3,
                           .profile = prof,
                           .n_profile = NV_PROFILE_MAX,
                           .joint = n_joint ? joint : NULL,
                           .n_joint = (size_t)n_joint,
                           .joint_window_s = 0.5};
        if (nv_builder_add_app(b, &in))
            return fprintf(stderr, "bench: %s\n", nv_builder_error(b)), -1;
    }
    if (n_joint) {
        static const char *apps[BENCH_MAX_APPS];
        static double pct[BENCH_MAX_APPS];
        for (int i = 0; i < napps; i++)
            apps[i] = keys[i];
        nv_latency_summary l;
        double lat[32];
        for (int k = 0; k < 32; k++)
            lat[k] = 2 + 6 * unif();
        nv_latency_summary_of(lat, 32, &l);
        for (int c = 0; c < 40; c++) {
            char id[32];
            snprintf(id, sizeof id, "B%d-P%d-M%d", 25000 << (c % 4), 1 + c / 8, c % 2 ? 10 : 1);
            for (int i = 0; i < napps; i++)
                pct[i] = 200 * unif();
            nv_config_input in = {.id = id,
                                  .bubble_cycles = 25000 << (c % 4),
                                  .partners = 1 + c / 8,
                                  .messages = c % 2 ? 10 : 1,
                                  .utilization = 0.26 + 0.66 * c / 39.0,
                                  .latency = &l,
                                  .n_slowdowns = (size_t)napps,
                                  .slowdown_apps = apps,
                                  .slowdown_pct = pct,
                                  .has_queue_wait = 1,
                                  .queue_wait_us = 100.0 * (c + 1)};
            if (nv_builder_add_config(b, &in))
                return fprintf(stderr, "bench: %s\n", nv_builder_error(b)), -1;
        }
    }
    for (int p = 0; p < napps; p++) {
        char a[24], w[24];
        snprintf(a, sizeof a, "app-%05d", (int)(rnd() % (uint64_t)napps));
        snprintf(w, sizeof w, "app-%05d", (int)(rnd() % (uint64_t)napps));
        nv_pair_input in = {a, w, 40 * unif(), (uint32_t)(1 + rnd() % 9), 2 * unif()};
        nv_builder_add_pair(b, &in);
    }
    char err[512];
    nv_alloc_model *am = getenv("NETVAR_BENCH_ALLOC") ? bench_alloc(napps) : NULL;
    if (am && nv_builder_set_alloc(b, am))
        fprintf(stderr, "bench: no alloc section: %s\n", nv_builder_error(b));
    nv_alloc_free(am);
    int rc = nv_builder_save(b, path, err, sizeof err);
    if (rc)
        fprintf(stderr, "bench: %s\n", err);
    nv_builder_free(b);
    return rc;
}

/* entries in the registry's format (registry.h), written plainly: the
 * atomic writer's fsync per file would dominate the setup of 10 000 jobs.
 * Every entry names two leaf switches, so each job crosses an uplink and
 * every running app is predicted against: an app whose jobs all lie under
 * one leaf is answered by its path without a prediction, which would leave
 * the benchmark nothing to time. */
static int build_registry(const char *dir, int njobs, int napps)
{
    for (int j = 1; j <= njobs; j++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%d.json", dir, j);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        int n = (int)(rnd() % 4096);
        fprintf(f,
                "{\"schema\":\"%s\",\"version\":%d,\"job_id\":%d,\"app\":\"app-%05d\","
                "\"mode\":\"counters\",\"start_unix_s\":1.0,\"nodes\":[\"n%d\",\"n%d\"],"
                "\"switches\":[\"s%d\",\"s%d\"],\"groups\":[\"g0\"]}\n",
                NV_RUNNING_SCHEMA, NV_RUNNING_VERSION, j, (int)(rnd() % (uint64_t)napps), n, n + 1,
                n / 32, n / 32 + 1);
        fclose(f);
    }
    return 0;
}

/* What sbatch hands slurmctld beside the options: the user's environment
 * and the batch script.  A job_desc without them measures less than
 * slurmctld pays; NETVAR_BENCH_ENV=N sets the variables (default 60, about
 * a module-using shell's; 0: a bare job_desc, as before). */
static char **bench_env;
static uint32_t bench_env_n;
static char bench_script[1200];

static void make_submission(void)
{
    const char *e = getenv("NETVAR_BENCH_ENV");
    long n = e ? atol(e) : 60;
    if (n < 0 || n > 10000)
        n = 60;
    bench_env = calloc((size_t)n + 1, sizeof *bench_env);
    for (long i = 0; bench_env && i < n; i++) {
        char v[400];
        if (i == 0)
            snprintf(v, sizeof v,
                     "PATH=/opt/apps/gcc/12/bin:/opt/apps/openmpi/4.1/bin:/usr/local/bin:"
                     "/usr/bin:/bin:/home/user/.local/bin:/opt/slurm/bin");
        else if (i == 1)
            snprintf(v, sizeof v,
                     "LD_LIBRARY_PATH=/opt/apps/gcc/12/lib64:/opt/apps/openmpi/4.1/lib:"
                     "/opt/apps/fftw/3.3/lib:/opt/apps/hdf5/1.14/lib:/opt/intel/mkl/lib");
        else
            snprintf(v, sizeof v, "MODULE_VAR_%03ld=/opt/apps/package-%03ld/version-1.%ld/share", i,
                     i, i);
        bench_env[i] = strdup(v);
    }
    bench_env_n = bench_env ? (uint32_t)n : 0;
    snprintf(bench_script, sizeof bench_script,
             "#!/bin/bash\n#SBATCH --job-name=run\n#SBATCH --time=02:00:00\n"
             "#SBATCH --output=run-%%j.out\nset -euo pipefail\nmodule purge\n"
             "module load gcc/12 openmpi/4.1 fftw/3.3 hdf5/1.14\ncd $SLURM_SUBMIT_DIR\n"
             "export OMP_NUM_THREADS=1\ncp input.dat $TMPDIR/\n"
             "srun --cpu-bind=cores ./solver -i $TMPDIR/input.dat -o out.h5 -n 400\n"
             "python3 post.py out.h5 > summary.txt\n");
}

/* NETVAR_BENCH_COLD=MiB: before each call, sweep that much memory (not
 * timed), as slurmctld's own work between two submissions evicts the
 * plugin's code and data from the caches.  Inside slurmctld the plugin's
 * calls take longer than in this loop, where everything stays hot; the
 * cold figure is the one to set beside the daemon's (bench-sdiag). */
static unsigned char *cold_buf;
static size_t cold_bytes;

static void evict(void)
{
    for (size_t i = 0; i < cold_bytes; i += 64)
        cold_buf[i]++;
}

static int finished; /* workers done */
typedef int (*submit_fn)(job_desc_msg_t *, uint32_t, char **);
struct worker {
    submit_fn submit;
    double *lat; /* this worker's slice of the latencies */
    long calls;
    int napps;
    uint64_t seed;
};

static void *run_calls(void *arg)
{
    struct worker *w = arg;
    rs ^= w->seed;
    char env[64], name[32];
    char *spank_env[1] = {env};
    for (long i = 0; i < w->calls; i++) {
        job_desc_msg_t d;
        memset(&d, 0, sizeof d);
        d.min_nodes = 2, d.max_nodes = 8, d.user_id = 1000;
        d.partition = "batch";
        d.environment = bench_env;
        d.env_size = bench_env_n;
        d.script = bench_env_n ? bench_script : NULL;
        long kind = i % 10;
        if (kind < 8) { /* a known app by option */
            snprintf(env, sizeof env, "_SLURM_SPANK_OPTION_netvar_netvar_app=app-%05d",
                     (int)(rnd() % (uint64_t)w->napps));
            d.spank_job_env = spank_env;
            d.spank_job_env_size = 1;
        } else if (kind == 8) { /* unknown app by job name */
            snprintf(name, sizeof name, "mystery-%ld", i);
            d.name = name;
        }
        char *msg = NULL;
        if (cold_bytes)
            evict();
        double t = now_us();
        w->submit(&d, 1000, &msg);
        w->lat[i] = now_us() - t;
        free(msg);
        free(d.comment);
        free(d.exc_nodes);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLUGIN.so [CALLS] [APPS] [RUNNING_JOBS] [THREADS]\n", argv[0]);
        return 2;
    }
    long calls = argc > 2 ? atol(argv[2]) : 200000;
    int napps = argc > 3 ? atoi(argv[3]) : 10000;
    int njobs = argc > 4 ? atoi(argv[4]) : 10000;
    int nthreads = argc > 5 ? atoi(argv[5]) : 1;
    if (calls < 1 || napps < 1 || napps > BENCH_MAX_APPS || njobs < 0 || nthreads < 1 ||
        nthreads > 64)
        return fprintf(stderr, "bench: CALLS >= 1, APPS 1..%d, RUNNING_JOBS >= 0, THREADS 1..64\n",
                       BENCH_MAX_APPS),
               2;
    char tmpl[] = "/tmp/netvar-bench-js.XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        return perror("mkdtemp"), 1;
    char model[512], conf[512], spool[512], running[600];
    snprintf(model, sizeof model, "%s/model.json", dir);
    snprintf(conf, sizeof conf, "%s/netvar.conf", dir);
    snprintf(spool, sizeof spool, "%s/spool", dir);
    snprintf(running, sizeof running, "%s/running", spool);
    mkdir(spool, 0755);
    mkdir(running, 0755);
    double t0 = now_us();
    make_submission();
    if (getenv("NETVAR_BENCH_COLD")) {
        long mib = atol(getenv("NETVAR_BENCH_COLD"));
        cold_bytes = mib > 0 && mib <= 1024 ? (size_t)mib << 20 : 0;
        cold_buf = cold_bytes ? calloc(1, cold_bytes) : NULL;
        if (!cold_buf)
            cold_bytes = 0;
    }
    /* NETVAR_BENCH_MODEL=FILE: a model file instead of the built-in one
     * (the site-scale model of make bench-train: keys app-00000 ...,
     * so give APPS as its app count) */
    const char *given_model = getenv("NETVAR_BENCH_MODEL");
    if (given_model ? copy_file(given_model, model) : build_model(model, napps))
        return 1;
    if (!given_model && getenv("NETVAR_BENCH_JOINT") && napps > 1) {
        /* which mechanism answers a pair of this model (the library's own
         * prediction, outside the timed calls) */
        char err[512];
        nv_model *m = nv_model_load(model, err, sizeof err);
        nv_prediction p;
        const char *with[] = {"app-00001"};
        if (!m || nv_predict(m, "app-00000", with, 1, NV_PREDICT_QUEUE, 3, &p, NULL))
            return fprintf(stderr, "bench: the built model: %s\n", m ? "no prediction" : err), 1;
        printf("a pair of the built model is answered by: %s\n", p.mechanism ? p.mechanism : "-");
        nv_model_free(m);
    }
    if (build_registry(running, njobs, napps))
        return 1;
    printf("setup: %s model of %d apps%s%s and registry of %d running jobs in %.1f s\n",
           given_model ? "given" : "built-in", napps, given_model ? " " : "",
           given_model ? given_model : "", njobs, (now_us() - t0) / 1e6);
    FILE *f = fopen(conf, "w");
    fprintf(
        f,
        "ModelFile=%s\nSpoolDir=%s\nInterferenceThreshold=10\n"
        "Rule=noisy inflicted_slowdown>=30 action=avoid,message message=\"netvar: kept apart\"\n"
        "Rule=sensitive own_slowdown>=20 action=contain\n",
        model, spool);
    fclose(f);
    setenv("NETVAR_CONF", conf, 1);

    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fprintf(stderr, "bench: %s\n", dlerror()), 1;
    int (*init)(void) = (int (*)(void))dlsym(h, "init");
    void (*fini)(void) = (void (*)(void))dlsym(h, "fini");
    int (*submit)(job_desc_msg_t *, uint32_t, char **) =
        (int (*)(job_desc_msg_t *, uint32_t, char **))dlsym(h, "job_submit");
    if (!init || !fini || !submit)
        return fprintf(stderr, "bench: plugin lacks init/fini/job_submit\n"), 1;
    t0 = now_us();
    init();
    printf("init (config + model + registry load): %.0f ms\n", (now_us() - t0) / 1e3);
    __atomic_store_n(&quiet, 1, __ATOMIC_RELAXED);

    double *lat = malloc((size_t)calls * sizeof *lat);
    if (!lat)
        return 1;
    int loads_before = __atomic_load_n(&reloads, __ATOMIC_RELAXED);
    double wall = now_us();
    if (nthreads == 1) {
        struct worker w = {submit, lat, calls, napps, 0};
        run_calls(&w);
    } else {
        pthread_t tid[64];
        struct worker w[64];
        long per = calls / nthreads;
        int started = 0;
        for (int t = 0; t < nthreads; t++) {
            long n = t == nthreads - 1 ? calls - per * (nthreads - 1) : per;
            w[t] =
                (struct worker){submit, lat + per * t, n, napps, 0x1000193ull * (uint64_t)(t + 1)};
            if (pthread_create(&tid[t], NULL, run_calls, &w[t]) != 0)
                break;
            started++;
        }
        /* new model times while the threads run: the refresher (1 s period)
         * swaps in a freshly loaded model under its write lock */
        for (int k = 1; __atomic_load_n(&finished, __ATOMIC_ACQUIRE) < started; k++) {
            usleep(50000);
            if (k % 30 == 0) {
                struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
                utimensat(AT_FDCWD, model, ts, 0);
            }
        }
        for (int t = 0; t < started; t++)
            pthread_join(tid[t], NULL);
        if (started != nthreads)
            return fprintf(stderr, "bench: could not start %d threads\n", nthreads), 1;
    }
    wall = now_us() - wall;
    qsort(lat, (size_t)calls, sizeof *lat, cmp);
    printf("job_submit(): %ld calls, %d apps, %d running jobs, %u environment variables "
           "and a %zu-byte script each: median %.2f us, p90 %.2f us, "
           "p99 %.2f us, max %.1f us (budget: median <= 8 us, p99 <= 20 us); %d thread%s, "
           "%.0f calls/s; %d model reloads during the calls%s%s\n",
           calls, napps, njobs, bench_env_n, bench_env_n ? strlen(bench_script) : 0, lat[calls / 2],
           lat[calls * 9 / 10], lat[calls * 99 / 100], lat[calls - 1], nthreads,
           nthreads == 1 ? "" : "s", calls / (wall / 1e6),
           __atomic_load_n(&reloads, __ATOMIC_RELAXED) - loads_before,
           getenv("NETVAR_BENCH_ALLOC") && !getenv("NETVAR_BENCH_MODEL")
               ? "; with the alloc section"
               : "",
           cold_bytes ? "; caches swept before each call" : "");
    __atomic_store_n(&quiet, 0, __ATOMIC_RELAXED);
    fini();
    dlclose(h);
    free(lat);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
