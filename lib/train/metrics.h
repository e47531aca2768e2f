/* metrics.h - prediction error metrics of *Queue-theory interference model* and *Communication time prediction*: absolute error
 * in percentage points with its quartiles (*Queue-theory interference model*'s box plots), relative
 * error, R^2 and the rank correlation coefficient RCC (*Communication time prediction*, section
 * 4.4: the fraction of pairs (i,j) ordered the same way by measurement and
 * prediction; ties in either count 0). */
#ifndef NETVAR_METRICS_H
#define NETVAR_METRICS_H

#include <stddef.h>

/* Most samples the metrics accept (bounds the sorted copy; RCC is O(n^2)). */
#define NV_METRICS_MAX_SAMPLES 200000u

typedef struct nv_quartiles {
    size_t n;
    double min, q1, median, q3, max, mean; /* quartiles by linear interpolation */
} nv_quartiles;

typedef struct nv_error_summary {
    size_t n;
    nv_quartiles abs_pp; /* |predicted - measured|, percentage points */
    size_t n_rel;        /* pairs with measured != 0 (relative error defined) */
    double rel_mean_pct; /* mean of |predicted - measured| / |measured| * 100 */
    double rel_min_pct;  /* signed (predicted - measured) / measured * 100 */
    double rel_max_pct;
    int r2_defined; /* 0 when all measured values are equal */
    double r2;      /* 1 - SS_res / SS_tot (0 when undefined) */
    double rcc;     /* in [0, 1]; 0 when n < 2 */
} nv_error_summary;

/* Quartiles of n finite values.  Returns 0, or -1 (out zeroed) when n is 0
 * or too large, a value is not finite, or memory runs out. */
int nv_quartiles_of(const double *v, size_t n, nv_quartiles *out);

/* RCC of *Communication time prediction* (ties count 0); 0 when n < 2. */
double nv_rcc(const double *measured, const double *predicted, size_t n);

/* All of the above for n (measured, predicted) pairs, in percent.
 * Returns 0, or -1 (out zeroed) under the same conditions as
 * nv_quartiles_of. */
int nv_error_summary_of(const double *measured, const double *predicted, size_t n,
                        nv_error_summary *out);

#endif
