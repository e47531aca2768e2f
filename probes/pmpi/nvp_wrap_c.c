/* nvp_wrap_c.c - the MPI C API wrappers of the segment profiler: each one
 * calls the next definition of its MPI_* symbol (the MPI library, or a
 * PMPI tool preloaded after the profiler) with its arguments unchanged,
 * hands its return code back untouched,
 * and reports the call and its bytes to nvp_core.c (and the requests of
 * nonblocking boundary collectives to nvp_nbc.c). */
#define _GNU_SOURCE
#include "nvp.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every wrapper forwards to the next definition of its MPI_* symbol after
 * this library (dlsym(RTLD_NEXT)): the MPI library itself, or another PMPI
 * tool preloaded after the profiler, which then still sees every call.  The
 * pointers start at the PMPI entries, so a symbol not found leaves the
 * wrapper calling MPI directly. */
/* not reformatted: the wrapped calls as the X-macro lists them */
/* clang-format off */
#define NVP_C_WRAPPED(X) X(Init) X(Init_thread) X(Finalize) X(Alltoall) X(Alltoallv) X(Alltoallw) \
    X(Allreduce) X(Allgather) X(Allgatherv) X(Reduce_scatter) X(Reduce_scatter_block) X(Barrier) \
    X(Ialltoall) X(Ialltoallv) X(Ialltoallw) X(Iallreduce) X(Iallgather) X(Iallgatherv) \
    X(Ireduce_scatter) X(Ireduce_scatter_block) X(Ibarrier) X(Bcast) X(Scatter) X(Scatterv) \
    X(Reduce) X(Gather) X(Gatherv) X(Ibcast) X(Iscatter) X(Iscatterv) X(Ireduce) X(Igather) \
    X(Igatherv) X(Recv) X(Irecv) X(Sendrecv) X(Sendrecv_replace) X(Wait) \
    X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome) X(Request_free) \
    X(File_open) X(File_close) X(Send) X(Ssend) X(Rsend) X(Bsend) X(Isend) X(Issend) X(Irsend) \
    X(Ibsend) X(File_read) X(File_read_all) X(File_write) X(File_write_all) X(File_read_at) \
    X(File_read_at_all) X(File_write_at) X(File_write_at_all)
/* clang-format on */
#define NEXT_DECL(n) static __typeof__(PMPI_##n) *next_##n = PMPI_##n;
NVP_C_WRAPPED(NEXT_DECL)

/* Shared objects other than the MPI library holding the next definitions
 * (tools after the profiler), and those holding the first definition when
 * it is not the profiler's (tools before it, which hide those calls). */
static char tools_after[NVP_TOOLS_BYTES], tools_before[NVP_TOOLS_BYTES];

static void note_object(char *list, const char *obj)
{
    size_t used = strlen(list), len = strlen(obj);
    for (const char *p = list; (p = strstr(p, obj)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == 0))
            return;
    if (used + len + 2 <= NVP_TOOLS_BYTES)
        snprintf(list + used, NVP_TOOLS_BYTES - used, "%s%s", used ? "," : "", obj);
}

static void check_chain(const char *name, void *next, void *pmpi, const char *self)
{
    Dl_info mpi, at;
    if (!pmpi || !dladdr(pmpi, &mpi) || !mpi.dli_fname)
        return;
    if (next && dladdr(next, &at) && at.dli_fname && strcmp(at.dli_fname, mpi.dli_fname) != 0)
        note_object(tools_after, at.dli_fname);
    void *first = dlsym(RTLD_DEFAULT, name);
    if (first && dladdr(first, &at) && at.dli_fname && strcmp(at.dli_fname, mpi.dli_fname) != 0 &&
        strcmp(at.dli_fname, self) != 0)
        note_object(tools_before, at.dli_fname);
}

static const char *self_object(void)
{
    Dl_info me;
    return dladdr((void *)self_object, &me) && me.dli_fname ? me.dli_fname : "";
}

/* At MPI_Init(_thread), before the call goes on. */
static void resolve_next(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    const char *self = self_object();
#define NEXT_RESOLVE(n)                                                                            \
    {                                                                                              \
        void *f = dlsym(RTLD_NEXT, "MPI_" #n);                                                     \
        check_chain("MPI_" #n, f, (void *)PMPI_##n, self);                                         \
        if (f)                                                                                     \
            next_##n = (__typeof__(next_##n))f;                                                    \
    }
    NVP_C_WRAPPED(NEXT_RESOLVE)
#undef NEXT_RESOLVE
}

/* A tool before the profiler that wraps MPI_Init(_thread) or MPI_Finalize
 * hides the run's start or end from it (no profile, or only the per-rank
 * partial files), so this is said at load time, on rank 0 (by the
 * launcher's environment) only.  Processes without MPI pay a few lookups. */
static int said_at_load;

__attribute__((constructor)) static void check_first(void)
{
    static const char *const ends[] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize"};
    char before[NVP_TOOLS_BYTES] = "";
    Dl_info mpi, at;
    const char *self = self_object();
    void *pmpi = dlsym(RTLD_DEFAULT, "PMPI_Init");
    if (!pmpi || !dladdr(pmpi, &mpi) || !mpi.dli_fname)
        return;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        void *first = dlsym(RTLD_DEFAULT, ends[i]);
        if (first && dladdr(first, &at) && at.dli_fname &&
            strcmp(at.dli_fname, mpi.dli_fname) != 0 && strcmp(at.dli_fname, self) != 0)
            note_object(before, at.dli_fname);
    }
    if (!before[0])
        return;
    said_at_load = 1;
    const char *rank = getenv("PMIX_RANK");
    if (!rank)
        rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("SLURM_PROCID");
    if (rank && strcmp(rank, "0") != 0)
        return;
    fprintf(
        stderr,
        "netvar: LD_PRELOAD has the PMPI tool %.300s before the segment profiler and it wraps "
        "MPI_Init or MPI_Finalize: the profiler misses the run's start or end and writes no segment "
        "profile (at most per-rank partial files); put libnetvar_pmpi.so first in LD_PRELOAD to profile "
        "the run\n",
        before);
}

int nvp_tools_said(void)
{
    return said_at_load;
}

const char *nvp_tools_after(void)
{
    return tools_after;
}

const char *nvp_tools_before(void)
{
    return tools_before;
}

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
    resolve_next();
    int rc = next_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        nvp_after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    resolve_next();
    int rc = next_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        nvp_after_init();
    return rc;
}

int MPI_Finalize(void)
{
    nvp_before_finalize();
    return next_Finalize();
}

/* ------------------------------------------------------------ all-to-all */
int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                 MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLTOALL);
    int rc = next_Alltoall(sb, sc, st, rb, rc_, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLTOALL, rc, IN_PLACE(sb) ? 0 : p * nvp_bytes(sc, st),
                  p * nvp_bytes(rc_, rt), comm);
    }
    return rc;
}

int MPI_Alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLTOALLV);
    int rc = next_Alltoallv(sb, sc, sd, st, rb, rcs, rd, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLTOALLV, rc, IN_PLACE(sb) ? 0 : sum_bytes(sc, st, p), sum_bytes(rcs, rt, p),
                  comm);
    }
    return rc;
}

int MPI_Alltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[], void *rb,
                  const int rcs[], const int rd[], const MPI_Datatype rt[], MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLTOALLW);
    int rc = next_Alltoallw(sb, sc, sd, st, rb, rcs, rd, rt, comm);
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
    int rc = next_Allreduce(sb, rb, count, type, op, comm);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        nvp_leave(NVP_ALLREDUCE, rc, b, b, comm);
    }
    return rc;
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                  MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLGATHER);
    int rc = next_Allgather(sb, sc, st, rb, rc_, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLGATHER, rc, IN_PLACE(sb) ? 0 : nvp_bytes(sc, st), p * nvp_bytes(rc_, rt),
                  comm);
    }
    return rc;
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    int t = nvp_enter(NVP_ALLGATHERV);
    int rc = next_Allgatherv(sb, sc, st, rb, rcs, rd, rt, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        nvp_leave(NVP_ALLGATHERV, rc, IN_PLACE(sb) ? 0 : nvp_bytes(sc, st), sum_bytes(rcs, rt, p),
                  comm);
    }
    return rc;
}

int MPI_Reduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    int t = nvp_enter(NVP_REDUCE_SCATTER);
    int rc = next_Reduce_scatter(sb, rb, rcs, type, op, comm);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0, me = nvp_comm_rank(comm);
        double r = (p > 0 && me >= 0 && me < p && rcs) ? nvp_bytes(rcs[me], type) : 0;
        nvp_leave(NVP_REDUCE_SCATTER, rc, sum_bytes(rcs, type, p), r, comm);
    }
    return rc;
}

int MPI_Reduce_scatter_block(const void *sb, void *rb, int rcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    int t = nvp_enter(NVP_REDUCE_SCATTER_BLOCK);
    int rc = next_Reduce_scatter_block(sb, rb, rcount, type, op, comm);
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
    int rc = next_Barrier(comm);
    if (t)
        nvp_leave(NVP_BARRIER, rc, 0, 0, comm);
    return rc;
}

/* ------------------------------------------------------------ nonblocking all-to-all
 * Counted (and bytes) when started; a boundary when the request completes. */
#define NB_DONE(ID, rc, sent, recv, comm, req)                                                     \
    do {                                                                                           \
        nvp_leave(ID, rc, sent, recv, comm);                                                       \
        nvp_nbc_started(nvp_nbc_is_boundary(ID, comm), rc, req);                                   \
    } while (0)

int MPI_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                  MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IALLTOALL);
    int rc = next_Ialltoall(sb, sc, st, rb, rc_, rt, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        NB_DONE(NVP_IALLTOALL, rc, IN_PLACE(sb) ? 0 : p * nvp_bytes(sc, st), p * nvp_bytes(rc_, rt),
                comm, req);
    }
    return rc;
}

int MPI_Ialltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                   const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *req)
{
    int t = nvp_enter(NVP_IALLTOALLV);
    int rc = next_Ialltoallv(sb, sc, sd, st, rb, rcs, rd, rt, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        NB_DONE(NVP_IALLTOALLV, rc, IN_PLACE(sb) ? 0 : sum_bytes(sc, st, p), sum_bytes(rcs, rt, p),
                comm, req);
    }
    return rc;
}

int MPI_Ialltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[],
                   void *rb, const int rcs[], const int rd[], const MPI_Datatype rt[],
                   MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IALLTOALLW);
    int rc = next_Ialltoallw(sb, sc, sd, st, rb, rcs, rd, rt, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        double s = 0, r = 0;
        for (int i = 0; i < p; i++) {
            if (!IN_PLACE(sb) && sc && st)
                s += nvp_bytes(sc[i], st[i]);
            if (rcs && rt)
                r += nvp_bytes(rcs[i], rt[i]);
        }
        NB_DONE(NVP_IALLTOALLW, rc, s, r, comm, req);
    }
    return rc;
}

int MPI_Iallreduce(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
    int t = nvp_enter(NVP_IALLREDUCE);
    int rc = next_Iallreduce(sb, rb, count, type, op, comm, req);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        NB_DONE(NVP_IALLREDUCE, rc, b, b, comm, req);
    }
    return rc;
}

int MPI_Iallgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IALLGATHER);
    int rc = next_Iallgather(sb, sc, st, rb, rc_, rt, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        NB_DONE(NVP_IALLGATHER, rc, IN_PLACE(sb) ? 0 : nvp_bytes(sc, st), p * nvp_bytes(rc_, rt),
                comm, req);
    }
    return rc;
}

int MPI_Iallgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                    const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IALLGATHERV);
    int rc = next_Iallgatherv(sb, sc, st, rb, rcs, rd, rt, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        NB_DONE(NVP_IALLGATHERV, rc, IN_PLACE(sb) ? 0 : nvp_bytes(sc, st), sum_bytes(rcs, rt, p),
                comm, req);
    }
    return rc;
}

int MPI_Ireduce_scatter(const void *sb, void *rb, const int rcs[], MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IREDUCE_SCATTER);
    int rc = next_Ireduce_scatter(sb, rb, rcs, type, op, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0, me = nvp_comm_rank(comm);
        double r = (p > 0 && me >= 0 && me < p && rcs) ? nvp_bytes(rcs[me], type) : 0;
        NB_DONE(NVP_IREDUCE_SCATTER, rc, sum_bytes(rcs, type, p), r, comm, req);
    }
    return rc;
}

int MPI_Ireduce_scatter_block(const void *sb, void *rb, int rcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IREDUCE_SCATTER_BLOCK);
    int rc = next_Ireduce_scatter_block(sb, rb, rcount, type, op, comm, req);
    if (t) {
        int p = rc == MPI_SUCCESS ? nvp_comm_size(comm) : 0;
        double b = rc == MPI_SUCCESS ? nvp_bytes(rcount, type) : 0;
        NB_DONE(NVP_IREDUCE_SCATTER_BLOCK, rc, p * b, b, comm, req);
    }
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IBARRIER);
    int rc = next_Ibarrier(comm, req);
    if (t)
        NB_DONE(NVP_IBARRIER, rc, 0, 0, comm, req);
    return rc;
}

/* ------------------------------------------------------------ rooted */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_BCAST);
    int rc = next_Bcast(buf, count, type, root, comm);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        nvp_leave_peer(NVP_BCAST, rc, me == root ? b : 0, me == root ? 0 : b, comm, root);
    }
    return rc;
}

int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_SCATTER);
    int rc = next_Scatter(sb, sc, st, rb, rc_, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = me == root ? nvp_comm_size(comm) * nvp_bytes(sc, st) : 0;
        double r = (me >= 0 && !IN_PLACE(rb)) ? nvp_bytes(rc_, rt) : 0;
        nvp_leave_peer(NVP_SCATTER, rc, s, r, comm, root);
    }
    return rc;
}

int MPI_Scatterv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb, int rc_,
                 MPI_Datatype rt, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_SCATTERV);
    int rc = next_Scatterv(sb, sc, sd, st, rb, rc_, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = me == root ? sum_bytes(sc, st, nvp_comm_size(comm)) : 0;
        double r = (me >= 0 && !IN_PLACE(rb)) ? nvp_bytes(rc_, rt) : 0;
        nvp_leave_peer(NVP_SCATTERV, rc, s, r, comm, root);
    }
    return rc;
}

int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    int t = nvp_enter(NVP_REDUCE);
    int rc = next_Reduce(sb, rb, count, type, op, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double b = me >= 0 ? nvp_bytes(count, type) : 0;
        nvp_leave_peer(NVP_REDUCE, rc, b, me == root ? b : 0, comm, root);
    }
    return rc;
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
               int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_GATHER);
    int rc = next_Gather(sb, sc, st, rb, rc_, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = (me >= 0 && !IN_PLACE(sb)) ? nvp_bytes(sc, st) : 0;
        double r = me == root ? nvp_comm_size(comm) * nvp_bytes(rc_, rt) : 0;
        nvp_leave_peer(NVP_GATHER, rc, s, r, comm, root);
    }
    return rc;
}

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int rd[],
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    int t = nvp_enter(NVP_GATHERV);
    int rc = next_Gatherv(sb, sc, st, rb, rcs, rd, rt, root, comm);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = (me >= 0 && !IN_PLACE(sb)) ? nvp_bytes(sc, st) : 0;
        double r = me == root ? sum_bytes(rcs, rt, nvp_comm_size(comm)) : 0;
        nvp_leave_peer(NVP_GATHERV, rc, s, r, comm, root);
    }
    return rc;
}

/* ------------------------------------------------------------ nonblocking rooted
 * Counted (and bytes) when started, as the blocking forms; their time to
 * complete is the completion call's, in their class.  Never boundaries. */
#define NB_ROOTED_DONE(ID, rc, sent, recv, comm, root, req)                                        \
    do {                                                                                           \
        nvp_leave_peer(ID, rc, sent, recv, comm, root);                                            \
        nvp_nbc_started(0, rc, req);                                                               \
    } while (0)

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IBCAST);
    int rc = next_Ibcast(buf, count, type, root, comm, req);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        NB_ROOTED_DONE(NVP_IBCAST, rc, me == root ? b : 0, me == root ? 0 : b, comm, root, req);
    }
    return rc;
}

int MPI_Iscatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_ISCATTER);
    int rc = next_Iscatter(sb, sc, st, rb, rc_, rt, root, comm, req);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = me == root ? nvp_comm_size(comm) * nvp_bytes(sc, st) : 0;
        double r = (me >= 0 && !IN_PLACE(rb)) ? nvp_bytes(rc_, rt) : 0;
        NB_ROOTED_DONE(NVP_ISCATTER, rc, s, r, comm, root, req);
    }
    return rc;
}

int MPI_Iscatterv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  int rc_, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_ISCATTERV);
    int rc = next_Iscatterv(sb, sc, sd, st, rb, rc_, rt, root, comm, req);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = me == root ? sum_bytes(sc, st, nvp_comm_size(comm)) : 0;
        double r = (me >= 0 && !IN_PLACE(rb)) ? nvp_bytes(rc_, rt) : 0;
        NB_ROOTED_DONE(NVP_ISCATTERV, rc, s, r, comm, root, req);
    }
    return rc;
}

int MPI_Ireduce(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IREDUCE);
    int rc = next_Ireduce(sb, rb, count, type, op, root, comm, req);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double b = me >= 0 ? nvp_bytes(count, type) : 0;
        NB_ROOTED_DONE(NVP_IREDUCE, rc, b, me == root ? b : 0, comm, root, req);
    }
    return rc;
}

int MPI_Igather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IGATHER);
    int rc = next_Igather(sb, sc, st, rb, rc_, rt, root, comm, req);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = (me >= 0 && !IN_PLACE(sb)) ? nvp_bytes(sc, st) : 0;
        double r = me == root ? nvp_comm_size(comm) * nvp_bytes(rc_, rt) : 0;
        NB_ROOTED_DONE(NVP_IGATHER, rc, s, r, comm, root, req);
    }
    return rc;
}

int MPI_Igatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int rd[],
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    int t = nvp_enter(NVP_IGATHERV);
    int rc = next_Igatherv(sb, sc, st, rb, rcs, rd, rt, root, comm, req);
    if (t) {
        int me = rc == MPI_SUCCESS ? nvp_comm_rank(comm) : -1;
        double s = (me >= 0 && !IN_PLACE(sb)) ? nvp_bytes(sc, st) : 0;
        double r = me == root ? sum_bytes(rcs, rt, nvp_comm_size(comm)) : 0;
        NB_ROOTED_DONE(NVP_IGATHERV, rc, s, r, comm, root, req);
    }
    return rc;
}

/* ------------------------------------------------------------ p2p */
#define SEND_LIKE(NAME, ID)                                                                        \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm)                                                                  \
    {                                                                                              \
        int t = nvp_enter(ID);                                                                     \
        int rc = next_##NAME(buf, count, type, dest, tag, comm);                                   \
        if (t)                                                                                     \
            nvp_leave_peer(ID, rc, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, 0, comm, dest); \
        return rc;                                                                                 \
    }
SEND_LIKE(Send, NVP_SEND)
SEND_LIKE(Ssend, NVP_SSEND)
SEND_LIKE(Rsend, NVP_RSEND)
SEND_LIKE(Bsend, NVP_BSEND)

#define ISEND_LIKE(NAME, ID)                                                                       \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm, MPI_Request *req)                                                \
    {                                                                                              \
        int t = nvp_enter(ID);                                                                     \
        int rc = next_##NAME(buf, count, type, dest, tag, comm, req);                              \
        if (t) {                                                                                   \
            nvp_leave_peer(ID, rc, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, 0, comm, dest); \
            nvp_nbc_started(0, rc, req);                                                           \
        }                                                                                          \
        return rc;                                                                                 \
    }
ISEND_LIKE(Isend, NVP_ISEND)
ISEND_LIKE(Issend, NVP_ISSEND)
ISEND_LIKE(Irsend, NVP_IRSEND)
ISEND_LIKE(Ibsend, NVP_IBSEND)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    int t = nvp_enter(NVP_RECV);
    int rc = next_Recv(buf, count, type, src, tag, comm, st);
    if (t)
        nvp_leave(NVP_RECV, rc, 0, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, comm);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    int t = nvp_enter(NVP_IRECV);
    int rc = next_Irecv(buf, count, type, src, tag, comm, req);
    if (t) {
        nvp_leave(NVP_IRECV, rc, 0, rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0, comm);
        nvp_nbc_started(0, rc, req);
    }
    return rc;
}

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rc_,
                 MPI_Datatype rt, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    int t = nvp_enter(NVP_SENDRECV);
    int rc = next_Sendrecv(sb, sc, st, dest, stag, rb, rc_, rt, src, rtag, comm, status);
    if (t) {
        int ok = rc == MPI_SUCCESS;
        nvp_leave_peer(NVP_SENDRECV, rc, ok ? nvp_bytes(sc, st) : 0, ok ? nvp_bytes(rc_, rt) : 0,
                       comm, dest);
    }
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    int t = nvp_enter(NVP_SENDRECV_REPLACE);
    int rc = next_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, status);
    if (t) {
        double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;
        nvp_leave_peer(NVP_SENDRECV_REPLACE, rc, b, b, comm, dest);
    }
    return rc;
}

/* ------------------------------------------------------------ completion
 * A tracked boundary request is marked before the call (its slot is
 * cleared by MPI when it completes) and checked after it. */
int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAIT);
    if (t)
        nvp_nbc_mark(&m, req, 1);
    int rc = next_Wait(req, st);
    if (t)
        nvp_leave_completion(NVP_WAIT, rc, nvp_nbc_completed(&m, req, 1));
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAITALL);
    if (t)
        nvp_nbc_mark(&m, reqs, n);
    int rc = next_Waitall(n, reqs, sts);
    if (t)
        nvp_leave_completion(NVP_WAITALL, rc, nvp_nbc_completed(&m, reqs, n));
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAITANY);
    if (t)
        nvp_nbc_mark(&m, reqs, n);
    int rc = next_Waitany(n, reqs, idx, st);
    if (t)
        nvp_leave_completion(NVP_WAITANY, rc, nvp_nbc_completed(&m, reqs, n));
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outn, int idx[], MPI_Status sts[])
{
    nvp_nbc_marks m;
    int t = nvp_enter(NVP_WAITSOME);
    if (t)
        nvp_nbc_mark(&m, reqs, n);
    int rc = next_Waitsome(n, reqs, outn, idx, sts);
    if (t)
        nvp_leave_completion(NVP_WAITSOME, rc, nvp_nbc_completed(&m, reqs, n));
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TEST);
    if (t)
        nvp_nbc_mark(&m, req, 1);
    int rc = next_Test(req, flag, st);
    if (t)
        nvp_test_leave(NVP_TEST, rc, nvp_nbc_completed(&m, req, 1),
                       rc == MPI_SUCCESS && flag && !*flag);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TESTALL);
    if (t)
        nvp_nbc_mark(&m, reqs, n);
    int rc = next_Testall(n, reqs, flag, sts);
    if (t)
        nvp_test_leave(NVP_TESTALL, rc, nvp_nbc_completed(&m, reqs, n),
                       rc == MPI_SUCCESS && flag && !*flag);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TESTANY);
    if (t)
        nvp_nbc_mark(&m, reqs, n);
    int rc = next_Testany(n, reqs, idx, flag, st);
    if (t)
        nvp_test_leave(NVP_TESTANY, rc, nvp_nbc_completed(&m, reqs, n),
                       rc == MPI_SUCCESS && flag && !*flag);
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outn, int idx[], MPI_Status sts[])
{
    nvp_nbc_marks m;
    int t = nvp_test_enter(NVP_TESTSOME);
    if (t)
        nvp_nbc_mark(&m, reqs, n);
    int rc = next_Testsome(n, reqs, outn, idx, sts);
    if (t)
        nvp_test_leave(NVP_TESTSOME, rc, nvp_nbc_completed(&m, reqs, n),
                       rc == MPI_SUCCESS && outn && *outn == 0);
    return rc;
}

/* Not a counted call: only forgets a tracked request the app gives up on. */
int MPI_Request_free(MPI_Request *req)
{
    if (nvp_active && pthread_equal(pthread_self(), nvp_main_thread))
        nvp_nbc_forget(req);
    return next_Request_free(req);
}

/* ------------------------------------------------------------ MPI-IO */
int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    int t = nvp_enter(NVP_FILE_OPEN);
    int rc = next_File_open(comm, name, amode, info, fh);
    if (t)
        nvp_leave(NVP_FILE_OPEN, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    int t = nvp_enter(NVP_FILE_CLOSE);
    int rc = next_File_close(fh);
    if (t)
        nvp_leave(NVP_FILE_CLOSE, rc, 0, 0, MPI_COMM_NULL);
    return rc;
}

#define FILE_RW(NAME, ID, CONSTQ, WRITE)                                                           \
    int MPI_##NAME(MPI_File fh, CONSTQ void *buf, int count, MPI_Datatype type, MPI_Status *st)    \
    {                                                                                              \
        int t = nvp_enter(ID);                                                                     \
        int rc = next_##NAME(fh, buf, count, type, st);                                            \
        if (t) {                                                                                   \
            double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;                             \
            nvp_leave(ID, rc, WRITE ? b : 0, WRITE ? 0 : b, MPI_COMM_NULL);                        \
        }                                                                                          \
        return rc;                                                                                 \
    }
#define FILE_RW_AT(NAME, ID, CONSTQ, WRITE)                                                        \
    int MPI_##NAME(MPI_File fh, MPI_Offset off, CONSTQ void *buf, int count, MPI_Datatype type,    \
                   MPI_Status *st)                                                                 \
    {                                                                                              \
        int t = nvp_enter(ID);                                                                     \
        int rc = next_##NAME(fh, off, buf, count, type, st);                                       \
        if (t) {                                                                                   \
            double b = rc == MPI_SUCCESS ? nvp_bytes(count, type) : 0;                             \
            nvp_leave(ID, rc, WRITE ? b : 0, WRITE ? 0 : b, MPI_COMM_NULL);                        \
        }                                                                                          \
        return rc;                                                                                 \
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
