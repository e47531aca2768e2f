/* ve_records.h - the Variability Estimate over job records: find and read
 * job.json files, train from them, estimate one record, and say the result
 * in words or JSON.  The CLI verbs (variability; later train and report)
 * are thin calls into this. */
#ifndef NETVAR_VE_RECORDS_H
#define NETVAR_VE_RECORDS_H

#include <json-c/json.h>
#include <stddef.h>

#include "ve_train.h"

#define NV_VE_MAX_RECORDS 200000

typedef void (*nv_ve_log_fn)(void *arg, const char *line);

/* Reads one JSON file of at most a job record's size (8 MiB), or NULL with
 * err; the schema is not checked (nv_job_record_read in job_record.h does). */
json_object *nv_ve_read_record(const char *path, char *err, size_t errlen);

/* Reads the job records of each dir into *jobs (caller frees).  A dir is a
 * spool (DIR/jobs) or its jobs directory; only DIR/jobs/<id>/job.json is
 * read, for every job id, and only when it is a regular file owned by the
 * owner of the jobs directory (root): files the job's user wrote under
 * profiles/ never become training records.  Unreadable records and
 * records without counters are skipped with one log line each (the first
 * 20, then a count).  Returns the number read, or -1 with err. */
long nv_ve_load_dirs(const char *const *dirs, size_t ndirs, nv_ve_job **jobs, nv_ve_log_fn log,
                     void *log_arg, char *err, size_t errlen);

/* z-scores per (app, nodes) group (groups of >= min_group jobs), features,
 * then nv_ve_train.  *used (may be NULL) gets the jobs trained on. */
nv_ve *nv_ve_train_jobs(const nv_ve_job *jobs, size_t n, size_t min_group,
                        const nv_ve_train_opts *o, size_t *used, char *err, size_t errlen);

/* Estimate for one job record.  Returns 0 (out filled; out->answered may
 * be 0: the VE abstained), or -1 with one line in err when the record
 * cannot be read as VE input (no counters, missing statistic). */
int nv_ve_estimate_record(const nv_ve *ve, json_object *rec, nv_ve_result *out, char *err,
                          size_t errlen);

/* "+1.3 σ (± 0.6): ran in heavy congestion" or
 * "no estimate: outside training data (SVR +2.1 σ not in forest 5-95 % interval [-0.3, 1.2] σ)". */
void nv_ve_format(const nv_ve *ve, const nv_ve_result *r, char *buf, size_t len);
json_object *nv_ve_result_json(const nv_ve *ve, const nv_ve_result *r);

#endif
