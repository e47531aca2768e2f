/* nbc_edges.c - C MPI program for the segment profiler's test of
 * nonblocking boundaries in the less common shapes: more requests in flight
 * than the profiler's table holds (64), completion by Testany, Waitsome and
 * Waitany with null and point-to-point requests mixed in, and a
 * nonblocking collective on a communicator smaller than the job (never a
 * boundary).  It checks its own results, so a profiler that changed
 * behaviour makes it fail.  Expected segments per rank (see the test):
 * 1 (MPI_Barrier) + 64 + 2 + 1 + 1 + 0 = 69. */
#include <mpi.h>
#include <stdio.h>

#define INFLIGHT 70 /* more than the profiler's 64-entry table */

static int check(int ok, const char *what, int rank)
{
    if (!ok)
        fprintf(stderr, "nbc_edges: rank %d: %s is wrong\n", rank, what);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. 70 Iallreduce in flight, one Waitall: 64 tracked, 6 ignored */
    int in[INFLIGHT], out[INFLIGHT];
    MPI_Request r[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++) {
        in[i] = i + rank;
        MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[i]);
    }
    MPI_Waitall(INFLIGHT, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < INFLIGHT; i++)
        bad += check(out[i] == n * i + n * (n - 1) / 2, "Iallreduce sum", rank);

    /* 2. Testany over an Iallreduce and an Ibarrier, with a null slot */
    int v = rank, sum = -1, flag = 0, idx = -1, done = 0;
    MPI_Request two[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &two[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &two[2]);
    while (done < 2) {
        MPI_Testany(3, two, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED)
            done++;
    }
    bad += check(sum == n * (n - 1) / 2, "Testany Iallreduce", rank);

    /* 3. Waitsome over point-to-point requests and an Ialltoall */
    int peer = (rank + 1) % n, from = (rank + n - 1) % n, got = -1;
    int a2a_in[64], a2a_out[64];
    for (int i = 0; i < n && i < 64; i++)
        a2a_in[i] = rank * 100 + i;
    MPI_Request mix[3];
    MPI_Irecv(&got, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &mix[0]);
    MPI_Isend(&rank, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &mix[1]);
    MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &mix[2]);
    int left = 3;
    while (left > 0) {
        int outn = 0, idxs[3];
        MPI_Waitsome(3, mix, &outn, idxs, MPI_STATUSES_IGNORE);
        if (outn == MPI_UNDEFINED)
            break;
        left -= outn;
    }
    bad += check(got == from, "Irecv value", rank);
    for (int i = 0; i < n && i < 64; i++)
        bad += check(a2a_out[i] == i * 100 + rank, "Ialltoall value", rank);

    /* 4. Waitany on a single Ialltoall between null requests */
    MPI_Request one[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &one[1]);
    MPI_Waitany(3, one, &idx, MPI_STATUS_IGNORE);
    bad += check(idx == 1, "Waitany index", rank);

    /* 5. an Iallreduce on a one-rank communicator: not a job-wide boundary */
    MPI_Comm self;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &self);
    MPI_Request sr;
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, self, &sr);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    bad += check(sum == rank, "self Iallreduce", rank);
    MPI_Comm_free(&self);

    int total = 0;
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nbc_edges: ranks=%d errors=%d\n", n, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
