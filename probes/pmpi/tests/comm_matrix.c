/* comm_matrix.c - point-to-point traffic on communicators other than
 * MPI_COMM_WORLD, for the traffic matrix's per-communicator cache
 * (test_pmpi_comm_matrix.sh); 4 ranks or more:
 *  - A = MPI_COMM_WORLD in reverse order: A-rank 0 (world size-1) sends
 *    1000 bytes to A-rank 1 (world size-2); A is freed;
 *  - B = a duplicate of MPI_COMM_WORLD (its handle often recycles A's):
 *    B-rank 0 sends 2000 bytes to B-rank 1 twice.
 * Expected matrix: [size-1][size-2] = 1000, [0][1] = 4000, nothing else. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static char buf[2000];
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(buf, 1, sizeof buf);
    MPI_Comm a, b;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &a);
    int ar = -1;
    MPI_Comm_rank(a, &ar);
    if (ar == 0)
        MPI_Send(buf, 1000, MPI_BYTE, 1, 5, a);
    else if (ar == 1)
        MPI_Recv(buf, 1000, MPI_BYTE, 0, 5, a, MPI_STATUS_IGNORE);
    MPI_Comm old = a;
    MPI_Comm_free(&a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    int br = -1;
    MPI_Comm_rank(b, &br);
    for (int i = 0; i < 2; i++) {
        if (br == 0)
            MPI_Send(buf, 2000, MPI_BYTE, 1, 6, b);
        else if (br == 1)
            MPI_Recv(buf, 2000, MPI_BYTE, 0, 6, b, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        printf("comm_matrix: B %s A's handle\n", b == old ? "reuses" : "does not reuse");
    MPI_Comm_free(&b);
    MPI_Finalize();
    return 0;
}
