/* ve_features.c - Table III statistics -> the VE's 7 features and the
 * runtime z-score target (see ve_features.h). */
#include "ve_features.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stat_names[5] = {"mean", "variance", "p75", "p95", "p99"};

/* metric and statistic of each selected counter feature, in the seed's rank order */
static const struct {
    enum nv_counter_metric metric;
    enum nv_ve_stat stat;
    const char *name;
} selected[NV_VE_NFEAT - 1] = {
    {NV_CM_NET_TO_PROC_RATIO, NV_VE_MEAN, "net_to_proc_traffic.mean"},
    {NV_CM_PROC_TRAFFIC_PER_S, NV_VE_MEAN, "proc_traffic_per_s.mean"},
    {NV_CM_NET_STALL_RATIO, NV_VE_P75, "net_stall_to_traffic.p75"},
    {NV_CM_NET_STALLS, NV_VE_P95, "net_stalls.p95"},
    {NV_CM_NET_TRAFFIC, NV_VE_MEAN, "net_traffic.mean"},
    {NV_CM_NET_STALLS, NV_VE_MEAN, "net_stalls.mean"},
};

const char *nv_ve_feature_name(size_t f)
{
    if (f < NV_VE_NFEAT - 1)
        return selected[f].name;
    return f == NV_VE_NFEAT - 1 ? "nodes" : "unknown";
}

const char *nv_ve_stat_name(enum nv_ve_stat s)
{
    return (unsigned)s < 5 ? stat_names[s] : "unknown";
}

void nv_ve_stats_from_metrics(const struct nv_counter_metrics *cm, double stats[NV_VE_NSTATS])
{
    for (int m = 0; m < NV_CM_COUNT; m++) {
        const struct nv_stat5 *s = &cm->stat[m];
        double v[5] = {s->mean, s->variance, s->p75, s->p95, s->p99};
        for (int k = 0; k < 5; k++)
            stats[m * 5 + k] = s->n ? v[k] : NAN;
    }
}

int nv_ve_select_features(const nv_ve_job *job, double feat[NV_VE_NFEAT], char *err, size_t errlen)
{
    for (size_t f = 0; f < NV_VE_NFEAT - 1; f++) {
        double x = job->stats[selected[f].metric * 5 + selected[f].stat];
        if (!isfinite(x)) {
            snprintf(err, errlen,
                     "the record lacks %s (its counter source gives no %s); no "
                     "estimate",
                     selected[f].name, nv_counter_metric_name(selected[f].metric));
            return -1;
        }
        feat[f] = x;
    }
    if (!(job->nodes >= 1) || !isfinite(job->nodes)) {
        snprintf(err, errlen, "the record has no node count; no estimate");
        return -1;
    }
    feat[NV_VE_NFEAT - 1] = job->nodes;
    return 0;
}

static int same_group(const nv_ve_job *a, const nv_ve_job *b)
{
    return a->nodes == b->nodes && !strcmp(a->app, b->app);
}

size_t nv_ve_runtime_zscores(const nv_ve_job *jobs, size_t n, size_t min_group, double *z)
{
    /* O(n * groups): records are thousands, groups tens */
    char *done = calloc(n ? n : 1, 1);
    size_t good = 0;
    for (size_t i = 0; i < n; i++)
        z[i] = NAN;
    if (!done)
        return 0;
    if (min_group < 2)
        min_group = 2;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        double sum = 0, ss = 0;
        size_t cnt = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && same_group(&jobs[i], &jobs[j]) && isfinite(jobs[j].runtime_s)) {
                sum += jobs[j].runtime_s;
                cnt++;
            }
        double mean = cnt ? sum / (double)cnt : 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && same_group(&jobs[i], &jobs[j]) && isfinite(jobs[j].runtime_s))
                ss += (jobs[j].runtime_s - mean) * (jobs[j].runtime_s - mean);
        double sd = cnt ? sqrt(ss / (double)cnt) : 0;
        for (size_t j = i; j < n; j++) {
            if (done[j] || !same_group(&jobs[i], &jobs[j]))
                continue;
            done[j] = 1;
            if (cnt >= min_group && sd > 1e-12 * fabs(mean) && isfinite(jobs[j].runtime_s)) {
                z[j] = (jobs[j].runtime_s - mean) / sd;
                good++;
            }
        }
    }
    free(done);
    return good;
}
