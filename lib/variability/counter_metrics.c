/* counter_metrics.c - *Variability Estimate*'s Table III metrics over blades. */
#include "counter_metrics.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sort_cmp.h"

#define MAX_BLADES 4096

static const char *const metric_names[NV_CM_COUNT] = {
    "proc_traffic_per_s", "net_stall_to_traffic", "net_to_proc_traffic",
    "net_stalls",         "net_traffic",
};

const char *nv_counter_metric_name(enum nv_counter_metric m)
{
    return (m >= 0 && m < NV_CM_COUNT) ? metric_names[m] : "unknown";
}

static double quantile_sorted(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return v[lo] + (v[hi] - v[lo]) * frac;
}

struct nv_stat5 nv_stat5_of(double *v, size_t n)
{
    struct nv_stat5 s = {NAN, NAN, NAN, NAN, NAN, n};
    if (n == 0)
        return s;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.variance = ss / (double)n;
    qsort(v, n, sizeof *v, nv_cmp_double);
    s.p75 = quantile_sorted(v, n, 0.75);
    s.p95 = quantile_sorted(v, n, 0.95);
    s.p99 = quantile_sorted(v, n, 0.99);
    return s;
}

void nv_counter_metrics_compute(const struct nv_blade_traffic *b, size_t n,
                                const char *traffic_unit, struct nv_counter_metrics *out)
{
    size_t cnt[NV_CM_COUNT] = {0};
    if (n > MAX_BLADES)
        n = MAX_BLADES;

    size_t have_net = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(b[i].net_traffic))
            have_net++;
    bool endpoint_fallback = have_net == 0;

    double *buf = malloc(sizeof(double) * NV_CM_COUNT * (n ? n : 1));
    if (!buf) {
        for (int m = 0; m < NV_CM_COUNT; m++) {
            out->stat[m] = nv_stat5_of(NULL, 0);
            out->source[m] = "unavailable: out of memory";
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const struct nv_blade_traffic *t = &b[i];
        double *row;
        /* quotients are checked too: a tiny interval or traffic overflows to inf */
        if (t->dt_s > 0 && isfinite(t->proc_traffic) && isfinite(t->proc_traffic / t->dt_s)) {
            row = buf + NV_CM_PROC_TRAFFIC_PER_S * n;
            row[cnt[NV_CM_PROC_TRAFFIC_PER_S]++] = t->proc_traffic / t->dt_s;
        }
        double traffic = endpoint_fallback ? t->proc_traffic : t->net_traffic;
        double stalls = endpoint_fallback ? t->proc_stalls : t->net_stalls;
        if (isfinite(stalls) && isfinite(traffic) && traffic > 0 && isfinite(stalls / traffic)) {
            row = buf + NV_CM_NET_STALL_RATIO * n;
            row[cnt[NV_CM_NET_STALL_RATIO]++] = stalls / traffic;
        }
        if (!endpoint_fallback && isfinite(t->net_traffic) && t->proc_traffic > 0 &&
            isfinite(t->net_traffic / t->proc_traffic)) {
            row = buf + NV_CM_NET_TO_PROC_RATIO * n;
            row[cnt[NV_CM_NET_TO_PROC_RATIO]++] = t->net_traffic / t->proc_traffic;
        }
        if (isfinite(stalls)) {
            row = buf + NV_CM_NET_STALLS * n;
            row[cnt[NV_CM_NET_STALLS]++] = stalls;
        }
        if (isfinite(traffic)) {
            row = buf + NV_CM_NET_TRAFFIC * n;
            row[cnt[NV_CM_NET_TRAFFIC]++] = traffic;
        }
    }
    for (int m = 0; m < NV_CM_COUNT; m++)
        out->stat[m] = nv_stat5_of(buf + (size_t)m * n, cnt[m]);
    free(buf);

    const char *net_src =
        endpoint_fallback ? "endpoint ports (no network-side counters)" : "network-side ports";
    out->source[NV_CM_PROC_TRAFFIC_PER_S] = cnt[0] ? "processor-side ports" : "unavailable";
    out->source[NV_CM_NET_STALL_RATIO] = cnt[1] ? net_src : "unavailable: no stall counters";
    out->source[NV_CM_NET_TO_PROC_RATIO] =
        cnt[2] ? "network-side / processor-side ports" : "unavailable: no network-side counters";
    out->source[NV_CM_NET_STALLS] = cnt[3] ? net_src : "unavailable: no stall counters";
    out->source[NV_CM_NET_TRAFFIC] = cnt[4] ? net_src : "unavailable";
    bool flits = traffic_unit && traffic_unit[0] == 'f';
    out->unit[NV_CM_PROC_TRAFFIC_PER_S] = flits ? "flits/s" : "bytes/s";
    out->unit[NV_CM_NET_STALL_RATIO] = flits ? "stalls/flit" : "stall units/byte";
    out->unit[NV_CM_NET_TO_PROC_RATIO] = "ratio";
    out->unit[NV_CM_NET_STALLS] = "stall units";
    out->unit[NV_CM_NET_TRAFFIC] = flits ? "flits" : "bytes";
}
