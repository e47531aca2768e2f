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
    const char *app;             /* "" when the job has no app key */
    const char *model_app;       /* app when the model knows it, else NULL */
    const char *nodes;           /* comma-separated; "" when unknown */
    const char *switches;        /* comma-separated leaf switches; "" when unknown */
    double running_s;            /* now - start; NAN without a plausible start */
} nv_cluster_report_job;

typedef struct nv_cluster_report {
    struct nv_registry registry; /* owns the strings the jobs point to */
    nv_cluster_report_job *jobs; /* sorted by job id */
    size_t n_jobs;
    size_t refused;              /* registry files refused (logged): not in jobs[] */
    size_t known;                /* jobs whose app the model knows */
    int have_model;
    nv_predictor predictor;
    size_t pairs_predicted;      /* ordered pairs sharing a switch, both known */
    size_t n_worst;              /* at most NV_CLUSTER_REPORT_WORST */
    nv_report_pair worst[NV_CLUSTER_REPORT_WORST]; /* a, b index jobs[]; worst first */
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
