/* bsp_proxy.c - netvar-proxy-bsp: a bulk-synchronous MPI proxy app for the
 * segment profiler.  Each iteration computes a fixed amount of floating
 * point work (class A, or class B = A x factor every Nth iteration: two
 * programmatic segment classes) and then calls MPI_Alltoall.  Options can
 * end the run before MPI_Finalize to exercise partial profiles. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
    printf(
        "Usage: netvar-proxy-bsp [OPTIONS]\n\n"
        "Bulk-synchronous MPI proxy: compute, then MPI_Alltoall, in a loop.\n\n"
        "Options:\n"
        "  --iters N          iterations (default 200)\n"
        "  --work K           class-A work, thousands of multiply-adds per iteration (default 2000)\n"
        "  --b-every N        every Nth iteration is class B (default 4; 0 = never)\n"
        "  --b-factor F       class-B work = F x class-A work (default 3)\n"
        "  --bytes B          Alltoall bytes per peer (default 1024)\n"
        "  --exit-after N     call _exit(3) after N iterations (no MPI_Finalize)\n"
        "  --sigterm-after N  raise SIGTERM after N iterations (no MPI_Finalize)\n"
        "  --help             this text\n\n"
        "Rank 0 prints one line: iterations, loop time in microseconds.\n"
        "Exit status: 0 ok, 2 bad usage.\n");
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Deterministic floating-point work: k thousand dependent multiply-adds. */
static double compute(long k, double x)
{
    for (long i = 0; i < k * 1000; i++)
        x = x * 0.999999 + 0.000001;
    return x;
}

static long arg_long(const char *s, const char *name)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!end || *end || v < 0) {
        fprintf(stderr, "netvar-proxy-bsp: %s needs a non-negative integer, got '%s'\n", name, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long iters = 200, work = 2000, b_every = 4, b_factor = 3, bytes = 1024, exit_after = -1,
         term_after = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            usage();
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "netvar-proxy-bsp: unknown or incomplete option '%s'\n", a);
            return 2;
        }
        long v = arg_long(argv[++i], a);
        if (!strcmp(a, "--iters"))
            iters = v;
        else if (!strcmp(a, "--work"))
            work = v;
        else if (!strcmp(a, "--b-every"))
            b_every = v;
        else if (!strcmp(a, "--b-factor"))
            b_factor = v;
        else if (!strcmp(a, "--bytes"))
            bytes = v;
        else if (!strcmp(a, "--exit-after"))
            exit_after = v;
        else if (!strcmp(a, "--sigterm-after"))
            term_after = v;
        else {
            fprintf(stderr, "netvar-proxy-bsp: unknown option '%s'\n", a);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (bytes > (1L << 24))
        bytes = 1L << 24;
    char *sb = calloc((size_t)size, (size_t)bytes + 1),
         *rb = calloc((size_t)size, (size_t)bytes + 1);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double x = 1.0 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_us();
    for (long it = 0; it < iters; it++) {
        if (it == exit_after)
            _exit(3);
        if (it == term_after)
            raise(SIGTERM);
        int class_b = b_every > 0 && it % b_every == b_every - 1;
        x = compute(class_b ? work * b_factor : work, x);
        sb[0] = (char)x;
        MPI_Alltoall(sb, (int)bytes, MPI_BYTE, rb, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    }
    double t1 = now_us();
    if (rank == 0)
        printf("netvar-proxy-bsp: ranks=%d iterations=%ld loop_us=%.0f checksum=%g\n", size, iters,
               t1 - t0, x > 0 ? 1.0 : 0.0);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
