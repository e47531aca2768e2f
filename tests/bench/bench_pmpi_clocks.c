/* bench_pmpi_clocks.c - what one clock read costs the segment profiler:
 * clock_gettime on CLOCK_MONOTONIC (vDSO, no kernel entry) and on
 * CLOCK_THREAD_CPUTIME_ID (a system call), in ns of this process's CPU
 * time per read (so time spent descheduled on a loaded machine does not
 * count): the median of 9 rounds of N reads (argument, default 200 000).
 * Prints figures, asserts nothing (make bench-profiler). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ns_of(struct timespec t)
{
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double per_read(clockid_t id, long n)
{
    enum { ROUNDS = 9 };
    double r[ROUNDS];
    volatile long sink = 0;
    for (int k = 0; k < ROUNDS; k++) {
        struct timespec t0, t1, t;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        for (long i = 0; i < n; i++) {
            clock_gettime(id, &t);
            sink += t.tv_nsec;
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        r[k] = (ns_of(t1) - ns_of(t0)) / (double)n;
    }
    (void)sink;
    qsort(r, ROUNDS, sizeof r[0], cmp);
    return r[ROUNDS / 2];
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
    if (n < 1 || n > 100000000) {
        fprintf(stderr, "netvar: bench_pmpi_clocks: reads per round '%s' is not in [1, 1e8]\n",
                argv[1]);
        return 2;
    }
    double mono = per_read(CLOCK_MONOTONIC, n), cpu = per_read(CLOCK_THREAD_CPUTIME_ID, n);
    printf("clock reads, CPU time per read (median of 9 rounds of %ld): CLOCK_MONOTONIC %.1f ns, "
           "CLOCK_THREAD_CPUTIME_ID %.1f ns (%.1fx)\n",
           n, mono, cpu, cpu / mono);
    return 0;
}
