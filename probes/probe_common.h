/* probe_common.h - what ImpactB and CompressionB share: node placement
 * (shared-memory domains or a test override), polite waiting, the collective
 * stop decision, signal handling, option parsing and atomic JSON output.
 * What the probes write is defined by lib/records/probe_output.h. */
#ifndef NETVAR_PROBE_COMMON_H
#define NETVAR_PROBE_COMMON_H

#include <json-c/json.h>
#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "probe_output.h"

/* Set by SIGTERM/SIGINT/SIGUSR1; the loops stop after the current exchange. */
extern volatile sig_atomic_t nv_probe_signalled;

typedef struct nv_probe_place {
    int rank, size;
    int node, local; /* this rank's node id and index on the node */
    int nnodes;
    int *rank_node;    /* [size] */
    int *rank_local;   /* [size] */
    int *node_ntasks;  /* [nnodes] */
    char **node_names; /* [nnodes] */
    bool overridden;   /* NETVAR_PROBE_FAKE_NODES split the ranks */
    const char *source;
} nv_probe_place;

typedef struct nv_probe_wait_stats {
    uint64_t polls;  /* MPI_Test calls */
    uint64_t sleeps; /* nanosleeps between them */
} nv_probe_wait_stats;

/* Installs the SIGTERM/SIGINT/SIGUSR1 handlers and a 1 us timer slack (so the
 * short sleeps of the polite wait are short). */
void nv_probe_setup_process(void);

/* Discovers the placement; on a bad NETVAR_PROBE_FAKE_NODES returns -1
 * with the reason in err (same on every rank). */
int nv_probe_place_discover(nv_probe_place *p, char *err, size_t errlen);
void nv_probe_place_free(nv_probe_place *p);

/* The rank with index `local` on `node`, or -1 when there is none. */
int nv_probe_rank_at(const nv_probe_place *p, int node, int local);

/* The placement as the probes' output schema holds it (lib/records/
 * probe_output.h); out borrows p's arrays, so p must outlive it. */
void nv_probe_place_output(const nv_probe_place *p, nv_probe_placement *out);

/* Completes the requests.  busy: MPI_Waitall (Open MPI polls).  Otherwise
 * MPI_Testall, spinning for at most spin_ns, then with nanosleeps that back
 * off from 1 us to 50 us (1 ms after 10 ms of waiting), so a waiting rank
 * leaves its core to others.  *first_done (may be NULL) tells whether the
 * requests were already complete at the first test. */
#define NV_PROBE_SPIN_NS 30000ull
int nv_probe_wait_spin(int n, MPI_Request *reqs, bool busy, uint64_t spin_ns, bool *first_done,
                       nv_probe_wait_stats *st);
int nv_probe_wait(int n, MPI_Request *reqs, bool busy, nv_probe_wait_stats *st);

/* Sleeps us microseconds, returning early when a signal arrived. */
void nv_probe_sleep_us(uint64_t us);

/* Collective: true on every rank when any rank wants to stop. */
typedef struct nv_probe_vote {
    MPI_Request req;
    int local, global;
    bool in_flight;
} nv_probe_vote;
void nv_probe_vote_start(nv_probe_vote *v, bool want_stop);
bool nv_probe_vote_finish(nv_probe_vote *v, bool busy);

uint64_t nv_probe_now_ns(void);

/* Option values: 0, or -1 with a message in err naming the option. */
int nv_probe_parse_double(const char *opt, const char *s, double lo, double hi, double *out,
                          char *err, size_t errlen);
int nv_probe_parse_long(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                        size_t errlen);

/* Writes the JSON to path atomically (temp file in the same directory,
 * then rename), or to stdout when path is NULL or "-".  0 or -1 (printed). */
int nv_probe_write_json(json_object *obj, const char *path, const char *prog);

#endif
