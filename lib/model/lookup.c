/* lookup.c - AverageLT, AverageStDevLT and PDFLT configuration choice
 * (lookup.h). */
#include "lookup.h"

#include <math.h>
#include <string.h>

size_t nv_latency_summary_of(const double *latency_us, size_t n, nv_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    size_t k = 0;
    double sum = 0;
    for (size_t i = 0; latency_us && i < n; i++)
        if (isfinite(latency_us[i]) && latency_us[i] >= 0) {
            sum += latency_us[i];
            k++;
        }
    if (!k)
        return 0;
    double mean = sum / (double)k, ss = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(latency_us[i]) && latency_us[i] >= 0) {
            ss += (latency_us[i] - mean) * (latency_us[i] - mean);
            nv_hist_add(&out->hist, latency_us[i]);
        }
    out->mean_us = mean;
    out->sd_us = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
    return k;
}

double nv_interval_overlap_us(double mean_a, double sd_a, double mean_b, double sd_b)
{
    double lo = fmax(mean_a - fabs(sd_a), mean_b - fabs(sd_b));
    double hi = fmin(mean_a + fabs(sd_a), mean_b + fabs(sd_b));
    double len = hi - lo;
    return len > 0 && isfinite(len) ? len : 0;
}

double nv_hist_overlap(const nv_histogram *a, const nv_histogram *b)
{
    if (!a->total || !b->total)
        return 0;
    /* integer-valued products summed in double, one division at the end */
    double s = 0;
    for (int k = 0; k < NV_HIST_BINS; k++)
        s += (double)a->count[k] * (double)b->count[k];
    return s / ((double)a->total * (double)b->total);
}

/* a better than b: higher score, then nearer mean (then the lower index,
 * which the callers get by scanning upwards and replacing only on better) */
static int better(double score, double dist, double best_score, double best_dist)
{
    if (score > best_score)
        return 1;
    return score == best_score && dist < best_dist;
}

long nv_pick_average_lt(const nv_latency_summary *b, const nv_latency_summary *cfg, size_t n)
{
    long best = -1;
    double best_dist = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(b->mean_us - cfg[i].mean_us);
        if (best < 0 || d < best_dist) {
            best = (long)i;
            best_dist = d;
        }
    }
    return best;
}

long nv_pick_average_stdev_lt(const nv_latency_summary *b, const nv_latency_summary *cfg, size_t n)
{
    long best = -1;
    double best_score = -1, best_dist = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double s = nv_interval_overlap_us(b->mean_us, b->sd_us, cfg[i].mean_us, cfg[i].sd_us);
        double d = fabs(b->mean_us - cfg[i].mean_us);
        if (best < 0 || better(s, d, best_score, best_dist)) {
            best = (long)i;
            best_score = s;
            best_dist = d;
        }
    }
    return best;
}

long nv_pick_pdf_lt(const nv_latency_summary *b, const nv_latency_summary *cfg, size_t n)
{
    long best = -1;
    double best_score = -1, best_dist = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double s = nv_hist_overlap(&b->hist, &cfg[i].hist);
        double d = fabs(b->mean_us - cfg[i].mean_us);
        if (best < 0 || better(s, d, best_score, best_dist)) {
            best = (long)i;
            best_score = s;
            best_dist = d;
        }
    }
    return best;
}
