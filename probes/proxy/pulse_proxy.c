/* pulse_proxy.c - netvar-proxy-pulse: traffic in short pulses.  Each
 * iteration is a burst of back-to-back ring exchanges (16 messages of N
 * doubles each way) followed by a quiet gap of G microseconds of compute:
 * the mean load over half a second is modest, but while a pulse is on the
 * link is full, at a millisecond time scale. */
#include "proxy_common.h"

#define PULSE_MSGS 16

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct proxy_opts o = {.name = "pulse",
                           .size = 8192,
                           .iters = 1000,
                           .compute_scale = 1,
                           .extra = 4000,
                           .extra_name = "gap-us"};
    int rc = proxy_parse(&o, argc, argv, rank,
                         "Pulsed-traffic proxy: each iteration sends a burst of 16 messages of N\n"
                         "doubles to the next rank on a ring (and receives 16 from the previous\n"
                         "one), then computes quietly for G work units (G microseconds).",
                         "doubles per message of a burst", "quiet gap between bursts, us");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    if (o.size > 1000000) {
        if (rank == 0)
            fprintf(stderr, "netvar-proxy-pulse: --size %ld is more than 1000000; using 1000000\n",
                    o.size);
        o.size = 1000000;
    }
    size_t n = (size_t)o.size * PULSE_MSGS;
    double *send = malloc(n * sizeof *send), *recv = malloc(n * sizeof *recv);
    if (!send || !recv) {
        fprintf(stderr, "netvar-proxy-pulse: cannot allocate 2 x %zu doubles\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        send[i] = rank + (double)i * 1e-6;
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    double sink = 0;
    proxy_barrier(&o);
    double t0 = proxy_now_s();
    for (long it = 0; it < o.iters; it++) {
        MPI_Request r[2 * PULSE_MSGS];
        for (int k = 0; k < PULSE_MSGS; k++) {
            MPI_Irecv(recv + (size_t)k * o.size, (int)o.size, MPI_DOUBLE, left, k, MPI_COMM_WORLD,
                      &r[2 * k]);
            MPI_Isend(send + (size_t)k * o.size, (int)o.size, MPI_DOUBLE, right, k, MPI_COMM_WORLD,
                      &r[2 * k + 1]);
        }
        proxy_wait(&o, 2 * PULSE_MSGS, r);
        sink += proxy_compute(&o, (double)o.extra, recv, (long)n);
    }
    proxy_report(&o, rank, nranks, o.iters, t0, sink + recv[0]);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
