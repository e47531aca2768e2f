/* lat_hist.c - see lat_hist.h. */
#include "lat_hist.h"

#include <string.h>
#include <time.h>

uint64_t nv_lat_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void nv_lat_record(nv_lat_hist *h, uint64_t ns)
{
    uint64_t b = ns / 100;
    if (b >= NV_LAT_BUCKETS)
        b = NV_LAT_BUCKETS - 1;
    __atomic_add_fetch(&h->count[b], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->total_ns, ns, __ATOMIC_RELAXED);
    uint64_t m = __atomic_load_n(&h->max_ns, __ATOMIC_RELAXED);
    while (ns > m &&
           !__atomic_compare_exchange_n(&h->max_ns, &m, ns, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static double quantile_us(const uint64_t *c, uint64_t n, double q)
{
    uint64_t want = (uint64_t)(q * (double)(n - 1)) + 1, seen = 0;
    for (int b = 0; b < NV_LAT_BUCKETS; b++) {
        seen += c[b];
        if (seen >= want)
            return b == NV_LAT_BUCKETS - 1 ? 100.0 : 0.1 * b + 0.05;
    }
    return 100.0;
}

void nv_lat_summarize(const nv_lat_hist *h, nv_lat_summary *out)
{
    uint64_t c[NV_LAT_BUCKETS], n = 0;
    for (int b = 0; b < NV_LAT_BUCKETS; b++)
        n += c[b] = __atomic_load_n(&h->count[b], __ATOMIC_RELAXED);
    memset(out, 0, sizeof *out);
    out->calls = n;
    if (!n)
        return;
    out->median_us = quantile_us(c, n, 0.5);
    out->p90_us = quantile_us(c, n, 0.9);
    out->p99_us = quantile_us(c, n, 0.99);
    out->mean_us = (double)__atomic_load_n(&h->total_ns, __ATOMIC_RELAXED) / 1e3 /
                   (double)__atomic_load_n(&h->calls, __ATOMIC_RELAXED);
    out->max_us = (double)__atomic_load_n(&h->max_ns, __ATOMIC_RELAXED) / 1e3;
}
