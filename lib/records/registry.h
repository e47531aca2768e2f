/* registry.h - the running-jobs registry (schema netvar-running): one file
 * per running job, <spool>/running/<jobid>.json, written by spank_netvar's
 * prolog on the job's first node and removed by its epilog
 * (nv_registry_write, nv_registry_remove), and read incrementally by
 * job_submit and the CLI: a refresh costs one stat() when nothing changed,
 * and re-reads only files that appeared since the last refresh.  A reader
 * is owned by one thread (job_submit's refresher, or the CLI).
 *
 * nv_running_index is the immutable view that job_submit() reads: the
 * running jobs joined with the model, and the distinct running apps ranked
 * by utilization, each with the nodes its jobs hold. */
#ifndef NETVAR_REGISTRY_H
#define NETVAR_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "leaf_set.h"
#include "model.h"

#define NV_RUNNING_SCHEMA "netvar-running"
#define NV_RUNNING_VERSION 1

/* ---- writing (spank_netvar) ---- */

/* One running job as the prolog registers it. */
struct nv_running_entry {
    uint32_t job_id;
    uint32_t uid;
    const char *app;  /* NULL or "": none (null) */
    const char *mode; /* the job's mode name (job_options.h) */
    double start_unix_s;
    double end_unix_s;        /* when the time limit ends it; 0: unknown or none */
    const char *const *nodes; /* the allocation's nodes, in order */
    size_t nnodes;
    /* leaf switch and group of each node, nnodes entries each (or NULL):
     * NULL and "" entries are unknown, a name is written once */
    const char *const *node_switch;
    const char *const *node_group;
};

/* "<spool>/running" into dir[cap]; -1 when it does not fit. */
int nv_registry_dir(const char *spool, char *dir, size_t cap);

/* Writes <spool>/running/<job_id>.json atomically, mode 0640 with the
 * group of <spool>/running (so only root and that group, slurmctld's user,
 * read who runs what where: Slurm's PrivateData=jobs hides it too),
 * creating <spool> (0755) and <spool>/running (0750) when they are
 * missing.  Returns 0, or -1 with one line in err. */
int nv_registry_write(const char *spool, const struct nv_running_entry *e, char *err,
                      size_t errlen);

/* Removes the job's entry; 0 when it is gone (or was never there). */
int nv_registry_remove(const char *spool, uint32_t job_id);

/* ---- reading (job_submit, the CLI) ---- */

#define NV_REG_MAX_JOBS 100000
#define NV_REG_FILE_MAX_BYTES (1 << 20) /* one entry file */
#define NV_REG_NODES_MAX 8192           /* bytes of node list kept per app */

struct nv_running_job {
    uint32_t jobid;
    char app[65];   /* "" when the job has no app key */
    char *nodes;    /* comma-separated node names (heap) */
    char *switches; /* comma-separated leaf switches (heap) */
    double start_unix_s;
    double end_unix_s; /* 0: unknown */
    bool expired;      /* past its end, or no longer run by slurmctld: not in the index */
    bool refused;      /* its file was refused (logged once): kept only so that it is not
                          * parsed again; no app, no nodes, never a running job to report */
    ino_t ino;         /* the file read, to notice a new job with the same id */
    struct timespec mtime;
};

struct nv_registry {
    char dir[4096];
    struct timespec dir_mtime;
    bool seen;      /* dir_mtime is old enough to trust */
    bool seen_once; /* the directory was read at least once */
    size_t n, cap;
    struct nv_running_job *jobs; /* sorted by jobid */
    uint64_t files_parsed, bad_files;
};

typedef void (*nv_registry_log_fn)(void *ctx, const char *line);

void nv_registry_init(struct nv_registry *r, const char *running_dir);
void nv_registry_free(struct nv_registry *r);

/* Brings r up to date. Returns 1 when the job set changed, 0 when not, -1
 * when the directory cannot be read (r keeps what it had). Corrupt files
 * are skipped with one log line each, once. */
int nv_registry_refresh(struct nv_registry *r, nv_registry_log_fn log, void *ctx);

/* Everything expires: an entry is normally removed by the epilog on the
 * job's first node, and when that node dies it is not.  This marks entries
 * expired (left out of the index, logged once each):
 *   - whose end time plus grace_s is before now;
 *   - when live is not NULL: whose job started before live_at_unix_s and
 *     is not among live[0..nlive) (sorted job ids slurmctld runs now).
 * An expired entry whose file is rewritten (a new job with that id) is
 * read again at the next refresh.  Returns how many were newly expired. */
size_t nv_registry_expire(struct nv_registry *r, double now_unix_s, double grace_s,
                          const uint32_t *live, size_t nlive, double live_at_unix_s,
                          nv_registry_log_fn log, void *ctx);

struct nv_running_app {
    int32_t app;     /* model index */
    const char *key; /* model-owned */
    double utilization;
    uint32_t njobs;
    uint32_t first_jobid; /* lowest job id running this app */
    char *nodes;          /* union of the nodes of its jobs that may cross an
                               uplink (not under one known leaf switch),
                               comma-separated, at most NV_REG_NODES_MAX bytes
                               (kept apps only): what avoid excludes */
    size_t nodes_len;     /* strlen(nodes) */
    bool nodes_cut;
    /* the most leaf switches one of its jobs spans (its registry entry's
     * "switches"; 0: none known), and that job: a job under several leaves
     * loads their uplinks, which excluding its nodes does not keep a
     * newcomer off (the submission decision says so) */
    uint32_t span_switches;
    uint32_t span_jobid;
    /* its jobs whose entry names exactly one leaf switch, and whether that
     * is all of them: such an app sends nothing across an uplink, so it
     * shares no bottleneck port with any newcomer (predict.h,
     * NV_PATH_SOURCE_LOCAL).  False when a job's switches are unknown. */
    uint32_t jobs_local;
    bool local;
    /* the leaf switches of its jobs under several (every bit when a job's
     * switches are unknown; none when the app is local): a newcomer whose
     * own leaves, known from its node list, miss them all shares no uplink
     * with it (NV_PATH_SOURCE_APART) */
    nv_leaf_set leaves;
};

/* What a submitting app is predicted to suffer from and inflict on each
 * kept app, remembered for the life of the index (the model and the
 * running apps it was built from do not change under it): inside
 * slurmctld the 2 x napps predictions of a submission miss the caches
 * (about 25 us for 32 apps on a 5 000-app model), a remembered row is 64
 * numbers.  Filled by nv_submit_decide from any number of threads at once
 * without a lock: a row is claimed (state 0 -> 1) by one thread, which
 * fills it and publishes it (state 2, release); the others compute for
 * themselves meanwhile.  Rows go to the first NV_MEMO_ROWS apps that
 * submit; later ones are computed every time.  Never allocated after
 * the index is built. */
#define NV_MEMO_ROWS 256
/* The newcomer beside the sum of the apps it shares with when its
 * placement is unknown depends on the newcomer's app alone (and the
 * predictor settings), so it is remembered for every model app, not only
 * for those with a row: three numbers and a source each, claimed and
 * published like a row (submit_decision.c). */
struct nv_memo_sum {
    double pct;      /* slowdown beside the sum, NAN: no answer */
    uint32_t n, cut; /* jobs summed, jobs left out */
    uint64_t key;    /* the predictor settings it was filled with */
    uint8_t state;   /* 0 free, 1 being filled, 2 ready */
    char src[32];    /* the answer's source */
};
struct nv_neighbour_memo {
    size_t napps_model;      /* row_of and sum cover model apps 0 .. napps_model-1 */
    size_t cols;             /* 2 x napps: own slowdown, then inflicted, per kept app */
    int32_t *row_of;         /* per model app: its row, -1 none yet */
    uint32_t used;           /* rows handed out */
    uint8_t *state;          /* per row: 0 free, 1 being filled, 2 ready */
    uint64_t *key;           /* per row: the predictor settings it was filled with */
    double *pct;             /* NV_MEMO_ROWS x cols, NAN = no prediction */
    struct nv_memo_sum *sum; /* per model app */
};

/* A memo for napps kept apps over a model of napps_model apps (the
 * index builder makes one); NULL when either is 0 or out of memory. */
struct nv_neighbour_memo *nv_neighbour_memo_new(size_t napps_model, size_t napps);
void nv_neighbour_memo_free(struct nv_neighbour_memo *mm);

struct nv_running_index {
    size_t njobs;        /* running jobs seen (expired entries not counted) */
    size_t unknown_jobs; /* jobs whose app the model does not know (or none) */
    size_t napps_total;  /* distinct known apps running */
    size_t napps;        /* kept: the max_apps with the highest utilization */
    struct nv_running_app *apps;
    struct nv_neighbour_memo *memo; /* NULL: none (out of memory, or no app kept) */
};

/* Builds the index for model m (may be NULL: everything unknown), keeping
 * the max_apps most utilizing apps, those that cross an uplink first (a
 * local app loads no bottleneck port, whatever its utilization). NULL on allocation failure. */
struct nv_running_index *nv_running_index_build(const struct nv_registry *r, const nv_model *m,
                                                size_t max_apps);
void nv_running_index_free(struct nv_running_index *ix);

#endif
