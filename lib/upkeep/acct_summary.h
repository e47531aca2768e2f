/* acct_summary.h - the compact, versioned summary of a finished job that
 * netvar puts into Slurm accounting (AdminComment by default), and how it
 * joins what other tools wrote there.
 *
 *   netvar:{"v":1,"app":"alltoall","runtime_s":41.2,"baseline_s":38.9,
 *           "slowdown_pct":5.9,"predicted_pct":5.3,"src":"table"}
 *
 *   v              version of this summary (NV_ACCT_SUMMARY_VERSION)
 *   app            the app key the job ran as ("" when it had none)
 *   runtime_s      the job record's runtime, seconds
 *   baseline_s     the app's runtime alone at this node count (history,
 *                  else the model's scaling); null when unknown
 *   slowdown_pct   measured: runtime against baseline, percent; null unknown
 *   predicted_pct  what job_submit predicted at submission (own slowdown),
 *                  percent; null when it made no prediction
 *   src            the source that answered at submission ("table",
 *                  "model:queue", ...; "" when none)
 *
 * At most NV_ACCT_SUMMARY_MAX bytes; numbers rounded to 0.1.  The text
 * holds no newline.  Pure C, allocation-free. */
#ifndef NETVAR_ACCT_SUMMARY_H
#define NETVAR_ACCT_SUMMARY_H

#include <stddef.h>

#include "job_report.h"

#define NV_ACCT_SUMMARY_VERSION 1
#define NV_ACCT_SUMMARY_MAX 384
#define NV_ACCT_KEY "netvar:"

/* Writes the summary of r into buf.  Returns its length, or -1 when it does
 * not fit (buf then holds ""). */
int nv_acct_summary_format(char *buf, size_t cap, const nv_job_report *r);

/* Joins a summary to the text already in the field: every earlier netvar
 * entry ("netvar:" followed by one balanced JSON object) is taken out, the
 * rest is kept byte for byte (only the spaces around a removed entry
 * close up), and the summary is appended after one space.  existing may be
 * NULL.  Returns the length written to out, or -1 when it does not fit
 * (out then holds ""); nothing of the other text is ever cut. */
int nv_acct_merge(const char *existing, const char *summary, char *out, size_t cap);

/* The length of the balanced JSON object starting at s ('{'), string
 * escapes honoured, at most max bytes looked at; 0 when it does not close. */
size_t nv_acct_json_span(const char *s, size_t max);

#endif
