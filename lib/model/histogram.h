/* histogram.h - latency histograms on the fixed log-spaced bins shared by
 * every part of netvar (probes write them, model/ compares them).
 *
 * Bins: NV_HIST_BINS bins with 16 per decade from 1 us to 1e6 us.
 * Bin k covers [10^(k/16), 10^((k+1)/16)) us; values below 1 us land in
 * bin 0 and values at or above 1e6 us in the last bin.  Fixed bins make
 * histograms from different runs and machines directly comparable. */
#ifndef NETVAR_HISTOGRAM_H
#define NETVAR_HISTOGRAM_H

#include <stdint.h>

#define NV_HIST_BINS 96
#define NV_HIST_BINS_PER_DECADE 16

typedef struct nv_histogram {
    uint64_t count[NV_HIST_BINS];
    uint64_t total;
} nv_histogram;

/* Lower edge of bin k in microseconds (k in 0..NV_HIST_BINS; k ==
 * NV_HIST_BINS gives the upper edge of the last bin). */
double nv_hist_edge_us(int k);

/* Bin index for a latency in microseconds (NaN and negatives go to 0). */
int nv_hist_bin(double latency_us);

void nv_hist_add(nv_histogram *h, double latency_us);

/* Fraction of the samples in bin k (0 when empty). */
double nv_hist_density(const nv_histogram *h, int k);

#endif
