/* ve_scaler.c - median/IQR scaling (see ve_scaler.h). */
#include "ve_scaler.h"

#include <math.h>
#include <stdlib.h>

#include "sort_cmp.h"

/* linear interpolation between closest ranks, as numpy's default */
static double quantile_sorted(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

int nv_scaler_fit(const double *X, size_t n, size_t d, double *median, double *iqr)
{
    if (n == 0 || d == 0)
        return -1;
    double *col = malloc(n * sizeof *col);
    if (!col)
        return -1;
    for (size_t j = 0; j < d; j++) {
        for (size_t i = 0; i < n; i++) {
            col[i] = X[i * d + j];
            if (!isfinite(col[i])) {
                free(col);
                return -1;
            }
        }
        qsort(col, n, sizeof *col, nv_cmp_double);
        median[j] = quantile_sorted(col, n, 0.5);
        double r = quantile_sorted(col, n, 0.75) - quantile_sorted(col, n, 0.25);
        iqr[j] = (isfinite(r) && r > 0) ? r : 1.0;
    }
    free(col);
    return 0;
}

void nv_scaler_apply(const double *median, const double *iqr, size_t d, const double *x,
                     double *out)
{
    for (size_t j = 0; j < d; j++)
        out[j] = (x[j] - median[j]) / iqr[j];
}
