/* submit_stats.h - what job_submit/netvar decided and how long it took,
 * counted inside slurmctld and written to a small file that `netvar export`
 * reads (schema netvar-jobsubmit-stats): submissions by action, and the
 * plugin's own time per job_submit() call in the buckets of a Prometheus
 * histogram.
 *
 * Counting is lock-free (relaxed atomic adds) from any number of
 * job_submit() threads; the file is formatted from a snapshot and written
 * by the plugin's refresher thread, never from job_submit() itself.  The
 * counts cover the life of the slurmctld process (started_unix_s), as a
 * Prometheus counter does: a restart starts them again from 0. */
#ifndef NETVAR_SUBMIT_STATS_H
#define NETVAR_SUBMIT_STATS_H

#include <stddef.h>
#include <stdint.h>

#define NV_SUBMIT_STATS_SCHEMA "netvar-jobsubmit-stats"
#define NV_SUBMIT_STATS_VERSION 1
/* under the model file's directory: a directory of its own, which SlurmUser
 * may write without being able to touch the model beside it */
#define NV_SUBMIT_STATS_FILE "jobsubmit/stats.json"
#define NV_SUBMIT_STATS_MAX_BYTES 8192
#define NV_SUBMIT_STATS_ACTIONS 8  /* the bits of enum nv_action (policy.h) */
#define NV_SUBMIT_STATS_BUCKETS 12 /* finite upper bounds; one more bucket above them */

/* the buckets' upper bounds, seconds, ascending */
extern const double nv_submit_stats_le_s[NV_SUBMIT_STATS_BUCKETS];

typedef struct nv_submit_stats {
    uint64_t submissions;                         /* decisions counted */
    uint64_t no_action;                           /* ... with no action at all */
    uint64_t action[NV_SUBMIT_STATS_ACTIONS];     /* ... with bit k of enum nv_action */
    uint64_t calls;                               /* job_submit() calls timed */
    uint64_t bucket[NV_SUBMIT_STATS_BUCKETS + 1]; /* per bucket, not cumulative */
    uint64_t total_ns;
    double started_unix_s, written_unix_s; /* set by the writer */
} nv_submit_stats;

/* Thread-safe counting. */
void nv_submit_stats_note_decision(nv_submit_stats *s, unsigned actions);
void nv_submit_stats_note_call(nv_submit_stats *s, uint64_t ns);

/* A copy of s read with atomic loads (racing counts may or may not be in it). */
void nv_submit_stats_snapshot(const nv_submit_stats *s, nv_submit_stats *out);

/* s as one JSON document into buf[cap] ('\0'-terminated).  Returns its
 * length, or -1 when it does not fit. */
int nv_submit_stats_format(const nv_submit_stats *s, char *buf, size_t cap);

/* Reads a file nv_submit_stats_format wrote: a regular file (no link), at
 * most NV_SUBMIT_STATS_MAX_BYTES, of the schema, every count present and
 * the buckets adding up to the calls.  0, or -1 with one line in err. */
int nv_submit_stats_read(const char *path, nv_submit_stats *out, char *err, size_t errlen);

/* The same from a buffer (name is the file's, for err). */
int nv_submit_stats_parse(const char *name, const char *text, size_t len, nv_submit_stats *out,
                          char *err, size_t errlen);

#endif
