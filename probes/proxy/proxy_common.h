/* proxy_common.h - what every netvar proxy app shares: option parsing
 * (--size, --iters, --compute, --busy-wait), polite completion of
 * nonblocking MPI requests, a compute kernel, timing and the result line.
 *
 * Polite waiting (MPI_Test plus a short nanosleep) is the default because
 * on a 2-core test machine busy-polling ranks of two jobs steal each
 * other's CPU, which looks exactly like network interference.
 * `--compute sleep` replaces computation by sleeping for the same modelled
 * time, so co-located jobs do not compete for cores either. */
#ifndef NETVAR_PROXY_COMMON_H
#define NETVAR_PROXY_COMMON_H

#include <errno.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct proxy_opts {
    const char *name; /* "alltoall", ... */
    long size;        /* meaning per app, see its --help */
    long iters;
    bool busy_wait;
    bool compute_sleep;
    double compute_scale; /* multiplies the compute kernel's work */
    long extra;           /* one app-specific integer (--reduce-every, --phase-iters) */
    const char *extra_name;
};

static inline double proxy_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void proxy_nap_ns(long ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Completes n requests: MPI_Waitall when busy-waiting, else test and nap. */
static inline void proxy_wait(const struct proxy_opts *o, int n, MPI_Request *req)
{
    if (o->busy_wait) {
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        return;
    }
    int done = 0;
    long nap = 2000; /* ns; grows to 50 us so short waits stay short */
    for (;;) {
        MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (done)
            return;
        proxy_nap_ns(nap);
        if (nap < 50000)
            nap *= 2;
    }
}

/* Multiply-adds per work unit: about 1 us of one core of this class of
 * machine (measured on the 2-core test host), so cpu and sleep modes model
 * the same time.  Fixed, never calibrated at run time: the work of a run
 * must not depend on how loaded the machine was when it started. */
#define PROXY_MADDS_PER_UNIT 700

/* `work` units of floating point work on buf (n doubles, swept in order),
 * or the same modelled time asleep (1 unit = 1 us). */
static inline double proxy_compute(const struct proxy_opts *o, double work, double *buf, long n)
{
    work *= o->compute_scale;
    if (!(work > 0))
        return 0;
    if (o->compute_sleep) {
        proxy_nap_ns((long)(work * 1000.0));
        return 0;
    }
    if (!buf || n <= 0)
        n = 0;
    long total = (long)(work * PROXY_MADDS_PER_UNIT);
    /* one loop-carried chain: cannot be vectorized, so the rate stays the
     * same whatever the compiler does with the sweep over buf */
    double x = 1.0, acc = 0;
    for (long i = 0, k = 0; i < total; i++) {
        x = x * 0.999999 + (n ? buf[k] : 1.0) * 1e-9;
        if (n && ++k == n) {
            k = 0;
            acc += x;
        }
    }
    if (n)
        buf[0] = x;
    acc += x;
    return acc;
}

static inline void proxy_usage(const struct proxy_opts *o, const char *what,
                               const char *size_meaning, long def_size, long def_iters,
                               const char *extra_meaning, long def_extra)
{
    printf(
        "Usage: mpirun [...] netvar-proxy-%s [--size N] [--iters N]%s%s%s [--compute cpu|sleep]\n"
        "       [--compute-scale F] [--busy-wait]\n\n"
        "%s\n\n"
        "Options:\n"
        "  --size N           %s (default %ld)\n"
        "  --iters N          iterations (default %ld)\n",
        o->name, extra_meaning ? " [--" : "", extra_meaning ? o->extra_name : "",
        extra_meaning ? " N]" : "", what, size_meaning, def_size, def_iters);
    if (extra_meaning)
        printf("  --%-16s %s (default %ld)\n", o->extra_name, extra_meaning, def_extra);
    printf(
        "  --compute cpu|sleep  cpu: real floating-point work (default); sleep: sleep for the\n"
        "                     modelled compute time (1 work unit = 1 us), so co-located jobs on\n"
        "                     a small machine do not compete for cores\n"
        "  --compute-scale F  multiply the compute work by F, 0..1000 (default 1)\n"
        "  --busy-wait        wait with MPI_Waitall (Open MPI polls) instead of MPI_Test plus\n"
        "                     short sleeps\n"
        "  --help             this text\n\n"
        "Rank 0 prints one line of key=value pairs: proxy, ranks, iterations, runtime_s\n"
        "(seconds, from a barrier before the first iteration to one after the last), size.\n"
        "No core binding is requested; run with --bind-to none under mpirun.\n\n"
        "Exit status: 0 success, 2 bad usage.\n\n"
        "Example:\n"
        "  srun -N2 --mpi=pmix netvar-proxy-%s --iters 20\n",
        o->name);
}

/* Parses argv into o; returns -1 after --help (caller exits 0), 0 ok; bad
 * usage prints one line (rank 0 only) and returns 2. */
static inline int proxy_parse(struct proxy_opts *o, int argc, char **argv, int rank,
                              const char *what, const char *size_meaning, const char *extra_meaning)
{
    long def_size = o->size, def_iters = o->iters, def_extra = o->extra;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            if (rank == 0)
                proxy_usage(o, what, size_meaning, def_size, def_iters, extra_meaning, def_extra);
            return -1;
        }
        if (!strcmp(a, "--busy-wait")) {
            o->busy_wait = true;
            continue;
        }
        if (i + 1 >= argc) {
            if (rank == 0)
                fprintf(stderr,
                        "netvar-proxy-%s: unknown or incomplete option '%.40s'; see --help\n",
                        o->name, a);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--compute")) {
            if (!strcmp(v, "cpu") || !strcmp(v, "sleep")) {
                o->compute_sleep = !strcmp(v, "sleep");
                continue;
            }
            if (rank == 0)
                fprintf(stderr, "netvar-proxy-%s: --compute must be cpu or sleep, got '%.20s'\n",
                        o->name, v);
            return 2;
        }
        char *end = NULL;
        errno = 0;
        if (!strcmp(a, "--compute-scale")) {
            double f = strtod(v, &end);
            if (errno || !end || *end || !(f >= 0 && f <= 1000)) {
                if (rank == 0)
                    fprintf(
                        stderr,
                        "netvar-proxy-%s: --compute-scale needs a number 0..1000, got '%.20s'\n",
                        o->name, v);
                return 2;
            }
            o->compute_scale = f;
            continue;
        }
        long n = strtol(v, &end, 10);
        bool ok = !errno && end && !*end && n >= 1 && n <= 100000000L;
        if (ok && !strcmp(a, "--size"))
            o->size = n;
        else if (ok && !strcmp(a, "--iters"))
            o->iters = n;
        else if (ok && extra_meaning && a[0] == '-' && a[1] == '-' && !strcmp(a + 2, o->extra_name))
            o->extra = n;
        else {
            if (rank == 0)
                fprintf(stderr, "netvar-proxy-%s: %s '%.20s': %s\n", o->name, a, v,
                        ok ? "unknown option; see --help" : "needs an integer 1..100000000");
            return 2;
        }
    }
    return 0;
}

/* A barrier that does not spin. */
static inline void proxy_barrier(const struct proxy_opts *o)
{
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    proxy_wait(o, 1, &r);
}

static inline void proxy_report(const struct proxy_opts *o, int rank, int nranks, long iters,
                                double t0, double sink)
{
    proxy_barrier(o);
    double t = proxy_now_s() - t0;
    if (rank == 0) {
        printf(
            "proxy=%s ranks=%d iterations=%ld runtime_s=%.6f size=%ld compute=%s wait=%s checksum=%.6g\n",
            o->name, nranks, iters, t, o->size, o->compute_sleep ? "sleep" : "cpu",
            o->busy_wait ? "busy" : "polite", sink);
        fflush(stdout);
    }
}

#endif
