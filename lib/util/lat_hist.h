/* lat_hist.h - how long a call took, counted by many threads at once
 * without a lock: job_submit/netvar times its own job_submit() inside
 * slurmctld with it and logs the summary when the plugin unloads, so the
 * in-process benchmark's figure can be checked against the daemon's.
 *
 * 0.1 us buckets up to 100 us, then one bucket for the rest; each record
 * is two relaxed atomic adds (and a compare for the maximum). */
#ifndef NETVAR_LAT_HIST_H
#define NETVAR_LAT_HIST_H

#include <stdint.h>

#define NV_LAT_BUCKETS 1001 /* 0.1 us each; the last holds >= 100 us */

typedef struct nv_lat_hist {
    uint64_t count[NV_LAT_BUCKETS];
    uint64_t calls, total_ns, max_ns;
} nv_lat_hist;

/* monotonic clock, nanoseconds (a vDSO read: no system call) */
uint64_t nv_lat_now_ns(void);

/* count one call of ns nanoseconds (thread-safe) */
void nv_lat_record(nv_lat_hist *h, uint64_t ns);

typedef struct nv_lat_summary {
    uint64_t calls;
    double median_us, p90_us, p99_us, mean_us, max_us; /* quantiles to the bucket's middle */
} nv_lat_summary;

/* a snapshot (racing records may or may not be in it) */
void nv_lat_summarize(const nv_lat_hist *h, nv_lat_summary *out);

#endif
