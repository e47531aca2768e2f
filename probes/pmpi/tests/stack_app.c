/* stack_app.c - an MPI program with a fixed number of each call, for the
 * stacking test (2 ranks or more; ranks 0 and 1 exchange point to point):
 * per rank 1 Init, 1 Barrier, ROUNDS x (2 Allreduce, 1 Bcast, 1 Alltoall),
 * 1 Iallreduce + 1 Wait, and on ranks 0 and 1 ROUNDS x (1 Send, 1 Recv,
 * 1 Isend, 1 Irecv, 1 Waitall). */
#include <mpi.h>
#include <stdlib.h>

#define ROUNDS 5

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a2a = calloc((size_t)size * 2, sizeof *a2a);
    if (!a2a)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < ROUNDS; r++) {
        double x = rank + r, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Alltoall(a2a, 1, MPI_INT, a2a + size, 1, MPI_INT, MPI_COMM_WORLD);
        if (rank < 2 && size >= 2) {
            int peer = 1 - rank, out = r, in = -1, out2 = r, in2 = -1;
            if (rank == 0) {
                MPI_Send(&out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(&in, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&out, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
            }
            MPI_Request q[2];
            MPI_Irecv(&in2, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(&out2, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        }
    }
    double y = 1, ysum = 0;
    MPI_Request q;
    MPI_Iallreduce(&y, &ysum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    free(a2a);
    MPI_Finalize();
    return ysum == size ? 0 : 2;
}
