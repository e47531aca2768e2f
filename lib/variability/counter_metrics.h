/* counter_metrics.h - the per-job counter metrics of *Variability Estimate* (Table III),
 * each summarized over the blades the job touched as mean, variance, p75,
 * p95 and p99.  One input row per blade, never per rank or per node.
 *
 * Processor side = the ports where the job's nodes inject (NIC, netdev,
 * Aries processor tiles); network side = router/switch ports (Aries network
 * tiles, switch ports).  Where a counter source has no network-side ports
 * (plain netdev, an InfiniBand HCA), the stall metrics fall back to the
 * endpoint ports' stalls and say so in their source; metrics that need the
 * network side are reported unavailable, never invented. */
#ifndef NETVAR_COUNTER_METRICS_H
#define NETVAR_COUNTER_METRICS_H

#include <stddef.h>

enum nv_counter_metric {
    NV_CM_PROC_TRAFFIC_PER_S = 0, /* processor-side traffic per second */
    NV_CM_NET_STALL_RATIO,        /* network-side stalls / network-side traffic */
    NV_CM_NET_TO_PROC_RATIO,      /* network-side traffic / processor-side traffic */
    NV_CM_NET_STALLS,             /* total stalls */
    NV_CM_NET_TRAFFIC,            /* total traffic */
    NV_CM_COUNT
};

/* One blade's totals over the job (or over one sampling window). NAN marks
 * a quantity the counter source did not provide. */
struct nv_blade_traffic {
    double dt_s;         /* measured interval, seconds */
    double proc_traffic; /* processor-side bytes (or flits), out + in */
    double proc_stalls;  /* processor-side stall units (IB xmit_wait), or NAN */
    double net_traffic;  /* network-side bytes (or flits), or NAN */
    double net_stalls;   /* network-side stall units, or NAN */
};

struct nv_stat5 {
    double mean, variance, p75, p95, p99; /* NAN when n == 0 */
    size_t n;                             /* blades that contributed */
};

struct nv_counter_metrics {
    struct nv_stat5 stat[NV_CM_COUNT];
    const char *source[NV_CM_COUNT]; /* static text: where the numbers came from */
    const char *unit[NV_CM_COUNT];
};

const char *nv_counter_metric_name(enum nv_counter_metric m);

/* Summary statistics of v[0..n) (population variance; percentiles by
 * linear interpolation between closest ranks).  Sorts v in place. */
struct nv_stat5 nv_stat5_of(double *v, size_t n);

/* Fills *out from n blades (at most 4096 are used). traffic_unit is
 * "bytes" or "flits". */
void nv_counter_metrics_compute(const struct nv_blade_traffic *b, size_t n,
                                const char *traffic_unit, struct nv_counter_metrics *out);

#endif
