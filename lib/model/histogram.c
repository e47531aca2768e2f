/* histogram.c - fixed log-spaced latency bins (see histogram.h). */
#include "histogram.h"

#include <math.h>

double nv_hist_edge_us(int k)
{
    if (k < 0)
        k = 0;
    if (k > NV_HIST_BINS)
        k = NV_HIST_BINS;
    return pow(10.0, (double)k / NV_HIST_BINS_PER_DECADE);
}

int nv_hist_bin(double latency_us)
{
    if (!(latency_us >= 1.0)) /* also catches NaN */
        return 0;
    double k = floor(log10(latency_us) * NV_HIST_BINS_PER_DECADE);
    if (k >= NV_HIST_BINS)
        return NV_HIST_BINS - 1;
    /* guard the edge against rounding in log10 */
    int b = (int)k;
    if (b + 1 < NV_HIST_BINS && latency_us >= nv_hist_edge_us(b + 1))
        b++;
    else if (b > 0 && latency_us < nv_hist_edge_us(b))
        b--;
    return b;
}

void nv_hist_add(nv_histogram *h, double latency_us)
{
    h->count[nv_hist_bin(latency_us)]++;
    h->total++;
}

double nv_hist_density(const nv_histogram *h, int k)
{
    if (!h->total || k < 0 || k >= NV_HIST_BINS)
        return 0.0;
    return (double)h->count[k] / (double)h->total;
}
