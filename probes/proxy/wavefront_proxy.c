/* wavefront_proxy.c - netvar-proxy-wavefront: a pipeline.  Ranks form a
 * chain; every iteration a wave runs down it: rank r waits for rank r-1's
 * block (N doubles), computes on it and passes it to rank r+1, so each rank
 * idles while the wave is upstream and the chain's latency adds up (a
 * sweep, as in transport codes and pipelined solvers). */
#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "wavefront",
                           .size = 512,
                           .iters = 10000,
                           .compute_scale = 1,
                           .extra = 4,
                           .extra_name = "blocks"};
    int rc = proxy_parse(&o, argc, argv, rank,
                         "Wavefront (pipeline) proxy: ranks form a chain; each iteration sends K\n"
                         "blocks of N doubles down it, rank r receiving each block from r-1,\n"
                         "computing on it (N / 20 work units) and passing it to r+1.",
                         "doubles per block passed down the chain", "blocks per wave");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    if (o.size > 1000000 || o.extra > 1000) {
        if (rank == 0)
            fprintf(stderr,
                    "netvar-proxy-wavefront: --size at most 1000000 and --blocks at most 1000; "
                    "using %ld and %ld\n",
                    o.size > 1000000 ? 1000000 : o.size, o.extra > 1000 ? 1000 : o.extra);
        o.size = o.size > 1000000 ? 1000000 : o.size;
        o.extra = o.extra > 1000 ? 1000 : o.extra;
    }
    double *blk = malloc((size_t)o.size * sizeof *blk);
    if (!blk) {
        fprintf(stderr, "netvar-proxy-wavefront: cannot allocate %ld doubles\n", o.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < o.size; i++)
        blk[i] = rank + i * 1e-6;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL,
        down = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;
    double work = (double)o.size / 20.0, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        for (long b = 0; b < o.extra; b++) {
            MPI_Request r;
            MPI_Irecv(blk, (int)o.size, MPI_DOUBLE, up, (int)b, MPI_COMM_WORLD, &r);
            proxy_wait(&o, 1, &r);
            sink += proxy_compute(&o, work, blk, o.size);
            MPI_Isend(blk, (int)o.size, MPI_DOUBLE, down, (int)b, MPI_COMM_WORLD, &r);
            proxy_wait(&o, 1, &r);
        }
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + blk[0]);
    free(blk);
    MPI_Finalize();
    return 0;
}
