/* alltoall_proxy.c - netvar-proxy-alltoall: an FFT-like proxy.  Each
 * iteration transforms a local slab (compute ~ N log2 N) and then
 * transposes it across all ranks with MPI_Alltoall: all-to-all heavy. */
#include <math.h>

#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "alltoall", .size = 65536, .iters = 400, .compute_scale = 1};
    int rc = proxy_parse(&o, argc, argv, rank,
                         "FFT-like proxy: each iteration transforms a local slab of N doubles\n"
                         "(about N log2 N / 200 work units) and transposes it with MPI_Alltoall\n"
                         "(N/ranks doubles to every peer, 8N bytes per rank).",
                         "doubles per rank in the slab", NULL);
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    long per = o.size / nranks > 0 ? o.size / nranks : 1;
    size_t n = (size_t)per * (size_t)nranks;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "netvar-proxy-alltoall: cannot allocate 2 x %zu doubles\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (double)(rank + 1) + (double)i * 1e-6;
    double work = (double)n * log2((double)n + 1) / 200.0, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        sink += proxy_compute(&o, work, a, (long)n);
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
