/* medium_proxy.c - netvar-proxy-medium: medium messages.  Every iteration
 * each rank exchanges one message of N bytes (default 16 KiB: above the
 * eager limit of most transports, below bandwidth-bound sizes) with every
 * other rank, pairwise (rank r with r^k), then computes a little: neither
 * latency- nor bandwidth-bound. */
#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "medium", .size = 16384, .iters = 10000, .compute_scale = 1};
    int rc = proxy_parse(&o, argc, argv, rank,
                         "Medium-message proxy: each iteration exchanges one message of N bytes\n"
                         "with each other rank in turn (partner r+k and r-k on a ring), then\n"
                         "computes for N / 64 work units.",
                         "bytes per message", NULL);
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    if (o.size > 16 * 1024 * 1024) {
        if (rank == 0)
            fprintf(stderr, "netvar-proxy-medium: --size %ld is more than 16 MiB; using 16 MiB\n",
                    o.size);
        o.size = 16 * 1024 * 1024;
    }
    char *send = malloc((size_t)o.size), *recv = malloc((size_t)o.size);
    double *scratch = malloc(4096 * sizeof *scratch);
    if (!send || !recv || !scratch) {
        fprintf(stderr, "netvar-proxy-medium: cannot allocate 2 x %ld bytes\n", o.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(send, rank & 0x7f, (size_t)o.size);
    for (int i = 0; i < 4096; i++)
        scratch[i] = 1.0;
    double work = (double)o.size / 64.0, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        for (int k = 1; k < nranks; k++) {
            MPI_Request r[2];
            MPI_Irecv(recv, (int)o.size, MPI_BYTE, (rank + nranks - k) % nranks, k, MPI_COMM_WORLD,
                      &r[0]);
            MPI_Isend(send, (int)o.size, MPI_BYTE, (rank + k) % nranks, k, MPI_COMM_WORLD, &r[1]);
            proxy_wait(&o, 2, r);
        }
        sink += proxy_compute(&o, work, scratch, 4096);
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + recv[0]);
    free(send);
    free(recv);
    free(scratch);
    MPI_Finalize();
    return 0;
}
