/* metrics.c - absolute/relative error, R^2, RCC, quartiles (metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h" /* nv_quantile_sorted */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int nv_quartiles_of(const double *v, size_t n, nv_quartiles *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > NV_METRICS_MAX_SAMPLES || !v)
        return -1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            free(s);
            return -1;
        }
        s[i] = v[i];
        sum += v[i];
    }
    qsort(s, n, sizeof *s, cmp_double);
    out->n = n;
    out->min = s[0];
    out->q1 = nv_quantile_sorted(s, n, 0.25);
    out->median = nv_quantile_sorted(s, n, 0.5);
    out->q3 = nv_quantile_sorted(s, n, 0.75);
    out->max = s[n - 1];
    out->mean = sum / (double)n;
    free(s);
    return 0;
}

double nv_rcc(const double *measured, const double *predicted, size_t n)
{
    if (n < 2 || n > NV_METRICS_MAX_SAMPLES)
        return 0;
    double concordant = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            double dm = measured[i] - measured[j], dp = predicted[i] - predicted[j];
            if ((dm > 0 && dp > 0) || (dm < 0 && dp < 0))
                concordant += 1;
        }
    return concordant / ((double)n * (double)(n - 1) / 2.0);
}

int nv_error_summary_of(const double *measured, const double *predicted, size_t n,
                        nv_error_summary *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > NV_METRICS_MAX_SAMPLES || !measured || !predicted)
        return -1;
    double *abs_err = malloc(n * sizeof *abs_err);
    if (!abs_err)
        return -1;
    double mean_m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(measured[i]) || !isfinite(predicted[i])) {
            free(abs_err);
            return -1;
        }
        abs_err[i] = fabs(predicted[i] - measured[i]);
        mean_m += measured[i];
    }
    mean_m /= (double)n;
    int rc = nv_quartiles_of(abs_err, n, &out->abs_pp);
    free(abs_err);
    if (rc) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->n = n;

    double ss_res = 0, ss_tot = 0, rel_sum = 0;
    for (size_t i = 0; i < n; i++) {
        double r = measured[i] - predicted[i];
        ss_res += r * r;
        ss_tot += (measured[i] - mean_m) * (measured[i] - mean_m);
        if (measured[i] != 0) {
            double rel = (predicted[i] - measured[i]) / measured[i] * 100.0;
            if (!isfinite(rel))
                continue;
            if (out->n_rel == 0 || rel < out->rel_min_pct)
                out->rel_min_pct = rel;
            if (out->n_rel == 0 || rel > out->rel_max_pct)
                out->rel_max_pct = rel;
            rel_sum += fabs(rel);
            out->n_rel++;
        }
    }
    out->rel_mean_pct = out->n_rel ? rel_sum / (double)out->n_rel : 0;
    out->r2_defined = ss_tot > 0;
    out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 0;
    out->rcc = nv_rcc(measured, predicted, n);
    return 0;
}
