/* nvp.h - internals shared by the segment profiler's files: the call
 * table, the enter/leave hooks every wrapper calls, and init/finalize.
 * Nothing here is exported from libnetvar_pmpi.so (version script). */
#ifndef NETVAR_NVP_H
#define NETVAR_NVP_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "nvp_pending.h"

enum nvp_kind {
    NVK_ALL_TO_ALL,    /* every rank sends and receives: segment boundary candidates */
    NVK_ALL_TO_ALL_NB, /* their nonblocking forms: boundaries when the request completes */
    NVK_ONE_TO_ALL,
    NVK_ALL_TO_ONE,
    NVK_ONE_TO_ALL_NB, /* the rooted collectives' nonblocking forms: never boundaries */
    NVK_ALL_TO_ONE_NB,
    NVK_P2P_BLOCKING,
    NVK_P2P_NONBLOCKING,
    NVK_WAIT, /* completion calls (Wait*, Test*): time inside MPI, no count */
    NVK_IO_OPEN_CLOSE,
    NVK_IO_READ_WRITE,
};

/* not reformatted: one MPI call per line, as the X-macro lists them */
/* clang-format off */
#define NVP_CALLS(X)                                                                     \
    X(ALLTOALL, "Alltoall", NVK_ALL_TO_ALL) X(ALLTOALLV, "Alltoallv", NVK_ALL_TO_ALL)    \
    X(ALLTOALLW, "Alltoallw", NVK_ALL_TO_ALL) X(ALLREDUCE, "Allreduce", NVK_ALL_TO_ALL)  \
    X(ALLGATHER, "Allgather", NVK_ALL_TO_ALL) X(ALLGATHERV, "Allgatherv", NVK_ALL_TO_ALL) \
    X(REDUCE_SCATTER, "Reduce_scatter", NVK_ALL_TO_ALL)                                  \
    X(REDUCE_SCATTER_BLOCK, "Reduce_scatter_block", NVK_ALL_TO_ALL)                      \
    X(BARRIER, "Barrier", NVK_ALL_TO_ALL)                                                \
    X(IALLTOALL, "Ialltoall", NVK_ALL_TO_ALL_NB) X(IALLTOALLV, "Ialltoallv", NVK_ALL_TO_ALL_NB) \
    X(IALLTOALLW, "Ialltoallw", NVK_ALL_TO_ALL_NB) X(IALLREDUCE, "Iallreduce", NVK_ALL_TO_ALL_NB) \
    X(IALLGATHER, "Iallgather", NVK_ALL_TO_ALL_NB) X(IALLGATHERV, "Iallgatherv", NVK_ALL_TO_ALL_NB) \
    X(IREDUCE_SCATTER, "Ireduce_scatter", NVK_ALL_TO_ALL_NB)                             \
    X(IREDUCE_SCATTER_BLOCK, "Ireduce_scatter_block", NVK_ALL_TO_ALL_NB)                 \
    X(IBARRIER, "Ibarrier", NVK_ALL_TO_ALL_NB)                                           \
    X(BCAST, "Bcast", NVK_ONE_TO_ALL) X(SCATTER, "Scatter", NVK_ONE_TO_ALL)              \
    X(SCATTERV, "Scatterv", NVK_ONE_TO_ALL)                                              \
    X(REDUCE, "Reduce", NVK_ALL_TO_ONE) X(GATHER, "Gather", NVK_ALL_TO_ONE)              \
    X(GATHERV, "Gatherv", NVK_ALL_TO_ONE)                                                \
    X(IBCAST, "Ibcast", NVK_ONE_TO_ALL_NB) X(ISCATTER, "Iscatter", NVK_ONE_TO_ALL_NB)    \
    X(ISCATTERV, "Iscatterv", NVK_ONE_TO_ALL_NB)                                         \
    X(IREDUCE, "Ireduce", NVK_ALL_TO_ONE_NB) X(IGATHER, "Igather", NVK_ALL_TO_ONE_NB)    \
    X(IGATHERV, "Igatherv", NVK_ALL_TO_ONE_NB)                                           \
    X(SEND, "Send", NVK_P2P_BLOCKING) X(SSEND, "Ssend", NVK_P2P_BLOCKING)                \
    X(RSEND, "Rsend", NVK_P2P_BLOCKING) X(BSEND, "Bsend", NVK_P2P_BLOCKING)              \
    X(RECV, "Recv", NVK_P2P_BLOCKING) X(SENDRECV, "Sendrecv", NVK_P2P_BLOCKING)          \
    X(SENDRECV_REPLACE, "Sendrecv_replace", NVK_P2P_BLOCKING)                            \
    X(ISEND, "Isend", NVK_P2P_NONBLOCKING) X(ISSEND, "Issend", NVK_P2P_NONBLOCKING)      \
    X(IRSEND, "Irsend", NVK_P2P_NONBLOCKING) X(IBSEND, "Ibsend", NVK_P2P_NONBLOCKING)    \
    X(IRECV, "Irecv", NVK_P2P_NONBLOCKING)                                               \
    X(WAIT, "Wait", NVK_WAIT) X(WAITALL, "Waitall", NVK_WAIT)                            \
    X(WAITANY, "Waitany", NVK_WAIT) X(WAITSOME, "Waitsome", NVK_WAIT)                    \
    X(TEST, "Test", NVK_WAIT) X(TESTALL, "Testall", NVK_WAIT)                            \
    X(TESTANY, "Testany", NVK_WAIT) X(TESTSOME, "Testsome", NVK_WAIT)                    \
    X(FILE_OPEN, "File_open", NVK_IO_OPEN_CLOSE) X(FILE_CLOSE, "File_close", NVK_IO_OPEN_CLOSE) \
    X(FILE_READ, "File_read", NVK_IO_READ_WRITE) X(FILE_READ_AT, "File_read_at", NVK_IO_READ_WRITE) \
    X(FILE_READ_ALL, "File_read_all", NVK_IO_READ_WRITE)                                 \
    X(FILE_READ_AT_ALL, "File_read_at_all", NVK_IO_READ_WRITE)                           \
    X(FILE_WRITE, "File_write", NVK_IO_READ_WRITE) X(FILE_WRITE_AT, "File_write_at", NVK_IO_READ_WRITE) \
    X(FILE_WRITE_ALL, "File_write_all", NVK_IO_READ_WRITE)                               \
    X(FILE_WRITE_AT_ALL, "File_write_at_all", NVK_IO_READ_WRITE)
/* clang-format on */

#define NVP_ENUM(id, name, kind) NVP_##id,
enum nvp_call { NVP_CALLS(NVP_ENUM) NVP_NCALLS };
#undef NVP_ENUM
/* call sets are 64-bit masks */
_Static_assert(NVP_NCALLS <= 64, "more wrapped calls than bits in a call mask");

extern volatile int nvp_active;   /* recording (set after init, cleared at finalize) */
extern pthread_t nvp_main_thread; /* only the thread that initialized MPI records */
/* nonblocking requests started by wrapped calls and not yet seen complete
 * (main thread only; nvp_core.c counts starts, nvp_nbc.c completions) */
extern int nvp_nb_pending;

/* Called by every wrapper around the real call.  nvp_enter returns 1 when
 * the call is tracked; then nvp_leave must follow with the same call id.
 * Bytes are what the call moved from this rank's point of view. */
int nvp_enter_slow(int call);
/* peer: the destination of a send, the root of a rooted collective (ranks
 * of comm), for the traffic matrix; MPI_PROC_NULL elsewhere. */
void nvp_leave_peer(int call, int rc, double bytes_sent, double bytes_recv, MPI_Comm comm,
                    int peer);
static inline void nvp_leave(int call, int rc, double bytes_sent, double bytes_recv, MPI_Comm comm)
{
    nvp_leave_peer(call, rc, bytes_sent, bytes_recv, comm, MPI_PROC_NULL);
}

static inline int nvp_enter(int call)
{
    if (__builtin_expect(!nvp_active, 0))
        return 0;
    return nvp_enter_slow(call);
}

/* Wait calls end with this instead of nvp_leave: `boundaries` tracked
 * nonblocking boundary collectives completed in the call (one segment is
 * cut for each, so every rank cuts the same number whatever grouping its
 * completion calls saw). */
void nvp_leave_completion(int call, int rc, int boundaries);

/* Test calls use this pair instead: no clock read inside a polling run
 * (see nvp_poll_run_is_waiting).  `incomplete` is 1 when the test left its
 * requests incomplete. */
int nvp_test_enter_slow(int call);
void nvp_test_leave(int call, int rc, int boundaries, int incomplete);
static inline int nvp_test_enter(int call)
{
    if (__builtin_expect(!nvp_active, 0))
        return 0;
    return nvp_test_enter_slow(call);
}

/* 1 when the nonblocking collective `call` on comm is a boundary (its
 * blocking form is a segment call, and comm spans the whole job). */
int nvp_nbc_is_boundary(int call, MPI_Comm comm);

/* Request tracking (nvp_nbc.c); call only where nvp_enter returned 1. */
typedef struct {
    int active; /* requests not null before the call, while any are pending */
    int n;
    int pos[NVP_PENDING_MAX];      /* positions in the request array */
    uint64_t key[NVP_PENDING_MAX]; /* their handles before the call */
} nvp_nbc_marks;
/* After a request-creating call: tracks *req when boundary is 1, else
 * forgets a recycled handle. */
void nvp_nbc_started(int boundary, int rc, const MPI_Request *req);
void nvp_nbc_forget(const MPI_Request *req);
/* 1 while a tracked boundary request is pending. */
int nvp_nbc_in_flight(void);
/* Before a completion call: marks the tracked requests among reqs[0..n-1]. */
void nvp_nbc_mark(nvp_nbc_marks *m, const MPI_Request *reqs, int n);
/* After it: untracks the marked requests that completed; returns how many. */
int nvp_nbc_completed(const nvp_nbc_marks *m, const MPI_Request *reqs, int n);
/* The same on Fortran handles. */
void nvp_nbc_started_f(int boundary, int rc, const MPI_Fint *req);
void nvp_nbc_forget_f(const MPI_Fint *req);
void nvp_nbc_mark_f(nvp_nbc_marks *m, const MPI_Fint *reqs, int n);
int nvp_nbc_completed_f(const nvp_nbc_marks *m, const MPI_Fint *reqs, int n);

void nvp_after_init(void);      /* after PMPI_Init(_thread) succeeded */
void nvp_before_finalize(void); /* before PMPI_Finalize */

/* The traffic matrix (nvp_matrix.c).  init after MPI_Init on every rank;
 * count from nvp_leave_peer for a successful call; finalize is collective
 * on comm and, on rank 0 when the profile was written, adds
 * "traffic_matrix" and "placement" to it. */
void nvp_matrix_init(int rank, int nranks);
void nvp_matrix_count(int call, MPI_Comm comm, int peer, double bytes_sent, double bytes_recv);
void nvp_matrix_finalize(MPI_Comm comm, const char *profile_path, int profile_written);
/* NETVAR_MATRIX_MAX_RANKS: 0 and *out=value, or -1 and *out=default. */
int nvp_matrix_parse_max_ranks(const char *s, int *out);
extern const char *const nvp_matrix_collectives_note;

/* Size in bytes of count elements of type; 0 for null/invalid handles. */
double nvp_bytes(int count, MPI_Datatype type);
int nvp_comm_size(MPI_Comm comm);
int nvp_comm_rank(MPI_Comm comm);

/* Other PMPI tools (nvp_wrap_c.c), as comma-separated shared object
 * paths ("" when none): after the profiler in the preload order (it
 * forwards to them: they see every call), and before it (they hide the
 * calls they wrap from the profiler). */
#define NVP_TOOLS_BYTES 1024
const char *nvp_tools_after(void);
const char *nvp_tools_before(void);
/* 1 when a tool before the profiler wraps MPI_Init/Finalize (said at load). */
int nvp_tools_said(void);

/* Logs "netvar: <msg>" on stderr the first time only (process wide). */
void nvp_log_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
