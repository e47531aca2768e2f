/* mpi_volume.c - sends a known volume (argv[1] MiB, default 16) from rank 0
 * to the last rank in 1 MiB messages, so a test can look for it in the
 * network counters; prints the byte count it sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mib = argc > 1 ? atol(argv[1]) : 16;
    if (mib < 1 || mib > 4096)
        mib = 16;
    const int chunk = 1 << 20;
    char *buf = calloc(1, chunk);
    for (long i = 0; buf && size > 1 && i < mib; i++) {
        if (rank == 0)
            MPI_Send(buf, chunk, MPI_BYTE, size - 1, 0, MPI_COMM_WORLD);
        else if (rank == size - 1)
            MPI_Recv(buf, chunk, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("sent_bytes %ld\n", mib * chunk);
    free(buf);
    MPI_Finalize();
    return 0;
}
