/* job_record.h - `netvar collect`: merges the per-node records of one job
 * (<spool>/jobs/<jobid>/node-*.json) into one job record: runtime, nodes,
 * blades and switches, app key, the Table III counter metrics over blades
 * (lib/variability/counter_metrics.h), and the utilization rho = lambda/mu per port
 * when a calibrated service rate is known.  Every number says where it came
 * from.  Used by the CLI and by the last node's epilog. */
#ifndef NETVAR_JOB_RECORD_H
#define NETVAR_JOB_RECORD_H

#include <json-c/json.h>
#include <stddef.h>

#include "counters.h"

#define NV_JOB_RECORD_SCHEMA "netvar-job-record"
#define NV_NODE_RECORD_SCHEMA "netvar-node-record"
#define NV_RECORD_VERSION 1

/* service_us: calibrated 1/mu in microseconds, or <= 0 when unknown
 * (mu_source says where it came from). Returns the record, or NULL with one
 * line in err. Corrupt node records are skipped and logged one line each. */
json_object *nv_job_collect(const char *job_dir, double service_us, const char *mu_source,
                            nv_ctr_log_fn log, void *log_arg, char *err, size_t errlen);

/* Number of node-*.json files in job_dir (-1 if unreadable). */
int nv_job_count_node_records(const char *job_dir);

#endif
