/* mpi_hello.c - smallest real MPI job for the lab tests: every rank reports
 * its node and the sum of all ranks (an Allreduce), so a test sees that the
 * ranks really communicated across fake nodes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const char *node = getenv("SLURMD_NODENAME");
    const char *mode = getenv("NETVAR_MODE");
    printf("rank %d of %d on %s sum %d netvar_mode %s\n", rank, size, node ? node : "?", sum,
           mode ? mode : "-");
    MPI_Finalize();
    return 0;
}
