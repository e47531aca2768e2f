/* lookup.h - the three look-up-table rules of *Queue-theory interference model* (section 4.1) that
 * pick the CompressionB configuration C_i "closest" to an app B's latency:
 *
 *   AverageLT       nearest mean latency:            min |mu_B - mu_Ci|
 *   AverageStDevLT  longest overlap of mu +- sd:     max |I_B  n  I_Ci|
 *   PDFLT           largest shared probability mass:  max sum_k f_B(k) f_Ci(k)
 *
 * PDFLT's integral is taken over the shared log-spaced bins with f the
 * probability mass per bin, so it is <= 1 as the paper notes (a density per
 * log-unit only multiplies it by the constant bins-per-decade, which does
 * not change the choice).
 * Ties (e.g. every overlap is zero) go to the nearest mean, then to the
 * lowest index, so the choice is deterministic. */
#ifndef NETVAR_LOOKUP_H
#define NETVAR_LOOKUP_H

#include <stddef.h>

#include "histogram.h"

typedef struct nv_latency_summary {
    double mean_us; /* mean probe (ImpactB) latency, us */
    double sd_us;   /* its standard deviation, us */
    nv_histogram hist;
} nv_latency_summary;

/* Summary of n probe latencies (us): mean, sample standard deviation and
 * histogram; NaN, infinite and negative samples are skipped.  Returns the
 * number of samples used (0 leaves *out zeroed). */
size_t nv_latency_summary_of(const double *latency_us, size_t n, nv_latency_summary *out);

/* Length (us) of [ma-sa, ma+sa] n [mb-sb, mb+sb]; 0 when disjoint. */
double nv_interval_overlap_us(double mean_a, double sd_a, double mean_b, double sd_b);

/* sum_k p_a(k) p_b(k) over the shared bins, in [0, 1]; 0 if either is empty. */
double nv_hist_overlap(const nv_histogram *a, const nv_histogram *b);

/* Index in cfg[0..n) chosen by each rule for neighbour b; -1 when n is 0. */
long nv_pick_average_lt(const nv_latency_summary *b, const nv_latency_summary *cfg, size_t n);
long nv_pick_average_stdev_lt(const nv_latency_summary *b, const nv_latency_summary *cfg, size_t n);
long nv_pick_pdf_lt(const nv_latency_summary *b, const nv_latency_summary *cfg, size_t n);

#endif
