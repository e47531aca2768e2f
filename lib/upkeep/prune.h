/* prune.h - spool upkeep: removes the records of jobs that ended long ago
 * (`netvar prune --older-than DAYS`).
 *
 * Only SPOOL/jobs/<digits>/ directories are candidates, and only when they
 * are real directories (never a symbolic link) owned by root, not listed
 * in SPOOL/running/ (the job still runs), and older than the cut-off.  A
 * job directory's age is its own modification time: the epilog's record
 * writes (rename into it) are the last changes to it, and only root may
 * write there (the job's user owns only profiles/ inside it).
 *
 * A candidate is first renamed to SPOOL/.pruning/<jobid> (one atomic step
 * on the same file system), so `netvar train`, reports and the epilog see
 * either the whole job or none of it, then removed there without following
 * any link (openat/unlinkat, O_NOFOLLOW, bounded depth).  job_submit reads
 * only SPOOL/running and is never touched.  A prune that was interrupted
 * finishes the leftovers in .pruning on its next run. */
#ifndef NETVAR_PRUNE_H
#define NETVAR_PRUNE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "nv_err.h"

typedef struct nv_prune_opts {
    double older_than_s; /* records whose directory is older than this, seconds */
    time_t now;          /* the reference time (0: time(NULL)) */
    int dry_run;         /* count only */
    nv_log_fn log;       /* one line per skipped entry or failure; may be NULL */
    void *log_arg;
} nv_prune_opts;

typedef struct nv_prune_stats {
    uint64_t examined;     /* entries of SPOOL/jobs */
    uint64_t removed;      /* job directories removed (or that would be, dry run) */
    uint64_t kept_recent;  /* younger than the cut-off */
    uint64_t kept_running; /* listed in SPOOL/running */
    uint64_t skipped;      /* not a job directory: name, type, link or owner */
    uint64_t failed;       /* could not be moved or removed entirely */
    uint64_t files;        /* files removed */
    uint64_t bytes;        /* bytes of the files removed (st_size) */
} nv_prune_stats;

/* Prunes spool.  Returns 0 (st filled; individual failures are counted and
 * logged), or -1 with one line in err when SPOOL/jobs cannot be read. */
int nv_prune_spool(const char *spool, const nv_prune_opts *o, nv_prune_stats *st, char *err,
                   size_t errlen);

#endif
