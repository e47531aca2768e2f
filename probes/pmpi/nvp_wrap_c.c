/* nvp_wrap_c.c - the MPI C API wrappers of the segment profiler: each one
 * calls the PMPI entry unchanged, hands its return code back untouched,
 * and reports the call and its bytes to nvp_core.c. */
#include "nvp.h"

#define IN_PLACE(buf) ((const void *)(buf) == (const void *)MPI_IN_PLACE)

static double sum_bytes(const int *counts, MPI_Datatype t, int n)
{
    double s = 0;
    for (int i = 0; counts && i < n; i++)
        s += nvp_bytes(counts[i], t);
    return s;
}

/* ------------------------------------------------------------ init/fin */
int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        nvp_after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        nvp_after_init();
    return rc;
}

int MPI_Finalize(void)
{
    nvp_before_finalize();
    return PMPI_Finalize();
}

/* ------------------------------------------------------------ all-to-all */
int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLTOALL);
    int rc = PMPI_Alltoall(sb, sc, st, rb, rc_, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLTOALL, rc, IN_PLACE(sb) ? 0 : p * nvp_bytes(sc, st), p * nvp_bytes(rc_, rt), comm);
    }
    return rc;
}

int MPI_Alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLTOALLV);
    int rc = PMPI_Alltoallv(sb, sc, sd, st, rb, rcs, rd, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLTOALLV, rc, IN_PLACE(sb) ? 0 : sum_bytes(sc, st, p), sum_bytes(rcs, rt, p), comm);
    }
    return rc;
}

int MPI_Alltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[], void *rb,
                  const int rcs[], const int rd[], const MPI_Datatype rt[], MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLTOALLW);
    int rc = PMPI_Alltoallw(sb, sc, sd, st, rb, rcs, rd, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        double s = 0, r = 0;
        for (int i = 0; i < p; i++) {
            if (!IN_PLACE(sb) && sc && st)
                s += nvp_bytes(sc[i], st[i]);
            if (rcs && rt)
                r += nvp_bytes(rcs[i], rt[i]);
        }
        nvp_leave(NVP_ALLTOALLW, rc, s, r, comm);
    }
    return rc;
}

int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLREDUCE);
    int rc = PMPI_Allreduce(sb, rb, count, type, op, comm);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        nvp_leave(NVP_ALLREDUCE, rc, b, b, comm);
    }
    return rc;
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLGATHER);
    int rc = PMPI_Allgather(sb, sc, st, rb, rc_, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLGATHER, rc, IN_PLACE(sb) ? 0 : nvp_bytes(sc, st), p * nvp_bytes(rc_, rt), comm);
    }
    return rc;
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int rd[],
                   MPI_Datatype rt, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLGATHERV);
    int rc = PMPI_Allgatherv(sb, sc, st, rb, rcs, rd, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLGATHERV, rc, IN_PLACE(sb) ? 0 : nvp_bytes(sc, st), sum_bytes(rcs, rt, p), comm);
    }
    return rc;
}

int MPI_Reduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int t = nvp_enter(NVP_REDUCE_SCATTER);
    int rc = PMPI_Reduce_scatter(sb, rb, rcs, type, op, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0, me = nvp_comm_rank(comm);
        double r = (p > 0 && me >= 0 && me < p && rcs) ? nvp_bytes(rcs[me], type) : 0;
        nvp_leave(NVP_REDUCE_SCATTER, rc, sum_bytes(rcs, type, p), r, comm);
    }
    return rc;
}

int MPI_Reduce_scatter_block(const void *sb, void *rb, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int t = nvp_enter(NVP_REDUCE_SCATTER_BLOCK);
    int rc = PMPI_Reduce_scatter_block(sb, rb, rcount, type, op, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        double b = rc == MPI_SUCCESS ? nvp_bytes(rcount, type) : 0;
        nvp_leave(NVP_REDUCE_SCATTER_BLOCK, rc, p * b, b, comm);
    }
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    int t = nvp_enter(NVP_BARRIER);
    int rc = PMPI_Barrier(comm);
    if (t)
        nvp_leave(NVP_BARRIER, rc, 0, 0, comm);
    return rc;
}

/* ------------------------------------------------------------ rooted */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_BCAST);
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        nvp_leave(NVP_BCAST, rc, me == root ? b : 0, me == root ? 0 : b, comm);
    }
    return rc;
}

int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_SCATTER);
    int rc = PMPI_Scatter(sb, sc, st, rb, rc_, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = me == root ? nvp_comm_size(comm) * nvp_bytes(sc, st) : 0;
        double r = (me >= 0 && !IN_PLACE(rb)) ? nvp_bytes(rc_, rt) : 0;
        nvp_leave(NVP_SCATTER, rc, s, r, comm);
    }
    return rc;
}

int MPI_Scatterv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb, int rc_,
                 MPI_Datatype rt, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_SCATTERV);
    int rc = PMPI_Scatterv(sb, sc, sd, st, rb, rc_, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = me == root ? sum_bytes(sc, st, nvp_comm_size(comm)) : 0;
        double r = (me >= 0 && !IN_PLACE(rb)) ? nvp_bytes(rc_, rt) : 0;
        nvp_leave(NVP_SCATTERV, rc, s, r, comm);
    }
    return rc;
}

int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_REDUCE);
    int rc = PMPI_Reduce(sb, rb, count, type, op, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double b = me >= 0 ? nvp_bytes(count, type) : 0;
        nvp_leave(NVP_REDUCE, rc, b, me == root ? b : 0, comm);
    }
    return rc;
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_GATHER);
    int rc = PMPI_Gather(sb, sc, st, rb, rc_, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = (me >= 0 && !IN_PLACE(sb)) ? nvp_bytes(sc, st) : 0;
        double r = me == root ? nvp_comm_size(comm) * nvp_bytes(rc_, rt) : 0;
        nvp_leave(NVP_GATHER, rc, s, r, comm);
    }
    return rc;
}

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int rd[],
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_GATHERV);
    int rc = PMPI_Gatherv(sb, sc, st, rb, rcs, rd, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = (me >= 0 && !IN_PLACE(sb)) ? nvp_bytes(sc, st) : 0;
        double r = me == root ? sum_bytes(rcs, rt, nvp_comm_size(comm)) : 0;
        nvp_leave(NVP_GATHERV, rc, s, r, comm);
    }
    return rc;
}

/* ------------------------------------------------------------ p2p */
#define SEND_LIKE(NAME, ID)                                                                   \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    {                                                                                         \
        int t = nvp_enter(ID);                                                                \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                              \
        if (t)                                                                                \
            nvp_leave(ID, rc, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, 0, comm);       \
        return rc;                                                                            \
    }
SEND_LIKE(Send, NVP_SEND)
SEND_LIKE(Ssend, NVP_SSEND)
SEND_LIKE(Rsend, NVP_RSEND)
SEND_LIKE(Bsend, NVP_BSEND)

#define ISEND_LIKE(NAME, ID)                                                                  \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *req)                                                          \
    {                                                                                         \
        int t = nvp_enter(ID);                                                                \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                         \
        if (t)                                                                                \
            nvp_leave(ID, rc, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, 0, comm);       \
        return rc;                                                                            \
    }
ISEND_LIKE(Isend, NVP_ISEND)
ISEND_LIKE(Issend, NVP_ISSEND)
ISEND_LIKE(Irsend, NVP_IRSEND)
ISEND_LIKE(Ibsend, NVP_IBSEND)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    int t = nvp_enter(NVP_RECV);
    int rc = PMPI_Recv(buf, count, type, src, tag, comm, st);
    if (t)
        nvp_leave(NVP_RECV, rc, 0, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, comm);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IRECV);
    int rc = PMPI_Irecv(buf, count, type, src, tag, comm, req);
    if (t)
        nvp_leave(NVP_IRECV, rc, 0, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, comm);
    return rc;
}

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rc_,
                 MPI_Datatype rt, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    int t = nvp_enter(NVP_SENDRECV);
    int rc = PMPI_Sendrecv(sb, sc, st, dest, stag, rb, rc_, rt, src, rtag, comm, status);
    if (t) {
        int ok = rc == MPI_SUCCESS;
        nvp_leave(NVP_SENDRECV, rc, ok ? nvp_bytes(sc, st) : 0, ok ? nvp_bytes(rc_, rt) : 0, comm);
    }
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
    int t = nvp_enter(NVP_SENDRECV_REPLACE);
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, status);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        nvp_leave(NVP_SENDRECV_REPLACE, rc, b, b, comm);
    }
    return rc;
}

/* ------------------------------------------------------------ completion */
int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    int t = nvp_enter(NVP_WAIT);
    int rc = PMPI_Wait(req, st);
    if (t)
        nvp_leave(NVP_WAIT, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    int t = nvp_enter(NVP_WAITALL);
    int rc = PMPI_Waitall(n, reqs, sts);
    if (t)
        nvp_leave(NVP_WAITALL, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    int t = nvp_enter(NVP_WAITANY);
    int rc = PMPI_Waitany(n, reqs, idx, st);
    if (t)
        nvp_leave(NVP_WAITANY, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outn, int idx[], MPI_Status sts[])
{
    int t = nvp_enter(NVP_WAITSOME);
    int rc = PMPI_Waitsome(n, reqs, outn, idx, sts);
    if (t)
        nvp_leave(NVP_WAITSOME, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

/* ------------------------------------------------------------ MPI-IO */
int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    int t = nvp_enter(NVP_FILE_OPEN);
    int rc = PMPI_File_open(comm, name, amode, info, fh);
    if (t)
        nvp_leave(NVP_FILE_OPEN, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    int t = nvp_enter(NVP_FILE_CLOSE);
    int rc = PMPI_File_close(fh);
    if (t)
        nvp_leave(NVP_FILE_CLOSE, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

#define FILE_RW(NAME, ID, CONSTQ, WRITE)                                                      \
    int MPI_##NAME(MPI_File fh, CONSTQ void *buf, int count, MPI_Datatype type, MPI_Status *st) \
    {                                                                                         \
        int t = nvp_enter(ID);                                                                \
        int rc = PMPI_##NAME(fh, buf, count, type, st);                                       \
        if (t) {                                                                              \
            double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;                        \
            nvp_leave(ID, rc, WRITE ? b : 0, WRITE ? 0 : b, MPI_COMM_NULL);                   \
        }                                                                                     \
        return rc;                                                                            \
    }
#define FILE_RW_AT(NAME, ID, CONSTQ, WRITE)                                                   \
    int MPI_##NAME(MPI_File fh, MPI_Offset off, CONSTQ void *buf, int count, MPI_Datatype type, \
                   MPI_Status *st)                                                            \
    {                                                                                         \
        int t = nvp_enter(ID);                                                                \
        int rc = PMPI_##NAME(fh, off, buf, count, type, st);                                  \
        if (t) {                                                                              \
            double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;                        \
            nvp_leave(ID, rc, WRITE ? b : 0, WRITE ? 0 : b, MPI_COMM_NULL);                   \
        }                                                                                     \
        return rc;                                                                            \
    }
#define NOCONST
FILE_RW(File_read, NVP_FILE_READ, NOCONST, 0)
FILE_RW(File_read_all, NVP_FILE_READ_ALL, NOCONST, 0)
FILE_RW(File_write, NVP_FILE_WRITE, const, 1)
FILE_RW(File_write_all, NVP_FILE_WRITE_ALL, const, 1)
FILE_RW_AT(File_read_at, NVP_FILE_READ_AT, NOCONST, 0)
FILE_RW_AT(File_read_at_all, NVP_FILE_READ_AT_ALL, NOCONST, 0)
FILE_RW_AT(File_write_at, NVP_FILE_WRITE_AT, const, 1)
FILE_RW_AT(File_write_at_all, NVP_FILE_WRITE_AT_ALL, const, 1)
