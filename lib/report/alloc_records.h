/* alloc_records.h - production job records as training rows of the
 * communication-time trees (*Communication time prediction* §3.3; issue
 * "allocation advice that knows the network": "every production job's
 * record, which already has runtime, nodes and profile").
 *
 * A job gives one row when its spool directory holds a job record with an
 * app and a segment profile (SPOOL/jobs/ID/profiles/NAME.json, written by
 * libnetvar_pmpi.so in segments or full mode) that carries a traffic
 * matrix and the placement that ran.  The step that moved the most bytes
 * stands for the job.  The row is:
 *  - features: the recorded matrix per phase (bytes / segments; one
 *    message per nonzero rank pair per phase, as the sweep's halo counts
 *    them: the profile keeps no per-pair message counts) on the placement
 *    that ran (rank -> node -> leaf switch -> group from the topology;
 *    a job on a node the topology lacks gives no row), enumerated by
 *    nv_alloc_features_matrix();
 *  - target: communication seconds per phase = the mean over segments of
 *    (segment wall time - computation outside MPI), both medians over the
 *    ranks as the profile keeps them.  Only a profile whose work is thread
 *    CPU time (work_source "thread_cputime_ns") gives it: with a PAPI counter as
 *    work there is no time to subtract, and the job is skipped, saying so.
 *
 * Everything under a job's profiles/ is the user's: the directory's owner
 * is taken as the job's user and every profile must belong to them (no
 * link, FIFO or device, size bounded); job records must belong to the
 * owner of SPOOL/jobs.  A job that gives no row is counted by reason, and
 * the log callback gets one line naming the file and what is wrong. */
#ifndef NETVAR_ALLOC_RECORDS_H
#define NETVAR_ALLOC_RECORDS_H

#include <json-c/json.h>
#include <stddef.h>

#include "alloc_train.h"
#include "counters_topology.h"

typedef struct nv_alloc_records_stats {
    size_t jobs;       /* job directories with a job record */
    size_t rows;       /* rows added */
    size_t no_app;     /* record without an app */
    size_t no_profile; /* no profile, or none with a traffic matrix and placement */
    size_t unusable;   /* a record or profile that could not be read or used (logged) */
} nv_alloc_records_stats;

typedef void (*nv_alloc_records_log_fn)(void *ctx, const char *line);

/* Adds one row per usable job of spool to d (source "job records" when d
 * has none), newest job id first, up to NV_ALLOC_DATASET_MAX_ROWS rows in
 * d (the older jobs are then not read, and the log says so).  topo places nodes on leaf switches and
 * groups.  When apps is not NULL, *apps gets (malloc'd, *napps long) one
 * app per app key, from its newest job with a row: the pattern per phase
 * from its matrix, its phases (segments), ranks and compute (CPU seconds
 * outside MPI over all ranks: the median rank's times the ranks), so the
 * advice knows every profiled app.  0, or -1 with one line in err when the
 * spool itself cannot be read or memory runs out; a bad job only skips
 * that job. */
int nv_alloc_rows_from_spool(const char *spool, const nv_topo *topo, nv_alloc_dataset *d,
                             nv_alloc_app **apps, size_t *napps, nv_alloc_records_stats *st,
                             nv_alloc_records_log_fn log, void *ctx, char *err, size_t errlen);

/* The row of one profile (already read) for app: features from its
 * "traffic_matrix".bytes and "placement", the target from seg (the same
 * file through nv_seg_profile_load); and, when a is not NULL, the app as
 * above.  0, or -1 with the reason in why. */
struct nv_seg_profile;
int nv_alloc_row_from_profile(json_object *profile, const struct nv_seg_profile *seg,
                              const char *app, const nv_topo *topo, nv_alloc_row *row,
                              nv_alloc_app *a, char *why, size_t whylen);

#endif
