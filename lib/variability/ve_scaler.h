/* ve_scaler.h - robust feature scaling (*Variability Estimate* §IV-A): subtract each
 * feature's median and divide by its interquartile range (p75 - p25), so
 * that features spanning 1 to 1e11 weigh alike and outliers do not set the
 * scale.  A feature with zero IQR is divided by 1 instead. */
#ifndef NETVAR_VE_SCALER_H
#define NETVAR_VE_SCALER_H

#include <stddef.h>

/* Fits median[d] and iqr[d] from X (n rows of d, row-major).  Returns 0, or
 * -1 when n == 0, a value is not finite, or memory runs out. */
int nv_scaler_fit(const double *X, size_t n, size_t d, double *median, double *iqr);

/* out[j] = (x[j] - median[j]) / iqr[j] for j < d (x and out may alias). */
void nv_scaler_apply(const double *median, const double *iqr, size_t d, const double *x,
                     double *out);

#endif
