/* stencil_proxy.c - netvar-proxy-stencil: a 2-D halo exchange.  Ranks form
 * a periodic 2-D grid; each iteration swaps the four edges of an N x N
 * local block with its neighbours, then updates the block (5-point
 * Jacobi-like work): neighbour exchange, moderate bandwidth. */
#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "stencil", .size = 1024, .iters = 2500, .compute_scale = 1};
    int rc =
        proxy_parse(&o, argc, argv, rank,
                    "2-D stencil proxy: ranks on a periodic 2-D grid exchange the four edges\n"
                    "(N doubles each) of an N x N block with their neighbours every iteration,\n"
                    "then update the block (5 N^2 / 1000 work units).",
                    "side of the local block in doubles (halo = 8N bytes per edge)", NULL);
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    if (o.size > 100000) {
        if (rank == 0)
            fprintf(stderr, "netvar-proxy-stencil: --size %ld is more than 100000; using 100000\n",
                    o.size);
        o.size = 100000;
    }
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(nranks, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    int nb[4];
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    long n = o.size;
    double *send = malloc(4 * (size_t)n * sizeof *send),
           *recv = malloc(4 * (size_t)n * sizeof *recv);
    double *block = malloc((size_t)n * sizeof *block); /* one row stands in for the block's data */
    if (!send || !recv || !block) {
        fprintf(stderr, "netvar-proxy-stencil: cannot allocate halo buffers of %ld doubles\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < 4 * n; i++)
        send[i] = rank + i * 1e-6;
    for (long i = 0; i < n; i++)
        block[i] = 1.0;
    double work = 5.0 * (double)n * (double)n / 1000.0, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        MPI_Request r[8];
        for (int d = 0; d < 4; d++) {
            /* receive from the neighbour on the opposite side of where we send */
            MPI_Irecv(recv + d * n, (int)n, MPI_DOUBLE, nb[d ^ 1], d, grid, &r[d]);
            MPI_Isend(send + d * n, (int)n, MPI_DOUBLE, nb[d], d, grid, &r[4 + d]);
        }
        proxy_wait(&o, 8, r);
        sink += proxy_compute(&o, work, block, n);
        double *t = send;
        send = recv;
        recv = t;
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + send[0]);
    MPI_Comm_free(&grid);
    free(send);
    free(recv);
    free(block);
    MPI_Finalize();
    return 0;
}
