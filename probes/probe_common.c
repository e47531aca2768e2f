/* probe_common.c - placement, polite waiting, stop votes, options and JSON
 * output shared by the ImpactB and CompressionB probes (probe_common.h). */
#define _GNU_SOURCE
#include "probe_common.h"

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nv_err.h"

volatile sig_atomic_t nv_probe_signalled;

static void on_signal(int sig)
{
    (void)sig;
    nv_probe_signalled = 1;
}

void nv_probe_setup_process(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* srun turns a SIGTERM it receives into SIGKILL for the tasks but
     * forwards SIGUSR1 as is, so SIGUSR1 is how a launcher stops us cleanly */
    sigaction(SIGUSR1, &sa, NULL);
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
}

uint64_t nv_probe_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ placement */

int nv_probe_place_discover(nv_probe_place *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->size);
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int hl = 0;
    MPI_Get_processor_name(host, &hl);
    host[hl < 0 ? 0 : (hl > MPI_MAX_PROCESSOR_NAME ? MPI_MAX_PROCESSOR_NAME : hl)] = '\0';
    /* Slurm's node name, when there is one, is what the rest of netvar
     * (records, blade map, topology) calls the node; with several slurmd on
     * one host (multiple-slurmd) it also tells the fake nodes apart */
    const char *slurm_node = getenv("SLURMD_NODENAME");
    if (slurm_node && *slurm_node && strlen(slurm_node) <= MPI_MAX_PROCESSOR_NAME)
        snprintf(host, sizeof host, "%s", slurm_node);

    const char *fake = getenv("NETVAR_PROBE_FAKE_NODES");
    int node = 0, local = 0;
    if (fake && *fake) {
        char *end;
        errno = 0;
        long k = strtol(fake, &end, 10);
        if (errno || *end || k < 1 || k > p->size)
            return nv_err(err, errlen,
                          "NETVAR_PROBE_FAKE_NODES='%.20s' must be a whole number "
                          "from 1 to the rank count %d",
                          fake, p->size);
        /* blocks of consecutive ranks, as a block-mapped launch would give */
        node = (int)((long)p->rank * k / p->size);
        int first = (int)(((long)node * p->size + k - 1) / k);
        local = p->rank - first;
        p->overridden = true;
        p->source = "NETVAR_PROBE_FAKE_NODES";
    } else {
        MPI_Comm nodecomm, leaders;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL,
                            &nodecomm);
        MPI_Comm_rank(nodecomm, &local);
        MPI_Comm_split(MPI_COMM_WORLD, local == 0 ? 0 : MPI_UNDEFINED, p->rank, &leaders);
        if (local == 0) {
            MPI_Comm_rank(leaders, &node);
            MPI_Comm_free(&leaders);
        }
        MPI_Bcast(&node, 1, MPI_INT, 0, nodecomm);
        MPI_Comm_free(&nodecomm);
        p->source = "MPI_COMM_TYPE_SHARED";
    }
    p->node = node;
    p->local = local;
    int mine[2] = {node, local};
    int *all = malloc(sizeof(int) * 2 * (size_t)p->size);
    char *names = malloc((size_t)p->size * (MPI_MAX_PROCESSOR_NAME + 1));
    p->rank_node = malloc(sizeof(int) * (size_t)p->size);
    p->rank_local = malloc(sizeof(int) * (size_t)p->size);
    if (!all || !names || !p->rank_node || !p->rank_local) {
        free(all);
        free(names);
        return nv_err(err, errlen, "out of memory for the placement of %d ranks", p->size);
    }
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME + 1,
                  MPI_CHAR, MPI_COMM_WORLD);
    p->nnodes = 0;
    for (int r = 0; r < p->size; r++) {
        p->rank_node[r] = all[2 * r];
        p->rank_local[r] = all[2 * r + 1];
        if (all[2 * r] + 1 > p->nnodes)
            p->nnodes = all[2 * r] + 1;
    }
    p->node_ntasks = calloc((size_t)p->nnodes, sizeof(int));
    p->node_names = calloc((size_t)p->nnodes, sizeof(char *));
    if (!p->node_ntasks || !p->node_names) {
        free(all);
        free(names);
        return nv_err(err, errlen, "out of memory for the placement of %d ranks", p->size);
    }
    for (int r = 0; r < p->size; r++) {
        int n = p->rank_node[r];
        p->node_ntasks[n]++;
        if (!p->node_names[n]) {
            char buf[MPI_MAX_PROCESSOR_NAME + 32];
            const char *h = names + (size_t)r * (MPI_MAX_PROCESSOR_NAME + 1);
            if (p->overridden)
                snprintf(buf, sizeof buf, "fake%d@%s", n, h);
            else
                snprintf(buf, sizeof buf, "%s", h);
            p->node_names[n] = strdup(buf);
        }
    }
    free(all);
    free(names);
    return 0;
}

void nv_probe_place_free(nv_probe_place *p)
{
    if (p->node_names)
        for (int i = 0; i < p->nnodes; i++)
            free(p->node_names[i]);
    free(p->node_names);
    free(p->node_ntasks);
    free(p->rank_node);
    free(p->rank_local);
    memset(p, 0, sizeof *p);
}

int nv_probe_rank_at(const nv_probe_place *p, int node, int local)
{
    /* ranks of a node are contiguous under both placements' usual launch,
     * but do not rely on it */
    for (int r = 0; r < p->size; r++)
        if (p->rank_node[r] == node && p->rank_local[r] == local)
            return r;
    return -1;
}

void nv_probe_place_output(const nv_probe_place *p, nv_probe_placement *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "%s", p->source ? p->source : "");
    out->overridden = p->overridden;
    out->ranks = p->size;
    out->nodes = p->nnodes;
    out->node_names = p->node_names;
    out->n_node_names = p->node_names ? (size_t)p->nnodes : 0;
    out->tasks_per_node = p->node_ntasks;
    out->rank_node = p->rank_node;
}

/* -------------------------------------------------------------- waiting */

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
                          .tv_nsec = (long)(ns % 1000000000ull)};
    nanosleep(&ts, NULL);
}

int nv_probe_wait(int n, MPI_Request *reqs, bool busy, nv_probe_wait_stats *st)
{
    return nv_probe_wait_spin(n, reqs, busy, NV_PROBE_SPIN_NS, NULL, st);
}

int nv_probe_wait_spin(int n, MPI_Request *reqs, bool busy, uint64_t spin_ns, bool *first_done,
                       nv_probe_wait_stats *st)
{
    if (first_done)
        *first_done = false;
    if (busy) {
        int done = 0;
        MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (first_done)
            *first_done = done != 0;
        return done ? MPI_SUCCESS : MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    }
    uint64_t step = 1000, start = 0;
    for (bool first = true;; first = false) {
        int done = 0;
        int rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (st)
            st->polls++;
        if (first && first_done)
            *first_done = done != 0;
        if (rc != MPI_SUCCESS || done)
            return rc;
        uint64_t now = nv_probe_now_ns();
        if (!start)
            start = now;
        /* a short spin first: a small message's reply usually lands within
         * it, and a sleep costs 5-50 us of wake-up latency on its own */
        if (now - start < spin_ns)
            continue;
        uint64_t cap = now - start > 10000000ull ? 1000000ull : 50000ull;
        sleep_ns(step);
        if (st)
            st->sleeps++;
        step = step * 2 > cap ? cap : step * 2;
    }
}

void nv_probe_sleep_us(uint64_t us)
{
    uint64_t end = nv_probe_now_ns() + us * 1000ull;
    while (!nv_probe_signalled) {
        uint64_t now = nv_probe_now_ns();
        if (now >= end)
            return;
        uint64_t left = end - now;
        sleep_ns(left > 50000000ull ? 50000000ull : left); /* wake to notice signals */
    }
}

void nv_probe_vote_start(nv_probe_vote *v, bool want_stop)
{
    v->local = want_stop ? 1 : 0;
    v->global = 0;
    MPI_Iallreduce(&v->local, &v->global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &v->req);
    v->in_flight = true;
}

bool nv_probe_vote_finish(nv_probe_vote *v, bool busy)
{
    if (!v->in_flight)
        return false;
    nv_probe_wait(1, &v->req, busy, NULL);
    v->in_flight = false;
    return v->global != 0;
}

/* -------------------------------------------------------------- options */

int nv_probe_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
                          char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return nv_err(err, errlen, "%s '%.30s' must be a number from %g to %g", opt, s ? s : "", lo,
                      hi);
    *out = v;
    return 0;
}

int nv_probe_parse_long(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                        size_t errlen)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < lo || v > hi)
        return nv_err(err, errlen, "%s '%.30s' must be a whole number from %ld to %ld", opt,
                      s ? s : "", lo, hi);
    *out = v;
    return 0;
}

/* --------------------------------------------------------------- output */

int nv_probe_write_json(json_object *obj, const char *path, const char *prog)
{
    const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!path || !strcmp(path, "-")) {
        printf("%s\n", text);
        fflush(stdout);
        return 0;
    }
    /* a temp file renamed over the path, unless the path is a device or a
     * FIFO (--output /dev/null), which is written in place (atomic_file.h) */
    nv_atomic_out o;
    char err[4200];
    if (nv_atomic_begin(&o, path, err, sizeof err)) {
        fprintf(stderr, "netvar: %s: %s\n", prog, err);
        return -1;
    }
    nv_atomic_write(&o, text, strlen(text));
    nv_atomic_write(&o, "\n", 1);
    if (nv_atomic_commit(&o, 0644, (gid_t)-1, err, sizeof err)) {
        fprintf(stderr, "netvar: %s: %s\n", prog, err);
        return -1;
    }
    return 0;
}
