/* sacct_history.h - training history from Slurm accounting (`netvar train
 * --from-sacct`): a site with years of accounting but a fresh spool starts
 * from the jobs sacct knows.
 *
 * Input: the lines of
 *   SLURM_TIME_FORMAT=%s sacct -a -X -n -P --delimiter=NV_SACCT_DELIM \
 *       -o NV_SACCT_FIELDS -S SINCE -E now
 * one job per line: id, name, node count, start and end (Unix seconds),
 * state, node list, Comment, AdminComment, SystemComment (a line without
 * the last, as sacct files saved before it was asked for, is read as
 * empty there).  Each COMPLETED job with an app
 * becomes a job record in the form lib/train reads (runtime, start, end,
 * nodes, and the leaf switches and groups of its nodes from a topology),
 * so it enters training exactly as a spool record does, without counters
 * (no rho).  Jobs the spool already
 * holds are left to the spool's richer record.  Every line is untrusted:
 * bounded, validated, and a bad line is skipped with one log line.
 *
 * The app, in this order: the "app" of netvar's own entry in AdminComment
 * or SystemComment (netvar-acct's summary, which goes to SystemComment
 * where AdminComment holds jobstats' "JS1:" value, or job_submit's
 * annotation with AnnotateField=AdminComment; only admins and SlurmUser
 * can set either); else what the user can edit at any time: the app of the
 * netvar annotation at the very end of the Comment, where job_submit
 * writes it (nv_annotation_strip; a "netvar:{" elsewhere in the Comment
 * is the user's own text and is never read), then the job name when it is
 * a valid app key.  The reader counts the jobs named by the user's text
 * and says so in one line. */
#ifndef NETVAR_SACCT_HISTORY_H
#define NETVAR_SACCT_HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "counters_topology.h"
#include "model.h"
#include "train_history.h"

#define NV_SACCT_FIELDS                                                                            \
    "JobIDRaw,JobName,NNodes,Start,End,State,NodeList,Comment,AdminComment,SystemComment"
#define NV_SACCT_DELIM "\x1f" /* unit separator: in no job name or comment a user can type */
#define NV_SACCT_LINE_MAX 8192

typedef enum nv_sacct_app_from {
    NV_SACCT_APP_NONE,
    NV_SACCT_APP_ADMIN,   /* netvar's entry in AdminComment */
    NV_SACCT_APP_COMMENT, /* the Comment's trailing annotation: the user's claim */
    NV_SACCT_APP_NAME,    /* the job name: the user's */
} nv_sacct_app_from;

typedef struct nv_sacct_job {
    int64_t job_id;
    uint32_t nnodes;
    double start_s, end_s;
    char state[32];
    char nodelist[4096];
    char app[NV_MODEL_KEY_MAX + 1]; /* "" when none could be found */
    nv_sacct_app_from app_from;
} nv_sacct_job;

/* Splits one sacct line in place at NV_SACCT_DELIM (a trailing newline or
 * carriage return taken off first): field i starts at f[i] for i < cap.
 * Returns how many fields the line has, which may exceed cap. */
size_t nv_sacct_split(char *line, char **f, size_t cap);

/* Parses one line.  0 a completed job with an app, 1 a job to leave out
 * (not COMPLETED, no app, a job step, no times), -1 malformed (err says
 * which field). */
int nv_sacct_parse_line(const char *line, nv_sacct_job *j, char *err, size_t errlen);

/* The job as a netvar job record (schema and fields lib/train reads);
 * topo may be NULL (no switches then).  NULL with err on a bad node list. */
json_object *nv_sacct_job_record(const nv_sacct_job *j, const nv_topo *topo, char *err,
                                 size_t errlen);

typedef struct nv_sacct_stats {
    size_t lines, added, in_spool, left_out, malformed;
    size_t app_from_comment, app_from_name; /* of added: named by the user's text */
} nv_sacct_stats;

/* Reads every line of f into s (jobs already in s are skipped).  Returns 0,
 * or -1 with err when the training cap is hit or memory runs out. */
int nv_sacct_read(FILE *f, const nv_topo *topo, const nv_train_opts *o, nv_train_set *s,
                  nv_sacct_stats *st, nv_train_log_fn log, void *ctx, char *err, size_t errlen);

#endif
