/* comm_times.c - an MPI program that times its own MPI calls, for
 * test_pmpi_comm_times.sh: each iteration a 1 KiB MPI_Sendrecv, a 64 KiB
 * MPI_Allreduce, a 300 KiB MPI_Bcast, a 2 KiB MPI_Ireduce and its
 * MPI_Wait, and a 16 KiB MPI_Isend/MPI_Irecv exchange overlapped by ~1 ms
 * of computation before its MPI_Waitall.
 * Rank 0 prints the time inside those calls and the overlapped computation,
 * means over ranks, as measured here with the program's own clock:
 *   mpi_s=S overlap_s=S iters=N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    static double a[8192], b[8192], big[38400], s16[2048], r16[2048];
    char s1[1024] = {0}, r1[1024];
    int right = (rank + 1) % n, left = (rank + n - 1) % n;
    double mpi = 0, overlap = 0, sink = 0;
    for (int it = 0; it < iters; it++) {
        double t = now();
        MPI_Sendrecv(s1, 1024, MPI_BYTE, right, 0, r1, 1024, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(a, b, 8192, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(big, 38400, MPI_DOUBLE, it % n, MPI_COMM_WORLD);
        MPI_Request r[2];
        MPI_Ireduce(a, b, 256, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Irecv(r16, 2048, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(s16, 2048, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
        double c0 = now();
        mpi += c0 - t;
        while (now() - c0 < 1e-3) /* computation while the exchange is in flight */
            sink += 1e-9;
        double c1 = now();
        overlap += c1 - c0;
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        mpi += now() - c1;
    }
    double mine[2] = {mpi, overlap}, sum[2];
    MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_s=%.6f overlap_s=%.6f iters=%d sink=%g\n", sum[0] / n, sum[1] / n, iters, sink);
    MPI_Finalize();
    return 0;
}
