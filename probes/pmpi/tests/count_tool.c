/* count_tool.c - a user's own tiny PMPI tool, for the stacking test: it
 * counts the calls it wraps and prints one line per rank at MPI_Finalize,
 * "count_tool: rank R Init=1 Send=N ...".  Preloaded with the profiler
 * (test_pmpi_stacking.sh) it must still count every call.  Built with
 * -DCOUNT_NO_INIT it leaves MPI_Init and MPI_Finalize alone (a tool that
 * wraps only some calls) and prints its line when the process exits. */
#include <mpi.h>
#include <stdio.h>

enum {
    C_INIT,
    C_SEND,
    C_RECV,
    C_ISEND,
    C_IRECV,
    C_WAIT,
    C_WAITALL,
    C_ALLREDUCE,
    C_BCAST,
    C_BARRIER,
    C_ALLTOALL,
    C_IALLREDUCE,
    C_N
};
static const char *const names[C_N] = {"Init",  "Send",    "Recv",     "Isend",
                                       "Irecv", "Wait",    "Waitall",  "Allreduce",
                                       "Bcast", "Barrier", "Alltoall", "Iallreduce"};
static long counts[C_N];
static int rank = -1;

#ifndef COUNT_NO_INIT
int MPI_Init(int *argc, char ***argv)
{
    counts[C_INIT]++;
    return PMPI_Init(argc, argv);
}
#endif

int MPI_Send(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    counts[C_SEND]++;
    return PMPI_Send(b, n, t, dest, tag, c);
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st)
{
    counts[C_RECV]++;
    return PMPI_Recv(b, n, t, src, tag, c, st);
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request *r)
{
    counts[C_ISEND]++;
    return PMPI_Isend(b, n, t, dest, tag, c, r);
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *r)
{
    counts[C_IRECV]++;
    return PMPI_Irecv(b, n, t, src, tag, c, r);
}

int MPI_Wait(MPI_Request *r, MPI_Status *st)
{
    counts[C_WAIT]++;
    return PMPI_Wait(r, st);
}

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[])
{
    counts[C_WAITALL]++;
    return PMPI_Waitall(n, r, st);
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    counts[C_ALLREDUCE]++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    counts[C_BCAST]++;
    return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Barrier(MPI_Comm c)
{
    counts[C_BARRIER]++;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank); /* the app's first call after MPI_Init */
    return PMPI_Barrier(c);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
    counts[C_ALLTOALL]++;
    return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}

int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                   MPI_Request *q)
{
    counts[C_IALLREDUCE]++;
    return PMPI_Iallreduce(s, r, n, t, op, c, q);
}

static void print_counts(void)
{
    char line[512];
    int used = snprintf(line, sizeof line, "count_tool: rank %d", rank);
    for (int i = 0; i < C_N && used > 0 && (size_t)used < sizeof line; i++)
        used += snprintf(line + used, sizeof line - (size_t)used, " %s=%ld", names[i], counts[i]);
    printf("%s\n", line);
    fflush(stdout);
}

#ifndef COUNT_NO_INIT
int MPI_Finalize(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    print_counts();
    return PMPI_Finalize();
}
#else
__attribute__((destructor)) static void at_exit(void)
{
    print_counts();
}
#endif
