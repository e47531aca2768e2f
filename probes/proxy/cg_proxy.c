/* cg_proxy.c - netvar-proxy-cg: a conjugate-gradient-like proxy.  Each
 * iteration does a local sparse matrix-vector product with a one-value
 * exchange between ring neighbours and two 8-byte MPI_Allreduce calls (the
 * dot products): latency bound. */
#include "proxy_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "cg", .size = 20000, .iters = 10000, .compute_scale = 1};
    int rc = proxy_parse(&o, argc, argv, rank,
                         "CG-like proxy: each iteration multiplies a local vector of N doubles by\n"
                         "a 1-D Laplacian (10 N / 1000 work units), exchanges one value with each\n"
                         "ring neighbour and calls MPI_Allreduce twice on one double.",
                         "doubles in the local vector", NULL);
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    double *x = malloc((size_t)o.size * sizeof *x);
    if (!x) {
        fprintf(stderr, "netvar-proxy-cg: cannot allocate %ld doubles\n", o.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < o.size; i++)
        x[i] = 1.0 / (double)(i + 1);
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    double work = 10.0 * (double)o.size / 1000.0, sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        double edge[2] = {x[0], x[o.size - 1]}, ghost[2];
        MPI_Request r[4];
        MPI_Irecv(&ghost[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&ghost[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&edge[1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(&edge[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
        proxy_wait(&o, 4, r);
        sink += proxy_compute(&o, work, x, o.size);
        for (int k = 0; k < 2; k++) { /* alpha and beta */
            double local = x[it % o.size] + ghost[k] * 1e-9, global;
            MPI_Request ar;
            MPI_Iallreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &ar);
            proxy_wait(&o, 1, &ar);
            sink += global * 1e-12;
        }
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink);
    free(x);
    MPI_Finalize();
    return 0;
}
