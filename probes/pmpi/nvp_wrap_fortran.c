/* nvp_wrap_fortran.c - Fortran entry points of the segment profiler.
 * Open MPI's mpif.h / `use mpi` bindings (libmpi_mpifh) call PMPI_* directly,
 * so the C wrappers never see a Fortran program's calls.  These wrappers
 * take the Fortran symbols in the three manglings Open MPI 4.1 exports
 * (mpi_x_, mpi_x__, MPI_X), account the call, and forward to the next
 * definition of the same symbol (the real binding) via dlsym(RTLD_NEXT).
 * Nonblocking boundaries: MPI_IALLTOALL, MPI_IALLGATHER, MPI_IALLREDUCE and
 * MPI_IBARRIER are tracked, and completed by MPI_WAIT/WAITALL/WAITANY/
 * WAITSOME or MPI_TEST/TESTALL/TESTANY/TESTSOME (the mpif.h and `use mpi`
 * bindings; the mpi_f08 ones are not wrapped). */
#define _GNU_SOURCE
#include "nvp.h"

#include <dlfcn.h>

typedef MPI_Fint F;

static void *next_symbol(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p)
        nvp_log_once("cannot find the Fortran MPI binding %s after the profiler", name);
    return p;
}

static double fbytes(const F *count, const F *type)
{
    return nvp_bytes((int)*count, PMPI_Type_f2c(*type));
}

static MPI_Comm fcomm(const F *comm)
{
    return PMPI_Comm_f2c(*comm);
}

/* Defines the three manglings of one binding; each caches its own next
 * symbol and calls impl(real, args...). */
#define F_VARIANTS(lower, upper, impl, PARAMS, ARGS)                                               \
    void lower##_ PARAMS;                                                                          \
    void lower##_ PARAMS                                                                           \
    {                                                                                              \
        static impl##_fn real;                                                                     \
        if (!real)                                                                                 \
            real = (impl##_fn)next_symbol(#lower "_");                                             \
        impl ARGS;                                                                                 \
    }                                                                                              \
    void lower##__ PARAMS;                                                                         \
    void lower##__ PARAMS                                                                          \
    {                                                                                              \
        static impl##_fn real;                                                                     \
        if (!real)                                                                                 \
            real = (impl##_fn)next_symbol(#lower "__");                                            \
        impl ARGS;                                                                                 \
    }                                                                                              \
    void upper PARAMS;                                                                             \
    void upper PARAMS                                                                              \
    {                                                                                              \
        static impl##_fn real;                                                                     \
        if (!real)                                                                                 \
            real = (impl##_fn)next_symbol(#upper);                                                 \
        impl ARGS;                                                                                 \
    }

#define MISSING(ierr)                                                                              \
    do {                                                                                           \
        if (!real) {                                                                               \
            *(ierr) = MPI_ERR_INTERN;                                                              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------ init/fin */
typedef void (*f_init_fn)(F *);
static void f_init(f_init_fn real, F *ierr)
{
    MISSING(ierr);
    real(ierr);
    if (*ierr == MPI_SUCCESS)
        nvp_after_init();
}
F_VARIANTS(mpi_init, MPI_INIT, f_init, (F * ierr), (real, ierr))

typedef void (*f_init_thread_fn)(F *, F *, F *);
static void f_init_thread(f_init_thread_fn real, F *req, F *prov, F *ierr)
{
    MISSING(ierr);
    real(req, prov, ierr);
    if (*ierr == MPI_SUCCESS)
        nvp_after_init();
}
F_VARIANTS(mpi_init_thread, MPI_INIT_THREAD, f_init_thread, (F * req, F *prov, F *ierr),
           (real, req, prov, ierr))

typedef void (*f_finalize_fn)(F *);
static void f_finalize(f_finalize_fn real, F *ierr)
{
    MISSING(ierr);
    nvp_before_finalize();
    real(ierr);
}
F_VARIANTS(mpi_finalize, MPI_FINALIZE, f_finalize, (F * ierr), (real, ierr))

/* ------------------------------------------------------------ collectives */
typedef void (*f_alltoall_fn)(void *, F *, F *, void *, F *, F *, F *, F *);
static void f_alltoall(f_alltoall_fn real, void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm,
                       F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_ALLTOALL);
    real(sb, sc, st, rb, rc, rt, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, p = ok ? nvp_comm_size(fcomm(comm)) : 0;
        nvp_leave(NVP_ALLTOALL, *ierr, ok ? p * fbytes(sc, st) : 0, ok ? p * fbytes(rc, rt) : 0,
                  ok ? fcomm(comm) : MPI_COMM_NULL);
    }
}
F_VARIANTS(mpi_alltoall, MPI_ALLTOALL, f_alltoall,
           (void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm, F *ierr),
           (real, sb, sc, st, rb, rc, rt, comm, ierr))

typedef void (*f_alltoallv_fn)(void *, F *, F *, F *, void *, F *, F *, F *, F *, F *);
static void f_alltoallv(f_alltoallv_fn real, void *sb, F *sc, F *sd, F *st, void *rb, F *rcs, F *rd,
                        F *rt, F *comm, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_ALLTOALLV);
    real(sb, sc, sd, st, rb, rcs, rd, rt, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, p = ok ? nvp_comm_size(fcomm(comm)) : 0;
        double s = 0, r = 0;
        for (int i = 0; i < p; i++) {
            s += fbytes(&sc[i], st);
            r += fbytes(&rcs[i], rt);
        }
        nvp_leave(NVP_ALLTOALLV, *ierr, s, r, ok ? fcomm(comm) : MPI_COMM_NULL);
    }
}
F_VARIANTS(mpi_alltoallv, MPI_ALLTOALLV, f_alltoallv,
           (void *sb, F *sc, F *sd, F *st, void *rb, F *rcs, F *rd, F *rt, F *comm, F *ierr),
           (real, sb, sc, sd, st, rb, rcs, rd, rt, comm, ierr))

typedef void (*f_allreduce_fn)(void *, void *, F *, F *, F *, F *, F *);
static void f_allreduce(f_allreduce_fn real, void *sb, void *rb, F *n, F *type, F *op, F *comm,
                        F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_ALLREDUCE);
    real(sb, rb, n, type, op, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS;
        double b = ok ? fbytes(n, type) : 0;
        nvp_leave(NVP_ALLREDUCE, *ierr, b, b, ok ? fcomm(comm) : MPI_COMM_NULL);
    }
}
F_VARIANTS(mpi_allreduce, MPI_ALLREDUCE, f_allreduce,
           (void *sb, void *rb, F *n, F *type, F *op, F *comm, F *ierr),
           (real, sb, rb, n, type, op, comm, ierr))

typedef void (*f_allgather_fn)(void *, F *, F *, void *, F *, F *, F *, F *);
static void f_allgather(f_allgather_fn real, void *sb, F *sc, F *st, void *rb, F *rc, F *rt,
                        F *comm, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_ALLGATHER);
    real(sb, sc, st, rb, rc, rt, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, p = ok ? nvp_comm_size(fcomm(comm)) : 0;
        nvp_leave(NVP_ALLGATHER, *ierr, ok ? fbytes(sc, st) : 0, ok ? p * fbytes(rc, rt) : 0,
                  ok ? fcomm(comm) : MPI_COMM_NULL);
    }
}
F_VARIANTS(mpi_allgather, MPI_ALLGATHER, f_allgather,
           (void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm, F *ierr),
           (real, sb, sc, st, rb, rc, rt, comm, ierr))

typedef void (*f_reduce_scatter_block_fn)(void *, void *, F *, F *, F *, F *, F *);
static void f_reduce_scatter_block(f_reduce_scatter_block_fn real, void *sb, void *rb, F *n,
                                   F *type, F *op, F *comm, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_REDUCE_SCATTER_BLOCK);
    real(sb, rb, n, type, op, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, p = ok ? nvp_comm_size(fcomm(comm)) : 0;
        double b = ok ? fbytes(n, type) : 0;
        nvp_leave(NVP_REDUCE_SCATTER_BLOCK, *ierr, p * b, b, ok ? fcomm(comm) : MPI_COMM_NULL);
    }
}
F_VARIANTS(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, f_reduce_scatter_block,
           (void *sb, void *rb, F *n, F *type, F *op, F *comm, F *ierr),
           (real, sb, rb, n, type, op, comm, ierr))

typedef void (*f_barrier_fn)(F *, F *);
static void f_barrier(f_barrier_fn real, F *comm, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_BARRIER);
    real(comm, ierr);
    if (t)
        nvp_leave(NVP_BARRIER, *ierr, 0, 0, *ierr == MPI_SUCCESS ? fcomm(comm) : MPI_COMM_NULL);
}
F_VARIANTS(mpi_barrier, MPI_BARRIER, f_barrier, (F * comm, F *ierr), (real, comm, ierr))

typedef void (*f_bcast_fn)(void *, F *, F *, F *, F *, F *);
static void f_bcast(f_bcast_fn real, void *buf, F *n, F *type, F *root, F *comm, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_BCAST);
    real(buf, n, type, root, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, me = ok ? nvp_comm_rank(fcomm(comm)) : -1;
        double b = ok ? fbytes(n, type) : 0;
        nvp_leave_peer(NVP_BCAST, *ierr, me == *root ? b : 0, me == *root ? 0 : b,
                       ok ? fcomm(comm) : MPI_COMM_NULL, (int)*root);
    }
}
F_VARIANTS(mpi_bcast, MPI_BCAST, f_bcast, (void *buf, F *n, F *type, F *root, F *comm, F *ierr),
           (real, buf, n, type, root, comm, ierr))

typedef void (*f_reduce_fn)(void *, void *, F *, F *, F *, F *, F *, F *);
static void f_reduce(f_reduce_fn real, void *sb, void *rb, F *n, F *type, F *op, F *root, F *comm,
                     F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_REDUCE);
    real(sb, rb, n, type, op, root, comm, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, me = ok ? nvp_comm_rank(fcomm(comm)) : -1;
        double b = ok ? fbytes(n, type) : 0;
        nvp_leave_peer(NVP_REDUCE, *ierr, b, me == *root ? b : 0, ok ? fcomm(comm) : MPI_COMM_NULL,
                       (int)*root);
    }
}
F_VARIANTS(mpi_reduce, MPI_REDUCE, f_reduce,
           (void *sb, void *rb, F *n, F *type, F *op, F *root, F *comm, F *ierr),
           (real, sb, rb, n, type, op, root, comm, ierr))

typedef void (*f_ibcast_fn)(void *, F *, F *, F *, F *, F *, F *);
static void f_ibcast(f_ibcast_fn real, void *buf, F *n, F *type, F *root, F *comm, F *req, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_IBCAST);
    real(buf, n, type, root, comm, req, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, me = ok ? nvp_comm_rank(fcomm(comm)) : -1;
        double b = ok ? fbytes(n, type) : 0;
        nvp_leave_peer(NVP_IBCAST, *ierr, me == *root ? b : 0, me == *root ? 0 : b,
                       ok ? fcomm(comm) : MPI_COMM_NULL, (int)*root);
        nvp_nbc_started_f(0, *ierr, req);
    }
}
F_VARIANTS(mpi_ibcast, MPI_IBCAST, f_ibcast,
           (void *buf, F *n, F *type, F *root, F *comm, F *req, F *ierr),
           (real, buf, n, type, root, comm, req, ierr))

typedef void (*f_ireduce_fn)(void *, void *, F *, F *, F *, F *, F *, F *, F *);
static void f_ireduce(f_ireduce_fn real, void *sb, void *rb, F *n, F *type, F *op, F *root, F *comm,
                      F *req, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_IREDUCE);
    real(sb, rb, n, type, op, root, comm, req, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, me = ok ? nvp_comm_rank(fcomm(comm)) : -1;
        double b = ok ? fbytes(n, type) : 0;
        nvp_leave_peer(NVP_IREDUCE, *ierr, b, me == *root ? b : 0, ok ? fcomm(comm) : MPI_COMM_NULL,
                       (int)*root);
        nvp_nbc_started_f(0, *ierr, req);
    }
}
F_VARIANTS(mpi_ireduce, MPI_IREDUCE, f_ireduce,
           (void *sb, void *rb, F *n, F *type, F *op, F *root, F *comm, F *req, F *ierr),
           (real, sb, rb, n, type, op, root, comm, req, ierr))

/* ------------------------------------------------------------ p2p */
typedef void (*f_send_fn)(void *, F *, F *, F *, F *, F *, F *);
static void f_send(f_send_fn real, void *buf, F *n, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_SEND);
    real(buf, n, type, dest, tag, comm, ierr);
    if (t)
        nvp_leave_peer(NVP_SEND, *ierr, *ierr == MPI_SUCCESS ? fbytes(n, type) : 0, 0,
                       *ierr == MPI_SUCCESS ? fcomm(comm) : MPI_COMM_NULL, (int)*dest);
}
F_VARIANTS(mpi_send, MPI_SEND, f_send,
           (void *buf, F *n, F *type, F *dest, F *tag, F *comm, F *ierr),
           (real, buf, n, type, dest, tag, comm, ierr))

typedef void (*f_recv_fn)(void *, F *, F *, F *, F *, F *, F *, F *);
static void f_recv(f_recv_fn real, void *buf, F *n, F *type, F *src, F *tag, F *comm, F *status,
                   F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_RECV);
    real(buf, n, type, src, tag, comm, status, ierr);
    if (t)
        nvp_leave(NVP_RECV, *ierr, 0, *ierr == MPI_SUCCESS ? fbytes(n, type) : 0, MPI_COMM_NULL);
}
F_VARIANTS(mpi_recv, MPI_RECV, f_recv,
           (void *buf, F *n, F *type, F *src, F *tag, F *comm, F *status, F *ierr),
           (real, buf, n, type, src, tag, comm, status, ierr))

typedef void (*f_isend_fn)(void *, F *, F *, F *, F *, F *, F *, F *);
static void f_isend(f_isend_fn real, void *buf, F *n, F *type, F *dest, F *tag, F *comm, F *req,
                    F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_ISEND);
    real(buf, n, type, dest, tag, comm, req, ierr);
    if (t) {
        nvp_leave_peer(NVP_ISEND, *ierr, *ierr == MPI_SUCCESS ? fbytes(n, type) : 0, 0,
                       *ierr == MPI_SUCCESS ? fcomm(comm) : MPI_COMM_NULL, (int)*dest);
        nvp_nbc_started_f(0, *ierr, req);
    }
}
F_VARIANTS(mpi_isend, MPI_ISEND, f_isend,
           (void *buf, F *n, F *type, F *dest, F *tag, F *comm, F *req, F *ierr),
           (real, buf, n, type, dest, tag, comm, req, ierr))

typedef void (*f_irecv_fn)(void *, F *, F *, F *, F *, F *, F *, F *);
static void f_irecv(f_irecv_fn real, void *buf, F *n, F *type, F *src, F *tag, F *comm, F *req,
                    F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_IRECV);
    real(buf, n, type, src, tag, comm, req, ierr);
    if (t) {
        nvp_leave(NVP_IRECV, *ierr, 0, *ierr == MPI_SUCCESS ? fbytes(n, type) : 0, MPI_COMM_NULL);
        nvp_nbc_started_f(0, *ierr, req);
    }
}
F_VARIANTS(mpi_irecv, MPI_IRECV, f_irecv,
           (void *buf, F *n, F *type, F *src, F *tag, F *comm, F *req, F *ierr),
           (real, buf, n, type, src, tag, comm, req, ierr))

/* ------------------------------------------------------------ completion
 * Tracked boundary requests are marked before the call and checked after
 * it (the binding sets a completed handle to the Fortran null request). */
typedef void (*f_wait_fn)(F *, F *, F *);
static void f_wait(f_wait_fn real, F *req, F *status, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAIT);
    if (t)
        nvp_nbc_mark_f(&m, req, 1);
    real(req, status, ierr);
    if (t)
        nvp_leave_completion(NVP_WAIT, *ierr, nvp_nbc_completed_f(&m, req, 1));
}
F_VARIANTS(mpi_wait, MPI_WAIT, f_wait, (F * req, F *status, F *ierr), (real, req, status, ierr))

typedef void (*f_waitall_fn)(F *, F *, F *, F *);
static void f_waitall(f_waitall_fn real, F *n, F *reqs, F *statuses, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAITALL);
    if (t)
        nvp_nbc_mark_f(&m, reqs, (int)*n);
    real(n, reqs, statuses, ierr);
    if (t)
        nvp_leave_completion(NVP_WAITALL, *ierr, nvp_nbc_completed_f(&m, reqs, (int)*n));
}
F_VARIANTS(mpi_waitall, MPI_WAITALL, f_waitall, (F * n, F *reqs, F *statuses, F *ierr),
           (real, n, reqs, statuses, ierr))

/* flag is a Fortran LOGICAL (an int with gfortran; .false. is 0) */
typedef void (*f_test_fn)(F *, F *, F *, F *);
static void f_test(f_test_fn real, F *req, F *flag, F *status, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TEST);
    if (t)
        nvp_nbc_mark_f(&m, req, 1);
    real(req, flag, status, ierr);
    if (t)
        nvp_test_leave(NVP_TEST, *ierr, nvp_nbc_completed_f(&m, req, 1),
                       *ierr == MPI_SUCCESS && *flag == 0);
}
F_VARIANTS(mpi_test, MPI_TEST, f_test, (F * req, F *flag, F *status, F *ierr),
           (real, req, flag, status, ierr))

typedef void (*f_testall_fn)(F *, F *, F *, F *, F *);
static void f_testall(f_testall_fn real, F *n, F *reqs, F *flag, F *statuses, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TESTALL);
    if (t)
        nvp_nbc_mark_f(&m, reqs, (int)*n);
    real(n, reqs, flag, statuses, ierr);
    if (t)
        nvp_test_leave(NVP_TESTALL, *ierr, nvp_nbc_completed_f(&m, reqs, (int)*n),
                       *ierr == MPI_SUCCESS && *flag == 0);
}
F_VARIANTS(mpi_testall, MPI_TESTALL, f_testall, (F * n, F *reqs, F *flag, F *statuses, F *ierr),
           (real, n, reqs, flag, statuses, ierr))

typedef void (*f_waitany_fn)(F *, F *, F *, F *, F *);
static void f_waitany(f_waitany_fn real, F *n, F *reqs, F *idx, F *status, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAITANY);
    if (t)
        nvp_nbc_mark_f(&m, reqs, (int)*n);
    real(n, reqs, idx, status, ierr);
    if (t)
        nvp_leave_completion(NVP_WAITANY, *ierr, nvp_nbc_completed_f(&m, reqs, (int)*n));
}
F_VARIANTS(mpi_waitany, MPI_WAITANY, f_waitany, (F * n, F *reqs, F *idx, F *status, F *ierr),
           (real, n, reqs, idx, status, ierr))

typedef void (*f_waitsome_fn)(F *, F *, F *, F *, F *, F *);
static void f_waitsome(f_waitsome_fn real, F *n, F *reqs, F *outn, F *idx, F *statuses, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAITSOME);
    if (t)
        nvp_nbc_mark_f(&m, reqs, (int)*n);
    real(n, reqs, outn, idx, statuses, ierr);
    if (t)
        nvp_leave_completion(NVP_WAITSOME, *ierr, nvp_nbc_completed_f(&m, reqs, (int)*n));
}
F_VARIANTS(mpi_waitsome, MPI_WAITSOME, f_waitsome,
           (F * n, F *reqs, F *outn, F *idx, F *statuses, F *ierr),
           (real, n, reqs, outn, idx, statuses, ierr))

typedef void (*f_testany_fn)(F *, F *, F *, F *, F *, F *);
static void f_testany(f_testany_fn real, F *n, F *reqs, F *idx, F *flag, F *status, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TESTANY);
    if (t)
        nvp_nbc_mark_f(&m, reqs, (int)*n);
    real(n, reqs, idx, flag, status, ierr);
    if (t)
        nvp_test_leave(NVP_TESTANY, *ierr, nvp_nbc_completed_f(&m, reqs, (int)*n),
                       *ierr == MPI_SUCCESS && *flag == 0);
}
F_VARIANTS(mpi_testany, MPI_TESTANY, f_testany,
           (F * n, F *reqs, F *idx, F *flag, F *status, F *ierr),
           (real, n, reqs, idx, flag, status, ierr))

typedef void (*f_testsome_fn)(F *, F *, F *, F *, F *, F *);
static void f_testsome(f_testsome_fn real, F *n, F *reqs, F *outn, F *idx, F *statuses, F *ierr)
{
    MISSING(ierr);
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TESTSOME);
    if (t)
        nvp_nbc_mark_f(&m, reqs, (int)*n);
    real(n, reqs, outn, idx, statuses, ierr);
    if (t)
        nvp_test_leave(NVP_TESTSOME, *ierr, nvp_nbc_completed_f(&m, reqs, (int)*n),
                       *ierr == MPI_SUCCESS && *outn == 0);
}
F_VARIANTS(mpi_testsome, MPI_TESTSOME, f_testsome,
           (F * n, F *reqs, F *outn, F *idx, F *statuses, F *ierr),
           (real, n, reqs, outn, idx, statuses, ierr))

typedef void (*f_request_free_fn)(F *, F *);
static void f_request_free(f_request_free_fn real, F *req, F *ierr)
{
    MISSING(ierr);
    if (nvp_active && pthread_equal(pthread_self(), nvp_main_thread))
        nvp_nbc_forget_f(req);
    real(req, ierr);
}
F_VARIANTS(mpi_request_free, MPI_REQUEST_FREE, f_request_free, (F * req, F *ierr),
           (real, req, ierr))

/* ------------------------------------------------------------ nonblocking all-to-all */
typedef void (*f_ialltoall_fn)(void *, F *, F *, void *, F *, F *, F *, F *, F *);
static void f_ialltoall_like(f_ialltoall_fn real, int id, int gather, void *sb, F *sc, F *st,
                             void *rb, F *rc, F *rt, F *comm, F *req, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(id);
    real(sb, sc, st, rb, rc, rt, comm, req, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS, p = ok ? nvp_comm_size(fcomm(comm)) : 0;
        MPI_Comm c = ok ? fcomm(comm) : MPI_COMM_NULL;
        nvp_leave(id, *ierr, ok ? (gather ? 1 : p) * fbytes(sc, st) : 0,
                  ok ? p * fbytes(rc, rt) : 0, c);
        nvp_nbc_started_f(ok && nvp_nbc_is_boundary(id, c), *ierr, req);
    }
}
static void f_ialltoall(f_ialltoall_fn real, void *sb, F *sc, F *st, void *rb, F *rc, F *rt,
                        F *comm, F *req, F *ierr)
{
    f_ialltoall_like(real, NVP_IALLTOALL, 0, sb, sc, st, rb, rc, rt, comm, req, ierr);
}
F_VARIANTS(mpi_ialltoall, MPI_IALLTOALL, f_ialltoall,
           (void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm, F *req, F *ierr),
           (real, sb, sc, st, rb, rc, rt, comm, req, ierr))

typedef f_ialltoall_fn f_iallgather_fn;
static void f_iallgather(f_iallgather_fn real, void *sb, F *sc, F *st, void *rb, F *rc, F *rt,
                         F *comm, F *req, F *ierr)
{
    f_ialltoall_like(real, NVP_IALLGATHER, 1, sb, sc, st, rb, rc, rt, comm, req, ierr);
}
F_VARIANTS(mpi_iallgather, MPI_IALLGATHER, f_iallgather,
           (void *sb, F *sc, F *st, void *rb, F *rc, F *rt, F *comm, F *req, F *ierr),
           (real, sb, sc, st, rb, rc, rt, comm, req, ierr))

typedef void (*f_iallreduce_fn)(void *, void *, F *, F *, F *, F *, F *, F *);
static void f_iallreduce(f_iallreduce_fn real, void *sb, void *rb, F *n, F *type, F *op, F *comm,
                         F *req, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_IALLREDUCE);
    real(sb, rb, n, type, op, comm, req, ierr);
    if (t) {
        int ok = *ierr == MPI_SUCCESS;
        double b = ok ? fbytes(n, type) : 0;
        MPI_Comm c = ok ? fcomm(comm) : MPI_COMM_NULL;
        nvp_leave(NVP_IALLREDUCE, *ierr, b, b, c);
        nvp_nbc_started_f(ok && nvp_nbc_is_boundary(NVP_IALLREDUCE, c), *ierr, req);
    }
}
F_VARIANTS(mpi_iallreduce, MPI_IALLREDUCE, f_iallreduce,
           (void *sb, void *rb, F *n, F *type, F *op, F *comm, F *req, F *ierr),
           (real, sb, rb, n, type, op, comm, req, ierr))

typedef void (*f_ibarrier_fn)(F *, F *, F *);
static void f_ibarrier(f_ibarrier_fn real, F *comm, F *req, F *ierr)
{
    MISSING(ierr);
    int t = nvp_enter(NVP_IBARRIER);
    real(comm, req, ierr);
    if (t) {
        MPI_Comm c = *ierr == MPI_SUCCESS ? fcomm(comm) : MPI_COMM_NULL;
        nvp_leave(NVP_IBARRIER, *ierr, 0, 0, c);
        nvp_nbc_started_f(*ierr == MPI_SUCCESS && nvp_nbc_is_boundary(NVP_IBARRIER, c), *ierr, req);
    }
}
F_VARIANTS(mpi_ibarrier, MPI_IBARRIER, f_ibarrier, (F * comm, F *req, F *ierr),
           (real, comm, req, ierr))
