/* calibration.c - idle-switch service rate and Var(S) (calibration.h). */
#include "calibration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sort_cmp.h"

static const char *const method_names[] = {"minimum", "low-quantile", "mean"};

const char *nv_cal_method_name(nv_cal_method m)
{
    if ((unsigned)m < sizeof method_names / sizeof method_names[0])
        return method_names[m];
    return "unknown";
}

int nv_cal_method_from_name(const char *name, nv_cal_method *out)
{
    for (unsigned i = 0; i < sizeof method_names / sizeof method_names[0]; i++)
        if (name && !strcmp(name, method_names[i])) {
            *out = (nv_cal_method)i;
            return 0;
        }
    return -1;
}

double nv_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    if (!(q > 0))
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    double frac = pos - (double)lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int nv_calibrate(const double *latency_us, size_t n, nv_cal_method method, double q,
                 nv_calibration *out)
{
    memset(out, 0, sizeof *out);
    if (n > NV_CAL_MAX_SAMPLES || (n && !latency_us))
        return -1;
    if (method == NV_CAL_LOW_QUANTILE && !(q >= 0 && q <= 0.5))
        return -1;
    if (method != NV_CAL_MINIMUM && method != NV_CAL_LOW_QUANTILE && method != NV_CAL_MEAN)
        return -1;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t k = 0;
    uint64_t rejected = 0;
    for (size_t i = 0; i < n; i++) {
        double x = latency_us[i];
        if (isfinite(x) && x > 0)
            v[k++] = x;
        else
            rejected++;
    }
    if (k < 2) {
        free(v);
        return -1;
    }
    /* two-pass mean/variance: the values are close together, so the naive
     * sum-of-squares form would lose most of its digits */
    double sum = 0;
    for (size_t i = 0; i < k; i++)
        sum += v[i];
    double mean = sum / (double)k;
    double ss = 0;
    for (size_t i = 0; i < k; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    qsort(v, k, sizeof *v, nv_cmp_double);

    double service;
    if (method == NV_CAL_MINIMUM)
        service = v[0];
    else if (method == NV_CAL_LOW_QUANTILE)
        service = nv_quantile_sorted(v, k, q);
    else
        service = mean;

    out->method = method;
    out->quantile = method == NV_CAL_LOW_QUANTILE ? q : 0;
    out->service_us = service;
    out->mu_per_us = 1.0 / service;
    out->var_s_us2 = ss / (double)(k - 1);
    out->idle_mean_us = mean;
    out->samples = k;
    out->rejected = rejected;
    for (size_t i = 0; i < k; i++)
        nv_hist_add(&out->hist, v[i]);
    free(v);
    return 0;
}
