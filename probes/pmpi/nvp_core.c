/* nvp_core.c - the segment profiler's state: per-call accounting, segment
 * recording into the memory-mapped per-rank file, the interference
 * injector, configuration from the environment, and the program-wide
 * profile written at MPI_Finalize.
 *
 * Segment time and work (also for nonblocking boundaries): a segment runs
 * from the moment the previous boundary completed in this rank (blocking
 * call returned, or a Wait/Test call completed a tracked I-collective) to
 * the moment this one completes, wall clock.  Work is the work counter
 * (PAPI, else thread CPU time) outside MPI calls, as for blocking codes
 * (without PAPI, CPU time is read only at boundaries and the wall time
 * inside the other calls is taken off: see "recording"), with one refinement for polite waiting: a polling run (from a Test call
 * that left requests incomplete to the next MPI call that is not such a
 * test) counts as waiting, not work, when the thread mostly slept in it or
 * the tests came too close together to hold computation
 * (nvp_poll_run_is_waiting).  So the app's own MPI_Test + nanosleep loop is
 * MPI time and the work of a segment does not grow with how long the
 * collective took; computation overlapped with a pending request (CPU busy
 * between tests) still counts as work.
 *
 * Time in MPI by operation and size class (the NV_SEG_M_COMM_FIRST
 * metrics): a tracked call's wall time (injected sleeps included) counts
 * for its operation and message size; a completion call's, and a polling
 * run's that was waiting, for the pending nonblocking operations' class
 * (the largest message among those started since none was pending: the
 * requests a Wait completes are not told apart).  Overlap: wall time
 * outside MPI while nonblocking requests started by wrapped calls were
 * pending (counted from MPI_Isend/Irecv/I-collectives to the completion
 * call that empties them), and a polling run that was computation.  Tests
 * inside a polling run read no clock, so the run counts as a whole. */
#define _GNU_SOURCE
#include "nvp.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <papi.h>

#include "nv_err.h"
#include "safe_open.h"
#include "segment_bins.h"
#include "segment_profile.h"

volatile int nvp_active;
pthread_t nvp_main_thread;
int nvp_nb_pending;

#define NAME_OF(id, name, kind) name,
#define KIND_OF(id, name, kind) kind,
static const char *const call_name[NVP_NCALLS] = {NVP_CALLS(NAME_OF)};
static const int call_kind[NVP_NCALLS] = {NVP_CALLS(KIND_OF)};

static struct {
    int initialized, disabled, finalized;
    int rank, nranks, world_size;
    int depth;
    int work_source;
    uint64_t boundary_mask, inject_mask;
    uint64_t exact_mask; /* blocking calls that may cut a segment */
    /* the current segment */
    double acc[NV_SEG_METRICS];
    double work_mark; /* work counter at the last exact point */
    double mark_ns;   /* monotonic time then */
    double mpi_ns;    /* wall time inside MPI since then, of calls that were not exact */
    int exact;        /* the current call reads the work counter at entry and exit */
    double call_start_ns, call_injected_ns;
    uint8_t waits[NVP_NCALLS];         /* > 0: this call waited lately, read CPU time around it */
    double seg_start_ns;               /* monotonic, end of the previous boundary */
    double last_leave_ns;              /* when the last accounted call returned */
    int nb_metric;                     /* time metric of the pending nonblocking operations */
    int16_t zero_slot[NV_SEG_METRICS]; /* bin slot holding 0, -1 unknown */
    int test_pending;                  /* nvp_nb_pending when the test began */
    /* the open polling run, if any (nvp_poll_run_is_waiting) */
    int in_run;
    uint64_t run_tests;
    double run_work0, run_wall0, run_cpu0;
    double init_end_ns;
    /* storage */
    nv_seg_rank_header *h;
    uint8_t *col; /* NV_SEG_METRICS columns of h->capacity */
    size_t map_bytes;
    int file_backed;
    char partial_path[4096];
    char final_path[4096];
    int dir_from_env;
    const char *dir_note; /* why the profile goes to the current directory */
    /* injector */
    double inject_prob, inject_mean_us, inject_sd_us;
    uint64_t rng;
    /* PAPI, when the machine has a PMU */
    int papi_set;
    int (*papi_read)(int, long long *);
} S;

static int logged;

static void to_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "netvar: %s\n", line);
}

void nvp_log_once(const char *fmt, ...)
{
    if (__atomic_exchange_n(&logged, 1, __ATOMIC_RELAXED))
        return;
    va_list ap;
    va_start(ap, fmt);
    nv_vlogf(to_stderr, NULL, fmt, ap);
    va_end(ap);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double read_work(void)
{
    if (S.papi_read) {
        long long v = 0;
        if (S.papi_read(S.papi_set, &v) == 0)
            return (double)v;
    }
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double nvp_bytes(int count, MPI_Datatype type)
{
    int sz = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &sz) != MPI_SUCCESS ||
        sz < 0)
        return 0;
    return (double)count * (double)sz;
}

int nvp_comm_size(MPI_Comm comm)
{
    int n = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
        return 0;
    return n;
}

int nvp_comm_rank(MPI_Comm comm)
{
    int r = -1;
    if (comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &r) != MPI_SUCCESS)
        return -1;
    return r;
}

/* ------------------------------------------------------------ injector */
static uint64_t rng_next(void)
{
    uint64_t x = S.rng; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    S.rng = x;
    return x * 2685821657736338717ull;
}

static double rng_uniform(void)
{
    return ((double)(rng_next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Sleeps as configured; returns the wall time slept, ns. */
static double inject(void)
{
    if (rng_uniform() >= S.inject_prob)
        return 0;
    double u1 = rng_uniform(), u2 = rng_uniform();
    double delay = S.inject_mean_us + S.inject_sd_us * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    if (!(delay > 0))
        return 0;
    if (delay > 60e6)
        delay = 60e6;
    double t0 = now_ns();
    struct timespec ts = {(time_t)(delay / 1e6), (long)fmod(delay * 1e3, 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    double slept = now_ns() - t0;
    S.h->inject_events++;
    S.h->inject_total_us += slept / 1e3;
    return slept;
}

/* ------------------------------------------------------------ recording
 * Work is flushed into the segment at "exact" points, where the work
 * counter is read: the entry and exit of every call with PAPI (PAPI_read
 * is cheap).  Without PAPI, thread CPU time is a system call, so it is read
 * around the calls that may wait (a thread waiting inside MPI may be off
 * the CPU: polling with sched_yield on a busy node), and not around those
 * that lately never took longer than NVP_SHORT_CALL_NS (nonblocking starts,
 * eager sends): their wall time inside MPI, from the vDSO monotonic clock,
 * less injected sleeps, is taken off the CPU time at the next exact point.
 * Exact: boundary collectives, a Wait while a boundary I-collective is in
 * flight, an open polling run, and a call that took longer than
 * NVP_SHORT_CALL_NS within its last NVP_WAIT_MEMORY calls.  A call taken
 * for short that turns out long counts at most NVP_SHORT_CALL_NS as MPI
 * time (the rest as work: a bounded error, once per change of behaviour).
 * An exact call that starts less than NVP_SHORT_CALL_NS after the last
 * read takes that gap as CPU time instead of reading (back-to-back calls:
 * the Allreduces of one thermo output, a Wait right after its Send). */
#define NVP_SHORT_CALL_NS 20000.0
#define NVP_WAIT_MEMORY 16

/* Adds the work since the last mark, up to counter value w, and marks w. */
static void flush_work(double w)
{
    double piece = w - S.work_mark - S.mpi_ns;
    if (piece > 0)
        S.acc[NV_SEG_M_WORK] += piece;
    S.work_mark = w;
    S.mpi_ns = 0;
}

static void mark_work(double w)
{
    S.work_mark = w;
    S.mark_ns = now_ns();
    S.mpi_ns = 0;
}

/* Ends the open polling run at work counter w: its work (the app's loop
 * between the tests, and the tests) counts only when it was computation. */
static void close_poll_run(double w)
{
    double cpu = S.papi_read ? thread_cpu_ns() - S.run_cpu0 : w - S.run_work0;
    double t = now_ns(), wall = t - S.run_wall0;
    if (!nvp_poll_run_is_waiting(wall, cpu, S.run_tests)) {
        S.acc[NV_SEG_M_WORK] += w - S.run_work0;
        S.acc[NV_SEG_M_OVERLAP_US] += wall / 1e3;
    } else {
        S.acc[S.nb_metric] += wall / 1e3;
    }
    S.in_run = 0;
    S.last_leave_ns = t;
    mark_work(w);
}

int nvp_enter_slow(int call)
{
    if (!pthread_equal(pthread_self(), nvp_main_thread))
        return 0;
    if (S.depth++ > 0)
        return 1;
    S.exact = S.papi_read || S.in_run || S.waits[call] || ((S.exact_mask >> call) & 1) ||
              (call_kind[call] == NVK_WAIT && nvp_nbc_in_flight());
    S.call_start_ns = now_ns();
    if (nvp_nb_pending > 0 && !S.in_run && S.call_start_ns > S.last_leave_ns)
        S.acc[NV_SEG_M_OVERLAP_US] += (S.call_start_ns - S.last_leave_ns) / 1e3;
    if (S.exact) {
        /* a gap under NVP_SHORT_CALL_NS since the last read (back-to-back
         * calls) is taken as spent on the CPU, without a read */
        double gap = S.call_start_ns - S.mark_ns;
        int cheap = !S.papi_read && !S.in_run && gap >= 0 && gap < NVP_SHORT_CALL_NS;
        double w = cheap ? S.work_mark + gap : read_work();
        if (__builtin_expect(S.in_run, 0))
            close_poll_run(w);
        else
            flush_work(w);
    }
    S.call_injected_ns = 0;
    if ((S.inject_mask >> call) & 1)
        S.call_injected_ns = inject();
    return 1;
}

/* The end of a tracked call's accounting: the work counter is read again
 * after an exact call; another call's wall time counts as MPI time. */
static void call_done(int call, double now)
{
    double in_mpi = now - S.call_start_ns - S.call_injected_ns;
    int waited = in_mpi > NVP_SHORT_CALL_NS;
    if (waited)
        S.waits[call] = NVP_WAIT_MEMORY;
    else if (S.waits[call])
        S.waits[call]--;
    if (S.exact)
        mark_work(read_work());
    else if (in_mpi > 0)
        S.mpi_ns += waited ? NVP_SHORT_CALL_NS : in_mpi;
}

/* A segment ends inside a call that was not exact (cannot happen with the
 * call sets above; kept correct): flush the work up to now. */
static void make_exact(int call)
{
    if (S.exact)
        return;
    call_done(call, now_ns());
    S.exact = 1;
    flush_work(read_work());
}

static void end_segment(double t_ns)
{
    nv_seg_rank_header *h = S.h;
    S.acc[NV_SEG_M_TIME_US] = (t_ns - S.seg_start_ns) / 1e3;
    S.seg_start_ns = t_ns;
    h->runtime_us = (t_ns - S.init_end_ns) / 1e3;
    uint64_t n = h->nsegments;
    if (n >= h->capacity) {
        h->dropped++;
    } else {
        for (int m = 0; m < NV_SEG_METRICS; m++) {
            nv_seg_bins *b = &h->bins[m];
            uint16_t remap[NV_SEG_BINS_MAX];
            int merged = 0;
            uint8_t *column = S.col + (size_t)m * h->capacity;
            /* most time metrics of a segment are 0: counted in their bin
             * of 0 without a search while it lives */
            int z = S.zero_slot[m];
            if (S.acc[m] == 0 && z >= 0 && b->live[z] && b->value[z] == 0) {
                b->count[z]++;
                column[n] = (uint8_t)z;
                continue;
            }
            /* a kill during a merge leaves bins and indices out of step:
             * say so in the file, readers refuse such a rank */
            int may_merge = b->used >= b->capacity;
            if (may_merge)
                __atomic_store_n(&h->busy, 1, __ATOMIC_SEQ_CST);
            int slot = nv_seg_bins_add(b, S.acc[m], 1, remap, &merged);
            if (merged)
                for (uint64_t i = 0; i < n; i++)
                    column[i] = (uint8_t)remap[column[i]];
            column[n] = (uint8_t)(slot < 0 ? 0 : slot);
            if (S.acc[m] == 0)
                S.zero_slot[m] = (int16_t)slot;
            if (may_merge)
                __atomic_store_n(&h->busy, 0, __ATOMIC_SEQ_CST);
        }
        __atomic_store_n(&h->nsegments, n + 1, __ATOMIC_RELEASE);
    }
    memset(S.acc, 0, sizeof S.acc);
}

static const int kind_metric[] = {
    [NVK_ALL_TO_ALL] = NV_SEG_M_COLL_ALL_TO_ALL,
    [NVK_ALL_TO_ALL_NB] = NV_SEG_M_COLL_ALL_TO_ALL,
    [NVK_ONE_TO_ALL] = NV_SEG_M_COLL_ONE_TO_ALL,
    [NVK_ALL_TO_ONE] = NV_SEG_M_COLL_ALL_TO_ONE,
    [NVK_ONE_TO_ALL_NB] = NV_SEG_M_COLL_ONE_TO_ALL,
    [NVK_ALL_TO_ONE_NB] = NV_SEG_M_COLL_ALL_TO_ONE,
    [NVK_P2P_BLOCKING] = NV_SEG_M_P2P_BLOCKING,
    [NVK_P2P_NONBLOCKING] = NV_SEG_M_P2P_NONBLOCKING,
    [NVK_WAIT] = -1,
    [NVK_IO_OPEN_CLOSE] = NV_SEG_M_IO_OPEN_CLOSE,
    [NVK_IO_READ_WRITE] = NV_SEG_M_IO_READ_WRITE,
};

static const int kind_op[] = {
    [NVK_ALL_TO_ALL] = NV_SEG_OP_ALL,
    [NVK_ALL_TO_ALL_NB] = NV_SEG_OP_ALL,
    [NVK_ONE_TO_ALL] = NV_SEG_OP_ROOTED,
    [NVK_ALL_TO_ONE] = NV_SEG_OP_ROOTED,
    [NVK_ONE_TO_ALL_NB] = NV_SEG_OP_ROOTED,
    [NVK_ALL_TO_ONE_NB] = NV_SEG_OP_ROOTED,
    [NVK_P2P_BLOCKING] = NV_SEG_OP_P2P,
    [NVK_P2P_NONBLOCKING] = NV_SEG_OP_P2P,
    [NVK_WAIT] = -1,
    [NVK_IO_OPEN_CLOSE] = -1,
    [NVK_IO_READ_WRITE] = -1,
};

/* The call's time in MPI up to now, into its operation and size class. */
static void account_mpi(int metric, double now)
{
    double d = now - S.call_start_ns;
    if (d > 0)
        S.acc[metric] += d / 1e3;
    S.last_leave_ns = now;
}

void nvp_leave_peer(int call, int rc, double sent, double recv, MPI_Comm comm, int peer)
{
    if (--S.depth > 0)
        return;
    int kind = call_kind[call];
    double now = now_ns();
    int op = kind_op[kind];
    int metric = op < 0 ? NV_SEG_M_IO_US
                        : nv_seg_comm_metric(op, nv_seg_size_class(sent > recv ? sent : recv));
    account_mpi(metric, now);
    if (rc == MPI_SUCCESS && (kind == NVK_P2P_NONBLOCKING || kind == NVK_ALL_TO_ALL_NB ||
                              kind == NVK_ONE_TO_ALL_NB || kind == NVK_ALL_TO_ONE_NB)) {
        /* a new batch of pending requests, or a larger message in it */
        int cls = (metric - NV_SEG_M_COMM_FIRST) % NV_SEG_SIZE_CLASSES,
            pending_cls = (S.nb_metric - NV_SEG_M_COMM_FIRST) % NV_SEG_SIZE_CLASSES;
        if (nvp_nb_pending++ == 0 || cls > pending_cls)
            S.nb_metric = metric;
    }
    if (rc == MPI_SUCCESS) {
        if (kind_metric[kind] >= 0)
            S.acc[kind_metric[kind]] += 1;
        if (kind == NVK_IO_READ_WRITE) {
            S.acc[NV_SEG_M_IO_BYTES] += sent + recv;
        } else {
            S.acc[NV_SEG_M_BYTES_SENT] += sent;
            S.acc[NV_SEG_M_BYTES_RECV] += recv;
            if (sent > 0 || recv > 0)
                nvp_matrix_count(call, comm, peer, sent, recv);
        }
        /* only collectives spanning the whole job cut segments: the seed's
         * global synchronization points (nonblocking ones when they complete) */
        if (kind == NVK_ALL_TO_ALL && ((S.boundary_mask >> call) & 1) &&
            nvp_comm_size(comm) == S.world_size) {
            make_exact(call);
            end_segment(now);
        }
    }
    call_done(call, now);
}

int nvp_nbc_is_boundary(int call, MPI_Comm comm)
{
    return ((S.boundary_mask >> call) & 1) && nvp_comm_size(comm) == S.world_size;
}

static void cut_completed(int boundaries)
{
    double t = now_ns();
    for (int i = 0; i < boundaries; i++)
        end_segment(t);
}

void nvp_leave_completion(int call, int rc, int boundaries)
{
    (void)call;
    (void)rc; /* a tracked request that completed ends its segment even in error */
    if (--S.depth > 0)
        return;
    double now = now_ns();
    account_mpi(S.nb_metric, now);
    if (boundaries > 0) {
        make_exact(call);
        cut_completed(boundaries);
    }
    call_done(call, now);
}

/* Test calls are the hot path of a polling loop and read no clock unless
 * they open or close a polling run or complete a boundary.  (A test that
 * completes nothing tracked and ends no run is not accounted at all: its
 * short time inside MPI stays in the work, as before tests were wrapped.) */
int nvp_test_enter_slow(int call)
{
    if (!pthread_equal(pthread_self(), nvp_main_thread))
        return 0;
    if (S.depth++ > 0)
        return 1;
    if (!S.in_run) { /* a test outside a polling run is timed */
        S.call_start_ns = now_ns();
        S.test_pending = nvp_nb_pending;
    }
    if ((S.inject_mask >> call) & 1)
        inject();
    return 1;
}

void nvp_test_leave(int call, int rc, int boundaries, int incomplete)
{
    (void)call;
    (void)rc;
    if (--S.depth > 0)
        return;
    if (incomplete && boundaries == 0 && S.in_run) {
        S.run_tests++;
        return;
    }
    if (!S.in_run) {
        /* computing since the last call while requests were pending, then
         * this test's time in MPI */
        if (S.test_pending > 0 && S.call_start_ns > S.last_leave_ns)
            S.acc[NV_SEG_M_OVERLAP_US] += (S.call_start_ns - S.last_leave_ns) / 1e3;
        account_mpi(S.nb_metric, now_ns());
    }
    if (incomplete && boundaries == 0) {
        double w = read_work(); /* this test opens a run */
        flush_work(w);
        S.in_run = 1;
        S.run_tests = 1;
        S.run_work0 = w;
        S.run_wall0 = S.last_leave_ns; /* the run's time starts after this test */
        if (S.papi_read)
            S.run_cpu0 = thread_cpu_ns();
        return;
    }
    if (!S.in_run && boundaries == 0)
        return;
    double w = read_work();
    if (S.in_run) {
        close_poll_run(w);
    } else {
        flush_work(w);
    }
    if (boundaries > 0) {
        cut_completed(boundaries);
        mark_work(read_work());
    }
}

/* ------------------------------------------------------------ config */
static int call_by_name(const char *name, size_t len)
{
    if (len > 4 && strncasecmp(name, "MPI_", 4) == 0) {
        name += 4;
        len -= 4;
    }
    for (int c = 0; c < NVP_NCALLS; c++)
        if (strlen(call_name[c]) == len && strncasecmp(call_name[c], name, len) == 0)
            return c;
    return -1;
}

/* Parses "A,B,C" (or with ':' separators) into a call mask. */
static uint64_t parse_calls(const char *list, const char *var, int all_to_all_only)
{
    uint64_t mask = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",:+ ");
        if (len > 0) {
            int c = call_by_name(p, len);
            if (c < 0 || (all_to_all_only && call_kind[c] != NVK_ALL_TO_ALL &&
                          call_kind[c] != NVK_ALL_TO_ALL_NB))
                nvp_log_once(
                    "%s: '%.*s' is not %s; ignored", var, (int)(len > 40 ? 40 : len), p,
                    all_to_all_only
                        ? "an all-to-all collective (Alltoall/v/w, Allreduce, Allgather/v, "
                          "Reduce_scatter/_block, Barrier, or their I-forms)"
                        : "a wrapped MPI call");
            else
                mask |= 1ull << c;
        }
        p += len;
        if (*p)
            p++;
    }
    return mask;
}

/* Adds the nonblocking form of every blocking collective in mask:
 * "Alltoall" means the Alltoall synchronization point however it is
 * started.  ("Ialltoall" alone selects the nonblocking form only.) */
static uint64_t with_nonblocking_forms(uint64_t mask)
{
    for (int nb = 0; nb < NVP_NCALLS; nb++)
        if (call_kind[nb] == NVK_ALL_TO_ALL_NB)
            for (int c = 0; c < NVP_NCALLS; c++)
                if (((mask >> c) & 1) && call_kind[c] == NVK_ALL_TO_ALL &&
                    !strcasecmp(call_name[c], call_name[nb] + 1))
                    mask |= 1ull << nb;
    return mask;
}

static void mask_names(uint64_t mask, char *out, size_t cap)
{
    out[0] = 0;
    size_t used = 0;
    for (int c = 0; c < NVP_NCALLS; c++)
        if ((mask >> c) & 1) {
            int w = snprintf(out + used, cap - used, "%s%s", used ? "," : "", call_name[c]);
            if (w < 0 || (size_t)w >= cap - used)
                break;
            used += (size_t)w;
        }
}

static void parse_inject(const char *spec)
{
    double prob = 0, mean = 0, sd = 0;
    uint64_t seed = 0;
    int have_seed = 0;
    char calls[256] = "";
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        char item[300];
        snprintf(item, sizeof item, "%.*s", (int)(len < 299 ? len : 299), p);
        char *eq = strchr(item, '=');
        char *end = NULL;
        if (eq) {
            *eq = 0;
            const char *v = eq + 1;
            errno = 0;
            if (!strcmp(item, "prob"))
                prob = strtod(v, &end);
            else if (!strcmp(item, "mean_us"))
                mean = strtod(v, &end);
            else if (!strcmp(item, "sd_us"))
                sd = strtod(v, &end);
            else if (!strcmp(item, "seed")) {
                seed = strtoull(v, &end, 10);
                have_seed = 1;
            } else if (!strcmp(item, "calls")) {
                snprintf(calls, sizeof calls, "%s", v);
                end = (char *)v + strlen(v);
            }
        }
        if (!eq || !end || *end || errno) {
            nvp_log_once(
                "NETVAR_INJECT: bad item '%.60s' (want prob=P,mean_us=M,sd_us=S,calls=A:B,seed=N); injection disabled",
                item);
            return;
        }
        p += len;
        if (*p)
            p++;
    }
    if (!(prob >= 0 && prob <= 1) || !(mean >= 0) || !(sd >= 0) || !isfinite(mean) ||
        !isfinite(sd)) {
        nvp_log_once(
            "NETVAR_INJECT: prob must be in [0,1], mean_us and sd_us >= 0; injection disabled");
        return;
    }
    S.inject_mask = calls[0] ? parse_calls(calls, "NETVAR_INJECT calls", 0) : S.boundary_mask;
    S.inject_prob = prob;
    S.inject_mean_us = mean;
    S.inject_sd_us = sd;
    if (!have_seed)
        seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    S.h->inject_seed = seed;
    S.h->inject_prob = prob;
    S.h->inject_mean_us = mean;
    S.h->inject_sd_us = sd;
    mask_names(S.inject_mask, S.h->inject_calls, sizeof S.h->inject_calls);
    S.rng = (seed + 0x9E3779B97F4A7C15ull * (uint64_t)(S.rank + 1)) | 1;
}

static int excluded_by_env(void)
{
    const char *d = getenv("NETVAR_DISABLE");
    if (d && *d && strcmp(d, "0") != 0)
        return 1;
    const char *ex = getenv("NETVAR_EXCLUDE");
    const char *me = program_invocation_short_name;
    if (ex && me && *me) {
        size_t mlen = strlen(me);
        for (const char *p = ex; *p;) {
            size_t len = strcspn(p, ",");
            if (len == mlen && strncmp(p, me, len) == 0)
                return 1;
            p += len;
            if (*p)
                p++;
        }
    }
    return 0;
}

/* Job identity for file names: digits from Slurm, else the launcher's
 * namespace reduced to safe characters, else our pid. */
static void job_key(char *out, size_t cap, int *slurm)
{
    const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
    int ok = job && *job && strlen(job) < 20 && strspn(job, "0123456789") == strlen(job);
    if (ok && step && *step && strlen(step) < 20 && strspn(step, "0123456789") == strlen(step)) {
        snprintf(out, cap, "%s.%s", job, step);
        *slurm = 1;
        return;
    }
    *slurm = 0;
    const char *ns = getenv("PMIX_NAMESPACE");
    size_t j = 0;
    for (size_t i = 0; ns && ns[i] && j + 1 < cap && j < 40; i++)
        if (isalnum((unsigned char)ns[i]) || ns[i] == '-' || ns[i] == '_')
            out[j++] = ns[i];
    out[j] = 0;
    if (j == 0)
        snprintf(out, cap, "%ld", (long)getpid());
}

static void try_papi(void)
{
    struct stat st;
    /* no PMU, no PAPI: spare every process the library's start-up */
    if (stat("/sys/bus/event_source/devices/cpu", &st) != 0 || getenv("NETVAR_WORK_CPUTIME"))
        return;
    void *lib = dlopen("libpapi.so.7", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libpapi.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    int (*init)(int) = (int (*)(int))dlsym(lib, "PAPI_library_init");
    int (*create)(int *) = (int (*)(int *))dlsym(lib, "PAPI_create_eventset");
    int (*add)(int, int) = (int (*)(int, int))dlsym(lib, "PAPI_add_event");
    int (*start)(int) = (int (*)(int))dlsym(lib, "PAPI_start");
    int (*rd)(int, long long *) = (int (*)(int, long long *))dlsym(lib, "PAPI_read");
    if (!init || !create || !add || !start || !rd)
        return;
    if (init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
        return;
    int set = -1;
    if (create(&set) != PAPI_OK)
        return;
    if (add(set, PAPI_FP_OPS) == PAPI_OK)
        S.work_source = NV_SEG_WORK_PAPI_FP_OPS;
    else if (add(set, PAPI_TOT_INS) == PAPI_OK)
        S.work_source = NV_SEG_WORK_PAPI_TOT_INS;
    else
        return;
    if (start(set) != PAPI_OK) {
        S.work_source = NV_SEG_WORK_CPUTIME_NS;
        return;
    }
    S.papi_set = set;
    S.papi_read = rd;
}

static int map_storage(size_t bytes, const char *dir, const char *base)
{
    int n =
        snprintf(S.partial_path, sizeof S.partial_path, "%s/%s.rank%d.partial", dir, base, S.rank);
    if (n > 0 && (size_t)n < sizeof S.partial_path) {
        int fd = open(S.partial_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            void *p = MAP_FAILED;
            if (ftruncate(fd, (off_t)bytes) == 0)
                p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (p != MAP_FAILED) {
                S.h = p;
                S.map_bytes = bytes;
                S.file_backed = 1;
                return 0;
            }
            unlink(S.partial_path);
        }
        nvp_log_once(
            "cannot create %s (%s); profiling in memory only, no partial profile if the run dies",
            S.partial_path, strerror(errno));
    }
    S.partial_path[0] = 0;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    S.h = p;
    S.map_bytes = bytes;
    return 0;
}

void nvp_after_init(void)
{
    if (S.initialized)
        return;
    S.initialized = 1;
    if (excluded_by_env())
        return;
    nvp_main_thread = pthread_self();
    S.rank = nvp_comm_rank(MPI_COMM_WORLD);
    S.world_size = S.nranks = nvp_comm_size(MPI_COMM_WORLD);
    if (S.rank < 0 || S.nranks <= 0)
        return;

    uint64_t max_bytes = NV_SEG_DEFAULT_MAX_BYTES;
    const char *mb = getenv("NETVAR_PROFILE_MAX_BYTES");
    if (mb && *mb) {
        char *end = NULL;
        unsigned long long v = strtoull(mb, &end, 10);
        uint64_t floor_bytes = sizeof(nv_seg_rank_header) + 4096;
        if (!end || *end || v < floor_bytes || v > (1ull << 34))
            nvp_log_once(
                "NETVAR_PROFILE_MAX_BYTES='%.30s' is not a byte count in [%llu, 2^34]; using %llu",
                mb, (unsigned long long)floor_bytes, (unsigned long long)max_bytes);
        else
            max_bytes = v;
    }
    const char *dir = getenv("NETVAR_PROFILE_DIR"),
               *replaced = getenv("NETVAR_PROFILE_DIR_REPLACED");
    if (replaced && *replaced && dir && *dir && S.rank == 0) { /* set by the spank plugin */
        char a[256], b[256];
        fprintf(stderr,
                "netvar: NETVAR_PROFILE_DIR=%s is replaced by the job's spool directory %s, "
                "where netvar's reports read the profile\n",
                nv_printable(replaced, a, sizeof a), nv_printable(dir, b, sizeof b));
    }
    S.dir_from_env = dir && *dir;
    S.dir_note = "is not set";
    if (!S.dir_from_env)
        dir = ".";
    else if (strlen(dir) > 3000) {
        nvp_log_once(
            "NETVAR_PROFILE_DIR is longer than 3000 bytes; writing to the current directory");
        dir = ".";
        S.dir_from_env = 0;
        S.dir_note = "is longer than 3000 bytes";
    }
    char key[64], base[96];
    int slurm = 0;
    job_key(key, sizeof key, &slurm);
    snprintf(base, sizeof base, slurm ? "profile-%s" : "netvar-profile-%s", key);
    if (map_storage((size_t)max_bytes, dir, base) != 0) {
        nvp_log_once("cannot map %llu bytes for the profile; profiling disabled",
                     (unsigned long long)max_bytes);
        return;
    }
    if (slurm)
        snprintf(S.final_path, sizeof S.final_path, "%s/profile-%s.json", dir, key);
    else
        snprintf(S.final_path, sizeof S.final_path, "%s/netvar-profile-%ld.json", dir,
                 (long)getpid());

    nv_seg_rank_header *h = S.h;
    memset(h, 0, sizeof *h);
    h->version = NV_SEG_RANK_VERSION;
    h->header_bytes = sizeof *h;
    h->metrics = NV_SEG_METRICS;
    h->rank = (uint32_t)S.rank;
    h->nranks = (uint32_t)S.nranks;
    h->capacity = nv_seg_rank_capacity(max_bytes);
    snprintf(h->job, sizeof h->job, "%s", key);
    snprintf(h->executable, sizeof h->executable, "%s", program_invocation_short_name);
    for (int m = 0; m < NV_SEG_METRICS; m++) {
        nv_seg_bins_init(&h->bins[m], NV_SEG_RANK_BINS);
        S.zero_slot[m] = -1;
    }
    S.col = (uint8_t *)S.h + sizeof *h;

    S.boundary_mask = 0;
    for (int c = 0; c < NVP_NCALLS; c++)
        if (call_kind[c] == NVK_ALL_TO_ALL || call_kind[c] == NVK_ALL_TO_ALL_NB)
            S.boundary_mask |= 1ull << c;
    const char *sc = getenv("NETVAR_SEGMENT_CALLS");
    if (sc && *sc) {
        uint64_t m = parse_calls(sc, "NETVAR_SEGMENT_CALLS", 1);
        if (m)
            S.boundary_mask = with_nonblocking_forms(m);
    }
    mask_names(S.boundary_mask, h->segment_calls, sizeof h->segment_calls);
    for (int c = 0; c < NVP_NCALLS; c++)
        if (((S.boundary_mask >> c) & 1) && call_kind[c] == NVK_ALL_TO_ALL)
            S.exact_mask |= 1ull << c;
    const char *inj = getenv("NETVAR_INJECT");
    if (inj && *inj)
        parse_inject(inj);

    nvp_matrix_init(S.rank, S.nranks);
    S.work_source = NV_SEG_WORK_CPUTIME_NS;
    try_papi();
    h->work_source = (uint32_t)S.work_source;
    memcpy(h->magic, NV_SEG_RANK_MAGIC, 8); /* last: the file is now readable */
    S.init_end_ns = S.seg_start_ns = S.last_leave_ns = now_ns();
    S.nb_metric = nv_seg_comm_metric(NV_SEG_OP_P2P, 0);
    mark_work(read_work());
    __atomic_store_n(&nvp_active, 1, __ATOMIC_SEQ_CST);
    if (S.rank == 0 && nvp_tools_before()[0] && !nvp_tools_said())
        fprintf(
            stderr,
            "netvar: LD_PRELOAD has the PMPI tool %.300s before the segment profiler: the MPI "
            "calls it wraps do not reach the profiler, so the profile may miss segment boundaries (marked "
            "in it as pmpi_tools); put libnetvar_pmpi.so first in LD_PRELOAD to profile every call\n",
            nvp_tools_before());
}

/* ------------------------------------------------------------ finalize */
static void merge_bins_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    nv_seg_bins *a = in, *b = inout;
    for (int i = 0; i < *len * NV_SEG_METRICS; i++) {
        uint16_t remap[NV_SEG_BINS_MAX];
        int merged;
        for (uint32_t k = 0; k < a[i].used; k++)
            nv_seg_bins_add(&b[i], a[i].value[a[i].order[k]], a[i].count[a[i].order[k]], remap,
                            &merged);
    }
}

/* Gathers every rank's segments to rank 0 and writes the job's profile.
 * Returns 1 on rank 0 when the file was written, else 0. */
static int write_profile(MPI_Comm comm)
{
    nv_seg_rank_header *h = S.h;
    int written = 0;
    nv_seg_bins *bins = malloc(NV_SEG_METRICS * sizeof *bins);
    nv_seg_bins *global = malloc(NV_SEG_METRICS * sizeof *global);
    uint16_t(*map)[NV_SEG_BINS_MAX] = malloc(NV_SEG_METRICS * sizeof *map);
    int ok_local = bins && global && map, ok_all = 0;
    PMPI_Allreduce(&ok_local, &ok_all, 1, MPI_INT, MPI_MIN, comm);
    if (!ok_all) {
        nvp_log_once("out of memory at MPI_Finalize; the partial files stay in place");
        free(bins), free(global), free(map);
        return 0;
    }
    memcpy(bins, h->bins, NV_SEG_METRICS * sizeof *bins);
    for (int m = 0; m < NV_SEG_METRICS; m++)
        bins[m].capacity = NV_SEG_GLOBAL_BINS;
    MPI_Datatype t;
    MPI_Op op;
    PMPI_Type_contiguous((int)(NV_SEG_METRICS * sizeof *bins), MPI_BYTE, &t);
    PMPI_Type_commit(&t);
    PMPI_Op_create(merge_bins_op, 0, &op);
    PMPI_Reduce(bins, global, 1, t, op, 0, comm);
    PMPI_Bcast(global, 1, t, 0, comm);
    PMPI_Op_free(&op);
    PMPI_Type_free(&t);
    for (int m = 0; m < NV_SEG_METRICS; m++)
        nv_seg_map_bins(&h->bins[m], &global[m], map[m]);

    unsigned long long mine[2] = {h->nsegments, h->dropped}, nmin = 0, nmax = 0, dropped = 0;
    PMPI_Allreduce(&mine[0], &nmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    PMPI_Allreduce(&mine[0], &nmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    PMPI_Reduce(&mine[1], &dropped, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    double dmine[3] = {(double)h->inject_events, h->inject_total_us, 0}, dsum[3] = {0};
    PMPI_Reduce(dmine, dsum, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
    double peak = (double)sizeof *h + (double)NV_SEG_METRICS * (double)h->nsegments, peak_max = 0;
    double rt = h->runtime_us, rt_max = 0;
    PMPI_Reduce(&peak, &peak_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    PMPI_Reduce(&rt, &rt_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);

    /* segments travel in chunks so rank 0 never holds more than ~4 MiB */
    size_t per_seg = (size_t)S.nranks * NV_SEG_METRICS * sizeof(uint16_t);
    size_t chunk = (4u << 20) / per_seg;
    if (chunk < 1)
        chunk = 1;
    if (chunk > nmin)
        chunk = nmin ? (size_t)nmin : 1;
    uint16_t *send = malloc(NV_SEG_METRICS * chunk * sizeof *send);
    uint16_t *recv = S.rank == 0 ? malloc(per_seg * chunk) : NULL;
    nv_seg_aggregator *agg = S.rank == 0 ? nv_seg_agg_new((unsigned)S.nranks, global) : NULL;
    ok_local = send && (S.rank != 0 || (recv && agg));
    PMPI_Allreduce(&ok_local, &ok_all, 1, MPI_INT, MPI_MIN, comm);
    uint64_t bad = 0;
    if (ok_all) {
        for (uint64_t start = 0; start < nmin; start += chunk) {
            size_t cnt = (size_t)((nmin - start) < chunk ? (nmin - start) : chunk);
            for (int m = 0; m < NV_SEG_METRICS; m++)
                for (size_t s = 0; s < cnt; s++)
                    send[(size_t)m * chunk + s] =
                        map[m][S.col[(size_t)m * h->capacity + start + s]];
            PMPI_Gather(send, (int)(NV_SEG_METRICS * chunk), MPI_UNSIGNED_SHORT, recv,
                        (int)(NV_SEG_METRICS * chunk), MPI_UNSIGNED_SHORT, 0, comm);
            if (agg)
                for (size_t s = 0; s < cnt; s++)
                    if (nv_seg_agg_add(agg, recv, chunk, s) != 0)
                        bad++;
        }
        if (S.rank == 0) {
            nv_seg_profile_meta meta = {0};
            meta.complete = 1;
            meta.ranks = (unsigned)S.nranks;
            snprintf(meta.job, sizeof meta.job, "%s", h->job);
            snprintf(meta.executable, sizeof meta.executable, "%s", h->executable);
            snprintf(meta.work_source, sizeof meta.work_source, "%s",
                     nv_seg_work_source_name((int)h->work_source));
            snprintf(meta.segment_calls, sizeof meta.segment_calls, "%s", h->segment_calls);
            meta.runtime_us = rt_max;
            meta.dropped = dropped + bad;
            meta.unaligned = nmax - nmin;
            meta.peak_bytes_per_rank = peak_max;
            meta.inject_enabled = S.inject_prob > 0;
            meta.inject_prob = S.inject_prob;
            meta.inject_mean_us = S.inject_mean_us;
            meta.inject_sd_us = S.inject_sd_us;
            meta.inject_seed = h->inject_seed;
            meta.inject_events = (uint64_t)dsum[0];
            meta.inject_total_us = dsum[1];
            snprintf(meta.inject_calls, sizeof meta.inject_calls, "%s", h->inject_calls);
            char err[512];
            if (nv_seg_agg_write_json(agg, &meta, S.final_path, err, sizeof err) == 0) {
                written = 1;
                if (!S.dir_from_env)
                    fprintf(stderr,
                            "netvar: NETVAR_PROFILE_DIR %s; segment profile written to %s\n",
                            S.dir_note, S.final_path);
            } else {
                /* always said, whatever was said before: the one-time
                 * message may be spent on the partial file that could not
                 * be created either, and then the profile is lost */
                nv_logf(to_stderr, NULL, "%s; %s", err,
                        S.file_backed ? "the per-rank partial files stay in place"
                                      : "no partial file either (it could not be created): the "
                                        "segment profile of this run is lost");
            }
        }
    } else {
        nvp_log_once(
            "out of memory gathering segments at MPI_Finalize; the partial files stay in place");
    }
    free(send);
    free(recv);
    nv_seg_agg_free(agg);
    free(bins), free(global), free(map);
    return written;
}

void nvp_before_finalize(void)
{
    if (!nvp_active || S.finalized)
        return;
    __atomic_store_n(&nvp_active, 0, __ATOMIC_SEQ_CST);
    S.finalized = 1;
    MPI_Comm comm;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        nvp_log_once(
            "cannot duplicate MPI_COMM_WORLD at MPI_Finalize; only partial profiles are left");
        return;
    }
    int written = write_profile(comm);
    PMPI_Bcast(&written, 1, MPI_INT, 0, comm);
    nvp_matrix_finalize(comm, S.final_path, written);
    PMPI_Comm_free(&comm);
    if (written) {
        S.h->finalized = 1;
        if (S.file_backed && S.partial_path[0])
            unlink(S.partial_path);
    }
    munmap(S.h, S.map_bytes);
    S.h = NULL;
}
