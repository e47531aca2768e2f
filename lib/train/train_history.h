/* train_history.h - `netvar train`: learn a model file from production history
 * (job records written by `netvar collect`) on top of an optional input
 * model holding calibration and campaign results.
 *
 * Three steps, each testable on its own:
 *  1. nv_train_scan_spool() streams <spool>/jobs/<id>/job.json one file at
 *     a time and keeps a small summary per job (nv_train_sum, 104 bytes, and
 *     8 bytes per leaf switch or group hash in the set's shared arena):
 *     app, node count, runtime, start/end, topology, its own counter rho.
 *     A million jobs take about 130 MiB.  opts.max_jobs (default 8 M)
 *     only guards against a runaway spool; beyond it the scan stops with a
 *     clear error.
 *  2. nv_train_analyze() finds neighbours (jobs that overlapped in time
 *     whose paths meet: both span several leaf switches and share one, or
 *     several groups and share one; predict.h, the paths), the background utilization each job saw
 *     (the neighbours' counter rho weighted by overlap; or the record's own
 *     switch-side figure minus its own share when the record carries one),
 *     baselines (median runtime of an app's runs at the same node count whose
 *     background rho is at most opts.low_rho) and each run's slowdown.
 *  3. nv_train_build() turns that into a model builder: per app U_A, the
 *     p_A(U) curve (campaign curve kept, else learned from production and
 *     flagged), scaling points, latency summary; and the co-location table.
 *
 * Reproducible: jobs are sorted by id and apps by key before any sum, and
 * the builder receives apps and pairs in sorted order; nothing time- or
 * order-of-readdir-dependent reaches the output. */
#ifndef NETVAR_TRAIN_HISTORY_H
#define NETVAR_TRAIN_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include <json.h>

#include "model.h"
#include "model_builder.h"

#define NV_TRAIN_MAX_TOPO 16               /* switches (and groups) kept per job */
#define NV_TRAIN_DEFAULT_MAX_JOBS 8000000u /* ~1 GiB of summaries: years of a large site */

typedef struct nv_train_opts {
    double window_s;         /* a pair needs at least this much overlap, s (10) */
    double min_overlap_frac; /* ... and this fraction of A's runtime (0.5; 0 = off) */
    double low_rho;          /* baseline runs: background rho <= this (0.05) */
    uint32_t min_runs;       /* samples for a pair entry or a learned curve (1) */
    size_t max_jobs;         /* hard cap on job summaries held (500000) */
    double u_bucket;         /* width of the background-U buckets of a learned curve (0.05) */
    /* optional: called with the records read so far, every 1024 records
     * and once at the end (a progress line; NULL: none) */
    void (*progress)(void *ctx, size_t records);
    void *progress_ctx;
} nv_train_opts;

void nv_train_opts_default(nv_train_opts *o);

/* One job record as parsed (nv_train_job_from_record), before it joins a
 * set: its topology inline. */
typedef struct nv_train_job {
    int64_t job_id;
    uint32_t app; /* index into nv_train_set.apps */
    uint32_t nodes;
    double start_s, end_s; /* NAN when the record has no times */
    double runtime_s;      /* > 0 */
    double rho;            /* own U: the bottleneck U's busier direction (version 2
                            * records), else rho median over its ports; NAN unknown */
    double switch_rho;     /* total U at its switches: the record's switch_rho, else its
                            * bottleneck's uplink counters; NAN */
    double service_us;     /* the record's calibrated 1/mu, us, NAN when none */
    uint8_t n_switches, n_groups;
    uint8_t profiled;                     /* 1: its directory had profiles/ when read */
    uint8_t shape;                        /* its nodes per leaf, a 1..255 digest, 0 unknown */
    uint64_t topo[2 * NV_TRAIN_MAX_TOPO]; /* switch hashes, then group hashes */
    /* filled by nv_train_analyze */
    double background;     /* rho others put on its switches, NAN unknown */
    uint32_t n_neighbours; /* jobs overlapping >= the pair window */
    int32_t neighbour_app; /* their app when all share one, -1 none, -2 mixed */
    double baseline_s;     /* NAN when its (app, nodes) has no baseline run; of its own
                            * shape when one of that shape ran */
    double slowdown_pct;   /* runtime vs baseline, NAN without one */
} nv_train_job;

/* A job as a set keeps it: the same fields, its topology in the set's
 * arena (topo_off: n_switches switch hashes, then n_groups group hashes,
 * both sorted). */
typedef struct nv_train_sum {
    int64_t job_id;
    uint32_t app;
    uint32_t nodes;
    double start_s, end_s;
    double runtime_s;
    double rho;
    double switch_rho;
    double service_us;
    uint32_t topo_off;
    uint8_t n_switches, n_groups;
    uint8_t profiled; /* nv_train_signatures looks for a profile only then */
    uint8_t shape;    /* as nv_train_job's */
    double background;
    uint32_t n_neighbours;
    int32_t neighbour_app;
    double baseline_s;
    double slowdown_pct;
} nv_train_sum;

typedef struct nv_train_stats {
    size_t records;       /* job.json files seen */
    size_t used;          /* summaries kept */
    size_t corrupt;       /* unreadable, not JSON, wrong schema, bad fields */
    size_t no_app;        /* records without an app key */
    size_t apps_over_cap; /* records of apps beyond NV_MODEL_MAX_APPS (left out) */
    size_t from_state;    /* summaries taken from the state file, not read again */
    size_t out_of_window; /* summaries left out: the job ended before the window */
    /* nv_train_analyze's own (it zeroes them from here on) */
    size_t baseline_runs;    /* runs that qualify as baselines */
    size_t pair_samples;     /* runs with exactly one neighbour app and a baseline */
    size_t mixed_neighbours; /* runs with several neighbour apps (not a pair sample) */
    size_t no_baseline;      /* runs with neighbours but no baseline at their size */
    /* nv_train_signatures' own */
    size_t signatures;        /* apps given a signature from a profile */
    size_t profiles_unusable; /* profiles that could not be read or made no signature */
    size_t profiles_v1;       /* version 1 profiles (no time in MPI by class) */
    char profile_error[256];  /* the first unusable profile's error line, "" none */
} nv_train_stats;

typedef struct nv_train_set {
    nv_train_sum *jobs;
    size_t n, cap;
    uint64_t *topo; /* every job's switch and group hashes */
    size_t n_topo, cap_topo;
    char **apps; /* app keys; sorted by nv_train_analyze */
    size_t n_apps, cap_apps;
    int32_t *app_slots; /* open-addressing hash of apps[] (-1 empty), O(1) interning */
    size_t slot_cap;    /* power of two, 0: none yet */
    size_t hashed;      /* apps[0..hashed) are in the hash */
    nv_train_stats stats;
    int analyzed;
    /* Incremental training (train_state.h).  known: record directories
     * (job ids) summarized by earlier runs, sorted, with known_present[i]
     * set when this scan found directory known[i] still in the spool; a
     * scan reads no known directory again.  read_ids: the directories this
     * scan read (kept, corrupt or without an app). */
    int64_t *known;
    uint8_t *known_present;
    size_t n_known;
    int64_t *read_ids;
    size_t n_read, cap_read;
    /* per app (apps[] index, after nv_train_analyze): its signature when
     * sig_ok[a] (nv_train_signatures); NULL: none computed */
    struct nv_signature *sigs;
    uint8_t *sig_ok;
} nv_train_set;

typedef void (*nv_train_log_fn)(void *ctx, const char *line);

void nv_train_set_init(nv_train_set *s);
void nv_train_set_free(nv_train_set *s);

/* Parse one job record into *job (app key copied into app, capacity
 * NV_MODEL_KEY_MAX + 1).  service_us (> 0, or 0 when unknown) turns a port's
 * lambda into rho when the record has no rho.  Returns 0, 1 when the record
 * has no app key (not an error: the job is not attributed), or -1 with one
 * line in err naming the field and what is wrong. */
int nv_train_job_from_record(json_object *rec, double service_us, nv_train_job *job, char *app,
                             char *err, size_t errlen);

/* Index of app in s->apps (O(1), a hash), or -1 when it is not there. */
long nv_train_set_find_app(const nv_train_set *s, const char *app);

/* (Re)builds the app hash after apps[] was reordered; -1 out of memory
 * (lookups then fall back to a linear search). */
int nv_train_set_index_apps(nv_train_set *s);

/* Add a parsed job (copies its summary and topology, interns app in
 * O(1)).  -1 on the max_jobs
 * cap, on more than NV_MODEL_MAX_APPS apps (model.h: what slurmctld loads),
 * or out of memory (err says which). */
int nv_train_set_add(nv_train_set *s, const nv_train_job *job, const char *app, size_t max_jobs,
                     char *err, size_t errlen);

/* Stream <spool>/jobs/<dir>/job.json into s.  Corrupt records are skipped
 * with one log line each and counted.  Returns 0, or -1 with err set when
 * the spool cannot be read or the cap is hit. */
int nv_train_scan_spool(const char *spool, double service_us, const nv_train_opts *o,
                        nv_train_set *s, nv_train_log_fn log, void *ctx, char *err, size_t errlen);

/* Leave out the jobs that ended more than window_s before the newest end
 * in the set (jobs without times stay); the arena is compacted.  Counts
 * them in stats.out_of_window.  -1 out of memory (the set unchanged). */
int nv_train_set_window(nv_train_set *s, double window_s);

/* Overlap in seconds of jobs a and b of set s when they share a leaf
 * switch or a group, else 0 (also 0 when either has no times). */
double nv_train_overlap_s(const nv_train_set *s, const nv_train_sum *a, const nv_train_sum *b);

/* Neighbours, backgrounds, baselines and slowdowns (see the header). */
int nv_train_analyze(nv_train_set *s, const nv_train_opts *o);

/* Index of the job with this id in an analyzed set, or -1. */
long nv_train_find_job(const nv_train_set *s, int64_t job_id);

/* Neighbours of job i (overlap > 0, paths that meet): up to max
 * indexes into out, sorted by job id; returns how many there are in all. */
size_t nv_train_neighbours(const nv_train_set *s, size_t i, size_t *out, size_t max);

/* One co-location entry from a pair's n >= 1 runs (slowdowns, percent):
 * the median run (the mean of the middle two for an even count; at least
 * -100 %), and the runs' sample standard deviation (0 for one run).  The
 * rule netvar train writes an entry by, and the one `netvar holdout`
 * builds its tables with.  Sorts runs in place. */
void nv_train_pair_entry(double *runs, size_t n, double *pct, double *sd_pct);

/* Apps' signatures (fabric.h) from the job records' segment profiles:
 * per app of an analyzed set, its latest job (by end time, then job id;
 * jobs without times last; only jobs whose directory had profiles/ when
 * their record was read, so a retrain from the state looks at no other)
 * whose first profile (nv_seg_job_profile_load,
 * <spool>/jobs/<id>/profiles, owned by its user) is of version 2: the
 * time in MPI per message class summed over the profile's segments (each
 * segment's comm row, a mean over ranks), the overlap likewise, the
 * job's runtime, runs 1.  Profiles that cannot be read, are version 1 or
 * are inconsistent (time in MPI beyond the runtime) are counted in
 * s->stats (the first one's error kept), never fatal; jobs without a
 * profiles directory are not counted.  Recomputed by every training from
 * the profiles in the spool (the state file keeps none).  Returns 0, or
 * -1 out of memory. */
int nv_train_signatures(nv_train_set *s, const char *spool);

/* One job's signature from its profiles directory pdir (the rule above,
 * per job; `netvar labmodel --profiles` applies it to the lab's profiled
 * alone runs): the first profile nv_seg_job_profile_load picks, its time
 * in MPI per class summed over segments, runtime_s the job's.  Returns 1
 * with *out, 0 when pdir names no profile, -1 with one line in err (the
 * profile cannot be read, is version 1 (*v1 = 1), or shows more time in
 * MPI than runtime_s). */
int nv_train_signature_of(const char *pdir, double runtime_s, struct nv_signature *out, int *v1,
                          char *err, size_t errlen);

/* Build the model: start from `in` (may be NULL), replace the history's
 * apps and pairs.  Returns a builder (caller frees) or NULL with
 * err set.  *pairs_out (if not NULL) receives the pairs written.  Without
 * `in`, the calibration is the median of the records' service_us (a
 * minimal one: method minimum, no variance), or an error when none has it. */
nv_model_builder *nv_train_build(const nv_train_set *s, const nv_model *in, const nv_train_opts *o,
                                 size_t *pairs_out, char *err, size_t errlen);

#endif
