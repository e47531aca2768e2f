/* segment_estimate.c - grouping of segments and the 4*MAD excess estimate. */
#include "segment_estimate.h"
#include "segment_bins.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sort_cmp.h"

#define NV_SEG_MAX_SEGMENTS ((size_t)1 << 28)

void nv_seg_estimate_opts_default(nv_seg_estimate_opts *o)
{
    o->rel_threshold = NV_SEG_DEFAULT_THRESHOLD;
    o->min_group = NV_SEG_DEFAULT_MIN_GROUP;
    o->mad_factor = NV_SEG_DEFAULT_MAD_FACTOR;
    o->high_rate_hz = NV_SEG_DEFAULT_HIGH_RATE_HZ;
}

double nv_seg_median_inplace(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, nv_cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double nv_seg_mad(const double *v, size_t n, double median, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(v[i] - median);
    return nv_seg_median_inplace(scratch, n);
}

double nv_seg_p_high(double x)
{
    if (!isfinite(x))
        x = 0;
    return 1.0 / (1.0 + exp(-NV_SEG_LOGISTIC_K * (x - NV_SEG_LOGISTIC_X0)));
}

nv_seg_class nv_seg_classify(double x)
{
    if (!(x >= NV_SEG_LOW_BELOW_PCT))
        return NV_SEG_LOW;
    return x > NV_SEG_HIGH_ABOVE_PCT ? NV_SEG_HIGH : NV_SEG_MEDIUM;
}

const char *nv_seg_class_name(nv_seg_class c)
{
    return c == NV_SEG_HIGH ? "high" : c == NV_SEG_MEDIUM ? "medium" : "low";
}

/* Sorted permutation of indices without a global: a merge sort keyed by
 * values (keeps the library reentrant). */
static void sort_indices(size_t *idx, size_t *tmp, size_t n, const double *values)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_indices(idx, tmp, h, values);
    sort_indices(idx + h, tmp, n - h, values);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = (values[idx[j]] < values[idx[i]]) ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

long nv_seg_cluster_relative(const double *values, size_t n, double threshold, uint32_t *cluster_of)
{
    if (n == 0)
        return 0;
    if (!values || !cluster_of || n > NV_SEG_MAX_SEGMENTS || !(threshold > 0))
        return -1;
    size_t *idx = malloc(n * sizeof *idx), *tmp = malloc(n * sizeof *tmp);
    if (!idx || !tmp) {
        free(idx);
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_indices(idx, tmp, n, values);
    uint32_t c = 0;
    cluster_of[idx[0]] = 0;
    for (size_t i = 1; i < n; i++) {
        double a = values[idx[i - 1]], b = values[idx[i]];
        if (!(nv_seg_rel_distance(a, b) < threshold))
            c++;
        cluster_of[idx[i]] = c;
    }
    free(idx);
    free(tmp);
    return (long)c + 1;
}

struct seg_key {
    uint32_t cluster, signature;
    double time;
    double work;
};

static int cmp_key(const void *a, const void *b)
{
    const struct seg_key *x = a, *y = b;
    if (x->cluster != y->cluster)
        return x->cluster < y->cluster ? -1 : 1;
    if (x->signature != y->signature)
        return x->signature < y->signature ? -1 : 1;
    return (x->time > y->time) - (x->time < y->time);
}

static void keep_largest_group(nv_seg_estimate *out, const nv_seg_group_summary *g)
{
    double tot = g->time_median_us * (double)g->segments;
    if (out->ngroup_summaries < NV_SEG_REPORT_GROUPS) {
        out->group[out->ngroup_summaries++] = *g;
        return;
    }
    size_t smallest = 0;
    for (size_t i = 1; i < NV_SEG_REPORT_GROUPS; i++)
        if (out->group[i].time_median_us * (double)out->group[i].segments <
            out->group[smallest].time_median_us * (double)out->group[smallest].segments)
            smallest = i;
    if (tot > out->group[smallest].time_median_us * (double)out->group[smallest].segments)
        out->group[smallest] = *g;
}

static double clean(double x)
{
    return isfinite(x) ? x : 0;
}

int nv_seg_estimate_run(const double *work, const double *time_us, const uint32_t *signature,
                        size_t n, double runtime_us, const nv_seg_estimate_opts *opts,
                        nv_seg_estimate *out)
{
    memset(out, 0, sizeof *out);
    if ((n > 0 && (!work || !time_us || !signature)) || !opts || n > NV_SEG_MAX_SEGMENTS ||
        !(opts->rel_threshold > 0) || opts->min_group < 1 || !(opts->mad_factor >= 0))
        return -1;
    out->segments = n;
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += clean(time_us[i]) > 0 ? clean(time_us[i]) : 0;
    /* the segments tile the run: a runtime shorter than their total is not
     * the run's (1 % slack for the medians across ranks) */
    out->runtime_given_us = runtime_us;
    bool given = isfinite(runtime_us) && runtime_us > 0;
    out->runtime_us = given && runtime_us >= total ? runtime_us : total;
    out->runtime_replaced = (given && runtime_us < 0.99 * total) || (!given && runtime_us != 0);
    out->rate_hz = out->runtime_us > 0 ? (double)n / (out->runtime_us * 1e-6) : 0;
    out->high_rate = out->rate_hz > opts->high_rate_hz;
    if (n == 0) {
        out->p_high = nv_seg_p_high(0);
        return 0;
    }
    uint32_t *cluster = malloc(n * sizeof *cluster);
    struct seg_key *key = malloc(n * sizeof *key);
    double *times = malloc(n * sizeof *times), *scratch = malloc(n * sizeof *scratch);
    double *cleaned = malloc(n * sizeof *cleaned);
    int rc = -1;
    if (!cluster || !key || !times || !scratch || !cleaned)
        goto done;
    for (size_t i = 0; i < n; i++)
        cleaned[i] = clean(work[i]);
    long nclusters = nv_seg_cluster_relative(cleaned, n, opts->rel_threshold, cluster);
    if (nclusters < 0)
        goto done;
    out->clusters = (size_t)nclusters;
    for (size_t i = 0; i < n; i++) {
        key[i].cluster = cluster[i];
        key[i].signature = signature[i];
        key[i].time = clean(time_us[i]);
        key[i].work = cleaned[i];
    }
    qsort(key, n, sizeof *key, cmp_key);
    for (size_t start = 0; start < n;) {
        size_t end = start + 1;
        while (end < n && key[end].cluster == key[start].cluster &&
               key[end].signature == key[start].signature)
            end++;
        size_t m = end - start;
        out->groups++;
        if (m >= opts->min_group) {
            nv_seg_group_summary g = {.segments = m, .signature = key[start].signature};
            for (size_t i = 0; i < m; i++) {
                times[i] = key[start + i].time;
                scratch[i] = key[start + i].work;
            }
            g.work_median = nv_seg_median_inplace(scratch, m);
            g.time_median_us = nv_seg_median_inplace(times, m); /* times now sorted */
            g.mad_us = nv_seg_mad(times, m, g.time_median_us, scratch);
            g.threshold_us = g.time_median_us + opts->mad_factor * g.mad_us;
            for (size_t i = 0; i < m; i++)
                if (times[i] > g.threshold_us) {
                    g.interfered++;
                    g.excess_us += times[i] - g.threshold_us;
                }
            double fastest_decile = times[(size_t)floor(0.1 * (double)(m - 1))];
            out->continuous_us += (double)m * (g.time_median_us - fastest_decile);
            out->median_baseline_us += (double)m * g.time_median_us;
            out->groups_used++;
            out->segments_used += m;
            out->interfered += g.interfered;
            out->excess_us += g.excess_us;
            keep_largest_group(out, &g);
        }
        start = end;
    }
    out->interference_pct = fmin(100, clean(100.0 * out->excess_us / out->runtime_us));
    out->continuous_pct = fmin(100, clean(100.0 * out->continuous_us / out->runtime_us));
    out->p_high = nv_seg_p_high(out->interference_pct);
    out->cls = nv_seg_classify(out->interference_pct);
    rc = 0;
done:
    free(cluster);
    free(key);
    free(times);
    free(scratch);
    free(cleaned);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}
