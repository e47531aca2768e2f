/* user_report.h - the report an ordinary user can read on their own
 * finished job (`netvar report JOBID --from accounting`, and netvar-mail's
 * addition to Slurm's end-of-job mail), from what Slurm accounting holds:
 * netvar-acct's summary in AdminComment or SystemComment, and job_submit's
 * annotation (AdminComment with AnnotateField=AdminComment, else the
 * Comment's trailing one, which the user can edit: shown as the Comment's
 * word).  No spool, so no root.
 *
 * Input: one line of
 *   sacct -X -n -P --delimiter=NV_SACCT_DELIM -o NV_UREPORT_FIELDS -j JOBID
 * Everything in it is untrusted (the job name is left out; every string
 * shown is bounded and passed through nv_printable). */
#ifndef NETVAR_USER_REPORT_H
#define NETVAR_USER_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define NV_UREPORT_FIELDS                                                                          \
    "JobIDRaw,User,UID,Account,State,ElapsedRaw,NNodes,NodeList,Comment,AdminComment,"             \
    "SystemComment"
#define NV_UREPORT_MAX 4096    /* the report's text, bytes */
#define NV_UREPORT_NOTE_PCT 10 /* percent: a slowdown worth a note */

typedef struct nv_ureport {
    int64_t job_id;
    long uid; /* -1 when sacct gave none */
    char user[64], account[64], state[32], nodelist[160];
    double elapsed_s; /* NAN unknown */
    long nnodes;
    /* netvar-acct's summary */
    int has_summary;
    char app[64], src[32];
    double runtime_s, baseline_s, slowdown_pct, predicted_pct, claimed_pct; /* NAN unknown */
    /* job_submit's annotation at submission */
    int has_annotation, annotation_from_comment;
    char vs_app[64], action[32];
    long vs_job, advice_nodes; /* 0 none */
    double own_pct;            /* NAN none */
} nv_ureport;

/* Parses one sacct line for job `job`.  0 parsed, 1 another job's line
 * (a step, another id), -1 malformed (err says which field). */
int nv_ureport_parse(const char *line, int64_t job, nv_ureport *r, char *err, size_t errlen);

/* The report as text: a header (job, user, account, state, elapsed,
 * nodes), the summary in plain words with units, and a Notes section with
 * one thing the user can do and the figure that says why.  Returns its
 * length; the text is cut (still terminated) when cap is too small. */
size_t nv_ureport_format(const nv_ureport *r, char *buf, size_t cap);

/* The job id of Slurm's mail subject, "Slurm Job_id=N Name=...", or of an
 * array task's "Slurm Array Task Job_id=A_T (N) Name=..."; 0 when the
 * subject is neither (an array summary, another text). */
int64_t nv_ureport_subject_job(const char *subject);

/* Runs sacct (no shell; from PATH, else /usr/bin) for the job and
 * parses its line into r.  0, or -1 with err (sacct failed, no such job,
 * a malformed line). */
int nv_ureport_sacct(int64_t job, nv_ureport *r, char *err, size_t errlen);

#endif
