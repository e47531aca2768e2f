/* phased_proxy.c - netvar-proxy-phased: an AMG-like proxy whose network
 * use comes in phases: K compute-only iterations, then K iterations of
 * MPI_Alltoall with little compute, and again. */
#include <math.h>

#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "phased",
                           .size = 32768,
                           .iters = 1200,
                           .compute_scale = 1,
                           .extra = 25,
                           .extra_name = "phase-iters"};
    int rc =
        proxy_parse(&o, argc, argv, rank,
                    "Phased (AMG-like) proxy: blocks of K compute-only iterations (N log2 N /\n"
                    "50 work units each) alternate with blocks of K communication iterations\n"
                    "(MPI_Alltoall of N doubles per rank, N/ranks to each peer).",
                    "doubles per rank moved by each Alltoall", "iterations per phase");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    long per = o.size / nranks > 0 ? o.size / nranks : 1;
    size_t n = (size_t)per * (size_t)nranks;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "netvar-proxy-phased: cannot allocate 2 x %zu doubles\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (double)rank + (double)i * 1e-6;
    double heavy = (double)n * log2((double)n + 1) / 50.0, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        bool comm_phase = (it / o.extra) % 2 == 1;
        if (!comm_phase) {
            sink += proxy_compute(&o, heavy, a, (long)n);
            continue;
        }
        MPI_Request r;
        MPI_Ialltoall(a, (int)per, MPI_DOUBLE, b, (int)per, MPI_DOUBLE, MPI_COMM_WORLD, &r);
        proxy_wait(&o, 1, &r);
        double *t = a;
        a = b;
        b = t;
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + a[0]);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
