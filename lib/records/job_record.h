/* job_record.h - the job record (schema netvar-job-record), writer and
 * readers.  `netvar collect` merges the per-node records of one job
 * (<spool>/jobs/<jobid>/node-*.json, node_record.h) into one job record:
 * runtime, nodes, blades and switches, app key, the Table III counter
 * metrics over blades (lib/variability/counter_metrics.h), and the
 * utilization rho = lambda/mu per port when a calibrated service rate is
 * known, and the bottleneck U: the job's own traffic through its leaf
 * uplinks over their capacity (job_bottleneck.h).  Every number says where it came from.  Written by the CLI and by
 * the last node's epilog; read by training (lib/train), the Variability
 * Estimate ("Variability Estimate" paper, §III-D) and the reports. */
#ifndef NETVAR_JOB_RECORD_H
#define NETVAR_JOB_RECORD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>

#include "counter_metrics.h"
#include "counters.h"
#include "counters_topology.h"
#include "node_record.h"
#include "ve_features.h"

#define NV_JOB_RECORD_SCHEMA "netvar-job-record"
/* 2: the bottleneck object (job_bottleneck.h); version 1 records are read */
#define NV_JOB_RECORD_VERSION 2
#define NV_JOB_RECORD_MAX_BYTES (8u << 20) /* largest job record read */

/* Where the job's shared port is and what it carries: the topology (blade
 * map and topology.conf: each node's leaf and its nic=, switch_port= and
 * uplink= ports) and one leaf's uplink capacity, from netvar.conf. */
typedef struct nv_job_fabric {
    const nv_topo *topo;
    double uplink_rate_Bps;    /* UplinkRate=, bytes/s; <= 0 not set */
    unsigned uplinks_per_leaf; /* UplinksPerLeaf= (0 counts as 1) */
} nv_job_fabric;

/* Merges job job_id's node records in job_dir.  service_us: calibrated
 * 1/mu in microseconds, or <= 0 when unknown (mu_source says where it came
 * from).  Returns the record (its job_id is job_id), or NULL with one line
 * in err (job_dir a symbolic link, or unreadable).  A node record is
 * merged only when it belongs to job_dir's owner, names job_id, and its
 * times and byte counts keep plausible.h's bounds; any other is skipped
 * with one line. */
json_object *nv_job_collect(const char *job_dir, long long job_id, double service_us,
                            const char *mu_source, const nv_job_fabric *fabric, nv_ctr_log_fn log,
                            void *log_arg, char *err, size_t errlen);

/* The record's bottleneck U (version 2): *u_up, *u_down, fractions of one
 * leaf's uplink capacity.  1 when the record has them, 0 when it has none
 * (a version 1 record, no UplinkRate, unavailable: both NAN), -1 when
 * "bottleneck" is malformed (err says how; both NAN). */
int nv_job_record_bottleneck_u(json_object *rec, double *u_up, double *u_down, char *err,
                               size_t errlen);

/* Number of node-*.json files in job_dir (-1 if unreadable). */
int nv_job_count_node_records(const char *job_dir);

/* The record's "metrics" object: per counter metric its mean, variance,
 * p75, p95, p99 over blades (absent when no blade had the metric), the
 * blade count, unit and source.  Also used by the synthetic generator. */
json_object *nv_job_record_metrics_json(const struct nv_counter_metrics *cm);

/* ---- reading ---- */

/* 0 when rec is a job record this netvar reads (schema netvar-job-record,
 * version absent, 1 or 2); -1 with one line in err ("not a netvar job
 * record: ..."). */
int nv_job_record_check(json_object *rec, char *err, size_t errlen);

/* Reads and checks a job record file (at most NV_JOB_RECORD_MAX_BYTES);
 * NULL with one line in err (without the path). */
json_object *nv_job_record_read(const char *path, char *err, size_t errlen);

/* The spool's layout for jobs, in one place: <spool>/jobs (job_id < 0),
 * <spool>/jobs/<job_id> (leaf NULL) or <spool>/jobs/<job_id>/<leaf>, into
 * buf[cap].  0, or -1 (buf "") when spool is NULL or the path does not fit. */
int nv_spool_jobs_path(const char *spool, long long job_id, const char *leaf, char *buf,
                       size_t cap);

/* true for a job directory's name under <spool>/jobs: a job id in decimal
 * (1-10 digits, no leading zero); job records are taken from
 * <spool>/jobs/<id>/job.json only. */
bool nv_job_dir_name_ok(const char *name);

/* The same, and the file must belong to owner: a spool's records belong to
 * the owner of <spool>/jobs (root); NV_ANY_OWNER (safe_open.h) for a file
 * the admin named. */
json_object *nv_job_record_read_owned(const char *path, uid_t owner, char *err, size_t errlen);

/* The job as the Variability Estimate sees it (ve_features.h): the 25
 * metric statistics (NAN where the record lacks one), node count, runtime
 * and app.  Returns 0, or -1 with one line in err naming what is missing
 * (no metrics object: the record was collected without counters). */
int nv_ve_job_from_record(json_object *rec, nv_ve_job *out, char *err, size_t errlen);

#endif
