/* ve_features.h - the Variability Estimate's inputs (*Variability Estimate* §III-D, §IV-A):
 * the 25 statistics of Table III (5 counter metrics x mean, variance, p75,
 * p95, p99 over blades), the 7 features the seed ranks out of them, and the
 * training target (runtime z-score per app and node count).
 *
 * The seed's ranked list has seven entries and the node count is the
 * seventh, so the feature vector is 6 counter statistics + nodes = 7:
 *   0 net_to_proc_traffic.mean   ratio of network to processor traffic
 *   1 proc_traffic_per_s.mean    processor-side traffic per second
 *   2 net_stall_to_traffic.p75   75th percentile of the stall-to-traffic ratio
 *   3 net_stalls.p95             95th percentile of network stalls
 *   4 net_traffic.mean           mean network traffic
 *   5 net_stalls.mean            mean network stalls
 *   6 nodes                      node count of the job
 * The metrics themselves come from counter_metrics.h (one code path). */
#ifndef NETVAR_VE_FEATURES_H
#define NETVAR_VE_FEATURES_H

#include <stddef.h>

#include "counter_metrics.h"

#define NV_VE_NSTATS (NV_CM_COUNT * 5)
#define NV_VE_NFEAT 7
#define NV_VE_APP_MAX 96

enum nv_ve_stat { NV_VE_MEAN = 0, NV_VE_VARIANCE, NV_VE_P75, NV_VE_P95, NV_VE_P99 };

/* "net_to_proc_traffic.mean" ... "nodes" */
const char *nv_ve_feature_name(size_t f);
/* "mean", "variance", "p75", "p95", "p99" */
const char *nv_ve_stat_name(enum nv_ve_stat s);

/* One job as the VE sees it (read from a job record by
 * nv_ve_job_from_record, lib/records/job_record.h). */
typedef struct nv_ve_job {
    double stats[NV_VE_NSTATS]; /* [metric * 5 + stat]; NAN where the record lacks it */
    double nodes;               /* node count (>= 1) */
    double runtime_s;           /* NAN when unknown */
    char app[NV_VE_APP_MAX];    /* "" when the record names none */
} nv_ve_job;

/* The 25 statistics from computed metrics (eval generator, tests). */
void nv_ve_stats_from_metrics(const struct nv_counter_metrics *cm, double stats[NV_VE_NSTATS]);

/* The 7 selected features of a job.  Returns 0, or -1 with one line in err
 * naming the first statistic the job lacks (nothing is guessed). */
int nv_ve_select_features(const nv_ve_job *job, double feat[NV_VE_NFEAT], char *err, size_t errlen);

/* Runtime z-score per (app, nodes) group: z[i] = (t - mean) / sd of the
 * group.  Jobs in groups of fewer than min_group runs, with a zero spread,
 * or with no runtime get z[i] = NAN (left out of training).  Returns the
 * number of jobs with a finite z. */
size_t nv_ve_runtime_zscores(const nv_ve_job *jobs, size_t n, size_t min_group, double *z);

#endif
