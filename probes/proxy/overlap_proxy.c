/* overlap_proxy.c - netvar-proxy-overlap: nonblocking overlap.  Every
 * iteration posts a ring exchange (MPI_Irecv/MPI_Isend of N doubles each
 * way), computes while it is in flight, and only then waits for it: the
 * communication hides behind the computation as long as it takes less
 * time than the compute. */
#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "overlap",
                           .size = 32768,
                           .iters = 2000,
                           .compute_scale = 1,
                           .extra = 1000,
                           .extra_name = "overlap-us"};
    int rc =
        proxy_parse(&o, argc, argv, rank,
                    "Overlap proxy: each iteration posts MPI_Irecv and MPI_Isend of N doubles\n"
                    "with the ring neighbours, computes for C work units (C microseconds)\n"
                    "while they are in flight, then waits for them.",
                    "doubles per message", "computation overlapping each exchange, us");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    if (o.size > 10000000) {
        if (rank == 0)
            fprintf(stderr,
                    "netvar-proxy-overlap: --size %ld is more than 10000000; using 10000000\n",
                    o.size);
        o.size = 10000000;
    }
    double *send = malloc((size_t)o.size * sizeof *send),
           *recv = malloc((size_t)o.size * sizeof *recv);
    if (!send || !recv) {
        fprintf(stderr, "netvar-proxy-overlap: cannot allocate 2 x %ld doubles\n", o.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < o.size; i++)
        send[i] = rank + i * 1e-6;
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    double sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        MPI_Request r[2];
        MPI_Irecv(recv, (int)o.size, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(send, (int)o.size, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[1]);
        sink += proxy_compute(&o, (double)o.extra, send, o.size);
        proxy_wait(&o, 2, r);
        double *t = send;
        send = recv;
        recv = t;
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + send[0]);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
