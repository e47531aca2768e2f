/* nvp.h - internals shared by the segment profiler's files: the call
 * table, the enter/leave hooks every wrapper calls, and init/finalize.
 * Nothing here is exported from libnetvar_pmpi.so (version script). */
#ifndef NETVAR_NVP_H
#define NETVAR_NVP_H

#include <mpi.h>
#include <pthread.h>

enum nvp_kind {
    NVK_ALL_TO_ALL,     /* every rank sends and receives: segment boundary candidates */
    NVK_ONE_TO_ALL,
    NVK_ALL_TO_ONE,
    NVK_P2P_BLOCKING,
    NVK_P2P_NONBLOCKING,
    NVK_WAIT,           /* completion calls: time inside MPI, no count */
    NVK_IO_OPEN_CLOSE,
    NVK_IO_READ_WRITE,
};

#define NVP_CALLS(X)                                                                     \
    X(ALLTOALL, "Alltoall", NVK_ALL_TO_ALL) X(ALLTOALLV, "Alltoallv", NVK_ALL_TO_ALL)    \
    X(ALLTOALLW, "Alltoallw", NVK_ALL_TO_ALL) X(ALLREDUCE, "Allreduce", NVK_ALL_TO_ALL)  \
    X(ALLGATHER, "Allgather", NVK_ALL_TO_ALL) X(ALLGATHERV, "Allgatherv", NVK_ALL_TO_ALL) \
    X(REDUCE_SCATTER, "Reduce_scatter", NVK_ALL_TO_ALL)                                  \
    X(REDUCE_SCATTER_BLOCK, "Reduce_scatter_block", NVK_ALL_TO_ALL)                      \
    X(BARRIER, "Barrier", NVK_ALL_TO_ALL)                                                \
    X(BCAST, "Bcast", NVK_ONE_TO_ALL) X(SCATTER, "Scatter", NVK_ONE_TO_ALL)              \
    X(SCATTERV, "Scatterv", NVK_ONE_TO_ALL)                                              \
    X(REDUCE, "Reduce", NVK_ALL_TO_ONE) X(GATHER, "Gather", NVK_ALL_TO_ONE)              \
    X(GATHERV, "Gatherv", NVK_ALL_TO_ONE)                                                \
    X(SEND, "Send", NVK_P2P_BLOCKING) X(SSEND, "Ssend", NVK_P2P_BLOCKING)                \
    X(RSEND, "Rsend", NVK_P2P_BLOCKING) X(BSEND, "Bsend", NVK_P2P_BLOCKING)              \
    X(RECV, "Recv", NVK_P2P_BLOCKING) X(SENDRECV, "Sendrecv", NVK_P2P_BLOCKING)          \
    X(SENDRECV_REPLACE, "Sendrecv_replace", NVK_P2P_BLOCKING)                            \
    X(ISEND, "Isend", NVK_P2P_NONBLOCKING) X(ISSEND, "Issend", NVK_P2P_NONBLOCKING)      \
    X(IRSEND, "Irsend", NVK_P2P_NONBLOCKING) X(IBSEND, "Ibsend", NVK_P2P_NONBLOCKING)    \
    X(IRECV, "Irecv", NVK_P2P_NONBLOCKING)                                               \
    X(WAIT, "Wait", NVK_WAIT) X(WAITALL, "Waitall", NVK_WAIT)                            \
    X(WAITANY, "Waitany", NVK_WAIT) X(WAITSOME, "Waitsome", NVK_WAIT)                    \
    X(FILE_OPEN, "File_open", NVK_IO_OPEN_CLOSE) X(FILE_CLOSE, "File_close", NVK_IO_OPEN_CLOSE) \
    X(FILE_READ, "File_read", NVK_IO_READ_WRITE) X(FILE_READ_AT, "File_read_at", NVK_IO_READ_WRITE) \
    X(FILE_READ_ALL, "File_read_all", NVK_IO_READ_WRITE)                                 \
    X(FILE_READ_AT_ALL, "File_read_at_all", NVK_IO_READ_WRITE)                           \
    X(FILE_WRITE, "File_write", NVK_IO_READ_WRITE) X(FILE_WRITE_AT, "File_write_at", NVK_IO_READ_WRITE) \
    X(FILE_WRITE_ALL, "File_write_all", NVK_IO_READ_WRITE)                               \
    X(FILE_WRITE_AT_ALL, "File_write_at_all", NVK_IO_READ_WRITE)

#define NVP_ENUM(id, name, kind) NVP_##id,
enum nvp_call { NVP_CALLS(NVP_ENUM) NVP_NCALLS };
#undef NVP_ENUM

extern volatile int nvp_active;   /* recording (set after init, cleared at finalize) */
extern pthread_t nvp_main_thread; /* only the thread that initialized MPI records */

/* Called by every wrapper around the real call.  nvp_enter returns 1 when
 * the call is tracked; then nvp_leave must follow with the same call id.
 * Bytes are what the call moved from this rank's point of view. */
int nvp_enter_slow(int call);
void nvp_leave(int call, int rc, double bytes_sent, double bytes_recv, MPI_Comm comm);

static inline int nvp_enter(int call)
{
    if (__builtin_expect(!nvp_active, 0))
        return 0;
    return nvp_enter_slow(call);
}

void nvp_after_init(void);     /* after PMPI_Init(_thread) succeeded */
void nvp_before_finalize(void); /* before PMPI_Finalize */

/* Size in bytes of count elements of type; 0 for null/invalid handles. */
double nvp_bytes(int count, MPI_Datatype type);
int nvp_comm_size(MPI_Comm comm);
int nvp_comm_rank(MPI_Comm comm);

/* Logs "netvar: <msg>" on stderr the first time only (process wide). */
void nvp_log_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
