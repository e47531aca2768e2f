/* acct_summary.h - the compact, versioned summary of a finished job that
 * netvar puts into Slurm accounting (AdminComment by default), and how it
 * joins what other tools wrote there.
 *
 *   netvar:{"v":2,"app":"alltoall","runtime_s":41.2,"baseline_s":38.9,
 *           "slowdown_pct":5.9,"predicted_pct":5.3,"src":"table",
 *           "claimed_pct":null,"claimed_src":""}
 *
 *   v              version of this summary (NV_ACCT_SUMMARY_VERSION)
 *   app            the app key the job ran as ("" when it had none)
 *   runtime_s      the job record's runtime, seconds
 *   baseline_s     the app's runtime alone at this node count (history,
 *                  else the model's scaling); null when unknown
 *   slowdown_pct   measured: runtime against baseline, percent; null unknown
 *   predicted_pct  what job_submit predicted at submission (own slowdown),
 *                  percent, as netvar itself recorded it: job_submit's
 *                  annotation in the job's AdminComment, which only admins
 *                  and SlurmUser can set (AnnotateField=AdminComment); null
 *                  when netvar recorded no prediction there
 *   src            the source that answered at submission ("table",
 *                  "model:queue", ...; "" when none), from the same place
 *   claimed_pct,   what the job's Comment says job_submit predicted, when
 *   claimed_src    netvar recorded nothing in AdminComment: the user can
 *                  edit their Comment at any time (scontrol update), so
 *                  this is the user's claim, never netvar's word; null and
 *                  "" when there is none (or netvar's own is known)
 *
 * Version 1 had no claimed_* and wrote the Comment's claim as
 * predicted_pct and src.  At most NV_ACCT_SUMMARY_MAX bytes; numbers
 * rounded to 0.1, a percentage beyond +-NV_ACCT_PCT_MAX and any figure
 * beyond 1e15 written as null.  The text holds no newline.  Formatting and
 * merging are pure C and allocation-free; reading entries back uses
 * json-c. */
#ifndef NETVAR_ACCT_SUMMARY_H
#define NETVAR_ACCT_SUMMARY_H

#include <stddef.h>

#include <json-c/json.h>

#include "job_report.h"

#define NV_ACCT_SUMMARY_VERSION 2
#define NV_ACCT_SUMMARY_MAX 384
#define NV_ACCT_KEY "netvar:"
#define NV_ACCT_PCT_MAX 1e6 /* percent: beyond it a figure is no slowdown */

/* netvar's own word on the prediction made at submission, read from the
 * job's AdminComment (nv_acct_own_prediction). */
typedef struct nv_acct_prediction {
    int found;            /* 1: AdminComment holds netvar's word on it */
    double pct;           /* predicted own slowdown, percent; NAN: none made */
    char src[32];         /* its source, "" when none */
    double claimed_pct;   /* an earlier summary's claimed_pct, else NAN */
    char claimed_src[32]; /* an earlier summary's claimed_src, else "" */
} nv_acct_prediction;

/* Reads netvar's own word on the prediction from the text of a job's
 * AdminComment (may be NULL): the last netvar entry there that is either
 * job_submit's annotation (it has "mode"; AnnotateField=AdminComment: pct
 * and src from its own_pct and src, no claim) or an earlier summary of
 * version 2 or later (all four figures as it wrote them, so writing again
 * gives the same summary).  A version 1 summary is not taken: its
 * predicted_pct was the Comment's claim.  Returns out->found. */
int nv_acct_own_prediction(const char *admin_comment, nv_acct_prediction *out);

/* Writes the summary of r into buf.  own (may be NULL) is netvar's own
 * word on the prediction (nv_acct_own_prediction); when it is not found,
 * the prediction r's record carries (the prolog's copy of the Comment's
 * annotation) is written as claimed_pct and claimed_src, and predicted_pct
 * and src stay null and "".  Returns its length, or -1 when it does not
 * fit (buf then holds ""). */
int nv_acct_summary_format(char *buf, size_t cap, const nv_job_report *r,
                           const nv_acct_prediction *own);

/* The last netvar entry of text ("netvar:" and one balanced JSON object,
 * at most max bytes of text looked at) that parses as a JSON object with a
 * number "v" and that accept (NULL: any) takes; NULL when there is none.
 * The caller puts what it gets. */
json_object *nv_acct_last_entry(const char *text, size_t max,
                                int (*accept)(json_object *entry, void *ctx), void *ctx);

/* Joins a summary to the text already in the field: every earlier netvar
 * entry ("netvar:" followed by one balanced JSON object) is taken out, the
 * rest is kept byte for byte (only the spaces around a removed entry
 * close up), and the summary is appended after one space.  existing may be
 * NULL.  Returns the length written to out, or -1 when it does not fit
 * (out then holds ""); nothing of the other text is ever cut. */
int nv_acct_merge(const char *existing, const char *summary, char *out, size_t cap);

/* Princeton jobstats keeps its per-job summary in AdminComment as "JS1:"
 * then base64(gzip(JSON)), and decodes everything after those four
 * characters: text netvar added there would break it.  1 when text holds
 * such a value (it starts with "JS1:"), 0 otherwise or NULL. */
#define NV_ACCT_JOBSTATS_PREFIX "JS1:"
int nv_acct_holds_jobstats(const char *text);

/* The length of the balanced JSON object starting at s ('{'), string
 * escapes honoured, at most max bytes looked at; 0 when it does not close. */
size_t nv_acct_json_span(const char *s, size_t max);

#endif
