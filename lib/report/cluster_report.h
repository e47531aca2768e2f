/* cluster_report.h - what `netvar report --cluster` shows: the running jobs
 * of the registry (SPOOL/running, written by spank_netvar), which of their
 * apps the model knows, and the predicted slowdowns among jobs whose paths
 * meet at an uplink (report_logic.h), worst pairs first ("Queue-theory
 * interference model").  Fills a struct; printing it is the caller's. */
#ifndef NETVAR_CLUSTER_REPORT_H
#define NETVAR_CLUSTER_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "predict.h"
#include "registry.h"
#include "report_logic.h"

#define NV_CLUSTER_REPORT_WORST 10

typedef struct nv_cluster_report_job {
    uint32_t job_id;
    const char *app;       /* "" when the job has no app key */
    const char *model_app; /* app when the model knows it, else NULL */
    const char *nodes;     /* comma-separated; "" when unknown */
    const char *switches;  /* comma-separated leaf switches; "" when unknown */
    double running_s;      /* now - start; NAN without a plausible start */
    /* its own slowdown predicted beside the distinct apps of the running
     * jobs whose paths meet its own (nv_report_paths_meet), the model
     * knowing both: 0 with source "no neighbour" when no job's path meets
     * its own, NAN (and source NULL) when the model does not know its app,
     * knows none of the apps beside it, or cannot answer */
    double predicted_pct;
    const char *predicted_source; /* static */
    uint32_t sharing;             /* running jobs whose paths meet its own */
} nv_cluster_report_job;

/* The uplink of one leaf switch, as the registry loads it: every running
 * job that spans several leaf switches, this one among them, sends through
 * it; utilization is the sum of the model's U_A of their apps (fraction of
 * the port; above 1: more than the port carries), jobs_unknown those whose
 * app the model does not know (counted in jobs, not in utilization).  Jobs
 * without a switch list, or under one leaf switch, load no named uplink. */
typedef struct nv_cluster_report_uplink {
    const char *name; /* points into the registry */
    size_t name_len;
    double utilization;
    uint32_t jobs, jobs_unknown;
} nv_cluster_report_uplink;

typedef struct nv_cluster_report {
    struct nv_registry registry; /* owns the strings the jobs point to */
    nv_cluster_report_job *jobs; /* sorted by job id */
    size_t n_jobs;
    size_t refused; /* registry files refused (logged): not in jobs[] */
    size_t known;   /* jobs whose app the model knows */
    int have_model;
    nv_predictor predictor;
    size_t pairs_predicted;                        /* ordered pairs sharing a switch, both known */
    size_t n_worst;                                /* at most NV_CLUSTER_REPORT_WORST */
    nv_report_pair worst[NV_CLUSTER_REPORT_WORST]; /* a, b index jobs[]; worst first */
    nv_cluster_report_uplink *uplinks;             /* sorted by name */
    size_t n_uplinks;
} nv_cluster_report;

typedef void (*nv_cluster_report_log_fn)(void *ctx, const char *line);

/* Report of SPOOL/running at time now_unix_s.  m may be NULL (no
 * predictions).  Corrupt registry files go to log (may be NULL), one line
 * each.  Returns 0 (r filled; free with nv_cluster_report_free), or -1 with
 * err (the registry cannot be read, out of memory). */
int nv_cluster_report_build(const char *spool, const nv_model *m, nv_predictor predictor,
                            double now_unix_s, nv_cluster_report_log_fn log, void *ctx,
                            nv_cluster_report *r, char *err, size_t errlen);
void nv_cluster_report_free(nv_cluster_report *r);

#endif
